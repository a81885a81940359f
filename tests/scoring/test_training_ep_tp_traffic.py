"""The TP traffic of a MoE layer under expert parallelism beside attention TP (trainep4): at expert-TP 1 the routed
experts get their tokens by the EP all-to-all, so a MoE layer without a shared expert pays only its attention's
all-gather / reduce-scatter pair (Megatron-Core "MoE Parallel Folding"); dense layers, shared experts, dense models,
TP 1 and layouts without EP pay as before. Against hand arithmetic, in the step's words and in the ranking's search."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout, layout_timing
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.communication import tp_traffic_layers
from app.scoring.training.step.step_time import tensor_parallel_seconds
from app.scoring.workload import TrainingWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100, B200 = GPUS["H100-SXM"], GPUS["B200"]
# the TP term's title names what runs (found by qa29)
TP_TERM = (
    "exposed TP communication: all-reduce, or all-gather/reduce-scatter under Megatron sequence parallelism (within TP)"
)
QWEN, DSV3, MAVERICK, LLAMA70 = (
    MODELS[m] for m in ("qwen3-235b-a22b", "deepseek-v3", "llama-4-maverick", "llama-3.1-70b")
)
TP2_EP8 = Layout(zero_stage=1, tensor_parallel=2, pipeline_parallel=1, recompute="full", expert_parallel=8)
TP2 = replace(TP2_EP8, expert_parallel=None)
NVLINK_GBS = H100.interconnect_gbs / 2 * E.nvlink_efficiency  # one direction, TP2 inside the node


def _tp_seconds(model, layout, count=64, batch=64, gpu=H100):
    w = TrainingWorkload(model=model.id, method="full_ft", seq_len=4096, global_batch_seqs=batch)
    return layout_timing(gpu, count, model, w, layout, E)[0].tp_comm_s


def test_tp2_ep8_moe_layers_pay_their_attention_half_by_hand():
    """Qwen3-235B-A22B (94 MoE layers, no shared expert) on 64 H100s at TP2 EP8: 64 x 4,096 / 64 = 4,096 tokens per
    GPU; per token 4 all-reduces x 2 B x 4,096 hidden x ring 2 x 1/2, of which a MoE layer runs its attention's
    half: 47 layers' worth = 1.54 MB. Before, all 94 layers paid: twice the seconds."""
    per_token = (94 - 94 / 2) * 4 * 2 * 4096 * 2 * (2 - 1) / 2
    assert per_token == 1_540_096
    by_hand = E.tp_comm_exposed * 4096 * 2 * per_token / (NVLINK_GBS * 1e9)
    assert _tp_seconds(QWEN, TP2_EP8) == pytest.approx(by_hand, rel=1e-12)
    assert _tp_seconds(QWEN, TP2) == pytest.approx(2 * by_hand, rel=1e-12)  # no EP: experts TP-split, all 94 pay


def test_a_dense_layer_in_a_moe_model_still_pays_its_mlp_pair():
    """DeepSeek-V3's layers read without its shared expert: the first 3 dense layers pay both pairs, the 58 MoE layers
    their attention's: 3 + 58 / 2 = 32 layers' worth of the 61 at TP2 EP8."""
    routed_only = replace(DSV3, num_shared_experts=0)
    assert routed_only.dense_ffn_layers == 3 and routed_only.moe_layers == 58
    assert tp_traffic_layers(routed_only, 2, 8) == 32.0
    tokens = 4096  # 64 sequences x 4,096 tokens over 64 GPUs
    by_hand = E.tp_comm_exposed * tokens * 2 * (32 * 16.0 * 7168 * 1 / 2) / (NVLINK_GBS * 1e9)
    assert tensor_parallel_seconds(E, H100, routed_only, 2, tokens, 8) == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.parametrize("model", [DSV3, MAVERICK], ids=lambda m: m.id)
def test_a_shared_expert_keeps_the_mlp_pair_in_every_moe_layer(model):
    """DeepSeek-V3 and Llama 4 Maverick run a TP-split shared expert beside the routed ones: it gathers and
    reduce-scatters the hidden states as a dense MLP does, so TP2 EP8 pays what TP2 without EP pays."""
    assert tp_traffic_layers(model, 2, 8) == model.layers
    assert _tp_seconds(model, TP2_EP8, count=256) == _tp_seconds(model, TP2, count=256) > 0


def test_dense_models_tp1_and_layouts_without_ep_pay_as_before():
    """Every layer's 4 all-reduces: a dense model (an EP degree on it means nothing), a MoE layout without EP (the
    experts split by TP), and TP 1 with EP (no TP traffic at all)."""
    for model, layout in ((LLAMA70, TP2), (LLAMA70, TP2_EP8), (QWEN, TP2)):
        by_hand = E.tp_comm_exposed * 4096 * 2 * (model.layers * 16.0 * model.hidden_size * 1 / 2) / (NVLINK_GBS * 1e9)
        assert _tp_seconds(model, layout) == by_hand  # the unchanged expression, bit for bit
    assert tp_traffic_layers(LLAMA70, 2, 8) == LLAMA70.layers
    assert _tp_seconds(QWEN, replace(TP2_EP8, tensor_parallel=1)) == 0.0


def test_the_tp_term_says_which_layers_pay_and_why():
    w = TrainingWorkload(model="qwen3-235b-a22b", method="full_ft", seq_len=4096, global_batch_seqs=64)
    est = estimate_training(H100, 64, QWEN, w, layout=TP2_EP8)
    tp = {t.name: t for t in est.terms}[TP_TERM]
    assert "1.540 MB per token" in tp.detail and "× (94 layers - 94 MoE layers / 2)" in tp.detail
    assert "a MoE layer's MLP all-gather and reduce-scatter are not run" in tp.detail
    maverick = estimate_training(
        H100, 256, MAVERICK, w.model_copy(update={"model": "llama-4-maverick"}), layout=TP2_EP8
    )
    words = {t.name: t.detail for t in maverick.terms}[TP_TERM]
    assert "× 48 layers" in words and "the shared expert is split by TP" in words
    dense = estimate_training(H100, 64, LLAMA70, w.model_copy(update={"model": "llama-3.1-70b"}), layout=TP2)
    assert "EP" not in {t.name: t.detail for t in dense.terms}[TP_TERM]


def test_the_ranking_floor_of_an_ep_group_stays_below_its_layouts():
    """GpuTimer skips a (TP, EP) group whose floor cannot beat the best: the floor's TP traffic is the group's own.
    Qwen3-235B-A22B LoRA on 16 H100s at 256-sequence batches: TP8 EP16 PP1 without recompute, its DP traffic hidden,
    takes its floor exactly, so a floor charging the MoE layers' MLP pair (0.98 s more) would skip the group."""
    w = TrainingWorkload(model="qwen3-235b-a22b", method="lora", seq_len=4096, global_batch_seqs=256)
    search = LayoutSearch(QWEN, w, E)
    timer = GpuTimer(search, H100)
    least = timer.compute_s(16, "none")
    tight = 0
    for group in search.expert_groups(H100, 16):
        floor = timer._expert_floor(16, group, least)
        for layout in search.expert_layouts(H100, 16, group):
            assert floor <= timer.step_s(16, layout), (group, layout)
            tight += group[:2] == (8, 16) and floor == timer.step_s(16, layout)
    assert tight >= 1


@pytest.mark.parametrize(
    ("model_id", "method", "gpu", "counts"),
    [
        ("mixtral-8x7b", "lora", H100, (256, 512)),
        ("mixtral-8x22b", "full_ft", H100, (64, 128)),
        ("gpt-oss-120b", "full_ft", B200, (256,)),
        ("qwen3-235b-a22b", "full_ft", B200, (256, 512)),
    ],
)
def test_the_ranking_search_agrees_where_the_cheaper_tp_traffic_moves_the_layout(model_id, method, gpu, counts):
    """Where the MLP pair left out of TP+EP layouts moves choose_layout's answer (these picked TP without EP or
    another TP before), GpuTimer.best_layout finds the same layout and seconds, bit for bit."""
    model = MODELS[model_id]
    w = TrainingWorkload(model=model_id, method=method, seq_len=4096, global_batch_seqs=64)
    timer = GpuTimer(LayoutSearch(model, w, E), gpu)
    for n in counts:
        layout, seconds = timer.best_layout(n)
        assert layout is not None and layout == choose_layout(gpu, n, model, w, E), (model_id, n)
        assert layout.tensor_parallel > 1 and (layout.expert_parallel or 1) > 1
        assert seconds == layout_timing(gpu, n, model, w, layout, E)[0].total_s
