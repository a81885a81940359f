"""INT8 W8A8 (weight_dtype int8_w8a8) multiplies on the GPU's INT8 tensor peak at FP8's borrowed matmul efficiency;
plain int8 stays weight-only (W8A16), and a GPU without an INT8 peak runs W8A8's weights as W8A16."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LLAMA = MODELS["llama-3.1-8b"]


def _one_stream(gpu: str, weight_dtype: str, input_len: int):  # type: ignore[no-untyped-def]
    workload = InferenceWorkload(
        model="llama-3.1-8b",
        weight_dtype=weight_dtype,
        input_len=input_len,
        output_len=200,
        scenario="single_stream",
        ttft_ms=60_000,
        tpot_ms=1_000,
    )
    estimate = estimate_inference(GPUS[gpu], 1, LLAMA, workload)
    assert estimate.feasible, estimate.reason
    return estimate


def _term(estimate, name: str):  # type: ignore[no-untyped-def]
    return next(t for t in estimate.terms if t.name == name)


def test_a100_prefills_a_long_prompt_on_its_int8_peak_and_decodes_one_stream_about_as_fast() -> None:
    w8a16, w8a8 = _one_stream("A100-SXM-80GB", "int8", 8_000), _one_stream("A100-SXM-80GB", "int8_w8a8", 8_000)
    # 624 TOPS INT8 against 312 TFLOPS BF16, at FP8's factor (0.825): 1.65x on the GEMMs; attention stays 16-bit
    assert 1.4 < w8a16.ttft_ms / w8a8.ttft_ms < 2.0
    # batch 1 streams its weights: 1.0 bytes a weight against Q8_0's 1.0625, no faster matmul helps
    assert w8a8.tpot_ms == pytest.approx(w8a16.tpot_ms, rel=0.07) and w8a8.tpot_ms <= w8a16.tpot_ms


def test_w8a8_gemms_run_at_twice_the_peak_times_the_borrowed_fp8_factor() -> None:
    gpu, eff = GPUS["A100-SXM-80GB"], DEFAULT_EFFICIENCY
    w8a16 = prefill_parts(build_context(gpu, LLAMA, "int8", "bf16", "vllm", 1), eff, 1, 8_000).breakdown
    w8a8 = prefill_parts(build_context(gpu, LLAMA, "int8_w8a8", "bf16", "vllm", 1), eff, 1, 8_000).breakdown
    assert w8a16 is not None and w8a8 is not None
    assert w8a16.dense[1] / w8a8.dense[1] == pytest.approx(624 / 312 * eff.fp8_mfu_factor)
    assert w8a8.attention[1] == pytest.approx(w8a16.attention[1])  # QK^T and AV stay on the 16-bit peak


def test_the_terms_show_the_int8_peak_and_the_borrowed_factor() -> None:
    estimate = _one_stream("A100-SXM-80GB", "int8_w8a8", 8_000)
    prefill = _term(estimate, "prefill compute time").detail
    assert "/ (624 TOPS int8 × MFU" in prefill and "GFLOP attention / (312 TFLOPS bf16 × MFU" in prefill
    assert f"{DEFAULT_EFFICIENCY.fp8_mfu_factor:.3g} (INT8 W8A8, FP8's factor borrowed)" in prefill
    assert any("borrowed and unvalidated: no public validation row runs W8A8" in a for a in estimate.assumptions)
    plain = _one_stream("A100-SXM-80GB", "int8", 8_000)
    assert "312 TFLOPS bf16" in _term(plain, "prefill compute time").detail
    assert not any("W8A8" in a for a in plain.assumptions)


def test_a_gpu_without_an_int8_peak_runs_w8a8_weights_as_w8a16_and_says_so() -> None:
    w8a16, w8a8 = _one_stream("V100-SXM2-32GB", "int8", 8_000), _one_stream("V100-SXM2-32GB", "int8_w8a8", 8_000)
    assert GPUS["V100-SXM2-32GB"].int8_tops is None
    assert w8a8.ttft_ms == pytest.approx(w8a16.ttft_ms, rel=0.01)
    assert "TOPS" not in _term(w8a8, "prefill compute time").detail
    assert any("no INT8 tensor peak" in a and "(W8A16)" in a for a in w8a8.assumptions)


def test_an_int8_peak_below_the_16_bit_one_is_priced_as_published_and_said() -> None:
    gb300 = _one_stream("GB300", "int8_w8a8", 8_000)  # Blackwell Ultra: 165 TOPS INT8, 2,500 TFLOPS BF16
    assert gb300.ttft_ms > _one_stream("GB300", "int8", 8_000).ttft_ms
    assert any("INT8 peak is below its 16-bit peak" in a for a in gb300.assumptions)


@pytest.mark.parametrize("engine", ["llamacpp", "hf"])
def test_engines_that_load_no_w8a8_checkpoint_refuse_it_naming_weight_dtype(engine: str) -> None:
    with pytest.raises(ValidationError) as raised:
        InferenceWorkload(weight_dtype="int8_w8a8", engine=engine)
    assert f"weight_dtype: engine {engine} runs no INT8 W8A8" in str(raised.value)
    assert InferenceWorkload(weight_dtype="int8", engine=engine).weight_dtype == "int8"


def test_a_kv_cache_has_no_w8a8() -> None:
    with pytest.raises(ValidationError, match="kv_dtype"):
        InferenceWorkload(kv_dtype="int8_w8a8")  # type: ignore[arg-type]
