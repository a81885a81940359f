"""The DP term's traffic and words for a hybrid-sharded (HSDP) layout: what moves inside each shard group (over
NVLink, and the fabric where a group spans nodes) and what crosses the fabric between the groups
(hybrid_traffic.hybrid_traffic), in figures that add up."""

from __future__ import annotations

from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.explain import figure as f
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.step.hybrid_traffic import hybrid_traffic


def hybrid_dp_words(
    e: TrainingEfficiency,
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    method: str,
    layout: Layout,
    adapters: float,
    micro: int,
) -> tuple[str, str]:
    """(traffic in figures, why in words) of an HSDP layout's data-parallel traffic for the DP term."""
    t = hybrid_traffic(e, gpu, gpu_count, model, method, layout, adapters, micro)
    s = layout.shard_group or 1
    replicas = layout.data_parallel(gpu_count) // s
    nodes = s * layout.tensor_parallel // max(1, gpu.scaleup_domain_gpus)
    link = "NVLink" if nodes <= 1 else "fabric"
    traffic = (
        f"({f(t.inside_bytes / 1e9)} GB per GPU inside its shard group / {f(t.inside_gbs)} GB/s {link} + "
        f"{f(t.across_bytes / 1e9)} GB per GPU across replicas / {f(t.across_gbs)} GB/s fabric)"
    )
    why = (
        f"HSDP {s}×{replicas}: inside each group of {s} GPUs ({_group_words(gpu, layout, nodes)}) the bf16 "
        f"gradients reduce-scattered (ring (DP{s} - 1) / DP{s}) and the parameters gathered forward and backward in "
        f"each of {micro} micro-batches, as FSDP does over {s}; across the {replicas} replicas (over the fabric, each "
        f"GPU on its own NIC) an all-reduce of its gradient shard, 1/{s} of the gradients (ring 2 × ({replicas} - 1) "
        f"/ {replicas}), once a step"
    )
    return traffic, why


def _group_words(gpu: GpuSpec, layout: Layout, nodes: int) -> str:
    """Where a shard group's ring runs: one node's NVLink, or across nodes at one NIC per rank a node."""
    if nodes <= 1:
        return "one node's data-parallel ranks, over NVLink"
    per_node = gpu.scaleup_domain_gpus // layout.tensor_parallel
    return (
        f"{nodes} nodes' data-parallel ranks: the ring over NVLink inside a node and across the nodes on "
        f"{per_node} NICs a node, one GPU's fabric share each, up to the NVLink share"
    )
