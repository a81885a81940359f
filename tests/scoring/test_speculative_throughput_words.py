"""Under speculative decoding an option's output tokens/s read '12 running requests / 25.03 ms a step × 1,000 ms/s;
each step gives every running request one output token' (found by qa28): 25.03 ms was the time per output token,
the step's 37.5 ms over the 1.5 tokens it gives each request, so the words contradicted the step terms above them.
The arithmetic still evaluates to the value, and the words now say what the time is."""

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
