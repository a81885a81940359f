"""A one-token output has no time per output token: its TPOT limit is not held, only its TTFT limit, and the
estimate says so (found by exploratory QA: a 50 ms TPOT limit refused 8B on an H100 that 1,000 ms allowed)."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.bands.limits import missed_limits
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MODEL = MODELS["llama-3.1-8b"]


def _estimate(tpot_ms: float, output_len: int = 1, scenario: str = "latency_bound"):  # type: ignore[no-untyped-def]
    w = InferenceWorkload(model="llama-3.1-8b", output_len=output_len, tpot_ms=tpot_ms, scenario=scenario)
    return estimate_inference(GPUS["H100-SXM"], 1, MODEL, w)


def test_a_one_token_output_answers_the_same_whatever_its_tpot_limit():
    tight, loose = _estimate(1.0), _estimate(60_000.0)
    assert tight.feasible and loose.feasible
    assert (tight.batch, tight.output_tokens_per_s) == (loose.batch, loose.output_tokens_per_s)
    assert any("TPOT limit not applied" in a for a in tight.assumptions)


def test_two_output_tokens_are_held_to_the_tpot_limit():
    assert not _estimate(1.0, output_len=2).feasible
    assert not any("TPOT limit not applied" in a for a in _estimate(50.0, output_len=2).assumptions)


def test_live_traffic_never_counts_a_one_token_outputs_tpot_as_missed():
    w = InferenceWorkload(model="llama-3.1-8b", output_len=1, tpot_ms=1.0, scenario="single_stream")
    assert missed_limits(w, ttft_p99_ms=10.0, tpot_p99_ms=50.0) == []
    longer = w.model_copy(update={"output_len": 2})
    assert missed_limits(longer, ttft_p99_ms=10.0, tpot_p99_ms=50.0) == ["TPOT p99 50 ms is over the 1 ms limit"]


def _refusal(input_len: int, output_len: int, ttft_ms: float) -> str:
    w = InferenceWorkload(
        model="llama-3.1-70b", weight_dtype="fp8", input_len=input_len, output_len=output_len, ttft_ms=ttft_ms
    )
    est = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.1-70b"], w)
    assert not est.feasible and est.misses_limits
    return est.reason


def test_a_refusal_says_what_a_request_alone_meets():
    """Where even a request alone misses the limits, the refusal says what it meets: no lighter load helps."""
    assert "a request alone, with no other traffic: p99 TTFT" in _refusal(16_000, 200, 2_000)
    assert "over the limits too" in _refusal(16_000, 200, 2_000)
    assert "TPOT" not in _refusal(16_000, 1, 1_000).split("a request alone")[1]  # one token: no TPOT to meet
