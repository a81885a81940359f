"""The expert-parallel search past the smallest pipeline that fits, and the all-to-all's NVLink share (moeep).

DeepSeek-V3 pretraining on 128 B200 timed its TP 1 EP layouts only at the smallest PP that fit, where the whole
experts left room for activations only by recomputing (PP8 EP8: 3 of 8 layers per stage); NVIDIA's own B200 recipe
runs TP1 PP8 EP8 and TP1 PP16 EP8 without it (Megatron-Bridge 0.6.2 perf recipes), so a (TP, EP) group now also tries
deeper PPs until one fits at the cheapest recompute level. The all-to-all inside the NVLink domain ran at the
all-reduce's 0.65 of the link; DeepEP measures 0.78 (efficiency.training.ep_a2a_nvlink_efficiency)."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import layout_timing
from app.scoring.training.layouts.expert_layouts import expert_group_candidates, expert_groups
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.communication import all_to_all_bandwidth_gbs, collective_bandwidth_gbs
from app.scoring.workload import TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
B200, H100, DSV3 = GPUS["B200"], GPUS["H100-SXM"], MODELS["deepseek-v3"]
PRETRAIN = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=1024)


def _group(tp: int, ep: int) -> tuple[int, int, tuple[int, ...]]:
    return next(g for g in expert_groups(B200, 128, DSV3, PRETRAIN) if g[:2] == (tp, ep))


def test_an_ep_group_whose_smallest_pipeline_recomputes_also_tries_a_deeper_one_that_does_not():
    layouts = expert_group_candidates(B200, 128, DSV3, PRETRAIN, E, _group(1, 8))
    found = {layout.describe(128, "auto", DSV3.layers) for layout in layouts}
    assert "PP8 EP8 ZeRO-1 ×16, recompute 3 of 8 layers per stage" in found  # the smallest PP that fits
    assert "PP16 EP8 ZeRO-1 ×8, no recompute" in found  # NVIDIA's B200 proxy recipe's split
    assert not any("PP32" in text for text in found)  # a deeper PP than the first without recompute adds bubble only


def test_the_deeper_pipeline_is_faster_than_recomputing_and_a_group_without_recompute_stops_at_its_first_pp():
    layouts = expert_group_candidates(B200, 128, DSV3, PRETRAIN, E, _group(1, 8))
    by_pp = {layout.pipeline_parallel: layout for layout in layouts if layout.micro_batch_seqs == 1}
    seconds = {pp: layout_timing(B200, 128, DSV3, PRETRAIN, layout, E)[0].total_s for pp, layout in by_pp.items()}
    assert seconds[16] < seconds[8] - 2.0  # 16.06 s against 18.23 s: 3 of 8 layers recomputed cost 1.93 s alone
    tp4 = expert_group_candidates(B200, 128, DSV3, PRETRAIN, E, _group(4, 8))
    assert max(layout.pipeline_parallel for layout in tp4) == 8  # PP4 recomputes, PP8 does not: PP16 is not tried
    assert [layout.recompute for layout in tp4 if layout.pipeline_parallel == 8] == ["none"]


def test_an_all_to_all_inside_the_nvlink_domain_runs_at_deepeps_share_and_beyond_it_at_the_fabrics():
    assert E.ep_a2a_nvlink_efficiency == 0.78  # DeepEP on H800: (153 + 158) / 2 GB/s of NVLink's 200 a direction
    assert all_to_all_bandwidth_gbs(E, B200, 8) == pytest.approx(1800 / 2 * 0.78)  # 702 GB/s, not 585
    assert all_to_all_bandwidth_gbs(E, H100, 4) == pytest.approx(900 / 2 * 0.78)
    assert collective_bandwidth_gbs(E, B200, 8) == pytest.approx(1800 / 2 * 0.65)  # TP and DP keep Calculon's share
    assert all_to_all_bandwidth_gbs(E, B200, 16) == collective_bandwidth_gbs(E, B200, 16) == E.scaleout_gbs_per_gpu


def test_a_recomputing_ep_layouts_all_to_all_term_says_where_its_extra_rounds_come_from():
    """'× 4.525 all-to-alls' under 1 of 4 layers recomputed per stage said nothing of where the .525 came from (the
    recomputed layers' forward dispatch and combine, 2 × 16 of 61 layers); the rounds show their sum."""
    w = TrainingWorkload(model="deepseek-v3", method="pretrain", seq_len=4096, global_batch_seqs=64)
    layout = Layout(1, 1, 16, "partial", recompute_layers=1, expert_parallel=4)
    est = estimate_training(B200, 128, DSV3, w, layout=layout)
    a2a = {t.name: t for t in est.terms}["exposed expert all-to-all"]
    assert "× (4 + 2 × 16 / 61 layers recomputed) all-to-alls ×" in a2a.detail
    assert "once more for the recomputed layers' forward" in a2a.detail
    assert stated_value(a2a.detail) == pytest.approx(a2a.value, rel=5e-3)
