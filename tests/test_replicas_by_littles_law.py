"""Replicas for traffic count the requests a replica sustains by Little's law (requests in flight / one request's
life), not its batch over one step: the ranking's peak replicas, /plan's fleet, its CSV and its CLI agree.

Found by qa11: Llama 3.1 70B FP8 on 1xH100 at 2,000-token prompts, 200 output tokens and 5 requests/s was sized at 8
replicas from 129.3 tokens/s (4 / 30.9 ms), though each request also holds its slot for its 331 ms first token: a
replica completes 4 / (331 + 199 x 30.9 ms) = 0.617 requests/s, so the peak needs 9."""

from __future__ import annotations

import csv
import io
import math

import pytest

from app.scoring.inference.batching.queueing import request_life_ms, sustained_requests_per_s

SEVENTY_B_AT_FIVE_PER_S = {
    "model": "llama-3.1-70b",
    "weight_dtype": "fp8",
    "input_len": 2000,
    "output_len": 200,
    "tpot_ms": 50,
    "peak_requests_per_s": 5,
    "gpus": ["H100-SXM"],
}


def test_a_request_holds_its_slot_through_its_first_token() -> None:
    rate = sustained_requests_per_s(4, 331.0, 30.9, 200, 4 / 30.9e-3)
    assert rate == pytest.approx(4 / (331.0 + 199 * 30.9) * 1e3)
    assert rate < 4 / 30.9e-3 / 200  # batch / step counts tokens only


def test_a_rate_already_from_littles_law_is_kept() -> None:
    """A closed loop's tokens/s is Little's already: the same requests/s, not a second discount."""
    tokens_per_s = 8 * 300 / request_life_ms(500.0, 20.0, 300) * 1e3
    assert sustained_requests_per_s(8, 500.0, 20.0, 300, tokens_per_s) == pytest.approx(tokens_per_s / 300)


def _life_rate(option: dict, output_len: int) -> float:
    return option["batch"] / request_life_ms(option["ttft_mean_ms"], option["tpot_mean_ms"], output_len) * 1e3


def test_the_ranking_sizes_a_peak_by_the_requests_a_replica_sustains(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/inference?terms=false", json=SEVENTY_B_AT_FIVE_PER_S).json()
    one_gpu = [o for o in body["options"] if o["feasible"] and o["gpu_count"] == 1]
    assert one_gpu, "1xH100 runs 70B FP8"
    for option in body["options"][: body["feasible_options"]]:
        rate = _life_rate(option, 200)
        assert option["requests_per_s"] == pytest.approx(rate, rel=1e-6)
        assert option["requests_per_s"] < option["output_tokens_per_s"] / 200
        assert option["replicas"] == math.ceil(5 / rate)
    assert one_gpu[0]["replicas"] == 9  # 8 from 129.3 tokens/s / 200 tokens


def test_the_plan_and_its_csv_size_the_same_fleet(client) -> None:  # type: ignore[no-untyped-def]
    workload = {k: v for k, v in SEVENTY_B_AT_FIVE_PER_S.items() if k != "peak_requests_per_s"}
    plan = {"workload": workload, "traffic": {"peak_requests_per_s": 5, "profile": "flat"}}
    body = client.post("/api/v1/plan/serving?terms=false", json=plan).json()
    for option in body["options"]:
        if option["copies_per_instance"] == 1:
            assert option["replicas_at_peak"] == math.ceil(5 / option["requests_per_s"])
    query = "phase=inference&model=llama-3.1-70b&weight_dtype=fp8&output_len=200&peak_requests_per_s=5&gpus=H100-SXM"
    rows = list(csv.DictReader(io.StringIO(client.get(f"/rank.csv?{query}").text)))
    for row in rows:
        if row["requests_per_s"]:
            assert int(row["replicas"]) == math.ceil(5 / float(row["requests_per_s"]))
