"""Speculative decoding's step terms (found by qa28). An option's output tokens/s read '12 running requests /
25.03 ms a step × 1,000 ms/s; each step gives every running request one output token', but 25.03 ms was the time per
output token, the step's 37.5 ms over the 1.5 tokens it gives each request; and a new request's wait for the running
steps was timed on that per-token share, not on the whole step it waits for."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
SPEC = {"spec_acceptance": 0.5, "spec_draft_tokens": 1}


def _throughput(**fields: object) -> tuple[str, float]:
    workload = InferenceWorkload(**{"model": "llama-3.1-8b", "engine": "vllm", **fields})  # type: ignore[arg-type]
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], workload, 1, 1)
    assert est.feasible, est.reason
    (term,) = [t for t in est.terms if t.name == "output tokens/s"]
    return term.detail, term.value


@pytest.mark.parametrize("scenario", [{}, {"scenario": "concurrency", "concurrency": 16}])
def test_speculative_tokens_per_s_say_the_time_is_per_output_token_and_what_a_step_gives(scenario) -> None:  # type: ignore[no-untyped-def]
    detail, value = _throughput(**SPEC, **scenario)
    assert "ms a step" not in detail and "one output token" not in detail
    assert " ms per output token" in detail
    assert "gives each running request 1.500 output tokens on average (speculative decoding)" in detail
    assert stated_value(detail) == pytest.approx(value, rel=5e-3)


def test_without_speculative_decoding_a_step_gives_one_token_as_before() -> None:
    detail, value = _throughput()
    assert "ms a step × 1,000 ms/s; each step gives every running request one output token" in detail
    assert stated_value(detail) == pytest.approx(value, rel=5e-3)


def test_a_new_request_waits_for_whole_speculative_steps_not_for_one_tokens_share_of_them() -> None:
    """Found by qa28: TTFT's running steps' wait was '1.41 steps × 39.78 ms', the time per output token, while the
    step in flight (draft and verify) takes 59.66 ms for the 1.5 tokens it gives: a new request waits for that
    whole step, so the wait was a third short and the TTFT (and the TTFT limit's check) optimistic."""
    workload = InferenceWorkload(model="llama-3.1-8b", engine="vllm", **SPEC)  # type: ignore[arg-type]
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], workload, 1, 1)
    terms = {t.name: t for t in est.terms}
    tokens = terms["speculative: tokens per step"].value
    step_ms = terms["TPOT"].value * tokens  # the mean per-token time × the tokens a step gives
    wait = terms["TTFT: running steps' wait"]
    assert tokens == pytest.approx(1.5)
    assert wait.value == pytest.approx(stated_value(wait.detail), rel=5e-3)
    assert f"× {step_ms:.2f} ms" in wait.detail and "a step gives 1.500 tokens (speculative decoding)" in wait.detail
    assert stated_value(terms["TTFT"].detail) == pytest.approx(terms["TTFT"].value, rel=5e-3)
