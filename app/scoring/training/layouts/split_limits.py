"""Why a run's sequence split stops short, for the reason a run that fits nowhere gives (sequence_split_limit): ring
context parallelism needs seq_len in 2 x CP equal chunks, DeepSpeed-Ulysses needs SP to divide the attention heads.
Pure functions."""

from __future__ import annotations

import math

from app.scoring.efficiency import training as eff
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.layouts.choice import fits_at
from app.scoring.training.layouts.search_space import (
    context_degrees,
    data_parallel_only_method,
    layout_families,
    sequence_degrees,
)
from app.scoring.training.step.frameworks import DATA_PARALLEL_ONLY, RING_CONTEXT_PARALLEL, split_stack
from app.scoring.workload import TrainingWorkload


def widest_power_of_two_split(gpu_count: int) -> int:
    """The largest power of two dividing the GPU count: the widest split the count alone allows."""
    return gpu_count & -gpu_count


def sequence_split_limit(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> str:
    """What stops the sequence split short of the GPU count's widest ('' when nothing does)."""
    if split_stack(w.framework, w.method) in DATA_PARALLEL_ONLY:
        return _ulysses_limit(gpu, gpu_count, model, w)
    if w.framework in RING_CONTEXT_PARALLEL and not data_parallel_only_method(w.method):
        return _ring_limit(gpu, gpu_count, model, w, e)
    return ""


def _ulysses_limit(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload) -> str:
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    widest = max(inside + beyond, default=1)
    if widest >= widest_power_of_two_split(gpu_count):
        return ""
    return (
        f"Ulysses sequence parallelism (SP, DeepSpeed-Ulysses) splits each sequence at most {widest} ways: SP must "
        "divide the "
        f"{model.num_attention_heads} attention heads"
    )


def _ring_limit(gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency) -> str:
    """Where seq_len leaves out CP degrees the GPU count allows: the shortest padding to 2 x such a degree's multiple
    that fits."""
    tps = sorted({tp for tp, pp in layout_families(gpu, gpu_count, model, w.framework, w.method) if pp == 1})
    by_count = {cp for tp in tps for cp in context_degrees(gpu_count, tp, 2 * gpu_count, w.framework)}
    allowed = {cp for tp in tps for cp in context_degrees(gpu_count, tp, w.seq_len, w.framework)}
    reach = f"takes CP{max(allowed)} at most" if allowed else "takes no CP degree"
    for cp in sorted(by_count - allowed):
        padded = math.ceil(w.seq_len / (2 * cp)) * 2 * cp
        if fits_at(gpu, gpu_count, model, w.model_copy(update={"seq_len": padded}), e):
            return (
                f"ring context parallelism cuts each sequence into 2 × CP equal chunks: seq_len {w.seq_len:,} "
                f"{reach}; padded to {padded:,} tokens (a multiple of 2 × CP{cp}) it fits"
            )
    return ""
