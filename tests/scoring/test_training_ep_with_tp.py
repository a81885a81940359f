"""Expert parallelism beside attention tensor parallelism (trainep3): the routed experts whole at expert-TP 1, the EP
ranks folded over TP x DP (Megatron-Core's "MoE Parallel Folding"), the attention and dense weights split by TP as
before. Memory and traffic against hand arithmetic, the EP group's constraint, the search, its words and JSON."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.efficiency.training import LIVE_PARAM_LAYERS
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout, fits_at, layout_timing
from app.scoring.training.layouts.expert_layouts import (
    expert_candidates,
    expert_split_fits,
    expert_splits,
    states_overflow,
)
from app.scoring.training.layouts.experts import all_expert_params, expert_data_parallel
from app.scoring.training.layouts.fit_search import frugal_fits
from app.scoring.training.layouts.memory import Layout, live_param_bytes, model_state_bytes
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.communication import dp_comm_bytes, expert_all_to_all_seconds
from app.scoring.workload import TrainingWorkload
from app.service.rank.plain import plain
from app.web.rank.schemas import LayoutOut

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MIXTRAL, MAVERICK, LLAMA70 = MODELS["mixtral-8x7b"], MODELS["llama-4-maverick"], MODELS["llama-3.1-70b"]
H100, H200, B200 = GPUS["H100-SXM"], GPUS["H200"], GPUS["B200"]
TP2_EP4 = Layout(zero_stage=1, tensor_parallel=2, pipeline_parallel=1, recompute="full", expert_parallel=4)


def test_tp2_ep4_states_per_gpu_by_hand():
    """Mixtral 8x7B full fine-tuning on 8 GPUs at TP2 EP4 ZeRO-1: DP 4, the EP ranks folded over TP2 x DP4 = 8, so
    each GPU holds 8 / 4 = 2 whole experts per layer whose optimizer states shard over 8 / 4 = 2 expert-data-parallel
    ranks; the other weights split by TP2 with their optimizer states over DP 4. AdamW mixed precision: 2 B weight +
    2 B gradient held, 12 B of optimizer sharded by ZeRO-1."""
    experts = all_expert_params(MIXTRAL)
    dense = MIXTRAL.params_b * 1e9 - experts
    by_hand = dense / 2 * (2 + 2 + 12 / 4) + experts / 4 * (2 + 2 + 12 / 2)
    assert model_state_bytes(MIXTRAL, "full_ft", TP2_EP4, 8, 16) == pytest.approx(by_hand, rel=1e-12)
    # before, the experts' states sharded over DP / EP = 1 rank only (16 B each): 3.9 GB more on each GPU
    assert by_hand < dense / 2 * (2 + 2 + 12 / 4) + experts / 4 * 16


def test_tp2_ep4_zero3_gathers_a_layer_of_tp_split_weights_and_whole_experts():
    """ZeRO-3 gathers, per layer, the dense weights over TP and the GPU's own experts whole: (dense / TP + experts /
    EP) / layers in bf16, for the prefetched layers."""
    layout = replace(TP2_EP4, zero_stage=3)
    experts = all_expert_params(MIXTRAL)
    dense = MIXTRAL.params_b * 1e9 - experts
    per_layer = (dense / 2 + experts / 4) / MIXTRAL.layers
    assert live_param_bytes(MIXTRAL, "full_ft", layout, 8) == pytest.approx(LIVE_PARAM_LAYERS * 2 * per_layer)
    states = model_state_bytes(MIXTRAL, "full_ft", layout, 8, 16)  # everything sharded: 16 B over all 8 GPUs
    assert states == pytest.approx(dense / 2 * 16 / 4 + experts / 4 * 16 / 2, rel=1e-12)


def test_tp2_ep4_expert_gradients_reduce_over_tp_times_dp_over_ep_ranks():
    experts = all_expert_params(MIXTRAL)
    dense = MIXTRAL.params_b * 1e9 - experts
    moved = dp_comm_bytes(MIXTRAL, "full_ft", TP2_EP4, 4, 0.0)
    # ring reduce-scatter + all-gather of bf16 gradients: dense / TP2 over DP4, a GPU's experts / EP4 over 2 ranks
    assert moved == pytest.approx(2 * 3 / 4 * 2 * dense / 2 + 2 * 1 / 2 * 2 * experts / 4, rel=1e-12)


def test_the_all_to_all_at_tp2_is_the_tp1_arithmetic():
    """Each GPU routes its sequence-parallel share of the tokens: the same seconds per token per GPU as at TP 1."""
    tp1 = expert_all_to_all_seconds(E, H100, MIXTRAL, Layout(1, 1, 1, "none", expert_parallel=4), 8192)
    assert expert_all_to_all_seconds(E, H100, MIXTRAL, replace(TP2_EP4, recompute="none"), 8192) == tp1 > 0


def test_the_ep_group_divides_tp_times_dp():
    """EP ranks are carved from TP x DP (Megatron-Core's folding at expert-TP 1): on 8 GPUs at TP8 there is one
    data-parallel rank, yet EP 2, 4 and 8 fold over the TP group; at TP2 PP4 on 8 GPUs TP x DP = 2 caps EP at 2."""
    assert expert_data_parallel(4, 4, 2) == 2 and expert_data_parallel(1, 8, 8) == 1 and expert_data_parallel(8, 4) == 2
    w = TrainingWorkload(model="mixtral-8x7b", method="full_ft")
    splits = expert_splits(H100, 8, MIXTRAL, w)
    assert all((8 // pp) % ep == 0 and MIXTRAL.num_experts % ep == 0 for _, pp, ep in splits)
    assert {ep for tp, pp, ep in splits if (tp, pp) == (8, 1)} == {2, 4, 8}
    assert {ep for tp, pp, ep in splits if (tp, pp) == (2, 4)} == {2}
    assert {tp for tp, _, _ in splits} == {1, 2, 4, 8}  # inside the 8-GPU NVLink domain, as TP is
    assert splits == sorted(splits, key=lambda s: (s[0], s[2], s[1]))  # TP, then EP, then PP ascending
    lora = w.model_copy(update={"method": "lora"})
    assert any(c.tensor_parallel > 1 for c in expert_candidates(H100, 8, MIXTRAL, lora, E))


def test_a_dense_model_never_gets_ep_at_any_tp():
    w = TrainingWorkload(model="llama-3.1-70b", method="pretrain", seq_len=8192, global_batch_seqs=512)
    hidden = replace(E, ep_a2a_exposed=0.0)
    assert expert_splits(H100, 64, LLAMA70, w) == [] and not expert_split_fits(H100, 64, LLAMA70, w, E)
    for n in (64, 128):
        layout = choose_layout(H100, n, LLAMA70, w, hidden)
        assert layout is not None and layout.expert_parallel is None


@pytest.mark.parametrize(
    ("gpu", "count", "words"),
    [(B200, 128, "TP2 PP4 EP8 ZeRO-1 ×16"), (H100, 256, "TP4 PP4 EP16 ZeRO-1 ×16")],
)
def test_maverick_picks_tp_with_ep_and_says_both(gpu, count, words):
    """Llama 4 Maverick full fine-tuning at 64-sequence batches: attention TP beside EP beats every TP 1 EP
    layout (TP leaves fewer replicas, each with more micro-batches to fill its pipeline) and the best layout without
    EP. Was TP4 PP2 EP64 on both until fsdpbytes: with the data-parallel rings on every NIC of a node
    (communication.dp_bandwidth_gbs) the experts' gradients cost less than EP64's all-to-all across the fabric."""
    w = TrainingWorkload(model="llama-4-maverick", method="full_ft", seq_len=4096, global_batch_seqs=64)
    layout = choose_layout(gpu, count, MAVERICK, w)
    assert layout is not None and layout.describe(count, w.framework).startswith(words)
    seconds = layout_timing(gpu, count, MAVERICK, w, layout, E)[0].total_s
    tp1 = [c for c in expert_candidates(gpu, count, MAVERICK, w, E) if c.tensor_parallel == 1]
    assert all(layout_timing(gpu, count, MAVERICK, w, c, E)[0].total_s > seconds for c in tp1)
    no_ep = choose_layout(gpu, count, MAVERICK, w, expert_split=False)
    assert no_ep is not None and layout_timing(gpu, count, MAVERICK, w, no_ep, E)[0].total_s > seconds


def test_the_ranking_search_agrees_with_choose_layout_on_tp_with_ep():
    """GpuTimer.best_layout (the ranking's search) finds choose_layout's layout and seconds, bit for bit, where
    TP with EP wins and where it does not, with the all-to-all exposed and hidden."""
    cases = [
        ("llama-4-maverick", {"method": "full_ft", "global_batch_seqs": 64}, (64, 128, 256)),
        ("qwen3-235b-a22b", {"method": "pretrain", "global_batch_seqs": 64}, (128, 256)),
        ("mixtral-8x22b", {"method": "pretrain", "global_batch_seqs": 256}, (32,)),
    ]
    tp_ep_seen = 0
    for model_id, fields, counts in cases:
        model = MODELS[model_id]
        w = TrainingWorkload(model=model_id, seq_len=4096, **fields)
        for e in (E, replace(E, ep_a2a_exposed=0.0)):
            search = LayoutSearch(model, w, e)
            for gpu in (H100, H200, B200):
                timer = GpuTimer(search, gpu)
                for n in counts:
                    layout, seconds = timer.best_layout(n)
                    assert layout == choose_layout(gpu, n, model, w, e), (model_id, gpu.id, n)
                    if layout is not None:
                        assert seconds == layout_timing(gpu, n, model, w, layout, e)[0].total_s
                        tp_ep_seen += bool(layout.expert_parallel and layout.tensor_parallel > 1)
                    assert search.fits(gpu, n) == fits_at(gpu, n, model, w, e)
    assert tp_ep_seen >= 5


def test_a_tp_ep_layout_reads_both_in_words_terms_and_json():
    assert Layout(1, 2, 1, "none", expert_parallel=8).describe(16) == "TP2 EP8 ZeRO-1 ×8, no recompute"
    row = plain(Layout(1, 4, 2, "none", expert_parallel=64))
    assert (row["tensor_parallel"], row["pipeline_parallel"], row["expert_parallel"]) == (4, 2, 64)
    out = LayoutOut.model_validate(row)
    assert (out.tensor_parallel, out.expert_parallel) == (4, 64)
    w = TrainingWorkload(model="llama-4-maverick", method="full_ft", seq_len=4096, global_batch_seqs=64)
    est = estimate_training(B200, 128, MAVERICK, w, layout=Layout(1, 4, 2, "none", expert_parallel=64))
    assert est.layout_text.startswith("TP4 PP2 EP64")
    terms = {t.name: t.detail for t in est.terms}
    assert (
        "under EP64 a GPU's own 2 routed experts go over the 1 rank holding the same ones (TP4 × DP / EP)"
        in (terms["exposed DP/FSDP traffic"])
    )
    assert "sharded over the TP × DP / EP ranks" in terms["memory: model states"]
    assert "beside TP4 attention the experts run whole (expert-TP 1)" in terms["exposed expert all-to-all"]


@pytest.mark.parametrize("method", ["pretrain", "lora"])
def test_states_overflow_only_skips_splits_that_cannot_fit(method):
    """The search skips EP memory checks where the model's states spread evenly over every GPU pass its memory: at
    each such count no EP split fits even at its most frugal, and the test does stop some counts (DeepSeek-V3
    pretraining on up to 128 H100s: 10.7 TB of states)."""
    model = MODELS["deepseek-v3"]
    w = TrainingWorkload(model="deepseek-v3", method=method, seq_len=4096, global_batch_seqs=64)
    stopped = 0
    for gpu in (H100, B200):
        for n in (8, 16, 32, 64, 128, 256, 512):
            if states_overflow(gpu, n, model, w):
                stopped += 1
                assert not any(
                    frugal_fits(gpu, n, model, w, tp, pp, E, ep=ep) for tp, pp, ep in expert_splits(gpu, n, model, w)
                )
    assert stopped >= 2 and not states_overflow(B200, 512, model, w)
