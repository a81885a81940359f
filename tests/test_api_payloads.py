"""What the rank and estimate payloads say, as an integrator reads them: an option that cannot run has no
latency (null, not 0)."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

ALL_TERMS = "include_stale=true&price_types=on_demand,spot,reserved,marketplace,capacity_block"
LLAMA_70B = f"phase=inference&model=llama-3.1-70b&weight_dtype=fp8&{ALL_TERMS}"
TRAINING_70B = "phase=training&model=llama-3.1-70b&method=full_ft&max_gpus=16&include_stale=true"
INFERENCE_MEASURES = (
    "ttft_ms", "tpot_ms", "ttft_median_ms", "ttft_p99_ms", "tpot_p99_ms", "batch",
    "output_tokens_per_s", "usd_per_million_output_tokens", "usd_per_million_tokens", "usd_per_thousand_requests",
    "replicas", "instances", "band",
)  # fmt: skip
TRAINING_MEASURES = (
    "usd_per_step", "step_time_s", "tokens_per_s_per_gpu", "mfu", "total_hours", "total_usd", "days", "billed_hours",
    "expected_interruptions", "band",
)  # fmt: skip


def _json(client: TestClient, query: str) -> dict[str, Any]:
    response = client.get(f"/rank.json?{query}")
    assert response.status_code == 200, response.text
    return response.json()


def _csv(client: TestClient, query: str) -> tuple[list[str], list[dict[str, str]]]:
    text = client.get(f"/rank.csv?{query}").text
    return next(csv.reader(io.StringIO(text))), list(csv.DictReader(io.StringIO(text)))


# --- an option that cannot run has no measures ----------------------------------------------------------------


def test_an_infeasible_inference_option_has_null_measures_and_empty_csv_cells(client: TestClient) -> None:
    options = _json(client, LLAMA_70B)["options"]
    infeasible = [o for o in options if not o["feasible"]]
    assert infeasible and all(o[k] is None for o in infeasible for k in INFERENCE_MEASURES)
    feasible = [o for o in options if o["feasible"]]
    assert all(o[k] is not None for o in feasible for k in INFERENCE_MEASURES)
    # the reviewer's script: rows at a p99 TTFT within a limit are rows that run
    assert [o for o in options if o["ttft_p99_ms"] is not None and o["ttft_p99_ms"] <= 1000] == [
        o for o in feasible if o["ttft_p99_ms"] <= 1000
    ]
    _, rows = _csv(client, LLAMA_70B)
    unfit = [r for r in rows if r["feasible"] == "False"]
    assert len(unfit) == len(infeasible)
    assert all(r[k] == "" for r in unfit for k in ("ttft_ms", "ttft_p99_ms", "batch", "band_low"))


def test_an_inference_estimate_that_cannot_run_has_null_measures(client: TestClient) -> None:
    body = {"model": "llama-3.1-70b", "gpu": "H100-SXM", "gpu_count": 3}  # TP3 does not divide 64 heads
    answer = client.post("/api/v1/estimate/inference", json=body).json()
    assert answer["feasible"] is False and "does not divide" in answer["reason"]
    measures = ("ttft_ms", "ttft_p99_ms", "tpot_p99_ms", "batch", "max_batch", "output_tokens_per_s")
    assert all(answer[k] is None for k in measures) and answer["band"] is None
    assert answer["memory_gb"]["weights"] > 0  # what it would need stays: it says why it cannot run


def test_a_training_estimate_that_cannot_run_has_null_measures(client: TestClient) -> None:
    too_big = {"model": "llama-3.1-70b", "method": "full_ft", "gpu": "H100-SXM", "gpu_count": 1}
    answer = client.post("/api/v1/estimate/training", json=too_big).json()
    assert answer["feasible"] is False and answer["memory_per_gpu_gb"] > 80  # what it needs: why it does not fit
    assert [answer[k] for k in ("step_time_s", "tokens_per_s_per_gpu", "mfu", "band")] == [None] * 4
    beyond = {"model": "llama-3.1-8b", "method": "lora", "gpu": "H100-SXM", "gpu_count": 16}  # one 8-GPU node
    refused = client.post("/api/v1/estimate/training", json=beyond).json()
    assert refused["feasible"] is False and "span nodes" in refused["reason"]
    assert refused["memory_per_gpu_gb"] is None and refused["flops_per_token"] is None  # nothing was sized


def test_a_training_option_that_does_not_fit_has_null_measures(client: TestClient) -> None:
    options = _json(client, TRAINING_70B)["options"]
    unfit = [o for o in options if not o["layout"]]
    assert unfit and all(o[k] is None for o in unfit for k in TRAINING_MEASURES)
    assert all(o[k] is not None for o in options if o["feasible"] for k in TRAINING_MEASURES)
    _, rows = _csv(client, TRAINING_70B)
    assert all(r["expected_interruptions"] == "" and r["step_time_s"] == "" for r in rows if not r["layout"])
