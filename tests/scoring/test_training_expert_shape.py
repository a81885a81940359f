"""The routed experts' GEMM shape through the dense matmuls' saturation form (moeshape), measured and not adopted.

Training priced every expert FLOP at one MoE factor whatever the GEMM's shape: DeepSeek-V3's TP4 slices (512 wide,
fed 128 tokens) cost the same per FLOP as EP8's whole experts (2,048 wide, fed 1,024). expert_gemm_saturation prices
an expert GEMM as the dense width factor prices a matmul of its FLOPs per byte; efficiency.training's
expert_half_hidden_share switches it on (0, the default, keeps moeep2's roofline floor alone: its leave-one-publication
-out measurement worsened ROCm MaxText's MI355X rows by 8 points, README)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.expert_gemms import ExpertGemm, expert_gemm, expert_gemm_saturation
from app.scoring.training.step.mfu import peak_tflops
from app.scoring.training.step.step_terms import EXPERT_GEMM_TERM_NAME
from app.scoring.training.step.step_time import pipeline_chunks, step_parts
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
B200, DSV3 = GPUS["B200"], MODELS["deepseek-v3"]
# The candidate measured: the dense half-point, and the MoE factor that keeps DeepSeek-V3's EP64 H800 shape at 0.579.
SHAPED = replace(E, expert_half_hidden_share=1.0, moe_factor=0.6831)
PRETRAIN = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=1024)
TP4_PP8 = Layout(1, 4, 8)


def test_tp4_slices_saturate_far_below_ep8_whole_experts_on_a_b200():
    split = expert_gemm(DSV3, TP4_PP8, 4096, "16")
    whole = expert_gemm(DSV3, Layout(1, 1, 16, expert_parallel=8), 4096, "16")
    assert expert_gemm_saturation(SHAPED, split, DSV3.hidden_size, B200) == pytest.approx(0.270, abs=0.002)
    assert expert_gemm_saturation(SHAPED, whole, DSV3.hidden_size, B200) == pytest.approx(0.710, abs=0.002)
    # the same half-point quoted on an A100 (156.7) scaled by the B200's FLOPs per byte: 2,250 / 8 / (312 / 2.039)
    half = E.width_half_hidden * 2250 / 8 / (312 / 2.039)
    intensity = 1 / (1 / 128 + 1 / 512 + 1 / 7168)
    expected = (1 + half / 7168) / (1 + half / intensity)
    assert expert_gemm_saturation(SHAPED, split, 7168, B200) == pytest.approx(expected)


def test_the_shape_is_off_by_default_and_a_dense_sized_gemm_saturates_as_the_dense_matmuls():
    assert E.expert_half_hidden_share == 0
    split = expert_gemm(DSV3, TP4_PP8, 4096, "16")
    assert expert_gemm_saturation(E, split, DSV3.hidden_size, B200) == 1
    huge = ExpertGemm(tokens=1e12, width=1e12, flops=0, bytes=0)
    assert expert_gemm_saturation(SHAPED, huge, DSV3.hidden_size, B200) == pytest.approx(1)


def test_the_shape_is_a_step_term_that_states_its_arithmetic_where_on():
    off = {t.name: t for t in estimate_training(B200, 128, DSV3, PRETRAIN, layout=TP4_PP8).terms}
    assert off[EXPERT_GEMM_TERM_NAME].value == 0  # moeep2's floor never binds at TP4 on a B200
    est = estimate_training(B200, 128, DSV3, PRETRAIN, layout=TP4_PP8, e=SHAPED)
    terms = {t.name: t for t in est.terms}
    term = terms[EXPERT_GEMM_TERM_NAME]
    assert term.value > 1  # seconds a step: 512-wide slices fed 128 tokens at 0.27 of the dense saturation
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3)
    assert "saturation 0.270" in term.detail


def test_the_pipeline_bubble_and_the_dp_overlap_see_the_expert_seconds():
    peak, pclass, _ = peak_tflops(B200, "bf16")
    args = (SHAPED, B200, 128, DSV3, "pretrain", "auto", 4096, 1024, TP4_PP8, peak, pclass, 0.0)
    compute, bubble, _, _, _, _, _, expert = step_parts(*args)
    assert expert > 0
    micro = 1024 // TP4_PP8.replicas(128)
    latency = SHAPED.step_latency_s_per_layer * DSV3.layers / 8
    expected = (compute + expert) * 7 / (pipeline_chunks(SHAPED, TP4_PP8, micro) * micro)
    assert bubble - latency == pytest.approx(expected)
