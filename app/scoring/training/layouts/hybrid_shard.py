"""Hybrid sharding (HSDP) as a layout the searches try: a ZeRO-3 (FSDP) layout across nodes re-timed with its model
state sharded inside each node's data-parallel ranks (or several nodes' where one node's cannot hold it) and
replicated across the groups (hsdp_rivals), on the stacks that run it (HYBRID_SHARD_STACKS). Both layout searches
(choice.choose_layout, ranking.gpu_timer.GpuTimer) time it beside the FSDP layout it comes from, with the same
memory test (fit_search.layout_fits), so they agree. Pure functions."""

from __future__ import annotations

from dataclasses import replace

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.fit_search import layout_fits
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.layouts.search_space import whole_model_levels
from app.scoring.workload import TrainingWorkload

# Stacks with hybrid sharding: PyTorch FSDP's ShardingStrategy.HYBRID_SHARD and FSDP2's 2-D device mesh ("pytorch",
# torchtune), torchtitan's data_parallel_shard_degree × data_parallel_replicate_degree, Composer's FSDP config
# `sharding_strategy: HYBRID_SHARD` (LLM Foundry), Accelerate's fsdp_sharding_strategy HYBRID_SHARD (HF Trainer), and
# "auto", priced as one of them would run the job. Megatron-LM and NeMo shard by ZeRO-1 across PP here: no ZeRO-3.
HYBRID_SHARD_STACKS = frozenset({"pytorch", "torchtitan", "llm-foundry", "hf", "auto"})


def hybrid_shard_groups(gpu: GpuSpec, gpu_count: int, layout: Layout, framework: str) -> tuple[int, ...]:
    """The shard groups an FSDP layout could take instead of sharding over every data-parallel rank, smallest first:
    the data-parallel ranks of 1, 2, ... scale-up domains (nodes; a domain's GPUs over TP, TP innermost), each a
    divisor of the node count (PyTorch's 2-D device mesh takes any shard degree dividing the DP size), smaller than
    the data-parallel ranks; none where the stack has no HSDP, the layout is no plain ZeRO-3 one (no PP, no sequence
    or expert split), or there is nothing to gain (one domain, or no NVLink inside it)."""
    plain_fsdp = layout.zero_stage >= 3 and not layout.shard_group and not layout.expert_parallel
    if framework not in HYBRID_SHARD_STACKS or not plain_fsdp:
        return ()
    if layout.pipeline_parallel > 1 or layout.sequence_parallel > 1:
        return ()
    domain = gpu.scaleup_domain_gpus
    if domain <= 1 or not gpu.interconnect_gbs or gpu_count <= domain:
        return ()
    per_node, dp = domain // layout.tensor_parallel, layout.data_parallel(gpu_count)
    if per_node < 2:
        return ()
    return tuple(k * per_node for k in range(1, dp // per_node) if dp % (k * per_node) == 0)


def hsdp_rivals(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency,
    layout: Layout,
) -> tuple[Layout, ...]:
    """`layout` (an FSDP first fit) hybrid-sharded (hybrid_shard_groups), at its micro-batch: over one node's
    data-parallel ranks at the first recompute level from its own on that fits (its own, then the whole-model levels
    after it: a group holds a larger shard of the model state than DP ranks do, so it may need more recompute); and,
    where the model state does not fit one node's group at the layout's own recompute, over the fewest nodes that fit
    at the least recompute (level by level up to the one-node rival's, the smallest group first): a 70B full
    fine-tune on 80 GB GPUs may fit only in 16- or 32-GPU groups. Empty where none fits or there is no shard group."""
    groups = hybrid_shard_groups(gpu, gpu_count, layout, w.framework)
    if not groups:
        return ()
    levels = whole_model_levels(w)
    later = levels[levels.index(layout.recompute) + 1 :] if layout.recompute in levels else ("full",)
    tries = [replace(layout, shard_group=groups[0])]
    tries += [replace(layout, shard_group=groups[0], recompute=level, recompute_layers=None) for level in later]
    one_node = next((rival for rival in tries if layout_fits(gpu, gpu_count, model, w, rival, e)[0]), None)
    if one_node is tries[0]:
        return (one_node,)
    wider = tries[: tries.index(one_node)] if one_node is not None else tries
    for rival in wider:  # the recompute levels one node needs more than, each over 2, 3, ... nodes' ranks
        for group in groups[1:]:
            wide = replace(rival, shard_group=group)
            if layout_fits(gpu, gpu_count, model, w, wide, e)[0]:
                return (wide,) if one_node is None else (one_node, wide)
    return () if one_node is None else (one_node,)
