"""A fixed load (a request rate, clients, one stream; no peak) is served by one replica, so a row bills every GPU of
the instances that replica rents: on an 8-GPU instance of four 2-GPU copies the other three would sit idle. The #1 of
`requests_per_s=20` for an 8B model was Lambda's 8×B200 instance billed for a quarter (2 GPUs × $6.69 at 8,000 tok/s =
$0.465/M), an offer nobody can rent at that price: the whole instance costs $1.86/M (found by qa28). A capacity
question (latency_bound, max_throughput), where copies fill an instance, keeps billing a copy its share.

The layout a row shows is compared by the same bill (configurations.billed_gpus): on one rented 8-GPU instance every
layout that keeps up serves the rate's tokens for the same money, so the lowest p99 wins, not the smallest layout with
6 GPUs idle (TP1xPP2 at 159/36 ms, found by fixedload2). And the load is spread over every copy the billed instance
holds (estimates.spread_load, found by spread): 4 TP2 copies at 5 requests/s each (49/5.9 ms) beat one TP8 copy at all
20 (43/9.3 ms) on the p99 TPOT, at the same bill; one stream runs on one copy, the rest idle."""

from __future__ import annotations

import csv
import io
import re
from html import unescape
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main as cli
from app.scoring.inference.ranking.options import idle_gpus_words
from app.scoring.inference.ranking.pricing import one_replica_load
from app.scoring.workload import InferenceWorkload

QA28 = "phase=inference&model=llama-3.1-8b&ttft_ms=500&scenario=request_rate&requests_per_s=20"
CAPACITY = "phase=inference&model=llama-3.1-8b&ttft_ms=500"
# one stream on no layout of more than 2 GPUs: 6 of a rented 8-GPU instance's GPUs stay idle
IDLE = "phase=inference&model=llama-3.1-8b&ttft_ms=500&scenario=single_stream&max_gpus=2"
SPREAD_B200 = (
    "4 copies share this load (5 requests/s each), one on each 2 GPUs of the rented 8-GPU instance; one copy would "
    "serve it at p99 TTFT 136 ms, TPOT 36.6 ms"
)
IDLE_B200 = "one copy on a rented 8-GPU instance, 6 GPUs idle at this load"


def _usd_per_million(gpus: float, usd_per_gpu_hour: float, tokens_per_s: float) -> float:
    return gpus * usd_per_gpu_hour / 3600 / tokens_per_s * 1e6


def _near(value: float) -> Any:  # answers round money to 6 places
    return pytest.approx(value, rel=1e-5, abs=1e-6)


def _feasible(client: TestClient, query: str) -> list[dict[str, Any]]:
    return [o for o in client.get(f"/rank.json?{query}&show=all").json()["options"] if o["feasible"]]


@pytest.mark.parametrize(
    ("fields", "fixed"),
    [
        ({"scenario": "request_rate", "requests_per_s": 20}, True),
        ({"scenario": "concurrency", "concurrency": 8}, True),
        ({"scenario": "single_stream"}, True),
        ({"scenario": "request_rate", "requests_per_s": 2, "peak_requests_per_s": 20}, False),  # a peak's replicas
        ({"scenario": "latency_bound"}, False),
        ({"scenario": "max_throughput"}, False),
        ({"scenario": "max_throughput", "job_requests": 1000}, False),  # a batch job spreads over every copy
        ({"scenario": "fixed_batch", "batch": 8}, False),
    ],
)
def test_only_a_fixed_load_without_a_peak_bills_its_one_replica_whole(fields: dict[str, Any], fixed: bool) -> None:
    assert one_replica_load(InferenceWorkload(model="llama-3.1-8b", **fields)) is fixed


def test_the_qa28_number_one_is_billed_for_the_whole_instance_it_rents(client: TestClient) -> None:
    rows = _feasible(client, QA28)
    top = rows[0]
    # Lambda's own 2×B200 instance, $6.89 a GPU-hour for 20 requests/s x 400 tokens: 2 x 6.89 / 3600 / 8,000 x 1e6,
    # as two one-GPU copies at 10 requests/s each (4,000 tok/s a copy)
    assert (top["gpu_count"], top["gpu_id"], top["provider"], top["instance_gpus"]) == (1, "B200", "lambda", 2)
    assert (top["replicas"], top["copies_sharing_load"], top["instances"]) == (2, 2, 1)
    assert top["output_tokens_per_s"] == pytest.approx(4000)
    assert top["usd_per_million_output_tokens"] == pytest.approx(0.478472, abs=1e-6)
    assert top["idle_gpus"] == 0
    # CoreWeave's 8×B200 node, billed whole: 8 x $8.60 / 3600 / 8,000 x 1e6 = $2.389/M, not a quarter
    b200 = next(o for o in rows if o["provider"] == "coreweave" and o["gpu_id"] == "B200")
    assert (b200["instance_gpus"], b200["instances"]) == (8, 1)
    assert b200["usd_per_million_output_tokens"] == pytest.approx(2.388889, abs=1e-6)
    assert b200["band"]["low"] < b200["usd_per_million_output_tokens"] < b200["band"]["high"]
    for o in rows:  # every row: the GPUs of its rented instances, all of its costs
        gpus = o["instances"] * o["instance_gpus"]
        assert gpus == o["replicas"] * o["gpu_count"] + o["idle_gpus"]
        assert o["replicas"] == o["copies_sharing_load"] == o["copies_per_instance"]  # every copy shares the rate
        tokens_per_s = o["output_tokens_per_s"] * o["replicas"]  # the rate's 8,000, over its copies
        requests_per_s = tokens_per_s / 400
        assert o["usd_per_million_output_tokens"] == _near(_usd_per_million(gpus, o["usd_per_gpu_hour"], tokens_per_s))
        assert o["usd_per_million_tokens"] == _near(o["usd_per_million_output_tokens"] * 400 / (2000 + 400))
        assert o["usd_per_thousand_requests"] == _near(gpus * o["usd_per_gpu_hour"] / 3600 / requests_per_s * 1e3)
    costs = [o["usd_per_million_output_tokens"] for o in rows if not o["over_limits"]]
    assert costs == sorted(costs)


def _coreweave_b200(client: TestClient, query: str) -> dict[str, Any]:
    return next(o for o in _feasible(client, query) if o["provider"] == "coreweave" and o["gpu_id"] == "B200")


def test_on_one_bill_the_row_shows_the_copies_of_lowest_latency(client: TestClient) -> None:
    """The B200 8-GPU instance's row at 20 requests/s was TP1xPP2 (p99 159/36 ms, 6 GPUs idle), then one TP8 copy
    (43.1/9.25 ms), at the bill of all 8 GPUs: now 4 TP2 copies share the rate, 5 requests/s each, at the same $ per
    million tokens and a lower p99 TPOT; one TP2 copy alone would serve all 20 at 136/36.6 ms. Eight one-GPU copies
    (max_gpus 1) bill the same and are slower."""
    row = _coreweave_b200(client, QA28)
    assert (row["gpu_count"], row["tensor_parallel"], row["pipeline_parallel"], row["idle_gpus"]) == (2, 2, 1, 0)
    assert (row["copies_per_instance"], row["copies_sharing_load"], row["replicas"], row["over_limits"]) == (
        4,
        4,
        4,
        "",
    )
    assert row["spread_note"] == SPREAD_B200 and row["machine"].endswith("; " + SPREAD_B200)
    assert row["ttft_p99_ms"] == pytest.approx(48.8, abs=0.1) and row["tpot_p99_ms"] == pytest.approx(5.88, abs=0.01)
    assert row["tpot_p99_ms"] < 9.25  # one TP8 copy's at all 20 requests/s
    assert row["one_copy_ttft_p99_ms"] == pytest.approx(136, abs=1) and row["one_copy_tpot_p99_ms"] > 36
    assert row["output_tokens_per_s"] == pytest.approx(2000)  # one copy's: 5 requests/s x 400 tokens
    assert row["usd_per_million_output_tokens"] == pytest.approx(2.388889, abs=1e-6)  # the bill of all 8 GPUs
    one_gpu = _coreweave_b200(client, f"{QA28}&max_gpus=1")
    assert (one_gpu["gpu_count"], one_gpu["copies_sharing_load"], one_gpu["idle_gpus"]) == (1, 8, 0)
    assert one_gpu["usd_per_million_output_tokens"] == row["usd_per_million_output_tokens"]  # one bill
    assert one_gpu["tpot_p99_ms"] > row["tpot_p99_ms"]


def test_a_rate_one_copy_cannot_keep_up_with_is_served_by_the_copies_the_instance_holds(client: TestClient) -> None:
    """Lambda's 8xA100 40GB instance was refused at 20 requests/s ('overloaded: keeps up with 12.4 requests/s at
    most') while it holds 8 copies that each take 2.5 requests/s: it is now a row (over the 500 ms TTFT limit at
    510 ms, so ranked after those meeting it), and says one copy alone would not keep up."""
    rows = _feasible(client, QA28)
    a100 = next(o for o in rows if o["provider"] == "lambda" and o["gpu_id"] == "A100-SXM-40GB")
    assert (a100["gpu_count"], a100["copies_sharing_load"], a100["one_copy_ttft_p99_ms"]) == (1, 8, None)
    assert a100["spread_note"].startswith("8 copies share this load (2.5 requests/s each), one on each GPU")
    assert a100["spread_note"].endswith("; one copy alone would not keep up with it")
    assert a100["over_limits"] == "TTFT p99 510 ms is over the 500 ms limit"


def test_a_capacity_question_keeps_its_layout_by_tokens_per_layout_gpu(client: TestClient) -> None:
    """Copies at full use fill the instance, so a capacity question still picks the most tok/s per layout GPU: the
    same B200 8-GPU instance serves one-GPU copies, eight of them, each billed its own GPU."""
    row = _coreweave_b200(client, CAPACITY)
    assert (row["gpu_count"], row["tensor_parallel"], row["pipeline_parallel"]) == (1, 1, 1)
    assert (row["copies_per_instance"], row["idle_gpus"]) == (8, 0)
    assert row["usd_per_million_output_tokens"] == pytest.approx(0.407522, abs=1e-6)
    assert row["ttft_p99_ms"] == pytest.approx(175.0, abs=0.1) and row["tpot_p99_ms"] == pytest.approx(41.51, abs=0.01)


def test_a_capacity_question_still_bills_a_copy_its_share_of_the_instance(client: TestClient) -> None:
    rows = _feasible(client, CAPACITY)
    shared = [o for o in rows if o["copies_per_instance"] > 1]
    assert shared
    for o in shared:  # copies at full use fill the instance: each bills its own GPUs
        assert o["idle_gpus"] == 0 and "idle" not in o["machine"]
        assert o["usd_per_million_output_tokens"] == _near(
            _usd_per_million(o["gpu_count"], o["usd_per_gpu_hour"], o["output_tokens_per_s"])
        )


def test_the_page_the_csv_and_the_cli_say_the_idle_gpus_the_json_bills(
    client: TestClient, database: str, capsys: Any
) -> None:
    page = client.get(f"/?{IDLE}&show=all").text
    assert IDLE_B200 in page
    assert "4 copies per 8-GPU instance" not in page  # one stream runs on one copy, whatever the instance holds
    table = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{IDLE}&show=all").text)))
    row = next(r for r in table if r["provider"] == "coreweave" and r["gpu_id"] == "B200" and r["gpu_count"] == "2")
    tokens_per_s = float(row["output_tokens_per_s"])
    billed = _usd_per_million(8, float(row["usd_per_gpu_hour"]), tokens_per_s)
    assert (row["idle_gpus"], float(row["usd_per_million_output_tokens"])) == ("6", _near(billed))
    # new columns come last: the peak's spare GPUs after idle_gpus, then the copies sharing a fixed load
    assert list(table[0])[-11:] == [
        "idle_gpus",
        "idle_gpus_at_peak",
        "fleet_note",
        "copies_sharing_load",
        "one_copy_ttft_p99_ms",
        "one_copy_tpot_p99_ms",
        "spread_note",
        "copies_at_peak_if_spread",  # a peak spread over its spare GPUs (spread2)
        "spread_ttft_p99_ms",
        "spread_tpot_p99_ms",
        "software_era_note",  # how old the engine and ROCm builds behind it are (rocmdate)
    ]
    flags = ["--ttft-ms", "500", "--scenario", "single_stream", "--providers", "coreweave", "--max-gpus", "2"]
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", *flags, "--limit", "50"]) == 0
    out = capsys.readouterr().out
    assert "TP2, " + IDLE_B200 in out and "4 per 8-GPU instance" not in out


def test_the_page_the_csv_and_the_cli_say_the_copies_sharing_a_rate(
    client: TestClient, database: str, capsys: Any
) -> None:
    page = " ".join(client.get(f"/?{QA28}&providers=coreweave&show=all").text.split())
    assert SPREAD_B200 in page and "load-spread" in page
    summary = page.split('<p class="summary">', 1)[1].split("</p>", 1)[0]  # the #1's batch is each copy's
    assert re.search(r"at batch \d+ on each of its \d+ copies, means unless marked", summary)
    table = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{QA28}&providers=coreweave&show=all").text)))
    row = next(r for r in table if r["gpu_id"] == "B200")
    assert (row["copies_sharing_load"], row["spread_note"], row["replicas"]) == ("4", SPREAD_B200, "4")
    flags = ["--ttft-ms", "500", "--scenario", "request_rate", "--requests-per-s", "20", "--providers", "coreweave"]
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", *flags, "--limit", "50"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "TP2, 4 copies share this load" in out and "one copy would serve it at p99 TTFT 136 ms" in out


def test_idle_gpus_words_count_the_instances() -> None:
    assert idle_gpus_words(0, 1, 8) == ""
    assert idle_gpus_words(6, 1, 8) == IDLE_B200
    assert idle_gpus_words(1, 1, 3) == "one copy on a rented 3-GPU instance, 1 GPU idle at this load"
    assert idle_gpus_words(4, 2, 8) == "one copy on 2 rented 8-GPU instances, 4 GPUs idle at this load"


def test_the_replicas_note_compares_the_whole_instance_with_the_fleet(client: TestClient) -> None:
    """The note's 'one replica taking all this request rate costs $X' is the #1's whole-instance bill, as the fleet
    it is compared with is billed whole."""
    answer = client.get(f"/rank.json?{QA28}").json()
    top = answer["options"][0]
    note = answer["replicas"]
    assert note["ratio"] == pytest.approx(
        top["usd_per_million_output_tokens"] / note["usd_per_million_output_tokens"], rel=1e-3
    )
    assert "costs $0.478 per million output tokens" in note["note"]


def test_methodology_states_the_whole_instance_rule_of_a_fixed_load(client: TestClient) -> None:
    """qa29: /methodology's 'Whole instances' said only that copies share an instance, which a fixed load's row
    contradicts: it bills its one replica's whole instance and says so."""
    page = " ".join(client.get("/methodology").text.split())
    whole = page[page.index("Whole instances.") : page.index("NVLink domains wider than a node")]
    assert "A fixed load" in whole and "bills every GPU of the instances its layout rents" in whole
    assert "spread over every copy they hold" in whole and "<code>copies_sharing_load</code>" in whole
    assert IDLE_B200 in whole and "<code>idle_gpus</code>" in whole


def test_the_openapi_cost_fields_say_a_fixed_load_bills_its_whole_instances(client: TestClient) -> None:
    """qa29: the rank and precision schemas said every $ figure was 'one replica at full load' where a fixed load's
    bills its one replica's whole instances at that load (README's field table said so, the schema did not)."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("InferenceOptionOut", "BestOption"):
        fields = schemas[name]["properties"]
        for field in ("usd_per_million_output_tokens", "usd_per_million_tokens", "usd_per_thousand_requests"):
            said = fields[field]["description"]
            assert "at a fixed load" in said and "idle ones included (idle_gpus)" in said, (name, field)
            assert "spread over the copies" in said, (name, field)
        assert "idle" in fields["idle_gpus"]["description"]
        assert "its rented instance holds" in fields["copies_sharing_load"]["description"]
    holds = schemas["InferenceOptionOut"]["properties"]["copies_per_instance"]["description"]
    assert "holds" in holds and "every one of them shares it" in holds


def test_the_request_rate_is_said_as_one_rented_instances_load_on_every_face(client: TestClient, capsys: Any) -> None:
    """qa34: the form's hint said 'requests arriving per second per replica', its folded summary '20 req/s per
    replica', the API schema and `--help` 'arrivals per second at one replica', while each row spreads the rate over
    the copies its rented instance holds (2 copies at 10 requests/s each) and the note beneath says 'one rented
    instance taking all 20 requests/s'. Every face now says the rate is the instance's, shared by its copies."""
    page = " ".join(unescape(re.sub(r"<[^>]+>", " ", client.get(f"/?{QA28}").text)).split())
    assert "req/s per replica" not in page and "per second per replica" not in page
    assert "Llama 3.1 8B · BF16 · 2,000 → 400 tokens · TTFT ≤ 500 ms · TPOT ≤ 50 ms · 20 req/s edit" in page
    assert "requests arriving per second at one rented instance, shared by the copies it holds" in page
    assert "Each row is one rented instance taking all 20 requests/s" in page
    described = client.get("/openapi.json").json()["components"]["schemas"]
    said = [s["properties"]["requests_per_s"].get("description", "") for s in described.values()
            if "requests_per_s" in s.get("properties", {}) and "request_rate" in s["properties"]["requests_per_s"].get(
                "description", "")]  # fmt: skip
    assert said and all("one rented instance" in s and "one replica" not in s for s in said)
    with pytest.raises(SystemExit):
        cli(["rank", "inference", "--help"])
    assert "at one rented instance" in " ".join(capsys.readouterr().out.split())


def test_one_copys_tokens_say_the_copies_the_bill_is_spread_over(client: TestClient, capsys: Any) -> None:
    """qa34: at 20 requests/s Lambda's 2×B200 row read 'Tok/s 4,000' beside $0.478 per million output tokens: one
    copy's tokens, where the $/M divides the instance's bill ($13.78 an hour) by both copies' 8,000. The page and the
    CLI now say '× 2 copies' beside it, so the bill over the tokens checks by hand."""
    top = client.get(f"/rank.json?{QA28}").json()["options"][0]
    copies = top["copies_sharing_load"]
    assert copies > 1
    bill = top["usd_per_gpu_hour"] * top["gpu_count"] * copies
    assert _usd_per_million(1, bill, top["output_tokens_per_s"] * copies) == pytest.approx(
        top["usd_per_million_output_tokens"], rel=1e-4
    )
    page = client.get(f"/?{QA28}").text
    assert f'{top["output_tokens_per_s"]:,.0f} <span class="muted copies">× {copies} copies</span>' in page
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--ttft-ms", "500", "--scenario", "request_rate",
                "--requests-per-s", "20", "--limit", "1"]) == 0  # fmt: skip
    assert f"{top['output_tokens_per_s']:,.0f} ×{copies} copies" in capsys.readouterr().out


def test_one_copys_batch_says_the_copies_the_load_is_spread_over(client: TestClient, capsys: Any) -> None:
    """left34: the summary says the load runs 'on each of its N copies' and Tok/s says '× N copies', but the Batch
    cell beside them read a bare 4, one copy's batch read as the instance's. Both faces now say '× N copies' there."""
    top = client.get(f"/rank.json?{QA28}").json()["options"][0]
    copies = top["copies_sharing_load"]
    assert copies > 1
    page = client.get(f"/?{QA28}").text
    cell = re.search(r'data-label="Batch" role="cell">(.*?)</td>', page, re.S)
    assert cell is not None
    assert f'<span class="muted copies">× {copies} copies</span>' in cell.group(1)
    assert cli(["rank", "inference", "--model", "llama-3.1-8b", "--ttft-ms", "500", "--scenario", "request_rate",
                "--requests-per-s", "20", "--limit", "1"]) == 0  # fmt: skip
    batch = "<1" if top.get("requests_in_flight") is not None else str(top["batch"])
    assert f"{batch} ×{copies} copies" in capsys.readouterr().out
