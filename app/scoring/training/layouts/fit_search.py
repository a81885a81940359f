"""The cheapest layout of one parallel split that fits in memory (first_fit): recompute levels tried cheapest first,
less sharding first, partial recompute at the fewest recomputed layers that fit (partial_fit), torchtitan's op-level
selective recompute beside its partial rival (sac_rival), and the split at larger micro-batches (with_micro_batches).

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.memory import (
    OP_LEVEL_SAC_STACKS,
    PARTIAL_RECOMPUTE_STACKS,
    Layout,
    fewest_fitting,
    memory_breakdown_gb,
    memory_needed_gb,
    partial_recompute_counts,
    usable_gb,
)
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.search_space import (
    larger_micro_batches,
    recompute_levels,
    whole_model_levels,
    zero_stages,
)
from app.scoring.training.layouts.step_peak import StepPeak, workload_peak
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class LayoutMemory:
    """One layout's memory per GPU: its parts, the step's fullest moment of them and the need (GB, no reserve)."""

    breakdown: dict[str, float]
    peak: StepPeak
    need_gb: float


def layout_memory(
    gpu_count: int, model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency
) -> LayoutMemory:
    """memory_breakdown_gb and workload_peak of the layout, each once, and the need they make (memory_needed_gb)."""
    breakdown = memory_breakdown_gb(
        model, w.method, w.seq_len, layout, gpu_count, w.lora_rank, e, w.framework, state_recipe(w)
    )
    peak = workload_peak(model, w, layout, gpu_count)
    return LayoutMemory(breakdown, peak, memory_needed_gb(breakdown, peak))


def layout_fits(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, layout: Layout, e: eff.TrainingEfficiency
) -> tuple[bool, dict[str, float]]:
    memory = layout_memory(gpu_count, model, w, layout, e)
    return memory.need_gb <= usable_gb(gpu, gpu_count), memory.breakdown


def frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1, ep: int | None = None) -> bool:
    """The least memory this (TP, PP, SP, micro-batch, EP) can use: most sharding and full recompute."""
    frugal = Layout(
        max(zero_stages(tp, pp, gpu_count)), tp, pp, "full", micro, sequence_parallel=sp, expert_parallel=ep
    )
    return layout_fits(gpu, gpu_count, model, w, frugal, e)[0]


def first_fit(
    gpu, gpu_count, model, w, tp, pp, e, sp: int = 1, micro: int = 1, partial: bool = True, ep: int | None = None
) -> Layout | None:
    """The cheapest layout of this split that fits: recompute none → selective → partial → full, less sharding
    first; partial (the stacks of memory.PARTIAL_RECOMPUTE_STACKS, unless `partial` is false) at the fewest
    recomputed layers that fit. `ep`: the routed experts split over EP ranks (None: not split)."""
    if not frugal_fits(gpu, gpu_count, model, w, tp, pp, e, sp, micro, ep):
        return None
    for recompute in recompute_levels(w, sp) if partial else whole_model_levels(w):
        for stage in zero_stages(tp, pp, gpu_count):
            if recompute == "partial":
                base = Layout(stage, tp, pp, "partial", micro, None, sp, expert_parallel=ep)
                found = partial_fit(gpu, gpu_count, model, w, e, base)
                if found is not None:
                    return found
                continue
            layout = Layout(stage, tp, pp, recompute, micro, sequence_parallel=sp, expert_parallel=ep)
            if layout_fits(gpu, gpu_count, model, w, layout, e)[0]:
                return layout
    return None


def sac_rival(gpu, gpu_count, model, w, e, layout: Layout, partial: bool = True) -> Layout | None:
    """Where `layout` is a first fit at op-level selective recompute (torchtitan's SAC runs about 37% of a block's
    matmuls again), the partial recompute first_fit would find were partial tried before it: recomputing fewer
    layers whole costs less than SAC, more costs more, and partial also gathers ZeRO-3 weights again, so which is
    faster depends on the split and both are timed. None elsewhere (Megatron-class selective recomputes ~0.2 N, below
    any partial recompute that fits where it does not)."""
    if (
        not partial
        or layout.recompute != "selective"
        or w.framework not in OP_LEVEL_SAC_STACKS & PARTIAL_RECOMPUTE_STACKS
    ):
        return None
    tp, pp, sp, micro = (
        layout.tensor_parallel,
        layout.pipeline_parallel,
        layout.sequence_parallel,
        layout.micro_batch_seqs,
    )
    for stage in zero_stages(tp, pp, gpu_count):
        found = partial_fit(gpu, gpu_count, model, w, e, Layout(stage, tp, pp, "partial", micro, None, sp))
        if found is not None:
            return found
    return None


def partial_fit(gpu, gpu_count, model, w, e, base: Layout) -> Layout | None:
    """`base` at partial recompute of the fewest layers per stage that fit (memory.fewest_fitting over
    partial_recompute_counts); None where even the most of them does not (full recompute may still)."""
    counts = partial_recompute_counts(w.framework, model.layers, base.pipeline_parallel)

    def fits(n: int) -> bool:
        return layout_fits(gpu, gpu_count, model, w, replace(base, recompute_layers=n), e)[0]

    n = fewest_fitting(counts, fits)
    return None if n is None else replace(base, recompute_layers=n)


def with_micro_batches(
    gpu, gpu_count, model, w, tp, pp, e, first: Layout, sp: int = 1, partial: bool = True
) -> list[Layout]:
    """A split's first fit, then its first fit at each larger micro-batch (larger_micro_batches), ascending, until one
    does not fit: what a user raising the micro-batch would try (at the first fit's EP degree)."""
    layouts = [first]
    for micro in larger_micro_batches(w, gpu_count, tp, pp, sp):
        bigger = first_fit(gpu, gpu_count, model, w, tp, pp, e, sp, micro, partial, first.expert_parallel)
        if bigger is None:
            break
        layouts.append(bigger)
    return layouts
