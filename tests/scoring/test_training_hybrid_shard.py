"""Hybrid sharding (HSDP): ZeRO-3 inside each node's data-parallel ranks, replicated across nodes. Its memory and
traffic by hand, and the layout searches (choose_layout and the rankings' GpuTimer) picking it across nodes on a slow
fabric, not on one node nor on a fabric that carries FULL_SHARD's gathers."""

from dataclasses import replace

import pytest

from app.calibration.training.training_notes import layout_from_notes
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout
from app.scoring.training.layouts.hybrid_shard import hybrid_shard_groups
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.hybrid_traffic import dp_traffic_seconds, hybrid_traffic
from app.scoring.workload import TrainingWorkload
from app.service.rank.plain import plain
from app.web.rank.layout_schema import LayoutOut
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100, B200 = GPUS["H100-SXM"], GPUS["B200"]
E = DEFAULT_TRAINING_EFFICIENCY
SLOW = replace(E, scaleout_gbs_per_gpu=50 / 8 * 0.9)  # a 50 Gb/s-a-GPU fabric (AWS p4d's EFA)
HSDP = Layout(zero_stage=3, recompute="none", shard_group=8)
FT_8B = TrainingWorkload(
    model="llama-3.1-8b", method="full_ft", seq_len=2048, global_batch_seqs=256, framework="pytorch"
)


def test_hsdp_holds_the_shard_of_its_group_not_of_every_rank():
    model = MODELS["llama-3.1-8b"]  # 8.03B params, mixed-precision AdamW: 16 bytes each
    assert model_state_bytes(model, "full_ft", HSDP, 32, 16) == pytest.approx(8.03e9 * 16 / 8)
    fsdp = replace(HSDP, shard_group=None)
    assert model_state_bytes(model, "full_ft", fsdp, 32, 16) == pytest.approx(8.03e9 * 16 / 32)


def test_hsdp_traffic_by_hand():
    """Inside a group of 8: the bf16 gradient's reduce-scatter and the gathers of 4 micro-batches (2 × 4 - 1 besides
    the gradients' all-gather), ring 7/8, over NVLink (900 / 2 × 0.65); across 4 replicas: an all-reduce of 1/8 of
    the bf16 gradients, ring 2 × 3/4, over one GPU's NIC."""
    model = MODELS["llama-3.1-8b"]
    grads = 2 * 8.03e9
    t = hybrid_traffic(SLOW, H100, 32, model, "full_ft", HSDP, 0.0, 4)
    assert t.inside_bytes == pytest.approx(2 * 7 / 8 * grads + 7 / 8 * grads * 7)
    assert t.inside_gbs == pytest.approx(900 / 2 * 0.65)
    assert t.across_bytes == pytest.approx(2 * 3 / 4 * grads / 8)
    assert t.across_gbs == pytest.approx(50 / 8 * 0.9)
    seconds = t.inside_bytes / 292.5e9 + t.across_bytes / 5.625e9
    assert dp_traffic_seconds(SLOW, H100, 32, model, "full_ft", HSDP, 32, 0.0, 4) == pytest.approx(seconds)
    fsdp = dp_traffic_seconds(SLOW, H100, 32, model, "full_ft", replace(HSDP, shard_group=None), 32, 0.0, 4)
    assert fsdp == pytest.approx(31 / 32 * grads * 9 / 45e9)  # FULL_SHARD's ring at 8 NICs a node: 3x HSDP's
    assert fsdp > 3 * seconds


def test_a_shard_group_is_one_nodes_data_parallel_ranks_across_nodes_only():
    fsdp = Layout(zero_stage=3)
    assert hybrid_shard_groups(H100, 32, fsdp, "pytorch")[0] == 8
    assert hybrid_shard_groups(H100, 32, replace(fsdp, tensor_parallel=2), "torchtitan")[0] == 4
    assert hybrid_shard_groups(H100, 8, fsdp, "pytorch") == ()  # one node: nothing to keep off the fabric
    assert hybrid_shard_groups(H100, 32, fsdp, "megatron") == ()  # no HSDP on the stack
    assert hybrid_shard_groups(H100, 32, replace(fsdp, zero_stage=1), "pytorch") == ()
    assert hybrid_shard_groups(GPUS["L40S"], 32, fsdp, "pytorch") == ()  # no NVLink inside the node


@pytest.mark.parametrize(
    ("gpu_id", "workload"),
    [
        ("H100-SXM", FT_8B),
        ("B200", TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=2048, global_batch_seqs=128)),
    ],
)
def test_the_search_picks_hsdp_across_nodes_on_a_slow_fabric_and_names_it(gpu_id, workload):
    gpu, model = GPUS[gpu_id], MODELS[workload.model]
    w = workload.model_copy(update={"framework": "pytorch"})
    est = estimate_training(gpu, 32, model, w, e=SLOW)
    assert est.layout is not None and est.layout.shard_group == 8, est.layout_text
    assert est.layout_text.startswith("HSDP 8×4")
    fsdp = estimate_training(gpu, 32, model, w, layout=replace(est.layout, shard_group=None), e=SLOW)
    assert est.step_time_s < 0.9 * fsdp.step_time_s  # clearly cheaper than FULL_SHARD at the same settings
    assert GpuTimer(LayoutSearch(model, w, SLOW), gpu).best_layout(32)[0] == est.layout  # the rankings agree
    one_node = estimate_training(gpu, 8, model, w, e=SLOW)
    assert one_node.layout is not None and one_node.layout.shard_group is None
    fast = estimate_training(gpu, 32, model, w)  # 400 Gb/s a GPU: FULL_SHARD's gathers ride 8 NICs a node
    assert fast.layout is not None and fast.layout.shard_group is None


def test_the_dp_term_says_what_moves_where_and_adds_up():
    est = estimate_training(H100, 32, MODELS["llama-3.1-8b"], FT_8B, layout=replace(HSDP, micro_batch_seqs=1), e=SLOW)
    term = {t.name: t for t in est.terms}["exposed DP/FSDP traffic"]
    assert "inside its shard group" in term.detail and "across replicas" in term.detail
    assert "HSDP 8×4" in term.detail and "over the fabric" in term.detail
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4)
    memory = {t.name: t for t in est.terms}
    assert any("HSDP shard-group ranks" in t.detail for t in memory.values())


def test_the_layout_json_describes_the_shard_group_and_leaves_it_out_without_one():
    assert plain(HSDP)["shard_group"] == 8
    assert "shard_group" not in plain(replace(HSDP, shard_group=None))
    assert LayoutOut.model_validate(plain(HSDP)).shard_group == 8
    assert LayoutOut.model_fields["shard_group"].description


def test_a_row_stating_fsdp_keeps_full_shard_over_a_searched_hsdp():
    assert layout_from_notes("FSDP, activation checkpointing true", 32, replace(HSDP, recompute="full")) == Layout(
        zero_stage=3, recompute="full"
    )


@pytest.mark.parametrize("framework", ["pytorch", "hf", "llm-foundry", "torchtitan"])
def test_the_rankings_search_answers_as_choose_layout_does_on_a_slow_fabric(framework):
    model = MODELS["llama-3.1-8b"]
    w = FT_8B.model_copy(update={"framework": framework})
    timer = GpuTimer(LayoutSearch(model, w, SLOW), H100)
    answers = [choose_layout(H100, n, model, w, SLOW) for n in (8, 16, 32, 64)]
    assert [timer.best_layout(n)[0] for n in (8, 16, 32, 64)] == answers
    assert framework == "torchtitan" or any(layout and layout.shard_group for layout in answers)
