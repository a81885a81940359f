"""A data-parallel ring across nodes crosses each node once per ring, one ring per NIC: it runs at the fabric share of
as many NICs as the group has ranks in a node, up to the NVLink share (communication.dp_bandwidth_gbs)."""

import pytest

from app.catalog.spec_files import load_gpu_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.communication import collective_bandwidth_gbs, dp_bandwidth_gbs, dp_rails_per_node

GPUS = load_gpu_specs()
E = DEFAULT_TRAINING_EFFICIENCY
H100, A100, L40S = GPUS["H100-SXM"], GPUS["A100-SXM-40GB"], GPUS["L40S"]


def layout(tp: int = 1, pp: int = 1) -> Layout:
    return Layout(tensor_parallel=tp, pipeline_parallel=pp, zero_stage=3)


def test_fsdp_over_nodes_runs_at_the_nodes_nics_up_to_nvlink():
    assert dp_rails_per_node(H100, 32, layout()) == 8
    assert dp_bandwidth_gbs(E, H100, 32, layout()) == pytest.approx(min(8 * 45.0, 450 * E.nvlink_efficiency))
    assert dp_bandwidth_gbs(E, A100, 64, layout()) == pytest.approx(min(8 * 22.5, 300 * E.nvlink_efficiency))


def test_tp_inside_the_node_leaves_fewer_dp_ranks_a_node():
    assert dp_rails_per_node(H100, 64, layout(tp=4)) == 2
    assert dp_bandwidth_gbs(E, H100, 64, layout(tp=4)) == pytest.approx(2 * 45.0)
    assert dp_bandwidth_gbs(E, H100, 64, layout(tp=8)) == pytest.approx(45.0)  # one DP rank a node: one NIC


def test_one_node_or_no_nvlink_keeps_the_plain_collective_bandwidth():
    assert dp_bandwidth_gbs(E, H100, 8, layout()) == collective_bandwidth_gbs(E, H100, 8)
    assert dp_bandwidth_gbs(E, L40S, 32, layout()) == collective_bandwidth_gbs(E, L40S, 32)
    assert dp_rails_per_node(H100, 16, layout(tp=1, pp=8)) == 2  # DP2: two ranks, not the node's 8


def test_a_dp_group_inside_one_node_with_pipeline_stages_across_nodes_runs_over_nvlink():
    inside = layout(tp=2, pp=2)  # 16 GPUs: TP2 x DP4 fill a node, the two stages on two nodes
    assert dp_bandwidth_gbs(E, H100, 16, inside) == pytest.approx(450 * E.nvlink_efficiency)
