"""Below one request in flight, an open loop's arrivals still meet each other: a Poisson arrival sees the time-average
load (PASTA), so it finds a request running 1 - e^-B of the time and rides in steps that carry the others' prompts.
Before, an open loop counted B - 1 others (a closed loop's view) and its TTFT at a trickle was a lone request's."""

import random

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.batching.loops import open_loop_point
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.batching.queueing import busy_share
from app.scoring.inference.estimates.estimate import estimate_inference, solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.context import build_context
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _ctx():
    return build_context(GPUS["H100-SXM"], MODELS["llama-3.3-70b"], "fp8", "fp8", "trtllm", 2)


@pytest.mark.parametrize("in_flight", [0.2, 0.6, 1.4, 3.0])
def test_a_poisson_arrival_finds_a_request_running_as_often_as_a_simulated_engine_shows(in_flight):
    # An engine that runs every admitted request at once (M/G/infinity): arrivals at `in_flight` per request life.
    rng = random.Random(11)
    now, ends, found, arrivals = 0.0, [], 0, 40_000
    for _ in range(arrivals):
        now += rng.expovariate(in_flight)
        ends = [end for end in ends if end > now]
        found += bool(ends)
        ends.append(now + 1.0)
    assert found / arrivals == pytest.approx(busy_share(in_flight, poisson=True), abs=0.01)


def test_a_closed_loop_client_finds_the_others_there_as_their_count_says():
    assert busy_share(0.6, poisson=False) == 0.6 and busy_share(3.0, poisson=False) == 1.0
    assert busy_share(0.6, poisson=True) < 0.6  # two Poisson requests overlap: fewer arrivals find one


def test_an_open_loop_below_one_in_flight_waits_more_as_the_rate_rises():
    ctx, lone = _ctx(), operating_point(_ctx(), DEFAULT_EFFICIENCY, "single_stream", 1, 5000, 500)
    points = [open_loop_point(ctx, DEFAULT_EFFICIENCY, rate, 80, 5000, 500) for rate in (0.001, 0.01, 0.03, 0.06)]
    assert all(p.batch < 1 for p in points)
    ttfts = [p.ttft_ms for p in points]
    assert lone.ttft_ms < ttfts[0] and ttfts == sorted(ttfts) and len(set(ttfts)) == len(ttfts)
    assert all(p.step_wait_ms > 0 and p.prefill_queue_ms > 0 and p.poisson_arrivals for p in points)


def test_an_open_loop_at_the_light_load_latency_bound_finds_meets_the_same_limit():
    # Llama 3.1 70B FP8 on one B200, 8,000-token prompts under a 1 s TTFT limit: latency_bound ranks it below one
    # request in flight; the same rate as an open loop lands at that limit too (was: a lone request's TTFT).
    w = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=8000, output_len=200, ttft_ms=1_000)
    solved = solve_inference(GPUS["B200"], 1, MODELS["llama-3.1-70b"], w)
    assert isinstance(solved, Solution) and solved.light_load
    rate = solved.point.tokens_per_s / 200
    loop = w.model_copy(update={"scenario": "request_rate", "requests_per_s": rate})
    est = estimate_inference(GPUS["B200"], 1, MODELS["llama-3.1-70b"], loop)
    assert est.ttft_p99_ms == pytest.approx(1_000, rel=0.02)
    faster = estimate_inference(
        GPUS["B200"], 1, MODELS["llama-3.1-70b"], loop.model_copy(update={"requests_per_s": 5 * rate})
    )
    assert faster.over_limits  # five times the rate is over the limit, as latency_bound's light load says


def test_a_trickle_says_its_mean_in_flight_not_batch_one():
    w = InferenceWorkload(
        model="llama-3.3-70b", engine="trtllm", weight_dtype="fp8", scenario="request_rate", requests_per_s=1
    )
    est = estimate_inference(
        GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w.model_copy(update={"requests_per_s": 0.01})
    )
    assert est.reason.startswith("fits: 0.") and "requests in flight on average" in est.reason, est.reason
    busy = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w.model_copy(update={"requests_per_s": 2}))
    assert busy.reason.startswith(f"fits: batch {busy.batch} of max")
