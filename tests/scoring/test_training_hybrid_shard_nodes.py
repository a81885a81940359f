"""Hybrid sharding (HSDP) with shard groups of several nodes: offered where the model state does not fit one node's
group, its memory and traffic by hand (a 2-node group: FSDP's ring across the nodes' NICs inside the group, the
replica all-reduce over one NIC), picked only where strictly faster, and named 'HSDP 16×2' in the text, JSON and CSV."""

import csv
import io
from dataclasses import replace

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.hybrid_shard import hsdp_rivals, hybrid_shard_groups
from app.scoring.training.layouts.memory import Layout, model_state_bytes
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.step.hybrid_traffic import dp_traffic_seconds, hybrid_traffic
from app.scoring.workload import TrainingWorkload
from app.service.rank.plain import plain
from app.web.rank.csv_export import csv_response
from app.web.rank.layout_schema import LayoutOut
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100, B200 = GPUS["H100-SXM"], GPUS["B200"]
LLAMA_70B = MODELS["llama-3.1-70b"]  # 70.55B params
E = DEFAULT_TRAINING_EFFICIENCY
SLOW = replace(E, scaleout_gbs_per_gpu=50 / 8 * 0.9)  # a 50 Gb/s-a-GPU fabric (AWS p4d's EFA)
TWO_NODES = Layout(zero_stage=3, recompute="full", shard_group=16)
FT_70B = TrainingWorkload(
    model="llama-3.1-70b", method="full_ft", seq_len=2048, global_batch_seqs=128, framework="pytorch"
)


def test_shard_groups_are_one_or_more_nodes_dividing_the_node_count():
    fsdp = Layout(zero_stage=3)
    assert hybrid_shard_groups(H100, 64, fsdp, "pytorch") == (8, 16, 32)  # 1, 2, 4 of 8 nodes
    assert hybrid_shard_groups(H100, 48, fsdp, "pytorch") == (8, 16, 24)  # 1, 2, 3 of 6 nodes
    assert hybrid_shard_groups(H100, 64, replace(fsdp, tensor_parallel=2), "torchtitan") == (4, 8, 16)
    assert hybrid_shard_groups(H100, 16, fsdp, "pytorch") == (8,)  # 2 nodes: a 2-node group is plain FSDP
    assert hybrid_shard_groups(H100, 64, fsdp, "megatron") == ()


def test_a_two_node_group_holds_a_sixteenth_of_the_model_state():
    # mixed-precision AdamW: 16 bytes a parameter, over the group's 16 ranks (not over 8, nor all 64)
    assert model_state_bytes(LLAMA_70B, "full_ft", TWO_NODES, 64, 16) == pytest.approx(70.55e9 * 16 / 16)
    assert model_state_bytes(LLAMA_70B, "full_ft", replace(TWO_NODES, shard_group=8), 64, 16) == pytest.approx(
        70.55e9 * 16 / 8
    )


def test_two_node_group_traffic_by_hand():
    """Inside the group of 16: FULL_SHARD's ring over 16 (gradient reduce-scatter + all-gather, the gathers of 4
    micro-batches less the one the gradients' all-gather stands in for), ring 15/16, at 8 NICs a node (8 × 5.625 GB/s,
    as FSDP's ring across nodes); across 4 replicas: an all-reduce of 1/16 of the bf16 gradients, ring 2 × 3/4, over
    one GPU's NIC."""
    grads = 2 * 70.55e9
    t = hybrid_traffic(SLOW, H100, 64, LLAMA_70B, "full_ft", TWO_NODES, 0.0, 4)
    assert t.inside_bytes == pytest.approx(2 * 15 / 16 * grads + 15 / 16 * grads * 7)
    assert t.inside_gbs == pytest.approx(8 * 50 / 8 * 0.9)
    assert t.across_bytes == pytest.approx(2 * 3 / 4 * grads / 16)
    assert t.across_gbs == pytest.approx(50 / 8 * 0.9)
    seconds = t.inside_bytes / 45e9 + t.across_bytes / 5.625e9
    assert dp_traffic_seconds(SLOW, H100, 64, LLAMA_70B, "full_ft", TWO_NODES, 64, 0.0, 4) == pytest.approx(seconds)
    # at 400 Gb/s a GPU 8 NICs carry 360 GB/s, above H100's NVLink share (900 / 2 × 0.65): the ring runs at that
    assert hybrid_traffic(E, H100, 64, LLAMA_70B, "full_ft", TWO_NODES, 0.0, 4).inside_gbs == pytest.approx(292.5)
    assert hybrid_traffic(E, B200, 64, LLAMA_70B, "full_ft", TWO_NODES, 0.0, 4).inside_gbs == pytest.approx(360)


def test_a_70b_that_fits_only_four_node_groups_is_offered_them_and_kept_on_fsdp_where_slower():
    est = estimate_training(H100, 64, LLAMA_70B, FT_70B, e=SLOW)
    assert est.layout is not None and est.layout.shard_group is None, est.layout_text
    rivals = hsdp_rivals(H100, 64, LLAMA_70B, FT_70B, SLOW, est.layout)
    assert [rival.shard_group for rival in rivals] == [32]  # 1- and 2-node groups hold too much even recomputed
    hsdp = estimate_training(H100, 64, LLAMA_70B, FT_70B, layout=rivals[0], e=SLOW)
    assert hsdp.layout_text.startswith("HSDP 32×2")
    assert hsdp.step_time_s > est.step_time_s  # the replica all-reduce costs more than the smaller ring saves
    assert GpuTimer(LayoutSearch(LLAMA_70B, FT_70B, SLOW), H100).best_layout(64)[0] == est.layout


def test_the_search_picks_a_two_node_group_where_strictly_faster_and_names_it():
    """70B full FT on 32 B200s: one node's group fits only recomputed, two nodes' without recompute, and its ring
    over 16 plus the replica all-reduce beats FULL_SHARD's ring over 32."""
    w = FT_70B.model_copy(update={"global_batch_seqs": 256})
    est = estimate_training(B200, 32, LLAMA_70B, w)
    assert est.layout is not None and est.layout.shard_group == 16, est.layout_text
    assert est.layout_text.startswith("HSDP 16×2, no recompute")
    fsdp = estimate_training(B200, 32, LLAMA_70B, w, layout=replace(est.layout, shard_group=None))
    assert est.step_time_s < fsdp.step_time_s
    one_node = [r for r in hsdp_rivals(B200, 32, LLAMA_70B, w, E, fsdp.layout) if r.shard_group == 8]
    assert one_node and one_node[0].recompute != "none"
    assert GpuTimer(LayoutSearch(LLAMA_70B, w, E), B200).best_layout(32)[0] == est.layout  # the rankings agree


def test_the_dp_term_of_a_two_node_group_says_it_crosses_the_fabric_and_adds_up():
    layout = replace(TWO_NODES, micro_batch_seqs=1)
    est = estimate_training(H100, 64, LLAMA_70B, FT_70B, layout=layout, e=SLOW)
    term = {t.name: t for t in est.terms}["exposed DP/FSDP traffic"]
    assert "HSDP 16×4" in term.detail and "2 nodes' data-parallel ranks" in term.detail
    assert "GB/s fabric +" in term.detail  # the group's own ring is on the fabric, not NVLink
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4)


def test_the_json_and_csv_carry_a_two_node_group():
    layout = replace(TWO_NODES, micro_batch_seqs=1)
    assert LayoutOut.model_validate(plain(layout)).shard_group == 16
    option = {"gpu": "H100-SXM", "layout": layout.describe(64, "pytorch"), "layout_detail": plain(layout)}
    text = csv_response({"options": [option]}, "t.csv").body.decode()
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["shard_group"] == "16" and row["layout"].startswith("HSDP 16×4")
