"""A training ranking's #1 run as the API, the page and the CLI give it: the count, the bill and its caveats."""

from __future__ import annotations

import re

import pytest

DEEPSEEK_FT = {
    "model": "deepseek-v3",
    "method": "full_ft",
    "seq_len": 4096,
    "global_batch_seqs": 64,
    "total_tokens": 1e9,
    "max_gpus": 512,
}


def test_deepseek_v3_fine_tuning_ranks_the_frontiers_cheapest_point_first(client):
    """72 B200 (TP8 FSDP ×9) at $6,652 ranked first where its frontier showed 128 (TP4 PP8 ZeRO-1 ×4) at $1,723:
    the count sweep stopped after two worse counts. Since expert parallelism (trainep) the 128 run splits the experts:
    PP16 EP4 ZeRO-1 ×8 recomputing 1 of 4 layers per stage ($1,818); since each (TP, EP) group also tries deeper PPs
    while its smallest recomputes (moeep) it is TP4 PP8 EP8 ZeRO-1 ×4 without recompute at $1,524: the experts'
    gradients reduce over TP × DP / EP ranks only, where TP4 PP8's were exposed. Since the data-parallel rings run on
    every NIC of a node (fsdpbytes) TP4 PP8's gradients hide again and it is TP4 PP8 ZeRO-1 ×4 without EP."""
    body = client.post("/api/v1/rank/training", json={**DEEPSEEK_FT, "gpus": ["B200"], "providers": ["coreweave"]})
    best, frontier = body.json()["options"][0], body.json()["frontier"]
    assert best["feasible"] and frontier
    assert best["total_usd"] <= min(p["total_usd"] for p in frontier if p["on_time"]) * 1.001
    assert best["gpu_count"] == 128 and "TP4 PP8 ZeRO-1" in best["layout"] and "no recompute" in best["layout"]


def test_a_capacity_block_run_is_billed_whole_days(client):
    """31.1 h on an AWS Capacity Block (24 h minimum, booked by the day) billed 31.1 h ($1,224); it books 48 h."""
    body = {
        "model": "llama-3.1-8b",
        "method": "full_ft",
        "total_tokens": 8e9,
        "max_gpus": 8,
        "price_types": ["capacity_block"],
        "include_stale": True,
        "gpus": ["H100-SXM"],
    }
    ranking = client.post("/api/v1/rank/training", json=body).json()
    best = ranking["options"][0]
    assert best["provider"] == "aws" and 24 < best["total_hours"] < 48
    assert best["billed_hours"] == 48.0
    assert best["total_usd"] == best["gpu_count"] * best["usd_per_gpu_hour"] * 48.0
    # the cost-time frontier bills the same hours, so its point at the #1's count costs what the #1 does
    point = next(p for p in ranking["frontier"] if p["gpu_count"] == best["gpu_count"] and p["provider"] == "aws")
    assert point["total_usd"] == pytest.approx(best["total_usd"])


RESERVED_8B = "phase=training&model=llama-3.1-8b&include_stale=true&method=full_ft&price_types=reserved"


def billed_month(run_hours: str) -> str:
    """The note on a run shorter than its 1-month minimum; the hours of the run come from the estimate (30.5 h before
    the training refit, 30.4 h after it), the words, the start-up and the 730 h are the point."""
    use = f"0.25 h start-up + {run_hours} h of run"
    return f"billed 730 h = max({use}, 1-month minimum, assumed: the source states no term)"


def test_a_reserved_runs_month_is_said_where_its_total_is(client):
    """'the run bills $2,548 ... taking 1.2 days' at $3.49/GPU-h said nothing of the 730 h one-month minimum."""
    best = client.get(f"/rank.json?{RESERVED_8B}").json()["options"][0]
    assert 24 < best["total_hours"] < 730 / 2  # a run well inside the month it is billed
    note = billed_month(f"{best['total_hours'] - 0.25:.1f}")  # total_hours: start-up and run
    assert best["billed_hours"] == 730.0 and best["billing_note"] == note
    billed = next(t for t in best["terms"] if t["name"] == "billed hours")
    # the term's figures to four digits (terms43: they reproduce its value), the note's to one decimal
    exact = note.split(" = ", 1)[1].replace(
        f"{best['total_hours'] - 0.25:.1f} h", f"{best['total_hours'] - 0.25:.2f} h"
    )
    assert billed["value"] == 730.0 and billed["detail"] == exact
    html = client.get(f"/?{RESERVED_8B}").text
    summary = html[html.index("Best:") : html.index('<div class="share">')]
    assert f"under the offer's terms ({note})" in summary
    assert "(billed 730 h)" in html and "run total" in html


def test_the_cli_training_table_has_billed_hours_and_says_why(database, capsys):
    from app.cli.main import main

    argv = ["rank", "training", "--model", "llama-3.1-8b", "--method", "full_ft", "--include-stale"]
    assert main([*argv, "--price-types", "reserved", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("#"))
    first = next(line for line in out.splitlines() if line.startswith("1 "))
    row = dict(zip(re.split(r"\s{2,}", header.strip()), re.split(r"\s{2,}", first.strip()), strict=False))
    run_days = float(row["run time"].split()[0]) / (1 if row["run time"].endswith("days") else 24)
    assert row["billed h"] == "730" and run_days < 30  # a run of a day or so, billed the month
    run = re.escape(billed_month("RUN")).replace("RUN", r"[\d.]+")  # the run's hours: total h less the start-up
    assert re.search(f"#1, #2, #3: {run}", out)


def test_spot_rows_never_say_zero_interruptions(client):
    html = client.get("/?phase=training&model=llama-3.1-8b&include_stale=true&method=full_ft&price_types=spot").text
    assert " int.)" in html and "(0 int.)" not in html and "(0.0 int.)" not in html


PRETRAIN_70B = "phase=training&model=llama-3.1-70b&method=pretrain"


def test_a_cluster_whose_node_count_is_unstated_is_a_visible_caveat(client):
    """'Best: 128×B200 at CoreWeave (on demand)': 16 nodes of an offer that states no node count, said only in the
    layout cell's tooltip."""
    query = f"{PRETRAIN_70B}&seq_len=8192&global_batch_seqs=512&total_tokens=2000000000000&max_gpus=2048&max_days=90"
    best = client.get(f"/rank.json?{query}").json()["options"][0]
    assert best["nodes"] > 1 and "does not state how many nodes" in best["cluster_caveat"]
    html = client.get(f"/?{query}").text
    summary = html[html.index("Best:") : html.index('<div class="share">')]
    assert "node count unstated</span> " + best["cluster_caveat"] in summary.replace("&#39;", "'")
    first_row = html[html.index('<tr class="row best"') :]
    assert "node count unstated" in first_row[: first_row.index("</tr>")]


def test_a_run_too_slow_at_max_gpus_says_so_and_links_a_max_gpus_that_finishes(client):
    """Every row 'finishes in 158.5 days, after the 90-day deadline' at exactly the default 64 GPUs, with no word
    that Max GPUs is what stops it."""
    query = f"{PRETRAIN_70B}&total_tokens=2000000000000&max_days=90"
    body = client.get(f"/rank.json?{query}").json()
    assert body["feasible_options"] == 0
    late = [o for o in body["options"] if o["total_usd"] is not None]
    assert late and "Max GPUs (64) stops it at 64 GPUs" in late[0]["reason"]
    wider = body["deadline_max_gpus"]
    assert wider["max_gpus"] > 64 and f"max_gpus={wider['max_gpus']}" in wider["url"]
    assert client.get(wider["url"].replace("/?", "/rank.json?")).json()["feasible_options"] > 0  # it does finish
    html = client.get(f"/?{query}").text
    alert = html[html.index('class="error-box"') : html.index('<div class="share">')]
    assert "Max GPUs (64) is the limit" in alert and wider["url"].replace("&", "&amp;") in alert


SMALL_RUN = {"model": "llama-3.1-8b", "total_tokens": 1e9}


@pytest.mark.parametrize(
    ("limits", "said", "not_said"),
    [
        (
            {"price_types": ["spot"], "interruptions_per_node_month": 1000, "checkpoint_interval_hours": 168},
            "it would never finish",
            ("% of the run", " 1 nodes"),
        ),
        ({"budget_usd": 0.01}, "over the $0.01 budget", ("$0 budget",)),
        ({"max_days": 0.0001}, "after the 8.6 s deadline", ("0.0 days", "0.0001-day")),
    ],
)
def test_a_rows_limits_read_meaningfully_at_their_extremes(client, limits, said, not_said):
    """'would waste 11541% of the run at 1 nodes', 'over the $0 budget' (of $0.01), 'finishes in 0.0 days, after
    the 0.0001-day deadline': each reason as the API gives it."""
    body = client.post("/api/v1/rank/training?limit=3&terms=false", json={**SMALL_RUN, **limits}).json()
    reasons = [o["reason"] for o in body["options"]]
    assert reasons and all(said in r for r in reasons), reasons
    assert not any(word in r for r in reasons + body["notes"] for word in not_said)


def test_a_token_budget_under_one_step_is_a_422_naming_total_tokens_on_the_api_and_the_page(client):
    # before: 100,000 tokens at 64 × 4,096 a step ranked a run of 0.38 steps billing $0.00 in 4 s beside
    # "$0.0111 per step, 10.01 s per step"
    api = client.post("/api/v1/rank/training", json={"model": "llama-3.1-8b", "total_tokens": 1e5})
    assert api.status_code == 422
    [error] = api.json()["detail"]
    assert error["field"] == "total_tokens" and "64 × seq_len 4,096 = 262,144 tokens a step" in error["message"]
    twin = client.get("/rank.json?phase=training&model=llama-3.1-8b&total_tokens=100000")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "total_tokens"
    page = client.get("/?phase=training&model=llama-3.1-8b&total_tokens=100000")
    assert page.status_code == 422 and "less than one optimizer step" in page.text
    one_step = client.post("/api/v1/rank/training", json={"model": "llama-3.1-8b", "total_tokens": 64 * 4096})
    assert one_step.status_code == 200
