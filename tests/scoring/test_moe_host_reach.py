"""The MoE prefill host time is fitted on loads of at most a prompt every 16 steps: beyond them the band reaches the
throughput without it, and the estimate says why; at the loads its evidence spans, nothing changes."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def _thin(assumptions: list[str]) -> list[str]:
    return [a for a in assumptions if a.startswith("thin evidence: the MoE prefill host time")]


def test_a_chat_shaped_moe_load_beyond_the_evidence_gets_a_band_reaching_the_step_without_the_term():
    """gpt-oss-120b on one B200 on vLLM at a 50 ms TPOT: 19.8 ms of a 39.2 ms step was this one fitted term, charged
    for a prompt every 4 steps, with the band as narrow as a well-evidenced regime's."""
    w = InferenceWorkload(model="gpt-oss-120b", weight_dtype="fp4", tpot_ms=50, engine="vllm")
    est = estimate_inference(GPUS["B200"], 1, MODELS["gpt-oss-120b"], w)
    [note] = _thin(est.assumptions)
    host_ms = next(t.value for t in est.terms if t.name == "MoE prefill host time per step")
    step_ms = est.tpot_ms
    assert est.band.high == pytest.approx(est.output_tokens_per_s * step_ms / (step_ms - host_ms), rel=0.02)
    assert est.band.high > 1.8 * est.output_tokens_per_s and f"{est.band.high:,.0f} tok/s" in note
    assert est.band.low < est.output_tokens_per_s  # the regime's own low side stays


def test_the_loads_the_term_was_fitted_on_and_compiled_engines_are_unchanged():
    r1 = MODELS["deepseek-r1"]
    inferencex = InferenceWorkload(  # 64 clients at 1k/1k: the largest evidenced load, a prompt every 16 steps
        model="deepseek-r1", weight_dtype="fp8", engine="sglang", scenario="concurrency", concurrency=64,
        input_len=1024, output_len=1024,
    )  # fmt: skip
    assert _thin(estimate_inference(GPUS["H200"], 8, r1, inferencex).assumptions) == []
    llamacpp = InferenceWorkload(model="gpt-oss-120b", weight_dtype="int4", tpot_ms=50, engine="llamacpp")
    assert _thin(estimate_inference(GPUS["B200"], 1, MODELS["gpt-oss-120b"], llamacpp).assumptions) == []
    dense = InferenceWorkload(model="llama-3.1-8b", tpot_ms=50, engine="vllm")
    assert _thin(estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], dense).assumptions) == []
