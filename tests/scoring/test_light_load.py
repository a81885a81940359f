"""Below one request in flight: latency_bound's lightest load keeps a request always in flight, so each arrival waits
for the running step and the prompt ahead of it; where a request alone meets the limits, the configuration is
ranked at the load that meets them (loops.light_load_point) instead of refused."""

import math

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.batching.loops import latency_bound_point, light_load_point
from app.scoring.inference.estimates.estimate import estimate_inference, solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.workload import InferenceWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MODEL = MODELS["llama-3.1-70b"]


def _workload(ttft_ms: float, **extra: object) -> InferenceWorkload:
    values = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 8000, "output_len": 200, "ttft_ms": ttft_ms}
    return InferenceWorkload.model_validate(values | extra)


def _solved(ttft_ms: float) -> Solution:
    solved = solve_inference(GPUS["B200"], 1, MODEL, _workload(ttft_ms))
    assert isinstance(solved, Solution)
    return solved


def test_one_always_in_flight_misses_where_a_lighter_load_meets_the_limits():
    solved = _solved(1_000)
    limits = (8000.0, 200.0, 1_000.0, 50.0)
    batch, _ = latency_bound_point(solved.ctx, DEFAULT_EFFICIENCY, 40, limits)
    assert batch == 0  # latency_bound alone refuses it
    assert solved.light_load and 0 < solved.point.batch < 1 and solved.batch == 1
    p99_ttft = solved.point.ttft_p99_ms(DEFAULT_EFFICIENCY.p99_ttft_over_mean)
    assert p99_ttft <= 1_000 * (1 + 1e-3)  # at the limit: the search brackets the largest load within it


def test_the_estimate_says_why_and_its_terms_add_up():
    est = estimate_inference(GPUS["B200"], 1, MODEL, _workload(1_000))
    assert est.feasible and est.reason.startswith("fits below one request in flight")
    assert any(a.startswith("light load:") for a in est.assumptions)
    rate = next(t for t in est.terms if t.name == "requests within the limits")
    assert rate.value == pytest.approx(est.requests_per_s) and rate.value * 200 < est.output_tokens_per_s
    # far below a request a step: a replica kept this lightly loaded serves few tokens
    assert est.output_tokens_per_s < 1_000 / est.tpot_ms / 2


def test_the_light_load_rate_term_shows_its_arithmetic_and_its_tokens_per_s_in_ms():
    """Its first clause is the mean in flight / a request's life (Little's law); the tokens/s clause converts ms a
    step to seconds (it read '0.179 requests in flight on average / 13.9 ms a step = 12.9 output tokens/s', off by
    1,000)."""
    est = estimate_inference(GPUS["B200"], 1, MODEL, _workload(1_000))
    rate = next(t for t in est.terms if t.name == "requests within the limits")
    assert stated_value(rate.detail) == pytest.approx(rate.value, rel=5e-3)
    tokens_clause = rate.detail.split("the tokens/s:", 1)[1].split("(", 1)[0]
    assert stated_value(tokens_clause) == pytest.approx(est.output_tokens_per_s, rel=5e-3)


def test_the_light_load_grows_smoothly_into_batch_one_as_the_limit_loosens():
    rates = [_solved(ttft).point.tokens_per_s for ttft in (1_000, 1_020, 1_040, 1_060)]
    assert rates == sorted(rates) and len(set(rates)) == len(rates)
    whole = _solved(1_100)  # past the boundary: batch 1, one always in flight, and no step down in tokens/s
    assert whole.batch == 1 and not whole.light_load and rates[-1] < whole.point.tokens_per_s < 1.5 * rates[-1]


def test_no_lighter_load_helps_where_a_request_alone_misses():
    assert not isinstance(solve_inference(GPUS["B200"], 1, MODEL, _workload(800)), Solution)
    est = estimate_inference(GPUS["B200"], 1, MODEL, _workload(800))
    assert not est.feasible and "over the limits too" in est.reason


def test_light_load_point_is_none_when_even_a_trickle_misses():
    solved = _solved(1_000)
    assert light_load_point(solved.ctx, DEFAULT_EFFICIENCY, (8000.0, 200.0, 500.0, 50.0)) is None


def test_peak_traffic_takes_replicas_of_the_light_load():
    from app.scoring.inference.ranking.pricing import peak_replicas

    est = estimate_inference(GPUS["B200"], 1, MODEL, _workload(1_000))
    assert est.requests_in_flight is not None
    rate = est.requests_in_flight / (est.ttft_ms + 199 * est.tpot_ms) * 1e3  # Little's law, not tokens/s / 200
    assert est.requests_per_s == pytest.approx(rate) and rate < est.output_tokens_per_s / 200
    peak = _workload(1_000, peak_requests_per_s=1.0)
    assert peak_replicas(peak, est) == math.ceil(1.0 / rate)


def test_a_light_load_says_how_prompts_of_one_length_change_it():
    """Its p99 TTFT doubles the prompt's own prefill unless the prompt spread is given; prompts of one length meet the
    1 s limit at a far heavier load (batch 1 and more), and the note says so only where the spread is not given."""
    est = estimate_inference(GPUS["B200"], 1, MODEL, _workload(1_000))
    note = next(a for a in est.assumptions if a.startswith("light load:"))
    assert "set prompt_p99_over_mean (1 = one length)" in note
    same = estimate_inference(GPUS["B200"], 1, MODEL, _workload(1_000, prompt_p99_over_mean=1.0))
    assert same.feasible and same.requests_in_flight is None and same.output_tokens_per_s > 5 * est.output_tokens_per_s
