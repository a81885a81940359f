"""Hybrid sharding's (HSDP's) data-parallel traffic: ZeRO-3 inside each shard group (over NVLink in one node; across
the nodes of a wider group as FSDP's ring crosses them, communication.dp_bandwidth_gbs), and an all-reduce of each
GPU's gradient shard across the groups (the replicas) over the fabric; every other layout's DP traffic as
communication.dp_comm_bytes over communication.dp_bandwidth_gbs. dp_traffic_seconds is the one figure step_time and
the DP term time.

Formulas: PyTorch FSDP HYBRID_SHARD (torch.distributed.fsdp.ShardingStrategy: "shard within a node, replicate across
nodes"; a (shard, replicate) process-group pair or FSDP2's 2-D device mesh takes wider groups), torchtitan HSDP
(data_parallel_shard_degree × data_parallel_replicate_degree). Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.scoring.efficiency.training import BYTES_BF16, TrainingEfficiency
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.communication import collective_bandwidth_gbs, dp_bandwidth_gbs, dp_comm_bytes


@dataclass(frozen=True, slots=True)
class HybridTraffic:
    """One GPU's HSDP traffic a step: bytes inside its shard group and across the replicas, each at its bandwidth."""

    inside_bytes: float
    inside_gbs: float
    across_bytes: float
    across_gbs: float

    @property
    def seconds(self) -> float:
        # the replica all-reduce runs on the shard the group's reduce-scatter left: after it, not beside it
        return self.inside_bytes / (self.inside_gbs * 1e9) + self.across_bytes / (self.across_gbs * 1e9)


def hybrid_traffic(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    layout: Layout,
    adapters: float,
    micro_batches: int,
) -> HybridTraffic:
    """Inside the group of `s` = layout.shard_group ranks, FULL_SHARD's traffic over s (dp_comm_bytes: the gradient
    reduce-scatter, the parameter gathers forward and backward in every micro-batch) at the bandwidth FSDP's ring
    over those s × TP GPUs gets (communication.dp_bandwidth_gbs): the NVLink share inside one node; over several
    nodes one GPU's fabric share per data-parallel rank a node (a ring per NIC), up to that NVLink share;
    across the `r` = DP / s replicas, a ring all-reduce of the GPU's bf16 gradient shard, 2 (r - 1) / r × gradient
    bytes / (TP × PP × s), once a step. Each GPU of a group all-reduces its own shard with the same rank of the other
    groups, over its own NIC: one GPU's fabric share, the rails communication.dp_bandwidth_gbs counts (s NICs a node
    carrying the node's gradient once)."""
    s = layout.shard_group or 1
    replicas = max(1, layout.data_parallel(gpu_count) // s)
    inside = dp_comm_bytes(model, method, replace(layout, shard_group=None), s, adapters, micro_batches)
    trained = model.params_b * 1e9 if method in ("pretrain", "full_ft") else adapters
    shard = BYTES_BF16 * trained / (layout.tensor_parallel * layout.pipeline_parallel * s)
    across = 2.0 * (replicas - 1) / replicas * shard
    return HybridTraffic(
        inside_bytes=inside,
        inside_gbs=dp_bandwidth_gbs(e, gpu, s * layout.tensor_parallel, replace(layout, shard_group=None)),
        across_bytes=across,
        across_gbs=collective_bandwidth_gbs(e, gpu, gpu_count),
    )


def dp_traffic_seconds(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    layout: Layout,
    dp: int,
    adapters: float,
    micro_batches: int,
) -> float:
    """Seconds of a step's data-parallel traffic before any is hidden: HSDP's (hybrid_traffic), else the DP ring's
    bytes over its bandwidth."""
    if layout.shard_group:
        return hybrid_traffic(e, gpu, gpu_count, model, method, layout, adapters, micro_batches).seconds
    moved = dp_comm_bytes(model, method, layout, dp, adapters, micro_batches)
    return moved / (dp_bandwidth_gbs(e, gpu, gpu_count, layout) * 1e9)
