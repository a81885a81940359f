"""Training jobs a machine can supply, and the one rule that rankings and single estimates share.

A job takes part of one node or whole nodes across a real fabric (app.scoring.hardware.machines.span_reason);
tensor parallel stays inside the node's NVLink/xGMI island (the machine's GPU as wired), and
data-parallel traffic between nodes runs at the offer's fabric bandwidth.
"""

from __future__ import annotations

from dataclasses import replace

from app.scoring.efficiency import training as eff
from app.scoring.explain import Band
from app.scoring.hardware.machines import RDMA_FABRICS, Machine, machine_gpu, span_reason
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.estimate import TrainingEstimate, estimate_training
from app.scoring.workload import TrainingWorkload


def machine_efficiency(machine: Machine, e: eff.TrainingEfficiency) -> eff.TrainingEfficiency:
    """Data-parallel traffic between nodes runs at the offer's fabric, not a generic NIC: on Ampere too (AWS p4d's EFA
    gives 50 Gb/s per GPU, CoreWeave's InfiniBand 400). Only an RDMA fabric of unstated speed keeps the generation's
    own default: one 200 Gb/s HDR NIC per GPU on Ampere (DGX A100), 400 on later nodes (hardware/machines.py)."""
    if not machine.clusters:
        return e
    fabric = machine.fabric_gbs()
    unstated_rdma = machine.fabric_gbps_per_gpu is None and machine.fabric in RDMA_FABRICS
    ampere = e.scaleout_gbs_per_gpu_ampere if unstated_rdma else fabric
    return replace(e, scaleout_gbs_per_gpu=fabric, scaleout_gbs_per_gpu_ampere=ampere)


def estimate_on(
    gpu: GpuSpec, machine: Machine, gpu_count: int, model: ModelSpec, workload: TrainingWorkload
) -> TrainingEstimate:
    """One job size on one machine: refused with the machine's reason, else estimated with its links."""
    reason = span_reason(machine, gpu_count)
    if reason is not None:
        return TrainingEstimate(
            gpu_id=gpu.id,
            gpu_count=gpu_count,
            layout=None,
            layout_text="",
            fits=False,
            feasible=False,
            reason=reason,
            memory_per_gpu_gb=0.0,
            memory_breakdown_gb={},
            tokens_per_s_per_gpu=0.0,
            mfu=0.0,
            step_time_s=float("inf"),
            flops_per_token=0.0,
            band=Band(0.0, 0.0),
        )
    e = machine_efficiency(machine, eff.DEFAULT_TRAINING_EFFICIENCY)
    return estimate_training(machine_gpu(gpu, machine), gpu_count, model, workload, e=e)
