"""The routed experts' GEMMs at their real shape: a roofline floor per expert GEMM in the training step (moeep2).

moeep found DeepSeek-V3 pretraining on 128 B200 ranked TP4 PP8 without EP first, its experts split into 512-wide
slices fed ~128 tokens each (~101 FLOP per byte), while the compute phase times every FLOP alike. Each expert GEMM now
takes at least its bytes over the HBM bandwidth (step.expert_gemms), written out as its own step term."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.expert_gemms import expert_gemm
from app.scoring.training.step.step_terms import EXPERT_GEMM_TERM_NAME
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MEASURED = Path(__file__).resolve().parents[2] / "docs" / "measurements"
QWEN = TrainingWorkload(model="qwen3-30b-a3b", method="full_ft", seq_len=4096, global_batch_seqs=64)


def test_the_expert_shapes_moeep_named_read_101_and_620_flop_per_byte():
    dsv3 = MODELS["deepseek-v3"]
    split = expert_gemm(dsv3, Layout(1, 4, 8), 4096, "16")
    whole = expert_gemm(dsv3, Layout(1, 1, 16, expert_parallel=8), 4096, "16")
    assert (split.tokens, split.width) == (128, 512)  # 4,096 × top-8 / 256 experts, 2,048 / TP4
    assert (whole.tokens, whole.width) == (1024, 2048)  # 8 GPUs' 4,096 tokens meet at each whole expert
    assert split.flops_per_byte == pytest.approx(101, abs=0.5)
    assert whole.flops_per_byte == pytest.approx(623, abs=1)
    assert split.flops == pytest.approx(2 * 128 * 3 * 7168 * 512)


def test_a_memory_bound_expert_split_pays_its_floor_as_a_step_term_that_shows_its_arithmetic():
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["qwen3-30b-a3b"], QWEN, layout=Layout(1, 8, 1, "none"))
    terms = {t.name: t for t in est.terms}
    term = terms[EXPERT_GEMM_TERM_NAME]
    assert term.value > 0.1  # 96-wide slices fed 256 tokens: ~68 FLOP per byte, under the ridge at 0.26 efficiency
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3)
    assert "memory-bound" in term.detail and "67.52 FLOP per byte" in term.detail
    assert f"{term.value:.4g} s {EXPERT_GEMM_TERM_NAME}" in terms["step time"].detail
    parts = ("compute", "per-step latency", "exposed TP communication", EXPERT_GEMM_TERM_NAME)
    named = [t for t in est.terms if t.name.startswith(parts)]
    assert sum(t.value for t in named) == pytest.approx(est.step_time_s, rel=1e-9)


def test_more_tokens_per_expert_or_whole_experts_leave_the_gemms_compute_bound():
    h100, qwen = GPUS["H100-SXM"], MODELS["qwen3-30b-a3b"]
    for layout in (Layout(1, 8, 1, "none", micro_batch_seqs=4), Layout(1, 2, 4, "none")):
        est = estimate_training(h100, 8, qwen, QWEN, layout=layout)
        term = {t.name: t for t in est.terms}[EXPERT_GEMM_TERM_NAME]
        assert term.value == 0 and term.detail.startswith("0; ") and "compute-bound" in term.detail


def test_a_dense_model_has_no_expert_gemm_term():
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=4096, global_batch_seqs=64)
    est = estimate_training(GPUS["H100-SXM"], 8, MODELS["llama-3.1-8b"], w)
    assert EXPERT_GEMM_TERM_NAME not in {t.name for t in est.terms}


def _measured_rows():
    h200 = GPUS["H200"]
    files = (("h200-2026-12-04-moe.json", "grouped_mm"), ("h200-2026-12-04-moe-served.json", "bf16_grouped_mm"))
    for name, kernel in files:
        for row in json.loads((MEASURED / name).read_text())["rows"]:
            if row.get("impl") == kernel and row["tokens"] >= 128:  # every expert touched: even routing holds
                yield h200, row


def test_the_floor_lies_under_every_grouped_gemm_timed_on_an_h200():
    """PyTorch's bf16 grouped GEMM of whole and TP/EP-split experts, 128-2,048 tokens: 1.5-2.5x the floor."""
    ratios = []
    for gpu, row in _measured_rows():
        model_name, _, split = row["model"].partition("/")
        degree = int(split[2:]) if split[2:] else 1
        layout = Layout(1, degree, 1) if split.startswith("tp") else Layout(1, 1, 1)
        seq_len = row["tokens"]
        if split.startswith("ep"):  # the row's tokens are the EP group's: each GPU routes an eighth
            layout, seq_len = Layout(1, 1, 1, expert_parallel=degree), row["tokens"] / degree
        gemm = expert_gemm(MODELS[model_name], layout, seq_len, "16")
        one = max(gemm.flops / (gpu.bf16_tflops * 1e12), gemm.bytes / (gpu.memory_bandwidth_tbs * 1e12))
        ratios.append(row["ms"] / 1e3 / (one * row["experts_touched"]))
    assert len(ratios) >= 20
    assert min(ratios) > 1.0 and max(ratios) < 3.0, sorted(ratios)
