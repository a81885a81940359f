"""Disaggregated prefill/decode against aggregated serving: API, the /disagg page and its JSON twin."""

from __future__ import annotations

import json
import re

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.serving.traffic.week import HOURS_PER_MONTH

# a 32k prompt's p99 TTFT limit: no one-node layout meets the 1 s default (a 500 ms mean): pipeline stages run a
# prompt in turn, and tensor parallelism pays an all-reduce of every token twice a layer
LONG = {
    "model": "llama-3.1-70b",
    "weight_dtype": "fp8",
    "kv_dtype": "fp8",  # as the figures were worked out (vLLM's default cache is BF16)
    "input_len": 32000,
    "output_len": 1000,
    "tpot_ms": 40,
    "ttft_ms": 5000,
}
SHORT = {
    "model": "llama-3.1-70b",
    "weight_dtype": "fp8",
    "kv_dtype": "fp8",
    "input_len": 500,
    "output_len": 500,
    "tpot_ms": 40,
}


def _post(client, workload, traffic=None):
    response = client.post("/api/v1/disagg", json={"workload": workload, "traffic": traffic or {}})
    assert response.status_code == 200, response.text
    return response.json()


def test_long_prompts_give_a_different_plan_and_say_why_with_numbers_per_pool(client):
    body = _post(client, LONG)
    verdict, agg, best = body["verdict"], body["aggregated"], body["disaggregated"][0]
    # the disaggregated plan differs from the aggregated one: two pools, and decode GPUs batch more per GPU
    # once no prompt rides in their steps (the interference the aggregated hardware itself shows)
    assert best["prefill"]["replicas_at_peak"] >= 1 and best["decode"]["replicas_at_peak"] >= 1
    assert best["ratio"] == f"{best['prefill']['replicas_at_peak']}P:{best['decode']['replicas_at_peak']}D"
    decode = best["decode"]
    assert decode["batch"] / decode["gpu_count"] > agg["batch"] / agg["gpu_count"]
    assert agg["decode_only_batch"] > agg["batch"]
    # both pools meet the limits the ranking uses
    assert best["ttft_ms"] * DEFAULT_EFFICIENCY.p99_ttft_over_mean <= 5000
    assert best["tpot_ms"] <= DEFAULT_EFFICIENCY.slo_tpot_utilisation * 40 + 1e-6
    assert abs(best["prefill"]["monthly_usd"] + decode["monthly_usd"] - best["monthly_usd"]) < 0.01
    assert best["kv_transfer_ms"] > 0 and best["prefill"]["tokens"] == "prompt"
    # the verdict follows the monthly costs, and its reasons carry the numbers of each pool
    saving = agg["monthly_usd"] - best["monthly_usd"]
    assert abs(verdict["saving_usd_per_month"] - saving) < 0.01
    assert verdict["winner"] == ("disaggregated" if saving >= 0.155 * agg["monthly_usd"] else verdict["winner"])
    assert (
        f"${agg['monthly_usd']:,.0f}" in verdict["headline"] and f"${best['monthly_usd']:,.0f}" in verdict["headline"]
    )
    why = " ".join(verdict["why"])
    for needle in ("Aggregated:", "Prefill interference:", "Prefill pool:", "Decode pool:", "KV transfer", "a month"):
        assert needle in why
    assert f"batch {decode['batch']}" in why and f"batch {agg['decode_only_batch']}" in why
    names = {t["name"] for t in best["terms"]}
    assert {"prefill pass", "prefill queue at peak", "KV transfer", "decode step", "total"} <= names
    # the prefill pool's line gives the mean TTFT as the sum of its parts, and the parts add up to it
    parts = re.search(
        r"mean TTFT at the peak = first token ([\d,]+) ms \+ queue ([\d,]+) ms \(M/D/1, \d+% busy\) \+ KV transfer "
        r"([\d,.]+) ms .*?= ([\d,]+) ms",
        why,
    )
    assert parts, why
    first, queue, kv, total = (float(g.replace(",", "")) for g in parts.groups())
    assert abs(first + queue + kv - total) <= 1.5 and abs(total - best["ttft_mean_ms"]) <= 0.5


def test_disaggregation_pays_for_long_prompts_under_a_tight_tpot(client):
    workload = {**LONG, "output_len": 200, "tpot_ms": 15, "ttft_ms": 5000}
    body = _post(client, workload, {"requests_per_day": 500000})
    verdict, agg, best = body["verdict"], body["aggregated"], body["disaggregated"][0]
    assert verdict["winner"] == "disaggregated" and verdict["headline"].startswith("Disaggregated is cheaper")
    assert best["monthly_usd"] <= agg["monthly_usd"] * (1 - 0.155)
    assert best["usd_per_million_output_tokens"] < agg["usd_per_million_output_tokens"]


def test_short_prompts_say_aggregated_is_as_good_or_better(client):
    body = _post(client, SHORT)
    verdict = body["verdict"]
    assert verdict["winner"] in ("aggregated", "close")
    assert verdict["headline"].startswith("Aggregated is as good or better")
    agg = body["aggregated"]
    assert agg is not None
    assert all(p["monthly_usd"] >= agg["monthly_usd"] * (1 - 0.155) for p in body["disaggregated"])


def test_bad_input_is_422_naming_the_field(client):
    response = client.post("/api/v1/disagg", json={"workload": {"model": "llama-3.1-70b", "input_len": 0}})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "workload.input_len"
    response = client.post("/api/v1/disagg", json={"workload": LONG, "traffic": {"requests_per_day": -5}})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "traffic.requests_per_day"
    response = client.post("/api/v1/disagg", json={"workload": {"model": "no-such-model"}})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "workload.model"
    page = client.get("/disagg?model=llama-3.1-70b&tpot_ms=-1")
    assert page.status_code == 422 and 'id="err-tpot_ms"' in page.text
    twin = client.get("/disagg.json?model=llama-3.1-70b&requests_per_day=0")
    assert twin.status_code == 422 and twin.json()["detail"][0]["field"] == "requests_per_day"


def test_disagg_page_redirects_to_the_canonical_link_and_renders_without_js(client):
    response = client.get(
        "/disagg?tpot_ms=40.0&ttft_ms=5000&output_len=1000&input_len=32000&model=llama-3.1-70b&weight_dtype=fp8"
        "&months=12",
        follow_redirects=False,
    )
    assert response.status_code == 303
    target = response.headers["location"]
    assert target.startswith("/disagg?model=llama-3.1-70b") and "months" not in target
    page = client.get(target)
    assert page.status_code == 200
    assert "Prefill pool:" in page.text and "Decode pool:" in page.text and "Disaggregated plans" in page.text
    assert "<script>" not in page.text  # data only in JSON blocks
    block = re.search(r'<script type="application/json" data-chart="cost-disagg">(.*?)</script>', page.text, re.S)
    assert block
    figure = json.loads(block.group(1))
    assert [t["name"] for t in figure["data"]] == ["aggregated", "prefill pool", "decode pool"]
    twin = client.get(target.replace("/disagg?", "/disagg.json?"))
    assert twin.status_code == 200 and twin.json()["share_url"] == target
    assert twin.json()["verdict"]["headline"] in page.text.replace("&#39;", "'")


def test_plan_page_links_to_the_same_question_here(client):
    page = client.get("/plan?model=llama-3.1-70b&input_len=32000")
    assert page.status_code == 200 and 'href="/disagg?model=llama-3.1-70b&amp;input_len=32000' in page.text
    assert 'href="/disagg"' in page.text  # the nav


def test_disagg_api_is_documented_with_its_response_model(client):
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/disagg"]["post"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/DisaggResponse")


def test_an_mla_model_decodes_with_data_parallel_attention_and_the_page_says_so(client):
    r1 = {"model": "deepseek-r1", "weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "sglang", "input_len": 1000,
          "output_len": 8000, "tpot_ms": 100, "ttft_ms": 10000, "max_gpus": 8}  # fmt: skip
    body = _post(client, r1)
    plans = body["disaggregated"]
    assert plans and {p["decode"]["attention_parallel"] for p in plans} == {"dp"}
    assert {p["prefill"]["attention_parallel"] for p in plans} == {"tp"}  # auto keeps heads for prompts
    heads = _post(client, {**r1, "attention_parallel": "tp"})["disaggregated"]
    assert heads and {p["decode"]["attention_parallel"] for p in heads} == {"tp"}
    assert plans[0]["decode"]["batch"] > heads[0]["decode"]["batch"]
    why = " ".join(body["verdict"]["why"])
    assert "with data-parallel attention" in why
    query = "&".join(f"{k}={v}" for k, v in r1.items())
    page = client.get(f"/disagg?{query}", follow_redirects=True)
    assert page.status_code == 200 and "DP-attn" in page.text


def test_when_neither_layout_meets_the_limits_the_page_warns_and_gives_a_reason_for_each(client):
    # a 32k prompt at an 800 ms p99 TTFT: the fastest prefill leaves no time for the KV transfer (on GPUs in
    # one node or across a fabric; a GB200 NVL72 rack's TP16 meets it)
    query = "model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&tpot_ms=40&ttft_ms=800"
    query += "&gpus=H100-SXM,H200,B200"
    page = client.get(f"/disagg?{query}")
    assert page.status_code == 200
    body = client.get(f"/disagg.json?{query}")
    verdict = body.json()["verdict"]
    assert verdict["winner"] == "neither"
    assert [line.split(":")[0] for line in verdict["why"]] == ["Aggregated", "Disaggregated"]
    assert "fastest prefill instance" in verdict["why"][1] and "mean TTFT budget of 400 ms" in verdict["why"][1]
    assert 'class="answer-strip warn"' in page.text and 'class="verdict warn"' in page.text
    assert 'data-chart="cost-disagg"' not in page.text  # nothing to draw
    assert "Both layouts meet" not in page.text and "slo_tpot_utilisation" not in page.text
    assert page.text.count("<li>Disaggregated:") == 1


RACK_405B = (
    "model=llama-3.1-405b&weight_dtype=fp8&kv_dtype=fp8&input_len=32000&output_len=1000&ttft_ms=3000&tpot_ms=30"
    "&max_gpus=72"
)


def test_a_rack_plan_says_nvlink_domain_where_a_node_would_be_untrue(client):
    """CoreWeave's GB200 rents 4-GPU nodes of a 72-GPU NVLink domain: prefill and decode may sit on different nodes,
    so neither the notes nor the page say "the node's own link" or "each instance is one node" there."""
    body = client.get(f"/disagg.json?{RACK_405B}").json()
    racks = [d for d in body["disaggregated"] if d["path"] == "node" and d["prefill"]["provider"] == "coreweave"]
    assert racks, "the 405B's plans pair inside CoreWeave's rack"
    for plan in racks:
        assert plan["node_unit"] == "NVLink domain"
        assert plan["unit_label"].endswith("-GPU group in one NVLink domain") or plan["unit_label"] == "NVLink domain"
    words = " ".join(body["notes"] + body["verdict"]["why"])
    assert "node's own link" not in words and "each instance is one node" not in words
    assert "over the NVLink domain at" in words and "1 NVLink domains" not in words
    assert body["aggregated"]["decode_only_batch"] > body["aggregated"]["batch"]  # its 32 GPUs span 8 nodes
    page = client.get(f"/disagg?{RACK_405B}").text
    assert f"D per {racks[0]['unit_label']}" in page and "across nodes" not in page


RAG_70B = "model=llama-3.1-70b&weight_dtype=fp8&kv_dtype=fp8&input_len=8000"


def test_disaggs_cost_per_token_says_it_is_at_the_traffic_beside_the_rankings_full_load_figure(client):
    """4×H100 at Lambda, 70B FP8 with 8k prompts: /disagg said "$15.54 per M output tokens" where the ranking and
    /plan say $8.82 for the same offer and layout, both labelled "$ per million output tokens". /disagg's is the month's
    cost ÷ the tokens served at the traffic; the ranking's is one replica at full load."""
    body = client.get(f"/disagg.json?{RAG_70B}").json()
    a = body["aggregated"]
    assert (a["gpu_count"], a["gpu_id"], a["provider"]) == (4, "H100-SXM", "lambda")
    requests = body["traffic"]["requests_per_day"] * HOURS_PER_MONTH / 24
    served = a["monthly_usd"] / (requests * 400) * 1e6
    assert a["usd_per_million_output_tokens_at_traffic"] == a["usd_per_million_output_tokens"]  # the old name kept
    assert abs(a["usd_per_million_output_tokens_at_traffic"] - served) < 0.01
    ranked = client.get(f"/rank.json?phase=inference&{RAG_70B}&providers=lambda&gpus=H100-SXM").json()["options"]
    same = next(o for o in ranked if o["gpu_count"] == 4 and o["feasible"])
    assert abs(a["usd_per_million_output_tokens_full_load"] - same["usd_per_million_output_tokens"]) < 1e-6
    full_load = a["usd_per_million_output_tokens_full_load"]  # the ranking's figure (8.82 when this was written)
    for plan in body["disaggregated"]:
        assert plan["usd_per_million_output_tokens_at_traffic"] == plan["usd_per_million_output_tokens"]
        assert plan["prefill"]["usd_per_million_tokens_at_traffic"] == plan["prefill"]["usd_per_million_tokens"]
    page = client.get(f"/disagg?{RAG_70B}").text
    assert '>$/M out at this traffic <span class="hint">monthly ÷ tokens served</span></th>' in page
    assert f"${full_load:.2f} at full load, as ranked" in page
    assert ">$ per M output tokens<" not in page
    assert "per million output tokens served at this traffic" in " ".join(body["verdict"]["why"])
    assert any("at full load" in note for note in body["notes"])


def test_the_disagg_api_documents_which_cost_per_token_its_fields_are(client):
    api = client.post("/api/v1/disagg", json={"workload": {"model": "llama-3.1-70b", "weight_dtype": "fp8"}}).json()
    a = api["aggregated"]
    assert a["usd_per_million_output_tokens_at_traffic"] == a["usd_per_million_output_tokens"]
    assert a["usd_per_million_output_tokens_full_load"] < a["usd_per_million_output_tokens_at_traffic"]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    fields = schemas["AggregatedOut"]["properties"]
    assert "served at this traffic" in fields["usd_per_million_output_tokens_at_traffic"]["description"]
    assert fields["usd_per_million_output_tokens"].get("deprecated") is True
    assert schemas["DisaggregatedOut"]["properties"]["usd_per_million_output_tokens"].get("deprecated") is True


def test_disagg_chart_draws_each_plan_as_its_own_bar(client):
    """Plotly stacks bars that share a category: plans labelled alike (the same ratio, GPUs and provider, another
    TP/PP layout) drew as one bar at two or three times a plan's cost."""
    query = {**LONG, "ttft_ms": 2000, "requests_per_day": 100000}
    page = client.get("/disagg", params=query)
    assert page.status_code == 200
    block = re.search(r'<script type="application/json" data-chart="cost-disagg">(.*?)</script>', page.text, re.S)
    assert block
    figure = json.loads(block.group(1))
    categories = figure["data"][0]["y"]
    assert len(categories) == len(set(categories)) > 2
    plans = client.get("/disagg.json", params=query).json()["disaggregated"]
    prefill, decode = figure["data"][1], figure["data"][2]
    stacked = [p + d for p, d in zip(prefill["x"][1:], decode["x"][1:], strict=True)]
    assert stacked == [plan["monthly_usd"] for plan in plans]  # each bar is one plan's cost, not a sum of several


def test_disagg_chart_numbers_plans_that_read_alike():
    from app.service.charts.disagg_cost import _unique

    assert _unique(["3P:4D a", "3P:2D b", "3P:4D a", "3P:4D a"]) == [
        "3P:4D a",
        "3P:2D b",
        "3P:4D a · plan 3",
        "3P:4D a · plan 4",
    ]


def test_with_no_offer_through_the_filters_the_verdict_blames_the_filters_not_the_limits(client):
    """Zero offers passed and the verdict still said 'Neither layout meets both limits' and 'no offer meets both
    limits with prefill in its decode steps'."""
    body = client.get("/disagg.json?model=llama-3.1-8b&gpus=B200&providers=lambda&price_types=spot").json()
    verdict = body["verdict"]
    assert verdict["winner"] == "neither"
    assert verdict["headline"].startswith("Neither layout can be priced: no offer passes the filters")
    assert verdict["why"] == [
        "Aggregated: no offer passes the filters (providers, GPUs, vendors, price terms, stale prices).",
        "Disaggregated: no offer passes the filters (providers, GPUs, vendors, price terms, stale prices).",
    ]
    assert not any("limits" in line for line in [verdict["headline"], *verdict["why"]])
    spot = client.get("/disagg.json?model=llama-3.1-8b&price_types=spot").json()["verdict"]
    assert "through the filters are all spot (interruptible)" in spot["headline"] and "limits" not in spot["headline"]
    assert all("spot_only is set" in line for line in spot["why"])
