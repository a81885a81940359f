"""Training across nodes runs its data-parallel traffic at the offer's fabric, on Ampere machines too."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.hardware.machines import Machine
from app.scoring.training.configurations import estimate_on, machine_efficiency
from app.scoring.training.step.communication import collective_bandwidth_gbs
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()
E = DEFAULT_TRAINING_EFFICIENCY


def node(fabric: str, gbps: float | None) -> Machine:
    return Machine(gpus_per_node=8, link="nvlink", fabric=fabric, fabric_gbps_per_gpu=gbps, max_nodes=None)


P4D, COREWEAVE, UNSTATED = node("efa", 50), node("infiniband", 400), node("infiniband", None)


@pytest.mark.parametrize("gpu_id", ["A100-SXM-80GB", "H100-SXM"])
def test_the_stated_fabric_times_data_parallel_traffic_across_nodes(gpu_id):
    gpu = GPUS[gpu_id]
    for machine, gbps in ((P4D, 50), (COREWEAVE, 400)):
        assert collective_bandwidth_gbs(machine_efficiency(machine, E), gpu, 16) == pytest.approx(gbps / 8 * 0.9)


def test_an_unstated_rdma_fabric_keeps_each_generations_default():
    assert collective_bandwidth_gbs(machine_efficiency(UNSTATED, E), GPUS["A100-SXM-80GB"], 16) == 22.5  # HDR 200
    assert collective_bandwidth_gbs(machine_efficiency(UNSTATED, E), GPUS["H100-SXM"], 16) == 45.0  # NDR 400


def test_a_p4d_a100_job_across_nodes_is_slower_than_one_on_infiniband_and_says_its_fabric():
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=512, global_batch_seqs=32)
    gpu, model = GPUS["A100-SXM-80GB"], MODELS["llama-3.1-8b"]
    efa, ib = (estimate_on(gpu, m, 32, model, w) for m in (P4D, COREWEAVE))
    assert efa.step_time_s > ib.step_time_s
    dp = {e.step_time_s: next(t for t in e.terms if t.name == "exposed DP/FSDP traffic") for e in (efa, ib)}
    # EFA's one 50 Gb/s share a GPU pushes the search to TP8 (one DP rank a node: one NIC); on InfiniBand DP8 at TP2
    # has 4 DP ranks a node, each on its own NIC (communication.dp_bandwidth_gbs): 4 x 45 GB/s
    assert "5.625 GB/s per GPU" in dp[efa.step_time_s].detail and "180 GB/s per GPU" in dp[ib.step_time_s].detail
