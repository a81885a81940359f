"""Expert parallelism (whole experts per GPU): the busiest GPU's expert reads at small batches."""

from dataclasses import replace

import pytest

from app.calibration.inference.run_conditions import expert_parallel
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY as EFF
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.memory import routed_expert_params
from app.scoring.inference.step.routed_experts import busiest_group_coverage, expert_coverage
from app.scoring.inference.step.steps import decode_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
R1, B200 = MODELS["deepseek-r1"], GPUS["B200"]


def test_the_busiest_gpu_touches_more_experts_than_the_mean_until_all_are_touched():
    # 4 tokens x top-8 of 256 experts: 11.9 % touched on average; with 32 experts per GPU on 8 GPUs the busiest
    # touches mean + 1.424 sd (Royston's expected maximum of 8 normals) = 20 %
    mean = expert_coverage(8 / 256, 4)
    assert mean == pytest.approx(0.119, abs=0.001)
    assert busiest_group_coverage(mean, 32, 8) == pytest.approx(mean + 1.424 * (mean * (1 - mean) / 32) ** 0.5)
    assert busiest_group_coverage(mean, 32, 8) == pytest.approx(0.20, abs=0.005)
    assert busiest_group_coverage(1.0, 32, 8) == 1.0 and busiest_group_coverage(mean, 32, 1) == mean
    assert busiest_group_coverage(0.99, 4, 64) == 1.0  # capped at every expert of the GPU


def test_expert_parallel_slows_small_batches_and_converges_at_large_ones():
    tp = build_context(B200, R1, "fp4", "fp8", "sglang", 8)
    ep = build_context(B200, R1, "fp4", "fp8", "sglang", 8, expert_parallel=8)
    assert ep.experts_per_group == 32
    small = (decode_parts(tp, EFF, 4, 1500), decode_parts(ep, EFF, 4, 1500))
    assert small[1].weight_bytes > 1.2 * small[0].weight_bytes and small[1].total_ms > small[0].total_ms
    large = (decode_parts(tp, EFF, 1024, 1500), decode_parts(ep, EFF, 1024, 1500))
    assert large[1].weight_bytes == pytest.approx(large[0].weight_bytes, rel=1e-3)
    dense = build_context(B200, MODELS["llama-3.1-70b"], "fp8", "fp8", "vllm", 8, expert_parallel=8)
    assert dense.expert_parallel == 1  # no experts, nothing to place


def test_the_workload_field_and_the_validation_notes_set_it():
    w = InferenceWorkload(model="deepseek-r1", weight_dtype="fp4", engine="sglang", ttft_ms=5000)
    by_tp = estimate_inference(B200, 8, R1, w.model_copy(update={"scenario": "single_stream"}))
    by_ep = estimate_inference(B200, 8, R1, w.model_copy(update={"scenario": "single_stream", "expert_parallel": "ep"}))
    assert by_tp.expert_parallel == "tp" and by_ep.expert_parallel == "ep"
    assert by_ep.tpot_ms > by_tp.tpot_ms
    assert any("expert parallel over 8 GPUs" in a for a in by_ep.assumptions)
    row = {"notes": "SGLang v0.5.6, TP=8 EP=8, 8x B200"}
    assert expert_parallel(row["notes"], R1, 8) == 8
    assert expert_parallel("TP=8, EP=1", R1, 8) == 1
    assert expert_parallel(row["notes"], MODELS["llama-3.1-70b"], 8) == 1  # dense
    assert expert_parallel(row["notes"], R1, 4) == 1  # more EP ranks than the replica's GPUs: not read


def test_routed_experts_are_their_own_kernel_class_memory_bound_beside_compute_bound_dense_gemms():
    from app.scoring.inference.step.efficiency_factors import mbu, mfu
    from app.scoring.inference.step.steps import roofline_ms

    maverick, h200 = MODELS["llama-4-maverick"], GPUS["H200"]
    ctx = build_context(h200, maverick, "fp8", "fp8", "trtllm", 8)
    # 128 experts, top-1: each expert multiplies 1/128 of the tokens, so its read dwarfs its FLOPs
    assert ctx.routed_flops_per_token == pytest.approx(2 * routed_expert_params(maverick) / 128)
    step = decode_parts(ctx, EFF, 2048, 100)
    bandwidth = h200.memory_bandwidth_tbs * 1e9  # bytes per ms
    peak = ctx.peak_tflops * 1e9 * mfu(ctx, EFF)  # FLOP per ms
    expert_bandwidth = bandwidth * mbu(ctx, EFF, tp_penalty=False) * EFF.moe_mbu_factor
    expert_read_ms = ctx.expert_weight_bytes_per_gpu / expert_bandwidth
    dense_flops_ms = 2048 * (ctx.flops_per_token - ctx.routed_flops_per_token) / 8 / peak
    assert dense_flops_ms > ctx.dense_weight_bytes_per_gpu / (bandwidth * mbu(ctx, EFF))  # dense: compute-bound
    assert expert_read_ms > 2048 * ctx.routed_flops_per_token / 8 / peak  # experts: memory-bound
    # the two classes add, not overlap: the step is longer than one roofline over its totals would be
    assert step.busy_ms > expert_read_ms + dense_flops_ms
    assert step.busy_ms > roofline_ms(step.memory_ms, step.compute_ms, EFF.overlap_power)
    # with the streams of a kernel overlapping well (the research start's exponent, 4), even the two classes'
    # dominant parts alone exceed one roofline; the fitted exponent (1.27) overlaps little inside a class
    overlapping = replace(EFF, overlap_power=4.0)
    step = decode_parts(ctx, overlapping, 2048, 100)
    assert expert_read_ms + dense_flops_ms > roofline_ms(step.memory_ms, step.compute_ms, 4.0)
    dense = build_context(h200, MODELS["llama-3.3-70b"], "fp8", "fp8", "trtllm", 8)
    assert dense.routed_flops_per_token == 0.0


def test_an_moe_estimate_explains_its_routed_expert_gemms_and_a_dense_one_has_none():
    w = InferenceWorkload(model="llama-4-maverick", weight_dtype="fp8", engine="trtllm", scenario="max_throughput")
    moe = estimate_inference(GPUS["H200"], 8, MODELS["llama-4-maverick"], w)
    expert_terms = [t for t in moe.terms if t.name == "decode routed-expert GEMMs"]
    assert len(expert_terms) == 1 and expert_terms[0].value > 0 and "k/E" in expert_terms[0].detail
    dense = estimate_inference(
        GPUS["H200"], 8, MODELS["llama-3.3-70b"], w.model_copy(update={"model": "llama-3.3-70b"})
    )
    assert not any(t.name == "decode routed-expert GEMMs" for t in dense.terms)
