"""An offer priced as an 8-GPU instance is rented whole: a layout on fewer GPUs runs as copies inside it (inference),
and training uses whole instances; neither is billed for part of one (the seeded catalog)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from markupsafe import escape

from app.scoring.hardware.machines import Machine
from app.scoring.serving.traffic.week import HOURS_PER_MONTH

PLAN = "/plan.json?model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=18&requests_per_day=50000&providers=coreweave"


def test_machine_copies_and_billed_gpus():
    eight = Machine(gpus_per_node=8, link="nvlink", instance_gpus=8)
    assert (eight.copies(2), eight.billed_gpus(2)) == (4, 2)
    assert (eight.copies(8), eight.billed_gpus(8)) == (1, 8)
    assert (eight.rented_gpus(2), eight.rented_gpus(8), eight.rented_gpus(16)) == (8, 8, 16)
    three = Machine(gpus_per_node=3, link="nvlink", instance_gpus=3)
    assert (three.copies(2), three.billed_gpus(2)) == (1, 3)  # the third GPU idles and is paid for
    assert three.rented_gpus(2) == 3  # a fleet of TP2 replicas on 3-GPU instances rents 3 GPUs a replica
    single = Machine(gpus_per_node=8, link="nvlink")
    assert (single.copies(2), single.billed_gpus(2)) == (1, 2)  # GPUs rented one by one


def test_plan_bills_whole_instances(client):
    """CoreWeave rents B200 as 8-GPU nodes: one 4-GPU replica costs the node ($50,224 a month always on, not half),
    so its 4-GPU GB200 instance, cheaper than a whole B200 node, is the cheapest dedicated option."""
    body = client.get(PLAN).json()
    options = body["plan"]["options"] if "plan" in body else body["options"]
    by_gpu = {o["gpu_id"]: o for o in options if o["price_type"] == "on_demand"}
    b200 = by_gpu["B200"]
    assert b200["instance_gpus"] == 8 and b200["copies_per_instance"] == 8 // b200["gpu_count"]
    assert b200["monthly_usd_always_on"] == b200["instances_at_peak"] * 8 * 8.6 * HOURS_PER_MONTH
    assert options[0]["gpu_id"] == "GB200"


def test_ranked_row_says_how_many_copies_an_instance_holds(client):
    body = client.get("/rank.json?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40&show=all").json()
    lambda_8 = [o for o in body["options"] if o["feasible"] and o["provider"] == "lambda" and o["instance_gpus"] == 8]
    assert lambda_8
    for o in lambda_8:
        assert o["copies_per_instance"] * o["gpu_count"] == 8
    page = client.get("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40&show=all").text
    assert "copies per 8-GPU instance" in page


def test_training_uses_whole_instances(client):
    response = client.post(
        "/api/v1/rank/training?limit=200&terms=false",
        json={"model": "llama-3.1-70b", "method": "qlora", "total_tokens": 2e8},
    )
    options = [o for o in response.json()["options"] if o["feasible"]]
    assert options
    for o in options:
        if o["provider"] == "lambda" and o["usd_per_gpu_hour"] == 6.69:  # Lambda's 8×B200 instance
            assert o["gpu_count"] % 8 == 0


def test_with_a_peak_the_ranking_is_the_fleet_it_rents(client):
    """405B FP8 at 3.47 requests/s: one 8xB200 replica serves 3.375, so a fleet of them rents two 8-GPU instances
    ($78k a month at Lambda); three 4-GPU instances ($59k) are cheaper, though each costs more per token at full
    load. With a peak the ranking is by the fleet (auto), and Lambda's 4-GPU instance is not hidden behind its
    cheaper-per-GPU 8-GPU one."""
    url = "/rank.json?phase=inference&model=llama-3.1-405b&weight_dtype=fp8&peak_requests_per_s=3.472222"
    body = client.get(url).json()
    assert body["rank_by"] == "fleet"
    feasible = [o for o in body["options"] if o["feasible"]]
    fleet = [o["usd_per_month_at_peak"] for o in feasible]
    assert fleet == sorted(fleet)
    for o in feasible:
        rented = -(-o["replicas"] // o["copies_per_instance"]) * (
            o["instance_gpus"] if o["copies_per_instance"] > 1 else o["gpu_count"]
        )
        assert o["usd_per_month_at_peak"] == pytest.approx(rented * o["usd_per_gpu_hour"] * HOURS_PER_MONTH)
    lambda_b200 = [o for o in feasible if o["provider"] == "lambda" and o["gpu_id"] == "B200"]
    assert {(o["gpu_count"], o["instance_gpus"]) for o in lambda_b200} >= {(4, 4), (8, 8)}
    best = feasible[0]
    assert best["usd_per_month_at_peak"] < min(o["usd_per_month_at_peak"] for o in lambda_b200 if o["gpu_count"] == 8)
    per_token = client.get(url + "&rank_by=output_tokens").json()
    costs = [o["usd_per_million_output_tokens"] for o in per_token["options"] if o["feasible"]]
    assert per_token["rank_by"] == "output_tokens" and costs == sorted(costs)


def test_fleet_needs_a_peak(client):
    body = client.get("/rank.json?phase=inference&model=llama-3.1-8b&rank_by=fleet").json()
    assert [e["field"] for e in body["detail"]] == ["rank_by"] and "peak" in body["detail"][0]["message"]


def test_a_mix_finds_the_small_instance_a_small_load_fills(client):
    """70B FP8, 200k requests a day of chat and RAG: one Lambda 2xB200 instance carries it ($10,059 a month); the
    per-request cheapest configuration (8xH100 or a whole 8xB200 VM) costs twice that or more."""
    mix_url = "/mix.json?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8"
    body = client.get(mix_url).json()
    mix = body["mix"]
    assert mix["usd_per_month"] == pytest.approx(2 * 6.89 * HOURS_PER_MONTH, rel=1e-6)
    assert [(r["replicas"], r["label"]) for r in mix["rows"]] == [(1, "2×B200 at Lambda")]


def test_disaggregated_pairs_in_one_instance_bill_the_instance(client):
    """A node path on an 8-GPU instance that its prefill and decode instances fill only in part bills the whole
    instance: the idle GPUs are counted and paid for (1P of 4 GPUs + 1D of 2 on an 8-GPU VM: 2 idle)."""
    import re

    body = client.get(
        "/disagg.json?model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&ttft_ms=2000&tpot_ms=40"
        "&requests_per_day=100000&providers=lambda"
    ).json()
    nodes = [d for d in body["disaggregated"] if d["path"] == "node"]
    assert nodes, "no node-path plan at Lambda"
    for d in nodes:
        used = d["prefill"]["gpus_at_peak"] + d["decode"]["gpus_at_peak"]
        rented = re.search(r"rented as (\d+)-GPU instances", d["prefill"]["machine"])
        per_node = max(int(rented.group(1)) if rented else 0, used // d["nodes_at_peak"])
        assert used + d["idle_gpus_at_peak"] == d["nodes_at_peak"] * per_node, d
    assert any(d["idle_gpus_at_peak"] for d in nodes)


def test_a_fleets_band_counts_whole_replicas(client):
    """A fleet's band is the fleets the throughput band's ends would rent, whole replicas and instances: one 8-GPU
    instance's fleet cannot cost less than that instance, however fast it might run."""
    body = client.get("/rank.json?phase=inference&model=llama-3.1-8b&peak_requests_per_s=0.5").json()
    for o in (o for o in body["options"] if o["feasible"]):
        rented = o["instance_gpus"] if o["copies_per_instance"] > 1 else o["gpu_count"]
        one_unit = rented * o["usd_per_gpu_hour"] * HOURS_PER_MONTH
        assert o["band"]["low"] >= one_unit - 1e-6 and o["band"]["low"] <= o["usd_per_month_at_peak"] + 1e-6


def test_peak_clients_belong_to_latency_bound_rankings_and_not_to_plans(client):
    rate = client.get(
        "/rank.json?phase=inference&model=llama-3.1-8b&scenario=request_rate&requests_per_s=30&peak_concurrency=50"
    ).json()
    assert [e["field"] for e in rate["detail"]] == ["peak_concurrency"] and "latency_bound" in rate["detail"][0][
        "message"
    ]
    for url in (
        "/plan.json?model=llama-3.1-8b&peak_concurrency=50",
        "/disagg.json?model=llama-3.1-8b&peak_concurrency=50",
    ):
        body = client.get(url).json()
        assert [e["field"] for e in body["detail"]] == ["peak_concurrency"], url
    api = client.post("/api/v1/plan/serving", json={"workload": {"model": "llama-3.1-8b", "peak_concurrency": 50}})
    assert api.status_code == 422 and api.json()["detail"][0]["field"] == "workload.peak_concurrency"


def test_undated_and_stale_prices_are_labelled_on_plans_mixes_and_disaggregation(client):
    """With include_stale a plan may stand on an undated price (Lambda's GH200, Oracle's MI300X): every view says so."""
    plan = client.get("/plan?model=llama-3.1-8b&requests_per_day=100000&include_stale=true").text
    assert '>undated<span class="sr-only">: price copied without its date;' in plan  # said without hovering too
    assert '>stale<span class="sr-only">: price older than the stale-after days;' in plan  # (a11y3)
    body = client.get("/mix.json?model=llama-3.1-8b&mix=chat:1&requests_per_day=100000&include_stale=true").json()
    assert any(r["stale"] for r in body["replica_types"])
    disagg = "/disagg?model=llama-3.1-8b&input_len=16000&output_len=500&include_stale=true&gpus=MI300X"
    said = '>undated<span class="sr-only">: price copied without its date;'  # without hovering too (trust7)
    assert said in client.get(disagg).text


RAG_PLAN = "model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&requests_per_day=100000"


def _plan_cells(html: str) -> dict[tuple[str, str], dict[str, str]]:
    """(GPU, provider) → the first such row's cells by data-label, tags stripped."""
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for row in re.findall(r'<tr(?: class="best")? role="row">(.*?)</tr>', html, re.S):
        cells = dict(re.findall(r'data-label="([^"]+)" role="(?:cell|rowheader)">(.*?)</t[dh]>', row, re.S))
        if "Tok/s per replica" in cells:
            text = {k: " ".join(re.sub(r"<[^>]+>", " ", v).split()) for k, v in cells.items()}
            rows.setdefault((text["GPU"].split()[0], text["Provider"]), text)
    return rows


def test_plan_table_counts_replicas_and_their_own_throughput(client):
    """A 2×B200 layout on Lambda's 4-GPU instance: the row said 1,863 tok/s per replica (both copies of the instance)
    and "1 instance" under Replicas at peak, where the JSON (and the ranking) say 931.7 tok/s and 2 replicas."""
    body = client.get(f"/plan.json?{RAG_PLAN}").json()
    shared = [o for o in body["options"][:15] if o["copies_per_instance"] > 1]
    assert shared, "the plan has rows whose instance holds several copies"
    cells = _plan_cells(client.get(f"/plan?{RAG_PLAN}").text)
    for o in shared:
        row = cells[(o["gpu_id"], o["provider_name"])]
        assert row["Tok/s per replica"] == f"{o['output_tokens_per_s']:,.0f}", (o["provider_name"], row)
        instances = f"{o['instances_at_peak']} instance{'s' if o['instances_at_peak'] != 1 else ''}"
        spare = f" {o['fleet_note']}" if o["fleet_note"] else ""  # 2 copies serve the peak; 4 more GPUs spare
        # the spread words' "peak's" is escaped on the page (spread2)
        assert unescape(row["Replicas at peak"]) == f"{o['replicas_at_peak']} in {instances}{spare}", row


def test_plan_chart_prices_a_shared_instance_as_the_table_does(client):
    """The chart priced each copy of the layout on its own GPUs: 2×B200 at Lambda drew $11,979 a month at 100k
    requests/day where the plan bills the 4-GPU instance, $19,827."""
    body = client.get(f"/plan.json?{RAG_PLAN}").json()
    page = client.get(f"/plan?{RAG_PLAN}").text
    block = re.search(r'<script type="application/json" data-chart="cost-traffic">(.*?)</script>', page, re.S)
    assert block is not None
    traces = {t["name"]: t for t in json.loads(block.group(1))["data"]}
    checked = 0
    for o in body["options"]:
        name = f"dedicated {o['gpu_count']}×{o['gpu_id']} · {o['provider_name']} ({o['price_type'].replace('_', ' ')})"
        if o["copies_per_instance"] <= 1 or name not in traces:
            continue
        x, y = traces[name]["x"], traces[name]["y"]
        at = max(i for i, rpd in enumerate(x) if rpd <= 100_000)  # the step holding the plan's traffic
        assert y[at] <= o["monthly_usd_autoscaled"] <= y[at + 1], (name, y[at], y[at + 1], o["monthly_usd_autoscaled"])
        checked += 1
    assert checked, "a plotted option shares its instance"


def test_disaggs_aggregated_row_counts_replicas_under_its_replicas_header(client):
    """Two 2×B200 copies in one 4-GPU Lambda instance read "1 × 4×B200" under "Replicas at peak"."""
    query = "model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&gpus=B200&providers=lambda"
    a = client.get(f"/disagg.json?{query}").json()["aggregated"]
    assert (a["replicas_at_peak"], a["gpu_count"], a["instances_at_peak"], a["copies_per_instance"]) == (2, 2, 1, 2)
    page = client.get(f"/disagg?{query}").text
    cell = re.search(r'data-label="Replicas at peak" role="cell">(.*?)</td>', page, re.S)
    assert cell is not None
    text = " ".join(re.sub(r"<[^>]+>", "", cell.group(1)).split())
    assert text.startswith("2 × 2×B200 · Lambda") and "on 1 rented 4-GPU instance of 2 copies" in text, text


def test_training_below_an_instance_is_not_billed_per_gpu(client):
    """Max GPUs 4 cannot rent Lambda's 8-GPU H100 instance: it was ranked first as 4×H100 billed for 4 GPUs ($148
    where the instance bills 8); it is now infeasible with the instance size and Max GPUs in its reason."""
    body = {
        "model": "llama-3.1-70b",
        "method": "lora",
        "seq_len": 4096,
        "global_batch_seqs": 64,
        "total_tokens": 2e8,
        "gpus": ["H100-SXM"],
        "max_days": 365,
        "max_gpus": 4,
    }
    options = client.post("/api/v1/rank/training?limit=500&terms=false", json=body).json()["options"]
    eights = [o for o in options if "rented as 8-GPU instances" in o["machine"]]
    assert eights
    for o in eights:
        assert not o["feasible"] and o["total_usd"] is None
        assert "8-GPU instances" in o["reason"] and "Max GPUs (4)" in o["reason"]
    assert all(o["gpu_count"] <= 4 for o in options if o["feasible"])


def test_a_plans_cheapest_dedicated_line_says_its_price_note(client):
    """/plan's "Cheapest dedicated" line named the #1's price type with its note only in a caveat badge's tooltip (or
    not at all): a keyboard or screen-reader user never heard it; it is said as visually hidden text (a11y3)."""
    query = "model=llama-3.1-8b&requests_per_day=100000&include_stale=true"
    best = client.get(f"/plan.json?{query}").json()["options"][0]
    assert best["price_note"]
    line = re.search(r"Cheapest dedicated:(.*?)/month</strong> autoscaled", client.get(f"/plan?{query}").text, re.S)
    said = f'{best["price_type"].replace("_", " ")}<span class="sr-only">: {escape(best["price_note"])}</span>'
    assert line and said in line.group(1)
