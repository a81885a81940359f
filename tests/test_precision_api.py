"""The precision comparison: API, the /precision page and its JSON twin, on the seeded catalog."""

from __future__ import annotations

import json
import re

WORKLOAD = {"model": "llama-3.1-70b", "input_len": 2000, "output_len": 400, "ttft_ms": 1000, "tpot_ms": 50}


def test_llama_70b_lists_at_least_four_precisions_with_cost_latency_memory_and_sourced_quality(client):
    response = client.post("/api/v1/precision", json=WORKLOAD)
    assert response.status_code == 200
    body = response.json()
    rows = {r["key"]: r for r in body["rows"]}
    assert set(rows) == {"bf16", "fp8", "fp8_kv_fp8", "fp4", "int4", "int8", "int8_w8a8", "kv_fp8"}
    priced = [r for r in body["rows"] if r["best"]]
    assert len(priced) >= 4
    for row in priced:
        best = row["best"]
        assert best["ranked_cost"] > 0 and best["ttft_ms"] <= 1000 and best["tpot_ms"] <= 50
        assert best["replica_memory_gb"] > 0 and best["gpu_count"] >= 1
    assert rows["int4"]["weights_gb"] < rows["fp8"]["weights_gb"] < rows["bf16"]["weights_gb"]
    assert rows["kv_fp8"]["kv_mb_per_1k_tokens"] == rows["bf16"]["kv_mb_per_1k_tokens"] / 2
    assert rows["int4"]["runs_on"] == "BF16 peak"  # weight-only: dequantised to 16-bit for the matmul
    for key in ("fp8", "int4"):  # quality.csv has published Llama-3.1-70B rows for both
        assert rows[key]["quality"], key
        for q in rows[key]["quality"]:
            assert q["model_id"] == "llama-3.1-70b" and q["source_url"].startswith("https://")
    assert rows["fp8"]["best"]["ranked_cost"] < rows["bf16"]["best"]["ranked_cost"]
    assert body["share_url"].startswith("/precision?model=llama-3.1-70b")


def test_int8_w8a8_is_a_priced_row_of_its_own_with_its_quality_rows_beside_the_weight_only_row(client):
    body = client.post("/api/v1/precision", json={**WORKLOAD, "model": "qwen2.5-72b"}).json()
    rows = {r["key"]: r for r in body["rows"]}
    w8a8, weight_only = rows["int8_w8a8"], rows["int8"]
    assert w8a8["weight_dtype"] == "int8_w8a8" and w8a8["runs_on"].startswith("INT8 peak") and w8a8["best"]
    assert w8a8["best"]["ranked_cost"] > 0 and w8a8["best"]["ttft_ms"] <= 1000
    assert {q["precision"] for q in w8a8["quality"]} == {"int8_w8a8"} and not w8a8["quality_note"]
    assert "weight_dtype=int8_w8a8" in w8a8["rank_url"]  # its own ranking's link asks for W8A8
    # quality.csv publishes only a W8A8 row of Qwen2.5-72B: the weight-only row shows none, and says so
    assert weight_only["runs_on"].startswith("BF16 peak") and weight_only["best"] and weight_only["quality"] == []
    assert "no published quality row" in weight_only["quality_note"]
    assert all(q["precision"] != "int8_w8a8" for r in body["rows"] if r["key"] != "int8_w8a8" for q in r["quality"])
    llama3 = client.post("/api/v1/precision", json={**WORKLOAD, "model": "llama-3-70b"}).json()
    weight_only = next(r for r in llama3["rows"] if r["key"] == "int8")
    assert {q["precision"] for q in weight_only["quality"]} == {"int8_w8a16"} and not weight_only["quality_note"]
    page = client.get("/precision?model=qwen2.5-72b&input_len=2000&output_len=400&ttft_ms=1000&tpot_ms=50").text
    assert "INT8 weight-only (W8A16)" in page and "INT8 W8A8" in page and "not priced" not in page


def test_int8_w8a8_prefills_on_the_int8_peak_so_a_prompt_heavy_question_costs_less_than_weight_only(client):
    prompts = {"model": "llama-3.1-8b", "input_len": 8000, "output_len": 50, "ttft_ms": 5000, "tpot_ms": 100}
    rows = {r["key"]: r for r in client.post("/api/v1/precision", json=prompts).json()["rows"]}
    # priced as W8A16 (16-bit matmuls) the two would cost within the 6 % their weight bytes differ by
    assert rows["int8_w8a8"]["best"]["ranked_cost"] < 0.85 * rows["int8"]["best"]["ranked_cost"]


def test_int8_w8a8_on_an_engine_without_it_says_why_instead_of_a_price(client):
    body = client.post("/api/v1/precision", json={**WORKLOAD, "model": "llama-3.1-8b", "engine": "llamacpp"}).json()
    w8a8 = next(r for r in body["rows"] if r["key"] == "int8_w8a8")
    assert w8a8["best"] is None and w8a8["rank_url"] is None
    assert "engine llamacpp runs no INT8 W8A8" in w8a8["reason"] and "GGUF Q8_0" in w8a8["reason"]


def test_precisions_without_a_published_row_leave_quality_empty_and_say_so(client):
    rows = {r["key"]: r for r in client.post("/api/v1/precision", json=WORKLOAD).json()["rows"]}
    assert rows["fp4"]["quality"] == [] and "no published quality row" in rows["fp4"]["quality_note"]
    assert rows["kv_fp8"]["quality"] == [] and "KV" in rows["kv_fp8"]["quality_note"]


def test_fp4_on_gpus_without_an_fp4_peak_ranks_as_the_ranking_does_dequantised(client):
    """QA: with an H100 filter /precision ranked nothing at FP4 ("no FP4 tensor peak") while / and the estimate API
    ranked FP4 weights there dequantised to 16-bit (W4A16, as vLLM runs FP4/MXFP4 weights on Hopper): the same
    question now gets the same answer on both pages, and the row says how it runs."""
    body = client.post("/api/v1/precision", json={**WORKLOAD, "gpus": ["H100-SXM"]}).json()
    fp4 = next(r for r in body["rows"] if r["key"] == "fp4")
    assert fp4["best"] is not None and fp4["best"]["gpu_id"] == "H100-SXM" and not fp4["reason"]
    assert "W4A16" in fp4["label"] and "dequantised" in fp4["runs_on"]
    ranked = client.post(
        "/api/v1/rank/inference?limit=1", json={**WORKLOAD, "gpus": ["H100-SXM"], "weight_dtype": "fp4"}
    ).json()
    top = ranked["options"][0]
    for name in ("gpu_id", "gpu_count", "provider", "output_tokens_per_s", "usd_per_million_output_tokens"):
        assert top[name] == fp4["best"][name], name
    assert ranked["feasible_options"] == fp4["feasible_options"]
    hopper = next(r for r in body["rows"] if r["key"] == "fp8")
    assert hopper["best"]["gpu_id"] == "H100-SXM"
    small = client.post("/api/v1/precision", json={**WORKLOAD, "model": "llama-3.1-8b", "gpus": ["H100-SXM"]}).json()
    fp4 = next(r for r in small["rows"] if r["key"] == "fp4")  # quality.csv's NVFP4 rows measure W4A4: said so
    assert fp4["quality"] and "W4A4" in fp4["quality_note"] and "16-bit" in fp4["quality_note"]


def test_unknown_model_and_bad_fields_are_422_naming_the_field(client):
    response = client.post("/api/v1/precision", json={"model": "no-such-model"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "model"
    response = client.post("/api/v1/precision", json={"model": "llama-3.1-70b", "input_len": 0})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "input_len"
    page = client.get("/precision?model=llama-3.1-70b&tpot_ms=-1")
    assert page.status_code == 422 and 'id="err-tpot_ms"' in page.text


def test_precision_page_redirects_to_the_canonical_link_and_renders_without_js(client):
    response = client.get("/precision?tpot_ms=50.0&model=llama-3.1-70b&weight_dtype=fp8", follow_redirects=False)
    assert response.status_code == 303
    target = response.headers["location"]
    assert target.startswith("/precision?model=llama-3.1-70b") and "weight_dtype" not in target
    page = client.get(target)
    assert page.status_code == 200
    assert "INT4 weight-only" in page.text and "recovered" in page.text
    assert "<script>" not in page.text  # data only in JSON blocks
    block = re.search(r'<script type="application/json" data-chart="cost-precision">(.*?)</script>', page.text, re.S)
    assert block and json.loads(block.group(1))["data"][0]["type"] == "bar"
    twin = client.get(target.replace("/precision?", "/precision.json?"))
    assert twin.status_code == 200 and twin.json()["share_url"] == target


def test_precision_api_is_documented_with_its_response_model(client):
    spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/precision"]["post"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/PrecisionResponse")


def test_a_batch_job_at_every_precision_gives_each_its_time_and_cost(client):
    body = client.post(
        "/api/v1/precision",
        json={"model": "llama-3.1-70b", "scenario": "max_throughput", "job_requests": 100_000, "job_deadline_hours": 2},
    ).json()
    chosen = [r["best"] for r in body["rows"] if r["best"]]
    assert len(chosen) >= 4 and all(b["job_hours"] <= 2 and b["job_usd"] > 0 for b in chosen)
    page = client.get("/precision?model=llama-3.1-70b&scenario=max_throughput&job_requests=100000&job_deadline_hours=2")
    assert page.text.count("the job: ") == len(chosen)


def test_the_fp8_ranking_the_page_links_from_has_its_own_row(client):
    """/rank with FP8 weights runs the engine's default KV cache; /precision shows that same answer as a row of its
    own beside the other cache (a reviewer found $0.706 on one page and $0.792 on the other). The default is BF16 on
    vLLM (its 'auto') and FP8 on TensorRT-LLM, so each engine's FP8 ranking is checked against its own row."""
    fp8 = "phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"
    for engine, key, other in (("vllm", "fp8", "fp8_kv_fp8"), ("trtllm", "fp8_kv_fp8", "fp8")):
        ranked = client.get(f"/rank.json?{fp8}&engine={engine}")
        page = client.get(f"/precision.json?model=llama-3.1-70b&tpot_ms=40&engine={engine}").json()["rows"]
        rows = {r["key"]: r for r in page}
        cost = ranked.json()["options"][0]["usd_per_million_output_tokens"]
        assert rows[key]["best"]["ranked_cost"] == cost, engine
        assert rows[other]["best"]["ranked_cost"] != cost, engine  # the two caches are two answers, two rows
        assert rows["fp8_kv_fp8"]["kv_dtype"] == "fp8" and rows["fp8"]["kv_dtype"] == "bf16"


SINGLE = "model=llama-3.1-8b&scenario=single_stream"


def test_each_precision_rows_link_ranks_that_rows_question(client):
    """A row's link reproduces it: the ranking it opens lists the row's best option first, at the row's dtypes
    (a reviewer found the page's one link ranking BF16 while its headline was FP4)."""
    rows = client.get(f"/precision.json?{SINGLE}").json()["rows"]
    assert all(r["rank_url"] for r in rows)
    for row in (r for r in rows if r["best"]):
        url = row["rank_url"]
        assert f"weight_dtype={row['weight_dtype']}" in url or row["weight_dtype"] == "bf16"
        assert f"kv_dtype={row['kv_dtype']}" in url
        ranked = client.get(url.replace("/?", "/rank.json?"), follow_redirects=False)
        assert ranked.status_code == 200, url
        top, best = ranked.json()["options"][0], row["best"]
        for name in ("gpu_id", "gpu_count", "provider", "price_type", "usd_per_gpu_hour", "ttft_ms", "tpot_ms"):
            assert top[name] == best[name], (row["key"], name)
        assert top["usd_per_million_output_tokens"] == best["ranked_cost"]
        assert ranked.json()["feasible_options"] == row["feasible_options"]


def test_fp4_means_native_fp4_on_the_page_and_in_the_ranking_its_row_links(client):
    """FP4 (NVFP4 W4A4) runs on an FP4 tensor peak: its row ranks those GPUs, and its link carries them as the GPU
    filter. The ranking at FP4 without the filter also lists GPUs that dequantise FP4 weights (weight-only), which
    the page says."""
    fp4_gpus = {g["id"] for g in client.get("/api/v1/gpus").json() if g["fp4_tflops"]}
    body = client.get(f"/precision.json?{SINGLE}").json()
    row = next(r for r in body["rows"] if r["key"] == "fp4")
    linked = client.get(row["rank_url"].replace("/?", "/rank.json?")).json()
    assert set(linked["workload"]["gpus"]) == fp4_gpus
    assert {o["gpu_id"] for o in linked["options"]} <= fp4_gpus
    unfiltered = client.get(f"/rank.json?phase=inference&{SINGLE}&weight_dtype=fp4&kv_dtype=bf16").json()
    assert {o["gpu_id"] for o in unfiltered["options"] if o["feasible"]} - fp4_gpus  # dequantised elsewhere
    assert any("FP4 row ranks only GPUs with one" in note for note in body["notes"])
    page = client.get(f"/precision?{SINGLE}").text
    assert "FP4 row ranks only GPUs with one" in page and "FP4 peak (GPUs with one only)" in page


def test_the_precision_page_links_each_row_and_ranks_the_cheapest_at_its_precision(client):
    body = client.get(f"/precision.json?{SINGLE}").json()
    page = client.get(f"/precision?{SINGLE}").text
    for row in body["rows"]:
        assert f'href="{row["rank_url"].replace("&", "&amp;")}"' in page
    cheapest = min((r for r in body["rows"] if r["best"]), key=lambda r: r["best"]["ranked_cost"])
    share = page.split('<div class="share">', 1)[1].split("</div>", 1)[0]
    assert f'<a href="{cheapest["rank_url"].replace("&", "&amp;")}">Rank this workload at {cheapest["label"]}' in share
    api = client.post("/api/v1/precision", json={"model": "llama-3.1-8b", "scenario": "single_stream"}).json()
    assert [r["rank_url"] for r in api["rows"]] == [r["rank_url"] for r in body["rows"]]


def _rows(client, model):  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/precision", json={**WORKLOAD, "model": model}).json()
    return body, {r["key"]: r for r in body["rows"]}


def test_a_model_released_in_fp8_makes_its_fp8_row_the_reference_and_bf16_an_upcast(client):
    """DeepSeek-R1 ships in FP8: the BF16 row was "the baseline the others are measured against" and the FP8 row said
    "no published quality row" though it is the release, while the FP4 rows recover against native FP8."""
    body, rows = _rows(client, "deepseek-r1")
    assert body["release"]["precision"] == "fp8" and not body["release"]["assumed"]
    assert "baseline as native FP8" in body["release"]["source"]
    assert rows["fp8"]["role"] == "reference" and rows["fp8"]["label"] == "FP8 W8A8 (the release)"
    assert "the reference the published deltas are measured against" in rows["fp8"]["quality_note"]
    assert rows["bf16"]["role"] == "upcast" and "upcast" in rows["bf16"]["label"]
    assert "baseline" not in rows["bf16"]["quality_note"] and "not the reference" in rows["bf16"]["quality_note"]
    assert rows["bf16"]["best"] is not None  # still priced, for its cost
    assert {q["baseline"] for q in rows["fp4"]["quality"] if q["recovery_pct"]} == {"native FP8"}
    assert [q["baseline"] for q in rows["fp4"]["quality"] if not q["recovery_pct"]] == ["none published"]
    assert {q["baseline"] for q in rows["int4"]["quality"]} == {"native FP8"}
    assert any("DeepSeek-R1 is released in FP8" in n for n in body["notes"])
    page = client.get("/precision?model=deepseek-r1&tpot_ms=50").text
    assert "recovered against native FP8" in page and "BF16 (an upcast of the FP8 release)" in page


def test_mxfp4_is_its_own_release_row_never_the_nvfp4_one(client):
    """gpt-oss's native MXFP4 row sat on "FP4 (NVFP4 W4A4)"; MXFP4 MoE weights run weight-only, as on Hopper."""
    body, rows = _rows(client, "gpt-oss-120b")
    assert body["release"] == {**body["release"], "precision": "mxfp4", "row": "mxfp4", "assumed": False}
    assert rows["fp4"]["quality"] == [] and "another 4-bit format" in rows["fp4"]["quality_note"]
    mxfp4 = rows["mxfp4"]
    assert mxfp4["role"] == "reference" and "(the release)" in mxfp4["label"] and "W4A16" in mxfp4["label"]
    assert [q["precision"] for q in mxfp4["quality"]] == ["mxfp4"]
    assert mxfp4["weight_dtype"] == "int4" and mxfp4["runs_on"].startswith("BF16 peak")
    assert rows["bf16"]["role"] == "upcast"
    assert any("MXFP4 is not NVFP4 W4A4" in n for n in body["notes"])


def test_a_model_without_a_release_precision_in_the_reference_assumes_bf16_and_says_so(client):
    body, rows = _rows(client, "llama-3.1-70b")
    assert body["release"]["assumed"] and body["release"]["precision"] == "bf16"
    assert "mxfp4" not in rows and rows["bf16"]["label"] == "BF16 (baseline)" and rows["bf16"]["role"] == "reference"
    assert all(r["role"] != "upcast" for r in rows.values())
    assert any("The BF16 row is the reference" in n and "assumed" in n for n in body["notes"])
    assert {q["baseline"] for q in rows["fp8"]["quality"]} == {
        "the unquantised model (quality.csv names no other baseline)"
    }


def _refusals(client, workload: dict, weight_dtype: str) -> dict[tuple[str, int], dict]:
    """{(GPU, count): the option} of every configuration the ranking at `weight_dtype` refuses."""
    body = {**workload, "weight_dtype": weight_dtype, "kv_dtype": "bf16"}
    ranked = client.post("/api/v1/rank/inference", json=body).json()
    return {(o["gpu_id"], o["gpu_count"]): o for o in ranked["options"] if not o["feasible"]}


def test_a_refused_rows_reason_is_its_own_precisions_and_names_the_configuration_it_applies_to(client):
    """A row with no option took the first refusal in catalog order, naming no GPU: 405B at BF16 within 4 GPUs read
    "4xA100 40GB SXM leave 141 GB" though 4xGB200 leave 691 GB. It now names the configuration nearest to holding
    the weights, with that configuration's refusal at the row's own precision."""
    workload = {**WORKLOAD, "model": "llama-3.1-405b", "max_gpus": 4}
    rows = {r["key"]: r for r in client.post("/api/v1/precision", json=workload).json()["rows"]}
    refused = _refusals(client, workload, "bf16")

    def shortfall(o: dict) -> float:
        m = o["memory_gb"]
        return (m["weights"] + m["reserve"] - m["capacity"]) * o["gpu_count"]

    nearest = min((o for o in refused.values() if "capacity" in o["memory_gb"]), key=shortfall)
    for key in ("bf16", "kv_fp8"):  # both hold BF16 weights
        assert rows[key]["best"] is None
        named = f"{nearest['gpu_count']}×{nearest['gpu_id']}, the nearest to holding the weights: "
        assert rows[key]["reason"] == named + nearest["reason"], rows[key]["reason"]
        assert "needs 812 GB for bf16 weights" in rows[key]["reason"] and "A100 40GB" not in rows[key]["reason"]


def test_a_row_that_holds_the_weights_somewhere_names_that_refusal_not_one_that_does_not_fit(client):
    """DeepSeek-R1 INT4 at a 100k prompt within 8 GPUs read an A100 40GB's "needs 377 GB for int4 weights" though
    8-GPU RTX PRO 6000 and H200 nodes hold them and miss the latency limits: the row names the cheapest of those."""
    workload = {**WORKLOAD, "model": "deepseek-r1", "input_len": 100_000, "max_gpus": 8}
    rows = {r["key"]: r for r in client.post("/api/v1/precision", json=workload).json()["rows"]}
    for key, dtype in (("int4", "int4"), ("int8", "int8")):
        reason = rows[key]["reason"]
        where, _, refusal = reason.partition(", the cheapest configuration that holds the weights: ")
        count, _, gpu = where.partition("×")
        own = _refusals(client, workload, dtype)[(gpu, int(count))]
        assert refusal == own["reason"] and "needs" not in refusal, (key, reason)


def test_an_fp4_gpu_named_in_another_case_keeps_the_fp4_row_native(client):
    """The filters take GPU ids in any case: gpus=b200 ranked B200 at W4A4 like gpus=B200, but labelled the row 'FP4
    weights, run W4A16 (no FP4 peak among the GPUs asked for)' (found by qa14)."""
    rows = {}
    for asked in ("B200", "b200"):
        body = client.get(f"/precision.json?model=llama-3.1-8b&gpus={asked}").json()
        rows[asked] = next(r for r in body["rows"] if r["key"] == "fp4")
    assert rows["b200"]["label"] == rows["B200"]["label"] == "FP4 (NVFP4 W4A4)"
    assert rows["b200"]["runs_on"] == rows["B200"]["runs_on"]
    assert rows["b200"]["best"]["ranked_cost"] == rows["B200"]["best"]["ranked_cost"]
