"""Ring context parallelism (CP) for the stacks that run it (Megatron-LM, NeMo, torchtitan, auto): long sequences split
over CP ranks beside TP, the ring's exposed K/V traffic priced, and the ranking's sweep agreeing with the single
estimate."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.hardware.machines import FABRIC_ALPHA_MS
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout, layout_timing
from app.scoring.training.layouts.fit_search import first_fit, with_micro_batches
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.layouts.search_space import context_degrees, context_splits, layout_families
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.ranking.rank import rank_training
from app.scoring.training.step.communication import attention_seconds_per_flop, context_parallel_seconds
from app.scoring.training.step.context_parallel import (
    CONTEXT_PARALLEL_MIN_SEQ_LEN,
    RING_STEP_LATENCY_INTRA_NODE_S,
    ring_exposed_seconds,
    ring_step_latency_s,
)
from app.scoring.workload import TrainingWorkload
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates
from tests.scoring.term_arithmetic import stated_value

GPUS = load_gpu_specs()
MODELS = load_model_specs()
MODEL_8B = MODELS["llama-3.1-8b"]


def job(seq_len: int, framework: str = "megatron", **kw) -> TrainingWorkload:
    fields = {"model": "llama-3.1-8b", "method": "full_ft", "global_batch_seqs": 4, **kw}
    return TrainingWorkload(seq_len=seq_len, framework=framework, **fields)


MILLION = job(1_048_576, total_tokens=1e9)  # the user's question: 8B full fine-tuning at 1M tokens on Megatron


def cp_term(est):
    return next(t for t in est.terms if "CP ring" in t.name)


def test_million_token_8b_runs_on_h100s_with_context_parallelism():
    """Before CP, 1M tokens fit only B200/GB200 at TP8 with full recompute; a Megatron user runs CP on H100s."""
    gpu = GPUS["H100-SXM"]
    assert all(first_fit(gpu, 32, MODEL_8B, MILLION, tp, pp, E) is None for tp, pp in ((8, 1), (8, 2), (8, 4)))
    est = estimate_training(gpu, 32, MODEL_8B, MILLION)
    assert est.feasible and est.layout is not None and est.layout.sequence_parallel >= 4
    assert "CP" in est.layout_text and "SP" not in est.layout_text
    term = cp_term(est)
    assert "ring" in term.detail and f"CP{est.layout.sequence_parallel}" in term.detail
    # 32K-token blocks: the attention of a block outlasts its K/V send even over the fabric
    assert term.value == 0
    tp8_cp4 = Layout(zero_stage=1, tensor_parallel=8, recompute="full", sequence_parallel=4)
    pinned = estimate_training(gpu, 32, MODEL_8B, MILLION, layout=tp8_cp4)
    assert pinned.feasible and pinned.layout_text.startswith("TP8 CP4 ")


def test_ranking_offers_h100_and_h200_for_the_million_token_question():
    cluster = {"gpus_per_node": 8, "inter_node_fabric": "infiniband", "inter_node_gbps_per_gpu": 400.0, "max_nodes": 8}
    offers = tuple(Offer("p", "P", g, 8, "on_demand", 3.0, **cluster) for g in ("H100-SXM", "H200", "B200"))
    w = MILLION.model_copy(update={"max_gpus": 64})
    ranking = rank_training(w, CatalogSnapshot(gpus=GPUS, models=MODELS, offers=offers), MODEL_8B)
    feasible = {o.gpu_id: o for o in ranking.options if o.feasible}
    assert {"H100-SXM", "H200"} <= set(feasible)
    for gpu_id in ("H100-SXM", "H200"):
        option = feasible[gpu_id]
        assert "CP" in option.layout
        est = estimate_training(GPUS[gpu_id], option.gpu_count, MODEL_8B, w)
        assert (est.layout_text, est.step_time_s) == (option.layout, option.step_time_s)


def test_auto_takes_cp_where_it_beats_tensor_parallelism():
    """8B full fine-tuning at 128K tokens on 8 H100s: auto ran TP8 with full recompute at 2,108 tok/s/GPU while
    Megatron's CP4 gave 2,392; auto (a tuned open stack that already gets TP/PP) now searches CP too (train4)."""
    gpu, w = GPUS["H100-SXM"], job(131_072, "auto", global_batch_seqs=64)
    tp8 = estimate_training(gpu, 8, MODEL_8B, w, layout=first_fit(gpu, 8, MODEL_8B, w, 8, 1, E))
    est = estimate_training(gpu, 8, MODEL_8B, w)
    assert est.layout is not None and est.layout.sequence_parallel > 1 and est.layout_text.startswith("CP")
    assert est.tokens_per_s_per_gpu > tp8.tokens_per_s_per_gpu * 1.01
    assert "CP ring" in " ".join(t.name for t in est.terms)


def test_short_sequences_that_fit_without_cp_are_not_offered_it():
    gpu = GPUS["H100-SXM"]
    for seq_len in (4096, 8192):
        w = job(seq_len, global_batch_seqs=256)
        assert context_splits(gpu, 64, MODEL_8B, w, True) == []
        for n in (8, 16, 64):
            assert choose_layout(gpu, n, MODEL_8B, w).sequence_parallel == 1
    assert context_splits(gpu, 8, MODEL_8B, job(CONTEXT_PARALLEL_MIN_SEQ_LEN), True)


def test_a_short_sequence_takes_cp_where_nothing_fits_without_it():
    """8B full fine-tuning at 8K on 4 A100-PCIe-40GB: no TP/PP split holds it, TP2 CP2 does."""
    gpu, w = GPUS["A100-PCIE-40GB"], job(8192, global_batch_seqs=64)
    assert all(first_fit(gpu, 4, MODEL_8B, w, tp, pp, E) is None for tp, pp in layout_families(gpu, 4, MODEL_8B))
    est = estimate_training(gpu, 4, MODEL_8B, w)
    assert est.feasible and est.layout_text == "TP2 CP2 FSDP ×2 (DP1 × CP2), full recompute"
    assert not estimate_training(gpu, 4, MODEL_8B, w.model_copy(update={"framework": "llm-foundry"})).feasible


def test_degrees_need_tp_x_cp_to_divide_the_count_and_the_sequence_two_chunks_a_rank():
    assert context_degrees(32, 8, 1_048_576, "megatron") == (2, 4)
    assert context_degrees(32, 1, 1_048_576, "nemo") == (2, 4, 8, 16, 32)
    assert context_degrees(24, 2, 65_536, "torchtitan") == (2, 4)  # 2 x 8 does not divide 24
    assert context_degrees(16, 1, 20_000, "megatron") == (2, 4, 8, 16)  # 20,000 = 32 x 625
    assert context_degrees(16, 1, 20_002, "megatron") == ()  # odd halves: no two equal chunks per rank
    assert context_degrees(8, 1, 131_072, "auto") == (2, 4, 8)  # a tuned open stack, TP/PP and CP alike
    assert context_degrees(64, 1, 131_072, "hf") == ()  # Ulysses there, not a ring
    assert context_degrees(64, 1, 131_072, "llm-foundry") == ()


def test_qlora_never_takes_cp():
    assert context_splits(GPUS["H100-SXM"], 64, MODEL_8B, job(131_072, method="qlora"), False) == []


def _exposure(gpu_id: str, n: int, seq_len: int, tp: int, cp: int) -> float:
    gpu, w = GPUS[gpu_id], job(seq_len)
    layout = Layout(zero_stage=1, tensor_parallel=tp, recompute="none", sequence_parallel=cp)
    per_flop = attention_seconds_per_flop(E, gpu, "megatron", "16", gpu.bf16_tflops, 0.5)
    return context_parallel_seconds(E, gpu, MODEL_8B, layout, w.seq_len, 1, per_flop, "megatron")


def test_ring_is_hidden_at_long_sequences_on_nvlink_and_exposed_at_short_ones_across_nodes():
    assert _exposure("H100-SXM", 8, 131_072, 1, 8) == 0  # 16K-token blocks over NVLink
    across = _exposure("H100-SXM", 64, 16_384, 1, 64)  # 256-token blocks over the NICs
    assert across > 0
    assert _exposure("H100-SXM", 64, 16_384, 1, 64) > _exposure("H100-SXM", 64, 16_384, 1, 16) > 0
    assert _exposure("H100-SXM", 8, 16_384, 1, 8) < across  # the same cut inside NVLink sends 10x faster


def test_exposure_counts_each_pass_and_the_recomputed_forward():
    args = (MODEL_8B, 16_384, 1, 1, 64)
    bandwidth, per_flop = 45.0, 1e-15
    no_recompute = ring_exposed_seconds(*args, "none", 1, 1, bandwidth, per_flop, 0.0)
    full = ring_exposed_seconds(*args, "full", 1, 1, bandwidth, per_flop, 0.0)
    assert full == pytest.approx(no_recompute * 4 / 3)  # forward 1 + backward 2 sends, + 1 recomputed forward
    assert ring_exposed_seconds(*args, "none", 1, 3, bandwidth, per_flop, 0.0) == pytest.approx(3 * no_recompute)
    assert ring_exposed_seconds(MODEL_8B, 16_384, 1, 2, 64, "none", 1, 1, bandwidth, per_flop, 0.0) == pytest.approx(
        no_recompute / 2  # a pipeline stage runs half the layers
    )


def test_each_ring_step_pays_its_send_latency_over_the_links_it_crosses():
    """The ring had no per-step latency: 63 steps of 256-token blocks over the fabric cost only their bytes. Each send
    now first pays its P2P launch and handshake, 10 us inside a node and 15 us over the fabric (the send between
    pipeline stages on another node, FABRIC_ALPHA_MS) (found by train4's brief)."""
    h100, pcie = GPUS["H100-SXM"], GPUS["L40S"]  # L40S: PCIe only
    assert ring_step_latency_s(h100, 8) == RING_STEP_LATENCY_INTRA_NODE_S == 10e-6
    assert ring_step_latency_s(h100, 16) == FABRIC_ALPHA_MS / 1e3 == pytest.approx(15e-6)
    assert ring_step_latency_s(pcie, 4) == RING_STEP_LATENCY_INTRA_NODE_S
    args = (MODEL_8B, 16_384, 1, 1, 64, "none", 1, 1, 45.0, 1e-15)
    added = ring_exposed_seconds(*args, 15e-6) - ring_exposed_seconds(*args, 0.0)
    assert added == pytest.approx(32 * 63 * 2 * 15e-6)  # layers x ring steps x passes (forward, backward) x latency
    w = job(16_384, global_batch_seqs=64)
    layout = Layout(zero_stage=1, tensor_parallel=1, recompute="none", sequence_parallel=64)
    term = cp_term(estimate_training(h100, 64, MODEL_8B, w, layout=layout))
    assert "max(0, 0.01500 ms latency + 1 × " in term.detail and "15 us over fabric links" in term.detail
    # and what a block's attention hides, it hides with the latency: 16K-token blocks over the fabric expose nothing
    assert _exposure("H100-SXM", 64, 1_048_576, 1, 64) == 0


def test_the_step_time_shows_the_ring_and_adds_it():
    gpu = GPUS["H100-SXM"]
    w = job(16_384, global_batch_seqs=64)
    layout = Layout(zero_stage=1, tensor_parallel=1, recompute="none", sequence_parallel=64)
    est = estimate_training(gpu, 64, MODEL_8B, w, layout=layout)
    term = cp_term(est)
    assert term.name == "exposed CP ring" and term.value > 0 and "64 - 1) ring steps" in term.detail
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3)
    assert est.layout_text.startswith("CP64 ")
    without = estimate_training(gpu, 64, MODEL_8B, w, layout=Layout(zero_stage=1, recompute="none"))
    assert est.step_time_s > without.step_time_s - 1e-9


def test_nemos_cp2_validation_row_is_priced_with_a_hidden_ring():
    """The NeMo Llama-3 70B 8K row (TP4 PP4 CP2, pinned from its notes): 4K-token blocks inside NVLink hide their
    sends, so the refit's constants stay where they were."""
    w = TrainingWorkload(
        model="llama-3-70b", method="pretrain", precision="fp8", seq_len=8192, global_batch_seqs=128, framework="nemo"
    )
    layout = Layout(zero_stage=1, tensor_parallel=4, pipeline_parallel=4, recompute="none", sequence_parallel=2)
    est = estimate_training(GPUS["H100-SXM"], 64, MODELS["llama-3-70b"], w, layout=layout)
    assert est.feasible and "CP2" in est.layout_text
    assert " ring steps × 0 ms / 10^3;" in cp_term(est).detail  # the term's CP part; its TP part is what it was


CP_JOBS = [
    MILLION,
    job(262_144),
    job(131_072, "torchtitan"),
    job(131_072, "auto", global_batch_seqs=64),
    job(262_144, "auto", model="llama-3.1-70b", global_batch_seqs=16),
    job(16_384, "auto", method="lora", model="llama-3.1-70b", global_batch_seqs=32),
    job(16_384, "nemo", global_batch_seqs=64),
    job(32_768, model="llama-3.1-70b", global_batch_seqs=32),
    job(65_536, "megatron", method="lora", model="qwen2.5-7b", global_batch_seqs=8),
    job(8192, model="llama-3.1-70b", global_batch_seqs=64),
    job(8192, global_batch_seqs=64),  # fits 4 A100-PCIe-40GB only with CP
    job(4096, global_batch_seqs=256),
]


@pytest.mark.parametrize("w", CP_JOBS, ids=lambda w: f"{w.framework}-{w.model}-{w.method}-{w.seq_len}")
def test_ranking_sweep_matches_the_single_estimate(w):
    gpus = [GPUS[g] for g in ("H100-SXM", "H200", "A100-SXM-40GB", "A100-PCIE-40GB", "L40S", "MI300X", "GB200")]
    assert_sweep_matches_single_estimates(MODELS[w.model], w, gpus, (1, 2, 4, 8, 16, 24, 32, 64, 72, 128))


def test_sweep_exercises_cp_inside_and_beyond_the_domain():
    """Guard for the agreement test above: its jobs reach CP > 1 both inside and beyond the NVLink domain."""
    inside = beyond = False
    for w in CP_JOBS:
        timer = GpuTimer(LayoutSearch(MODELS[w.model], w), GPUS["H100-SXM"])
        for n in (8, 16, 32, 64):
            layout = timer.best_layout(n)[0]
            if layout is not None and layout.sequence_parallel > 1:
                group = layout.tensor_parallel * layout.sequence_parallel
                inside, beyond = inside or group <= 8, beyond or group > 8
    assert inside and beyond


def test_the_sweep_tries_larger_micro_batches_where_the_ring_is_exposed():
    """A ring step's latency is paid once per micro-batch: 8B at 16K tokens as TP2 CP32 FSDP on 64 H100s (512-token
    blocks over the fabric) runs faster at larger micro-batches though its DP traffic hides, so the ranking's sweep
    must try them there (it tried them only for exposed DP traffic or QLoRA)."""
    gpu, w = GPUS["H100-SXM"], job(16_384, global_batch_seqs=64)
    first = first_fit(gpu, 64, MODEL_8B, w, 2, 1, E, 32)
    assert first is not None
    steps = [
        layout_timing(gpu, 64, MODEL_8B, w, layout, E)[0]
        for layout in with_micro_batches(gpu, 64, MODEL_8B, w, 2, 1, E, first, 32)
    ]
    assert steps[0].dp_comm_s == 0 and min(st.total_s for st in steps[1:]) < steps[0].total_s
    timer = GpuTimer(LayoutSearch(MODEL_8B, w), gpu)
    assert timer._timed(64, first, {}, None, float("inf"))[2]  # larger micro-batches may save time
