"""Hybrid sharding (HSDP) as a layout the searches try: a ZeRO-3 (FSDP) layout across nodes re-timed with its model
state sharded inside each node's data-parallel ranks and replicated across nodes (hsdp_rival), on the stacks that run
it (HYBRID_SHARD_STACKS). Both layout searches (choice.choose_layout, ranking.gpu_timer.GpuTimer) time it beside the
FSDP layout it comes from, with the same memory test (fit_search.layout_fits), so they agree. Pure functions."""

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


def hybrid_shard_group(gpu: GpuSpec, gpu_count: int, layout: Layout, framework: str) -> int | None:
    """The shard group an FSDP layout could take instead of sharding over every data-parallel rank: the ranks of one
    scale-up domain (its GPUs over TP, TP innermost), where the job spans several domains and the groups divide the
    data-parallel ranks; None where the stack has no HSDP, the layout is no plain ZeRO-3 one (no PP, no sequence or
    expert split), or there is nothing to gain (one domain, or no NVLink inside it)."""
    plain_fsdp = layout.zero_stage >= 3 and not layout.shard_group and not layout.expert_parallel
    if framework not in HYBRID_SHARD_STACKS or not plain_fsdp:
        return None
    if layout.pipeline_parallel > 1 or layout.sequence_parallel > 1:
        return None
    domain = gpu.scaleup_domain_gpus
    if domain <= 1 or not gpu.interconnect_gbs or gpu_count <= domain:
        return None
    group, dp = domain // layout.tensor_parallel, layout.data_parallel(gpu_count)
    return group if 2 <= group < dp and dp % group == 0 else None


def hsdp_rival(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency,
    layout: Layout,
) -> Layout | None:
    """`layout` (an FSDP first fit) hybrid-sharded over one node's data-parallel ranks (hybrid_shard_group) at its
    micro-batch, at the first recompute level from its own on that fits (its own, then the whole-model levels after
    it: a group holds a larger shard of the model state than DP ranks do, so it may need more recompute). None where
    none fits or the layout has no shard group."""
    group = hybrid_shard_group(gpu, gpu_count, layout, w.framework)
    if group is None:
        return None
    levels = whole_model_levels(w)
    later = levels[levels.index(layout.recompute) + 1 :] if layout.recompute in levels else ("full",)
    tries = [replace(layout, shard_group=group)]
    tries += [replace(layout, shard_group=group, recompute=level, recompute_layers=None) for level in later]
    return next((rival for rival in tries if layout_fits(gpu, gpu_count, model, w, rival, e)[0]), None)
