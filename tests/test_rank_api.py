"""The estimate and rank API: the contract other tools depend on."""

from __future__ import annotations

import re

import pytest

from app.scoring.pricing.price_terms import STARTUP_HOURS

INFERENCE = {
    "model": "llama-3.1-70b",
    "weight_dtype": "fp8",
    "kv_dtype": "fp8",
    "input_len": 2000,
    "output_len": 400,
    "ttft_ms": 1000,
    "tpot_ms": 50,
    "engine": "vllm",
}
TRAINING = {
    "model": "llama-3.1-8b",
    "method": "lora",
    "precision": "bf16",
    "seq_len": 4096,
    "global_batch_seqs": 64,
    "total_tokens": 2e9,
}
OPTION_FIELDS = {
    "gpu_id",
    "gpu_count",
    "provider",
    "price_type",
    "usd_per_gpu_hour",
    "feasible",
    "reason",
    "close_call",
    "terms",
}


def test_rank_inference_orders_feasible_options_by_cost_per_token(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/inference", json=INFERENCE).json()
    assert body["workload"]["model"] == "llama-3.1-70b" and body["share_url"].startswith("/?phase=inference")
    options = body["options"]
    assert OPTION_FIELDS | {
        "tensor_parallel",
        "ttft_ms",
        "tpot_ms",
        "batch",
        "output_tokens_per_s",
        "usd_per_million_output_tokens",
        "usd_per_million_tokens",
        "memory_gb",
    } <= set(options[0])
    feasible = [o for o in options if o["feasible"]]
    costs = [o["usd_per_million_output_tokens"] for o in feasible]
    assert feasible and costs == sorted(costs)
    assert all(o["tpot_ms"] <= 50 and o["ttft_ms"] <= 1000 for o in feasible)
    assert all(not o["feasible"] for o in options[len(feasible) :])
    assert options[0]["terms"] and {"name", "value", "unit"} <= set(options[0]["terms"][0])


def test_rank_inference_infeasible_options_say_why(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post(
        "/api/v1/rank/inference",
        json={**INFERENCE, "weight_dtype": "bf16", "gpus": ["L4"], "max_gpus": 4, "include_stale": True},
    ).json()
    assert body["options"] and not any(o["feasible"] for o in body["options"])
    assert all("GB" in o["reason"] for o in body["options"])


def test_rank_training_orders_by_the_runs_billed_total_with_totals(client) -> None:  # type: ignore[no-untyped-def]
    """Cheapest run first: its billed total, start-up included (no longer the cost per step alone: a start-up bills
    every GPU of the run)."""
    body = client.post("/api/v1/rank/training", json=TRAINING).json()
    feasible = [o for o in body["options"] if o["feasible"]]
    costs = [o["total_usd"] for o in feasible]
    assert costs == sorted(costs)
    top = feasible[0]
    assert {"step_time_s", "tokens_per_s_per_gpu", "mfu", "total_hours", "total_usd", "memory_per_gpu_gb"} <= set(top)
    expected = top["step_time_s"] * top["gpu_count"] * top["usd_per_gpu_hour"] / 3600
    assert abs(top["usd_per_step"] - expected) < 1e-6 * max(1.0, expected)


def test_rank_filters_restrict_providers_and_price_types(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post(
        "/api/v1/rank/training", json={**TRAINING, "providers": ["lambda"], "price_types": ["on_demand"]}
    ).json()
    assert body["options"] and {(o["provider"], o["price_type"]) for o in body["options"]} == {("lambda", "on_demand")}


def test_rank_limit_and_terms_flags(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/training?limit=2&terms=false", json=TRAINING).json()
    assert len(body["options"]) == 2 and not {"terms", "assumptions"} & set(body["options"][0])


def test_rank_unknown_model_is_422_naming_model(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "model": "llama-9-900b"})
    assert response.status_code == 422
    assert (
        response.json()["detail"][0]["field"] == "model" and "llama-9-900b" in response.json()["detail"][0]["message"]
    )


def test_rank_rejects_negative_length_naming_field(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "input_len": -5})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "input_len"


def test_rank_accepts_custom_architecture_and_hf_config(client) -> None:  # type: ignore[no-untyped-def]
    arch = {
        "params_b": 8.03,
        "layers": 32,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_kv_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
    }
    custom = client.post("/api/v1/rank/training", json={**TRAINING, "model": None, "custom_model": arch}).json()
    config = {
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
    }
    pasted = client.post("/api/v1/rank/training", json={**TRAINING, "model": None, "hf_config": config})
    assert pasted.status_code == 200, pasted.text
    assert custom["options"][0]["feasible"] and pasted.json()["options"][0]["feasible"]
    assert abs(pasted.json()["model"]["params_b"] - 8.03) < 0.1


def test_engine_batch_cap_is_a_workload_field_checked_and_applied(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "max_num_seqs": 0})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "max_num_seqs"
    query = {**INFERENCE, "gpu": "H100-SXM", "gpu_count": 2, "scenario": "max_throughput", "max_num_seqs": 4}
    body = client.post("/api/v1/estimate/inference", json=query).json()
    assert body["feasible"] and body["batch"] == 4


def test_estimate_takes_a_gpu_id_in_any_case_and_answers_under_the_catalogs(client) -> None:  # type: ignore[no-untyped-def]
    """QA: the estimate refused `h100-sxm` while the filters and /api/v1/gpus/h100-sxm take it."""
    exact = client.post("/api/v1/estimate/inference", json={**INFERENCE, "gpu": "H100-SXM", "gpu_count": 2}).json()
    lower = client.post("/api/v1/estimate/inference", json={**INFERENCE, "gpu": "h100-sxm", "gpu_count": 2})
    assert lower.status_code == 200 and lower.json() == exact and exact["gpu_id"] == "H100-SXM"
    training = {"model": "llama-3.1-8b", "method": "lora", "gpu": "h100-SXM", "gpu_count": 1}
    trained = client.post("/api/v1/estimate/training", json=training)
    assert trained.status_code == 200 and trained.json()["gpu_id"] == "H100-SXM"
    ranked = client.post("/api/v1/rank/inference?limit=1", json={**INFERENCE, "gpus": ["H100-SXM"]}).json()
    top = ranked["options"][0]
    on_offer = {**INFERENCE, "gpu": "h100-sxm", "gpu_count": top["gpu_count"], "offer_id": top["offer_id"]}
    assert client.post("/api/v1/estimate/inference", json=on_offer).status_code == 200
    unknown = client.post("/api/v1/estimate/inference", json={**INFERENCE, "gpu": "h100-sxmx", "gpu_count": 2})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["field"] == "gpu"


def test_estimate_inference_single_configuration(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/estimate/inference", json={**INFERENCE, "gpu": "H100-SXM", "gpu_count": 2}).json()
    assert body["feasible"] and body["tensor_parallel"] == 2 and body["terms"]
    assert 30 < body["memory_gb"]["weights"] < 40  # 70.6 GB of fp8 weights split over TP2


def test_estimate_training_single_configuration(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/estimate/training", json={**TRAINING, "gpu": "H100-SXM", "gpu_count": 8}).json()
    assert body["feasible"] and body["step_time_s"] > 0 and body["memory_per_gpu_gb"] < 80


def test_estimate_unknown_gpu_is_422_naming_gpu(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/estimate/training", json={**TRAINING, "gpu": "Z9000"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "gpu"


TRTLLM_ON_AMD = {"model": "gpt-oss-120b", "weight_dtype": "fp4", "engine": "trtllm"}


def test_a_filter_leaving_only_gpus_the_engine_does_not_run_on_is_422_naming_engine(client) -> None:  # type: ignore[no-untyped-def]
    """TensorRT-LLM on MI300X was ranked feasible at batch 187; it runs on NVIDIA only."""
    for filters in ({"gpus": ["MI300X"]}, {"vendors": ["AMD"]}):
        response = client.post("/api/v1/rank/inference?limit=1", json={**TRTLLM_ON_AMD, **filters})
        assert response.status_code == 422, filters
        error = response.json()["detail"][0]
        assert error["field"] == "engine" and "NVIDIA only" in error["message"] and "AMD" in error["message"]
    mixed = client.post("/api/v1/rank/inference?terms=false", json={**TRTLLM_ON_AMD, "gpus": ["MI300X", "H100-SXM"]})
    rows = mixed.json()["options"]
    assert mixed.status_code == 200 and any(o["feasible"] for o in rows)
    assert all(not o["feasible"] and "engine trtllm" in o["reason"] for o in rows if o["gpu_id"] == "MI300X")
    estimate = client.post("/api/v1/estimate/inference", json={**TRTLLM_ON_AMD, "gpu": "MI300X", "gpu_count": 1})
    assert estimate.status_code == 422 and estimate.json()["detail"][0]["field"] == "engine"


CHAT_8B = {"model": "llama-3.1-8b", "input_len": 1000, "output_len": 300, "ttft_ms": 500, "tpot_ms": 30}


def test_default_ranking_puts_an_on_demand_fresh_offer_first(client) -> None:  # type: ignore[no-untyped-def]
    options = client.post("/api/v1/rank/inference", json=CHAT_8B).json()["options"]
    feasible = [o for o in options if o["feasible"]]
    assert feasible, "the seed can serve an 8B chat model"
    assert {(o["price_type"], o["stale"]) for o in options} == {("on_demand", False)}
    assert all({"price_type", "stale", "as_of", "interruptible", "price_note"} <= o.keys() for o in options)


def test_asking_for_spot_shows_spot_rows_labelled_interruptible(client) -> None:  # type: ignore[no-untyped-def]
    body = {**CHAT_8B, "price_types": ["spot"], "include_stale": True}
    options = client.post("/api/v1/rank/inference", json=body).json()["options"]
    assert options and all(o["price_type"] == "spot" and o["interruptible"] for o in options)
    assert any(o["stale"] for o in options), "the seed has spot prices older than the stale-after days"


def test_a_list_price_of_a_shape_not_sold_on_demand_is_never_ranked(client) -> None:  # type: ignore[no-untyped-def]
    """GCP's a3-highgpu-1g is Spot/Flex-start only; its on-demand list price ($10.98/GPU-h) was ranked #1 for a small
    GCP batch job, a machine nobody can rent on demand. The catalog lists it, labelled; no ranking offers it."""
    listed = client.get("/api/v1/offers?provider=gcp&price_type=on_demand").json()
    unsold = {o["id"] for o in listed if o["instance_type"] == "a3-highgpu-1g"}
    assert len(unsold) == 1
    assert all("not sold on these terms: a list price only" in o["price_caveats"] for o in listed if o["id"] in unsold)
    job = {**CHAT_8B, "providers": ["gcp"], "scenario": "max_throughput", "job_requests": 1000}
    for phase, body in (("inference", job), ("inference", {**CHAT_8B, "providers": ["gcp"]}), ("training", TRAINING)):
        body = {**body, "providers": ["gcp"], "include_stale": True}
        options = client.post(f"/api/v1/rank/{phase}", json=body).json()["options"]
        assert options and not {o["offer_id"] for o in options} & unsold
    best = client.post("/api/v1/rank/inference", json=job).json()["options"][0]
    assert (best["provider"], best["price_type"], best["instance_type"]) == ("gcp", "on_demand", "a3-ultragpu-8g")


def test_each_row_names_the_instance_and_region_its_offer_rents(client) -> None:  # type: ignore[no-untyped-def]
    """A ranked row names the machine to rent as the catalog does (AWS's p5.48xlarge, not only 'AWS, 8xH100'), in
    the JSON, the CSV and on the page, so the #1 is an offer a buyer can find as ranked."""
    offers = {o["id"]: o for o in client.get("/api/v1/offers?provider=aws").json()}
    for phase, body in (("inference", {**CHAT_8B, "model": "llama-3.1-70b"}), ("training", TRAINING)):
        options = client.post(f"/api/v1/rank/{phase}", json={**body, "providers": ["aws"]}).json()["options"]
        assert options
        for option in options:
            offer = offers[option["offer_id"]]
            assert (option["instance_type"], option["region"]) == (offer["instance_type"], offer["region"])
        assert options[0]["instance_type"].startswith(("p4", "p5", "p6", "g5", "g6"))
    page = client.get("/?phase=inference&model=llama-3.1-70b&providers=aws").text
    best = client.get("/rank.json?phase=inference&model=llama-3.1-70b&providers=aws").json()["options"][0]
    assert f">{best['instance_type']}</span>" in page


def test_a_spot_row_says_what_its_price_assumes_of_interruptions(client) -> None:  # type: ignore[no-untyped-def]
    """A service ranked on spot is priced as if never interrupted, with no spare replica: each spot row says so in its
    assumptions (a batch job's says its billed hours count them); an on-demand row says nothing of the kind."""
    body = {**CHAT_8B, "price_types": ["spot", "on_demand"], "peak_requests_per_s": 20}
    options = [o for o in client.post("/api/v1/rank/inference", json=body).json()["options"] if o["feasible"]]
    spot = [o for o in options if o["price_type"] == "spot"]
    assert spot and len(spot) < len(options)
    for option in options:
        said = [a for a in option["assumptions"] if a.startswith("spot: the provider may reclaim")]
        assert len(said) == (option["price_type"] == "spot")
    assert all("no spare replica" in a for o in spot for a in o["assumptions"] if a.startswith("spot:"))
    job = {**CHAT_8B, "price_types": ["spot"], "scenario": "max_throughput", "job_requests": 10_000}
    best = client.post("/api/v1/rank/inference", json=job).json()["options"][0]
    assert any("billed hours include the requests" in a for a in best["assumptions"])


def test_training_rows_carry_price_terms(client) -> None:  # type: ignore[no-untyped-def]
    options = client.post("/api/v1/rank/training", json={**TRAINING, "include_stale": True}).json()["options"]
    assert options and any(o["stale"] for o in options) and all(o["price_type"] == "on_demand" for o in options)


def test_attention_split_is_a_workload_field_checked_and_reported(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "attention_parallel": "sideways"})
    assert response.status_code == 422 and response.json()["detail"][0]["field"] == "attention_parallel"
    reasoning = {
        **INFERENCE,
        "model": "deepseek-r1",
        "kv_dtype": "fp8",
        "engine": "sglang",
        "input_len": 1000,
        "output_len": 8000,
        "tpot_ms": 100,
        "ttft_ms": 10000,
        "gpu": "H200",
        "gpu_count": 8,
    }
    auto = client.post("/api/v1/estimate/inference", json=reasoning).json()
    heads = client.post("/api/v1/estimate/inference", json={**reasoning, "attention_parallel": "tp"}).json()
    assert auto["attention_parallel"] == "dp" and heads["attention_parallel"] == "tp"
    assert auto["output_tokens_per_s"] > heads["output_tokens_per_s"]
    ranked = client.post(
        "/api/v1/rank/inference", json={k: v for k, v in reasoning.items() if k not in ("gpu", "gpu_count")}
    ).json()
    assert any(o["attention_parallel"] == "dp" for o in ranked["options"] if o["feasible"])


def test_fp4_training_ranks_every_gpu_at_the_precision_it_runs(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/training", json={**TRAINING, "method": "pretrain", "precision": "fp4"}).json()
    feasible = [o for o in body["options"] if o["feasible"]]
    assert {"B200", "H100-SXM"} <= {o["gpu_id"] for o in feasible}
    fp8 = client.post("/api/v1/rank/training", json={**TRAINING, "method": "pretrain", "precision": "fp8"}).json()
    speed = {p: {(o["gpu_id"], o["gpu_count"]): o["tokens_per_s_per_gpu"] for o in b["options"] if o["feasible"]}
             for p, b in (("fp4", body), ("fp8", fp8))}  # fmt: skip
    both = speed["fp4"].keys() & speed["fp8"].keys()
    b200 = [k for k in both if k[0] == "B200"]
    h100 = [k for k in both if k[0] == "H100-SXM"]
    assert b200 and h100
    assert all(speed["fp4"][k] > speed["fp8"][k] for k in b200)
    assert all(speed["fp4"][k] == speed["fp8"][k] for k in h100)
    assert any("FP4 training is modelled, not measured" in n for n in body["notes"])
    assert "H100-SXM: no FP4 tensor cores: runs in FP8" in body["notes"]
    page = client.get("/?phase=training&model=llama-3.1-8b&method=pretrain&precision=fp4")
    assert page.status_code == 200 and 'value="fp4" selected' in page.text and "modelled, not measured" in page.text
    bad = client.post("/api/v1/rank/training", json={**TRAINING, "precision": "fp2"})
    assert bad.status_code == 422 and "precision" in bad.text


def test_a_batch_job_is_a_workload_field_checked_and_priced(client) -> None:  # type: ignore[no-untyped-def]
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "job_requests": 1000})
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["field"] == "job_requests" and error["message"].startswith(
        "a batch job runs at scenario max_throughput"
    )
    job = {**INFERENCE, "scenario": "max_throughput", "job_requests": 50_000}
    body = client.post("/api/v1/rank/inference", json=job).json()
    best = body["options"][0]
    assert body["workload"]["job_requests"] == 50_000
    assert best["job_billed_hours"] >= best["job_hours"]  # rounded up to a billing unit where the provider has one
    assert (
        abs(best["job_usd"] - best["usd_per_gpu_hour"] * best["gpu_count"] * best["job_billed_hours"])
        < 1e-5 * best["job_usd"]
    )
    work_hours = best["job_hours"] - STARTUP_HOURS  # the job's hours begin with the machine's start-up
    assert abs(work_hours * 3600 * best["output_tokens_per_s"] - 50_000 * 400) < 1e-3 * 50_000 * 400
    assert any(t["name"] == "batch job" for t in best["terms"])
    api = body["serverless_job"]
    assert 1 <= len(api) <= 3 and [q["job_usd"] for q in api] == sorted(q["job_usd"] for q in api)
    cheapest = api[0]  # list price per request x the job's requests
    per_request = (2000 * cheapest["input_usd_per_mtok"] + 400 * cheapest["output_usd_per_mtok"]) / 1e6
    assert abs(cheapest["job_usd"] - 50_000 * per_request) < 1e-4 and "monthly_usd" not in cheapest
    service = client.post("/api/v1/rank/inference", json={**INFERENCE, "scenario": "max_throughput"}).json()
    assert service["options"][0]["job_hours"] is None and "serverless_job" not in service


def test_every_ranked_option_carries_its_assumptions_and_its_bands_evidence(client) -> None:  # type: ignore[no-untyped-def]
    """DESIGN: each ranked option carries its terms, the assumptions used and a band from the validation residuals;
    the rows carried the terms and the band but not what either rests on."""
    for phase, body in (("inference", INFERENCE), ("training", TRAINING)):
        options = [o for o in client.post(f"/api/v1/rank/{phase}", json=body).json()["options"] if o["feasible"]]
        assert options and all(o["assumptions"][-1].startswith("band: p10-p90 of ") for o in options), phase
    training = client.post("/api/v1/rank/training", json=TRAINING).json()["options"][0]
    assert any("LoRA rank 16" in a for a in training["assumptions"])
    page = client.get("/?phase=training&model=llama-3.1-8b").text  # what every row assumes is said once
    shared = page.split("What every row below assumes, and what its band rests on")
    assert len(shared) == 2 and shared[1].count("LoRA rank 16 on all linear layers") == 1
    assert "leave-one-source-out residuals (training tokens/s per GPU" in shared[1].split("</ul>")[0]
    # B200 and H100 rows: 8 and 16 GPUs, in regimes of their own (a GB200 rack row could take the whole page)
    mixed = client.get("/?phase=inference&model=deepseek-r1&weight_dtype=fp8&engine=sglang&gpus=B200,H100-SXM").text
    assert "Assumed for this row, beyond what every row assumes" in mixed  # rows in other regimes say theirs


LATE_RANK = "/api/v1/rank/training?limit=30&terms=false"
# 70B pretraining on 100 B tokens in 7 days: no offer finishes in time at the default 64 GPUs
LATE_PRETRAIN = {
    "model": "llama-3.1-70b",
    "method": "pretrain",
    "seq_len": 8192,
    "global_batch_seqs": 512,
    "total_tokens": 1e11,
    "max_days": 7,
}


def test_training_that_misses_the_deadline_lists_the_nearest_first_and_says_what_would_help(client):
    """A 7-day deadline no offer meets at 64 GPUs: the 8-day run on 64 B200s comes before a cheaper 69-day one,
    and a note says how many GPUs would finish in time and which limit binds."""
    body = client.post(LATE_RANK, json=LATE_PRETRAIN).json()
    assert body["feasible_options"] == 0
    late = [o for o in body["options"] if o["total_usd"] is not None]
    days = [o["total_hours"] / 24 for o in late]
    assert days == sorted(days) and days[0] < 9
    note = next(n for n in body["notes"] if n.startswith("No option finishes within the 7-day deadline"))
    assert "raise Max GPUs (now 64)" in note


def test_at_the_bands_slow_end_the_nothing_on_time_note_gives_the_nearest_runs_days_there(client):
    """With limits_at band_high a run is late where its band's slow end is: the note's 'the nearest takes' is
    those days, longer than on the estimate, and says where it is."""

    def nearest(body: dict) -> str:
        return next(n for n in body["notes"] if n.startswith("No option finishes within the 7-day deadline"))

    plain = nearest(client.post(LATE_RANK, json=LATE_PRETRAIN).json())
    slow = nearest(client.post(LATE_RANK, json={**LATE_PRETRAIN, "limits_at": "band_high"}).json())
    assert "at its band's slow end." in slow and "slow end" not in plain
    days = [float(re.search(r"takes ([0-9.]+) days", note).group(1)) for note in (plain, slow)]
    assert days[1] > days[0]


def test_coreweave_gb200_says_one_nvl72_rack_stops_a_pretrain_on_the_page_and_in_json(client):
    """70B on 2T tokens with gpus=GB200 stopped at 72 GPUs ('finishes in 158.5 days') without saying why: CoreWeave
    states no fabric between its NVL72 racks, so one rack is all a job gets. A global batch of 144 sequences splits
    evenly over 72 GPUs' 18 replicas (the default 64 gave 64 and 72 GPUs the same 4-sequence busiest replica, a tie
    that floating-point noise decided)."""
    query = (
        "phase=training&model=llama-3.1-70b&method=pretrain&total_tokens=2000000000000&max_gpus=1024&max_days=60"
        "&global_batch_seqs=144"
    )
    body = client.get(f"/rank.json?{query}&gpus=GB200").json()
    row = next(o for o in body["options"] if o["provider"] == "coreweave")
    rack = "supplies at most 72 GPUs to one job: one NVL72 rack (a 72-GPU NVLink domain of 4-GPU nodes)"
    assert row["gpu_count"] == 72 and not row["feasible"] and rack in row["reason"]
    assert row["reason"].endswith("no fabric between racks is stated")
    assert any(rack in note for note in body["notes"])
    page = client.get(f"/?{query}&gpus=GB200")
    assert page.status_code == 200 and rack in page.text and "no fabric between racks is stated" in page.text


def test_training_never_ranks_a_managed_inference_endpoint(client):
    """Fireworks' managed deployments serve models; a training job cannot run on them. Inference still ranks them."""
    training = client.post(
        "/api/v1/rank/training?limit=500&terms=false", json={"model": "llama-3.1-8b", "total_tokens": 2e8}
    ).json()
    assert training["options"] and not any("inference endpoint" in o["price_note"] for o in training["options"])
    inference = client.post("/api/v1/rank/inference?limit=500&terms=false", json={"model": "llama-3.1-8b"}).json()
    assert any("inference endpoint" in o["price_note"] for o in inference["options"])


def test_a_deadline_of_seconds_and_a_rate_of_almost_nothing_are_answered(client):
    """Found by the API fuzz: a 5e-324-day deadline made the nothing-on-time note divide by zero, and a cost of
    capital of 6e-198 % made /own's annuity divide by 1 - 1.0."""
    body = {"model": "llama-3.1-8b", "max_days": 5e-324, "total_tokens": 2e9}
    response = client.post("/api/v1/rank/training?limit=1", json=body)
    assert response.status_code == 200
    assert any("start-up alone fills the deadline" in n for n in response.json()["notes"])  # no GPU count would do
    own = client.post("/api/v1/own", json={"colocation_usd_per_kw_month": 0.0, "cost_of_capital_pct": 5.93e-198})
    assert own.status_code == 200


def test_the_rank_api_sorts_as_a_results_page_does(client):
    """POST /api/v1/rank/* take the page's `sort`: feasible options in that column's order, each with its rank;
    a column of the other phase, or none at all, is a 422 on `sort`."""
    body = {"model": "llama-3.1-8b"}
    ranked = client.post("/api/v1/rank/inference?terms=false", json=body).json()
    by_ttft = client.post("/api/v1/rank/inference?terms=false&sort=ttft", json=body).json()
    feasible = [o for o in by_ttft["options"] if o["feasible"]]
    assert [o["ttft_ms"] for o in feasible] == sorted(o["ttft_ms"] for o in feasible)
    assert by_ttft["sort"] == "ttft" and "&sort=ttft" in by_ttft["share_url"]
    best = next(o for o in feasible if o["rank"] == 1)
    assert best["usd_per_million_output_tokens"] == ranked["options"][0]["usd_per_million_output_tokens"]
    for sort in ("mfu", "bogus"):
        refused = client.post(f"/api/v1/rank/inference?sort={sort}", json=body)
        assert refused.status_code == 422 and refused.json()["detail"][0]["field"] == "sort"
    training = client.post("/api/v1/rank/training?terms=false&limit=5&sort=-mfu", json=body).json()
    mfus = [o["mfu"] for o in training["options"] if o["feasible"]]
    assert mfus == sorted(mfus, reverse=True)


def test_an_estimate_without_an_offer_says_its_machine_as_the_ranking_says_an_offer_of_that_many(client) -> None:  # type: ignore[no-untyped-def]
    """One L40S is a '1-GPU node' in the ranking's rows (it was '1-GPU node (none)': one GPU has no link to name); its
    estimate once said '8-GPU node (pcie)'. The words follow the GPUs asked for; the numbers are the ranking's row's."""
    lora = {"model": "llama-3.1-8b", "method": "lora"}
    ranked = client.get("/rank.json?phase=training&model=llama-3.1-8b&method=lora&gpus=L40S").json()["options"]
    row = next(o for o in ranked if o["gpu_count"] == 1 and o["feasible"])
    one = client.post("/api/v1/estimate/training", json={**lora, "gpu": "L40S", "gpu_count": 1}).json()
    assert one["machine"] == row["machine"] == "1-GPU node"
    assert one["step_time_s"] == row["step_time_s"] and one["layout_text"] == row["layout"]
    four = client.post("/api/v1/estimate/training", json={**lora, "gpu": "L40S", "gpu_count": 4}).json()
    assert four["machine"] == "4-GPU node (pcie)"
    hgx = client.post("/api/v1/estimate/training", json={**lora, "gpu": "H100-SXM", "gpu_count": 4}).json()
    assert hgx["machine"] == "8-GPU node (nvlink)"  # a scale-up GPU runs on its own board
    served = client.post("/api/v1/estimate/inference", json={"model": "llama-3.1-8b", "gpu": "L40S", "gpu_count": 1})
    assert served.json()["machine"] == "1-GPU node"


def test_a_pretrain_at_the_fine_tuning_default_batch_says_so_and_links_the_typical_batch(client):
    """70B pretraining kept the fine-tune default of 64 sequences (262k tokens) silently; published pretraining
    batches are millions of tokens. The JSON and the page say which batch was used, why, and link the same
    question at GPT-3's batch for the nearest size (3.2M tokens: 781 sequences of 4,096)."""
    query = "phase=training&model=llama-3.1-70b&method=pretrain&total_tokens=1000000000000&max_gpus=256&max_days=90"
    body = client.get(f"/rank.json?{query}&gpus=B200").json()
    batch = body["global_batch"]
    assert (batch["sequences"], batch["tokens"], batch["default"]) == (64, 262_144, True)
    assert batch["typical"]["sequences"] == 781 and batch["note"] in body["notes"]
    link = batch["typical"]["url"]
    assert link.startswith("/?phase=training&model=llama-3.1-70b&method=pretrain&global_batch_seqs=781&")
    page = client.get(f"/?{query}&gpus=B200").text
    said = "at a global batch of 64 sequences (262,144 tokens), the default (64 sequences), small for pretraining"
    assert said in page
    assert f'<a href="{link.replace("&", "&amp;")}">Rank at 781 sequences per step →</a>' in page
    typical = client.get(link.replace("/?", "/rank.json?")).json()
    assert typical["global_batch"]["sequences"] == 781 and typical["global_batch"]["note"] == ""
    assert typical["workload"]["total_tokens"] == 1e12  # the same token budget, in fewer steps


EIGHT_B_AT_512 = {
    "model": "llama-3.1-8b",
    "gpus": ["H100-SXM"],
    "input_len": 2000,
    "output_len": 400,
    "ttft_ms": 2000,
    "tpot_ms": 50,
    "scenario": "concurrency",
}


def test_one_replica_far_dearer_than_replicas_notes_and_links_the_peak_question(client) -> None:  # type: ignore[no-untyped-def]
    """512 clients on one replica ranked a 32xH100 TP8 x PP4 layout first at $4.82/M, 25x what 1-GPU replicas cost,
    with no note: the answer now says so and links the same load as the peak. Spread over the copies of one rented
    instance (spread_load.py) 512 clients no longer cost twice the replicas; 20 requests/s of the 8B on Lambda's
    2xB200 instance still do (2.3x)."""
    body = client.post(
        "/api/v1/rank/inference?limit=1&terms=false",
        json={"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    ).json()
    replicas = body["replicas"]
    assert replicas["ratio"] >= 2 and replicas["note"] in body["notes"] and "this request rate" in replicas["note"]
    assert " x " not in replicas["note"] and "× the $" in replicas["note"]  # multiplication reads "×" (leftovers10)
    assert "peak_requests_per_s=20" in replicas["url"] and "scenario=request_rate" not in replicas["url"]
    assert replicas["usd_per_million_output_tokens"] * 2 <= body["options"][0]["usd_per_million_output_tokens"]
    page = client.get(replicas["url"])
    assert page.status_code == 200
    question = "/?phase=inference&model=llama-3.1-8b&gpus=H100-SXM&input_len=2000&output_len=400&ttft_ms=2000"
    html = client.get(f"{question}&tpot_ms=50&scenario=concurrency&concurrency=2048").text  # every row over them
    assert "The same 2,048 clients on replicas that meet the limits" in html
    modest = client.post("/api/v1/rank/inference?limit=1&terms=false", json={**EIGHT_B_AT_512, "concurrency": 64})
    modest_notes = modest.json()["notes"]  # one GPU takes 64: nothing to point at (the weights' note only)
    assert "replicas" not in modest.json() and not [n for n in modest_notes if "replica" in n]


MAVERICK_SHAPE = {
    "params_b": 400,
    "active_params_b": 17,
    "layers": 48,
    "hidden_size": 5120,
    "num_attention_heads": 40,
    "num_kv_heads": 8,
    "intermediate_size": 16384,
    "vocab_size": 202048,
    "num_experts": 128,
    "experts_per_token": 1,
    "moe_intermediate_size": 8192,
    "num_shared_experts": 1,
}


def test_rank_refuses_more_moe_layers_than_layers_naming_the_field(client) -> None:  # type: ignore[no-untyped-def]
    arch = {**MAVERICK_SHAPE, "moe_layers": 49}
    response = client.post("/api/v1/rank/inference", json={**INFERENCE, "model": None, "custom_model": arch})
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["field"] == "custom_model.moe_layers" and "48 layers" in error["message"]


def test_a_typed_and_a_pasted_moe_layer_count_reach_the_model_read(client) -> None:  # type: ignore[no-untyped-def]
    typed = {**MAVERICK_SHAPE, "moe_layers": 24}
    body = client.post("/api/v1/rank/inference", json={**INFERENCE, "model": None, "custom_model": typed}).json()
    assert body["model"]["moe_layers"] == 24
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "moe_intermediate_size": 1024,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "n_routed_experts": 64,
        "num_experts_per_tok": 4,
        "first_k_dense_replace": 2,
        "vocab_size": 32000,
    }
    pasted = client.post("/api/v1/rank/inference", json={**INFERENCE, "model": None, "hf_config": config})
    assert pasted.status_code == 200, pasted.text
    assert pasted.json()["model"]["moe_layers"] == 22


def test_nothing_feasible_names_the_stale_offers_left_out_even_when_others_matched(client):
    """70B BF16 on AMD: one current MI300X offer matches and cannot meet the limits alone; stale 8-GPU MI355X and
    MI300X offers would run it. The answer said only "No offer can run this workload", no word of the stale ones,
    because the note was written only where no offer at all matched the filters."""
    body = {"model": "llama-3.1-70b", "weight_dtype": "bf16", "vendors": ["AMD"]}
    current = client.post("/api/v1/rank/inference", json=body).json()
    stale = client.post("/api/v1/rank/inference", json={**body, "include_stale": True}).json()
    assert current["total_options"] > 0 and current["feasible_options"] == 0 < stale["feasible_options"]
    notes = " ".join(current["notes"])
    assert "more would match without the price-term and staleness filters" in notes and "include_stale" in notes


R1_AT_TWO_PER_S = {
    "model": "deepseek-r1",
    "weight_dtype": "fp8",
    "engine": "sglang",
    "input_len": 1000,
    "output_len": 1000,
    "ttft_ms": 3000,
    "tpot_ms": 150,
    "scenario": "request_rate",
    "requests_per_s": 2,
}


def test_replicas_are_compared_at_the_traffic_not_at_full_load(client) -> None:  # type: ignore[no-untyped-def]
    """DeepSeek-R1 at 2 requests/s: one 16xA100 replica takes it at $6/M, and the linked peak question's cheapest
    fleet is that same single replica. The note had said '2x the $2.96 of replicas sized to meet the limits (8xB200
    each, 1 replicas)': one 8xB200's $ per token at full load, though at 2 requests/s it runs half idle ($7.43/M)."""
    body = client.post("/api/v1/rank/inference?limit=1&terms=false", json=R1_AT_TWO_PER_S).json()
    assert body["feasible_options"] and "replicas" not in body
    assert not [n for n in body["notes"] if "replicas sized to meet the limits" in n]
    # a 30 ms TPOT limit: spread over one instance's copies, 16 requests/s at the default limits is no longer twice
    # the replicas' cost (spread_load.py)
    rate = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "scenario": "request_rate", "requests_per_s": 16}
    rate["tpot_ms"] = 30
    busy = client.post("/api/v1/rank/inference?limit=1&terms=false", json=rate).json()  # 400 output tokens each
    fleet = client.get(busy["replicas"]["url"].replace("/?", "/index.json?")).json()["options"][0]
    at_traffic = fleet["usd_per_month_at_peak"] / 730 / (16 * 400 * 3600 / 1e6)
    assert busy["replicas"]["usd_per_million_output_tokens"] == pytest.approx(at_traffic, rel=1e-4)
    assert f"{fleet['replicas']} replicas" in busy["replicas"]["note"]


def test_replicas_note_ratio_reads_as_the_two_prices_divide(client) -> None:  # type: ignore[no-untyped-def]
    """8B at 20 req/s: '$0.478 ... 2× the $0.208' (2.3 by hand) now reads '2.3×' (found by qa31)."""
    body = client.post(
        "/api/v1/rank/inference?limit=1&terms=false",
        json={"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    ).json()
    replicas, best = body["replicas"], body["options"][0]
    said = re.search(r"\), ([\d.]+)× the \$([\d.]+) of replicas", replicas["note"])
    assert said is not None, replicas["note"]
    by_hand = best["usd_per_million_output_tokens"] / replicas["usd_per_million_output_tokens"]
    assert 2 < by_hand < 10 and abs(float(said.group(1)) - by_hand) <= 0.05


def test_replicas_note_says_its_price_is_at_this_traffic_not_the_peak_ranking_s(client) -> None:  # type: ignore[no-untyped-def]
    """8B at 20 req/s: the note's '$0.208' of replicas is the fleet's month over the tokens this load makes, while the
    peak ranking it links lists its #1 at full load ($0.190): the note now says which is which, so a buyer following
    the link is not surprised (found by tidy)."""
    body = client.post(
        "/api/v1/rank/inference?limit=1&terms=false",
        json={"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    ).json()
    replicas = body["replicas"]
    peak = client.get(replicas["url"].replace("/?", "/rank.json?")).json()
    assert peak["rank_by"] == "fleet"
    full_load = peak["options"][0]["usd_per_million_output_tokens"]
    assert full_load < replicas["usd_per_million_output_tokens"]  # the two numbers differ: the note must say why
    assert "the bill over the tokens this load makes" in replicas["note"]
    assert "the peak ranking's $/M is each replica's at full load" in replicas["note"]
