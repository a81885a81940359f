"""The fastest training layout that fits on a GPU count (choose_layout), whether any fits (fits_at) and the fewest
GPUs on which one does (min_gpus_to_fit): every split of search_space.py at its first fit (fit_search.py), then the
expert-parallel ones (expert_layouts.py), timed by the step model.

Method: shared/research/training_estimators.md §6.3. Pure functions.
"""

from __future__ import annotations

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.expert_layouts import expert_candidates, expert_split_fits
from app.scoring.training.layouts.fit_search import first_fit, frugal_fits, sac_rival, with_micro_batches
from app.scoring.training.layouts.hybrid_shard import hsdp_rivals
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.layouts.search_space import (
    context_splits,
    layout_families,
    sequence_degrees,
    widest_context_splits,
)
from app.scoring.training.step.frameworks import split_stack
from app.scoring.training.step.mfu import peak_tflops
from app.scoring.training.step.step_time import StepTime, workload_step_time
from app.scoring.workload import TrainingWorkload


def layout_timing(gpu, gpu_count, model, w, layout, e, span=None, capacity=1.0) -> tuple[StepTime, float, str, str]:
    peak, pclass, note = peak_tflops(gpu, w.precision)
    adapters = lora_adapter_params(model, w.lora_rank)
    st = workload_step_time(e, gpu, gpu_count, model, w, layout, peak or 0.0, pclass, adapters, span, capacity)
    return st, peak or 0.0, pclass, note


def choose_layout(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    partial: bool = True,
    expert_split: bool = True,
) -> Layout | None:
    """Fastest fitting layout: per TP degree, the first fit without PP and the smallest PP that fits. A
    data-parallel-only stack may also split the sequence: the first fit of each SP degree inside the scale-up domain
    (ascending), or beyond it if nothing else fits. A ring-CP stack tries each (TP, CP) of context_splits after its
    other splits. A first fit at torchtitan's op-level selective recompute is timed beside its partial rival
    (sac_rival). Ties keep the earlier layout. `partial` false leaves partial recompute out (the validation cases
    state how their runs recomputed, and none recomputed some layers only). A MoE then tries expert parallelism
    (expert_candidates) after every other split, unless `expert_split` is false (the validator reads its runs as the
    fitted constants were read, without EP)."""
    best, best_s = None, float("inf")
    done: set[tuple[int, bool]] = set()
    candidates: list[Layout] = []
    for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method):
        key = (tp, pp > 1)
        if key in done:
            continue
        layout = first_fit(gpu, gpu_count, model, w, tp, pp, e, partial=partial)
        if layout is None:
            continue
        done.add(key)
        candidates.extend(with_micro_batches(gpu, gpu_count, model, w, tp, pp, e, layout, partial=partial))
    # Ulysses inside the scale-up domain beside the other splits (a long sequence may run faster split than
    # recomputed); beyond it only for a sequence that fits no other way (its all-to-all then crosses the fabric).
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    for degrees in (inside, beyond):
        if degrees is beyond and candidates:
            break
        for sp in degrees:
            layout = first_fit(gpu, gpu_count, model, w, 1, 1, e, sp, partial=partial)
            if layout is not None:
                candidates.extend(with_micro_batches(gpu, gpu_count, model, w, 1, 1, e, layout, sp, partial))
    for tp, cp in context_splits(gpu, gpu_count, model, w, bool(candidates)):
        layout = first_fit(gpu, gpu_count, model, w, tp, 1, e, cp, partial=partial)
        if layout is not None:
            candidates.extend(with_micro_batches(gpu, gpu_count, model, w, tp, 1, e, layout, cp, partial))
    for first in candidates:
        for layout in (first, sac_rival(gpu, gpu_count, model, w, e, first, partial)):
            if layout is None:
                continue
            seconds = layout_timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
            if seconds < best_s:
                best, best_s = layout, seconds
    # each split's hybrid-sharded rival after every other split: HSDP only where it is strictly faster than them all
    for first in candidates:
        for layout in hsdp_rivals(gpu, gpu_count, model, w, e, first):
            seconds = layout_timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
            if seconds < best_s:
                best, best_s = layout, seconds
    for layout in expert_candidates(gpu, gpu_count, model, w, e, partial) if expert_split else ():
        seconds = layout_timing(gpu, gpu_count, model, w, layout, e, attention_span, capacity_factor)[0].total_s
        if seconds < best_s:
            best, best_s = layout, seconds
    return best


def fits_at(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
) -> bool:
    """Some layout of the workload's stack fits with its most frugal settings (for a data-parallel-only stack,
    at the largest SP degree; for a ring-CP stack, at some TP's largest CP degree)."""
    if any(
        frugal_fits(gpu, gpu_count, model, w, tp, pp, e)
        for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method)
    ):
        return True
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    degrees = inside + beyond  # memory falls as SP grows: the largest is the most frugal
    if degrees and frugal_fits(gpu, gpu_count, model, w, 1, 1, e, max(degrees)):
        return True
    if any(
        frugal_fits(gpu, gpu_count, model, w, tp, 1, e, cp)
        for tp, cp in widest_context_splits(gpu, gpu_count, model, w)
    ):
        return True
    return expert_split_fits(gpu, gpu_count, model, w, e)


def min_gpus_to_fit(gpu: GpuSpec, model: ModelSpec, workload: TrainingWorkload, limit: int = 65_536) -> int | None:
    """Fewest GPUs (1, 2, 4, then powers of two) on which some layout fits; None if none up to limit."""
    n = 1
    while n <= limit:
        if fits_at(gpu, n, model, workload):
            return n
        n *= 2
    return None
