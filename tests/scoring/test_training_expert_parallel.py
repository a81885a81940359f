"""Expert parallelism (EP) in training: the expert states a GPU stops holding, the all-to-all it adds, the layouts the
search tries, and how an EP layout reads in words, terms and JSON (trainep; the term itself from train9)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout, fits_at, layout_timing
from app.scoring.training.layouts.expert_layouts import expert_candidates, expert_splits
from app.scoring.training.layouts.experts import all_expert_params, expert_degrees, held_params
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.communication import dp_comm_bytes, expert_all_to_all_seconds
from app.scoring.workload import TrainingWorkload
from app.service.rank.plain import plain
from app.web.rank.schemas import LayoutOut
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
DSV3, MIXTRAL, LLAMA = MODELS["deepseek-v3"], MODELS["mixtral-8x7b"], MODELS["llama-3.1-8b"]
H100, MI355X = GPUS["H100-SXM"], GPUS["MI355X"]
EP8 = Layout(zero_stage=3, recompute="full", micro_batch_seqs=4, expert_parallel=8)


def test_the_routed_experts_are_a_catalog_count():
    experts = all_expert_params(DSV3)
    assert experts == 58 * 256 * 3 * 7168 * 2048  # MoE layers × experts × 3 matrices × hidden × expert width
    assert held_params(DSV3, EP8) == pytest.approx(DSV3.params_b * 1e9 - experts * 7 / 8)
    assert held_params(DSV3, Layout(zero_stage=3)) == DSV3.params_b * 1e9
    assert all_expert_params(LLAMA) == 0


@pytest.mark.parametrize("stage", [0, 1, 3])
def test_expert_states_per_gpu_fall_with_ep(stage):
    """At ZeRO-0/1 each GPU holds its own experts' weights (and grads) whole: EP divides them. At ZeRO-3 the
    experts' states are already sharded over every rank, so EP keeps them (DP / EP ranks × EP experts each)."""
    held = [model_state_bytes(MIXTRAL, "full_ft", Layout(stage, 1, 1, expert_parallel=ep), 8, 16) for ep in (1, 2, 8)]
    if stage == 3:
        assert held[2] == pytest.approx(held[0]) and held[1] == pytest.approx(held[0])
    else:
        assert held[0] > held[1] > held[2]
        dense = MIXTRAL.params_b * 1e9 - all_expert_params(MIXTRAL)
        # ZeRO-0: 16 B per param held whole (bf16 weight + grad, fp32 master + Adam m and v)
        if stage == 0:
            assert held[2] == pytest.approx(16 * (dense + all_expert_params(MIXTRAL) / 8))


def test_the_expert_part_of_dp_traffic_runs_over_dp_over_ep_ranks():
    plain = dp_comm_bytes(MIXTRAL, "full_ft", Layout(1, 1, 1), 8, 0.0)
    ep8 = dp_comm_bytes(MIXTRAL, "full_ft", Layout(1, 1, 1, expert_parallel=8), 8, 0.0)
    dense = MIXTRAL.params_b * 1e9 - all_expert_params(MIXTRAL)
    assert ep8 == pytest.approx(2 * 7 / 8 * 2 * dense)  # EP = DP: each GPU's experts have no replica to reduce with
    ep2 = dp_comm_bytes(MIXTRAL, "full_ft", Layout(1, 1, 1, expert_parallel=2), 8, 0.0)
    assert ep2 == pytest.approx(ep8 + 2 * 3 / 4 * 2 * all_expert_params(MIXTRAL) / 2)  # over DP / EP = 4 ranks
    assert plain > ep2 > ep8


def test_the_all_to_all_is_zero_at_ep1_grows_with_ep_and_jumps_off_the_scale_up_domain():
    def seconds(ep: int | None) -> float:
        return expert_all_to_all_seconds(E, H100, DSV3, Layout(1, 1, 1, "none", expert_parallel=ep), 16384)

    assert seconds(None) == 0 and seconds(1) == 0
    assert seconds(4) / seconds(2) == pytest.approx((3 / 4) / (1 / 2))  # (EP - 1) / EP over the same NVLink
    assert seconds(8) / seconds(2) == pytest.approx((7 / 8) / (1 / 2))
    nvlink, fabric = 900 / 2 * E.ep_a2a_nvlink_efficiency, E.scaleout_gbs_per_gpu  # an all-to-all's NVLink share
    assert seconds(16) / seconds(8) == pytest.approx((15 / 16) / (7 / 8) * nvlink / fabric)  # EP16 leaves the node
    # 4 rounds (dispatch and combine, forward and backward) × 58 MoE layers × top-8 × 7168 hidden × 2 B × 7/8
    assert seconds(8) == pytest.approx(16384 * 4 * 58 * 8 * 7168 * 2 * 7 / 8 / (nvlink * 1e9))
    dense = Layout(zero_stage=3, expert_parallel=8)
    assert expert_all_to_all_seconds(E, H100, LLAMA, dense, 16384) == 0


def test_the_search_tries_ep_for_a_moe_only_on_stacks_that_run_it():
    w = TrainingWorkload(model="mixtral-8x7b", method="full_ft")
    splits = expert_splits(H100, 16, MIXTRAL, w)
    assert {ep for _, _, ep in splits} == {2, 4, 8}  # powers of two dividing 8 experts and the TP x DP ranks
    assert all((16 // pp) % ep == 0 for _, pp, ep in splits)
    assert expert_degrees(DSV3, 48) == (2, 4, 8, 16)  # 32 does not divide 48 data-parallel ranks
    assert expert_splits(H100, 16, LLAMA, TrainingWorkload(model="llama-3.1-8b", method="full_ft")) == []
    assert expert_splits(H100, 16, MIXTRAL, w.model_copy(update={"framework": "hf"})) == []
    assert expert_splits(H100, 16, MIXTRAL, w.model_copy(update={"method": "qlora"})) == []
    candidates = expert_candidates(H100, 16, MIXTRAL, w, E)
    assert candidates and all(c.expert_parallel for c in candidates)


def test_the_search_picks_ep_where_it_is_faster_and_the_ranking_sweep_agrees():
    """GPT-OSS-120B LoRA on 8 H100: with the all-to-all hidden (as DualPipe hides it), an EP layout beats TP4 PP2: PP2
    EP4 until the EP search went past the smallest PP that fits, now PP4 EP2 (PP2 EP2 recomputes 17 layers per stage,
    PP4 EP2 none: 3.045 s against PP2 EP4's 3.048); at the default fully exposed all-to-all none does. The ranking's
    GpuTimer finds the same layout and seconds."""
    w = TrainingWorkload(model="gpt-oss-120b", method="lora")
    model, hidden = MODELS["gpt-oss-120b"], replace(E, ep_a2a_exposed=0.0)
    picked = choose_layout(H100, 8, model, w, hidden)
    assert picked is not None and picked.describe(8) == "PP4 EP2 ZeRO-1 ×2, no recompute"
    assert choose_layout(H100, 8, model, w, hidden, expert_split=False) != picked
    default = choose_layout(H100, 8, model, w)
    assert default is not None and default.expert_parallel is None
    for e in (hidden, E):
        search = LayoutSearch(model, w, e)
        for gpu in (H100, GPUS["H800"], GPUS["B200"]):  # H800 shares H100's memoised EP layouts (80 GB, NVLink 8)
            timer = GpuTimer(search, gpu)
            for n in (8, 16):
                layout, seconds = timer.best_layout(n)
                assert layout == choose_layout(gpu, n, model, w, e), (gpu.id, n)
                assert layout is not None and seconds == layout_timing(gpu, n, model, w, layout, e)[0].total_s
                assert search.fits(gpu, n) == fits_at(gpu, n, model, w, e)


def test_a_dense_model_never_gets_ep():
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft")
    layout = choose_layout(H100, 16, LLAMA, w, replace(E, ep_a2a_exposed=0.0))
    assert layout is not None and layout.expert_parallel is None
    assert expert_candidates(H100, 16, LLAMA, w, E) == []


def test_the_ep_term_shows_its_arithmetic_and_the_step_adds_it():
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=256)
    est = estimate_training(MI355X, 64, DSV3, w, layout=EP8, capacity_factor=1.25)
    terms = {t.name: t for t in est.terms}
    ep = terms["exposed expert all-to-all"]
    assert ep.value > 0 and stated_value(ep.detail) == pytest.approx(ep.value, rel=5e-3)
    assert "EP8 FSDP ×64" in est.layout_text and "32 of the 256 routed experts" in ep.detail
    assert "scale-up link" in ep.detail
    parts = ("compute", "per-step latency", "exposed DP/FSDP traffic", "exposed expert all-to-all")
    assert sum(terms[name].value for name in parts) == pytest.approx(est.step_time_s, rel=1e-9)
    assert "exposed expert all-to-all" in terms["step time"].detail
    assert "32 routed experts go over the 8 ranks" in terms["exposed DP/FSDP traffic"].detail
    no_ep = estimate_training(MI355X, 64, DSV3, w, layout=Layout(zero_stage=3, recompute="full", micro_batch_seqs=4))
    assert "exposed expert all-to-all" not in {t.name for t in no_ep.terms}
    assert est.memory_per_gpu_gb < no_ep.memory_per_gpu_gb  # one layer's gathered experts are an eighth


def test_layout_json_names_expert_parallel_only_when_set_and_the_api_schema_takes_it():
    assert "expert_parallel" not in plain(Layout(0, 8, 1, "full"))
    row = plain(Layout(1, 1, 16, "none", expert_parallel=64))
    assert row["expert_parallel"] == 64
    assert LayoutOut.model_validate(row).expert_parallel == 64
    assert "expert_parallel" in LayoutOut.model_fields and LayoutOut.model_fields["expert_parallel"].description
    assert Layout(1, 1, 16, "none", expert_parallel=64).describe(2048) == "PP16 EP64 ZeRO-1 ×128, no recompute"


def test_the_memory_term_says_how_ep_holds_the_experts():
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=256)
    est = estimate_training(MI355X, 64, DSV3, w, layout=EP8)
    states = next(t for t in est.terms if t.name == "memory: model states")
    assert "EP8: the routed experts over PP × EP" in states.detail
