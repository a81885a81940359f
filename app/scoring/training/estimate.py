"""Training estimate for one GPU type and count: layout that fits, memory, tokens/s, MFU, step time.

Method: shared/research/training_estimators.md §6 (FLOPs per token, ZeRO/TP/PP memory,
calibrated MFU with regime factors). Pure: no I/O; constants in app.scoring.efficiency.training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.scoring.efficiency import training as eff
from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, LazyTerms, Term, fixed
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.assumptions import estimate_assumptions
from app.scoring.training.layouts.choice import choose_layout, layout_timing
from app.scoring.training.layouts.fit_search import LayoutMemory, layout_memory
from app.scoring.training.layouts.frugal_settings import FitsWith, settings_that_fit, stack_limit, stack_that_fits
from app.scoring.training.layouts.memory import (
    Layout,
    memory_breakdown_gb,
    memory_needed_gb,
    runtime_reserve_gb,
    usable_gb,
)
from app.scoring.training.layouts.optimizer import state_recipe
from app.scoring.training.layouts.search_space import (
    layout_families,
    sequence_degrees,
    widest_context_splits,
    zero_stages,
)
from app.scoring.training.layouts.split_limits import sequence_split_limit
from app.scoring.training.layouts.step_peak import StepPeak, workload_peak
from app.scoring.training.step.flops import model_flops_per_token
from app.scoring.training.step.frameworks import split_stack
from app.scoring.training.step.mfu import peak_tflops
from app.scoring.training.step.step_time import StepTime
from app.scoring.training.step.terms import training_terms
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class TrainingEstimate:
    gpu_id: str
    gpu_count: int
    layout: Layout | None
    layout_text: str
    fits: bool
    feasible: bool
    reason: str
    memory_per_gpu_gb: float
    memory_breakdown_gb: dict[str, float]
    tokens_per_s_per_gpu: float
    mfu: float
    step_time_s: float
    flops_per_token: float
    band: Band
    # LazyTerms where a layout was timed (written on the first read: a ranking explains the estimate of every
    # (GPU, machine) slot, and an answer shows few), else a list
    terms: Sequence[Term] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    # the parts live at the step's fullest moment (step_peak.StepPeak.parts_gb), summing to memory_per_gpu_gb; empty
    # where no layout fits
    memory_at_peak_gb: dict[str, float] = field(default_factory=dict)


def _band(gpu: GpuSpec, precision_class: str, w: TrainingWorkload, value: float) -> tuple[Band, str]:
    """p10-p90 of leave-one-source-out residuals of tokens/s in the regime (framework, vendor, the precision the
    GPU runs, method), and the evidence it rests on."""
    framework = "megatron-lm" if w.framework == "megatron" else w.framework
    precision = "bf16" if precision_class == "16" else precision_class
    low, high, evidence = band_ratio("tokens_s_per_gpu", framework, gpu.vendor, precision, w.method)
    return Band.around(value, low, high), evidence


def slow_end_hours_ratio(gpu: GpuSpec, w: TrainingWorkload) -> float:
    """A run's hours at the slow end of its tokens/s band per hour on the estimate (tok/s ÷ band low): the band is the
    regime's (_band), the same at every GPU count, so a count search can check a deadline there before timing."""
    return 1 / _band(gpu, peak_tflops(gpu, w.precision)[1], w, 1.0)[0].low


def _most_frugal(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, e: eff.TrainingEfficiency
) -> tuple[Layout, dict[str, float]]:
    """The split a no-fit reason names, with its memory: the widest TP and PP (at the widest Ulysses degree of a
    data-parallel-only stack), or a ring-CP stack's (TP, widest CP) split where that needs less."""
    families = layout_families(gpu, gpu_count, model, w.framework, w.method)
    tp = max(t for t, _ in families)
    pp = max(p for t, p in families if t == tp)
    stage = 3 if gpu_count > 1 and pp == 1 else (1 if gpu_count > 1 else 0)
    inside, beyond = sequence_degrees(gpu, gpu_count, model, split_stack(w.framework, w.method))
    layouts = [Layout(stage, tp, pp, "full", 1, sequence_parallel=max(inside + beyond, default=1))]
    for tp, cp in widest_context_splits(gpu, gpu_count, model, w):
        layouts.append(Layout(max(zero_stages(tp, 1, gpu_count)), tp, 1, "full", 1, sequence_parallel=cp))
    recipe = state_recipe(w)
    sized = [
        (
            layout,
            memory_breakdown_gb(model, w.method, w.seq_len, layout, gpu_count, w.lora_rank, e, w.framework, recipe),
        )
        for layout in layouts
    ]
    # the first of equals: the split without CP
    return min(sized, key=lambda pair: memory_needed_gb(pair[1], workload_peak(model, w, pair[0], gpu_count)))


def _at_the_update(peak: StepPeak, breakdown: dict[str, float]) -> str:
    """' at its optimizer step (35 GB of it the update's temporaries)' where that moment, not the backward's start, is
    the need and temporaries add to it: a split of the activations would not shrink it ('' otherwise)."""
    if not peak.at_optimizer_step(breakdown) or not peak.optimizer_temporary_gb:
        return ""
    return f" at its optimizer step ({fixed(peak.optimizer_temporary_gb, 0)} GB of it foreach AdamW's temporary)"


def _reason_no_fit(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    e: eff.TrainingEfficiency,
    fits_with: FitsWith | None = None,
) -> tuple[str, dict[str, float], float]:
    """Why no layout fits, with the most frugal split's breakdown and need (GB per GPU); `fits_with`: a ranking's
    memoised answer to whether other settings fit (frugal_settings.settings_that_fit)."""
    frugal, breakdown = _most_frugal(gpu, gpu_count, model, w, e)
    stage, tp, pp = frugal.zero_stage, frugal.tensor_parallel, frugal.pipeline_parallel
    total_states = breakdown["model_states"] * gpu_count if stage >= 1 or tp * pp > 1 else breakdown["model_states"]
    peak = workload_peak(model, w, frugal, gpu_count)
    need = memory_needed_gb(breakdown, peak)
    words = frugal.describe(gpu_count, split_stack(w.framework, w.method), model.layers)
    text = (
        f"needs {fixed(total_states, 0)} GB of model states for {w.method.replace('_', ' ')}; "
        f"{gpu_count}×{gpu.id} with {words} needs {fixed(need, 0)} GB "
        f"per GPU{_at_the_update(peak, breakdown)} but gives {fixed(usable_gb(gpu, gpu_count), 0)} GB usable of "
        f"{fixed(gpu.memory_gb, 0)} GB each"
    )
    frugal_settings = settings_that_fit(gpu, gpu_count, model, w, e, fits_with)
    if frugal_settings:
        text += f"; it fits with {frugal_settings}"
    limit = sequence_split_limit(gpu, gpu_count, model, w, e)
    if limit:
        text += f"; {limit}"
    stack = stack_that_fits(gpu, gpu_count, model, w, e, update_bound=bool(_at_the_update(peak, breakdown)))
    if stack:
        text += f"; {stack_limit(w)}: it fits with {stack}"
    return text, breakdown, need


def estimate_training(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: TrainingWorkload,
    layout: Layout | None = None,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    partial_recompute: bool = True,
    expert_split: bool = True,
    step_s: float | None = None,
    fits_with: FitsWith | None = None,
    memory: LayoutMemory | None = None,
) -> TrainingEstimate:
    """Estimate one configuration; `layout` pins the split, else the fastest fitting one is chosen (without partial
    recompute where `partial_recompute` is false, without expert parallelism where `expert_split` is false:
    choice.choose_layout).

    `attention_span` and `capacity_factor` describe how the run executes (see step_time.compute_seconds).
    `step_s`: the pinned layout's step seconds where a ranking's search timed it already (GpuTimer.best_layout, the
    same sum as StepTime.total_s); its StepTime's parts are then worked out only when the terms are read.
    `fits_with`: where no layout fits, whether other settings would, as a ranking's search memoises it
    (LayoutSearch.fits_with). `memory`: the pinned layout's layout_memory, where a ranking's search memoises it.
    """
    w = workload
    flops = model_flops_per_token(model, w.method, w.seq_len)
    peak, pclass, note = peak_tflops(gpu, w.precision)
    chosen = layout or choose_layout(
        gpu, gpu_count, model, w, e, attention_span, capacity_factor, partial_recompute, expert_split
    )
    if peak is None or chosen is None:
        reason = f"{gpu.id} has no published compute peak" if peak is None else ""
        breakdown: dict[str, float] = {}
        needed_gb = 0.0
        if chosen is None:
            reason, breakdown, need = _reason_no_fit(gpu, gpu_count, model, w, e, fits_with)
            needed_gb = need + runtime_reserve_gb(gpu_count)
        assumptions = estimate_assumptions(gpu, model, w, note)
        return unsized_estimate(gpu.id, gpu_count, reason, flops, needed_gb, breakdown, assumptions)
    memory = memory or layout_memory(gpu_count, model, w, chosen, e)  # the layout's breakdown and step peak, once
    breakdown, step_peak, need = memory.breakdown, memory.peak, memory.need_gb
    fits = need <= usable_gb(gpu, gpu_count)

    def step_time() -> StepTime:
        return layout_timing(gpu, gpu_count, model, w, chosen, e, attention_span, capacity_factor)[0]

    timed = None
    if step_s is None:
        timed = step_time()
        step_s = timed.total_s
    tokens_s = w.global_batch_seqs * w.seq_len / step_s / gpu_count
    mfu = min(1.0, tokens_s * flops / (peak * 1e12))
    words = chosen.describe(gpu_count, split_stack(w.framework, w.method), model.layers)
    reason = (
        ""
        if fits
        else (
            f"{words} needs {fixed(need, 0)} GB per GPU; {gpu.id} gives {fixed(usable_gb(gpu, gpu_count), 0)} GB usable"
        )
    )
    band, evidence = _band(gpu, pclass, w, tokens_s)
    return TrainingEstimate(
        gpu.id,
        gpu_count,
        chosen,
        words,
        fits,
        fits,
        reason,
        need + runtime_reserve_gb(gpu_count),
        breakdown,
        tokens_s,
        mfu,
        step_s,
        flops,
        band,
        LazyTerms(
            lambda: training_terms(
                gpu,
                gpu_count,
                model,
                w,
                chosen,
                timed or step_time(),
                peak,
                pclass,
                breakdown,
                flops,
                mfu,
                e,
                attention_span,
                capacity_factor,
            )
        ),
        [*estimate_assumptions(gpu, model, w, note), evidence],
        step_peak.parts_gb(breakdown),
    )


def unsized_estimate(
    gpu_id: str,
    gpu_count: int,
    reason: str,
    flops_per_token: float,
    memory_per_gpu_gb: float = 0.0,
    memory_breakdown_gb: dict[str, float] | None = None,
    assumptions: list[str] | None = None,
) -> TrainingEstimate:
    """An estimate with no layout sized and nothing timed (no peak, no fit, or an offer that cannot supply the count),
    with the reason and, where a layout was tried, the memory it would need."""
    return TrainingEstimate(
        gpu_id,
        gpu_count,
        None,
        "",
        False,
        False,
        reason,
        memory_per_gpu_gb,
        memory_breakdown_gb or {},
        0.0,
        0.0,
        float("inf"),
        flops_per_token,
        Band(0.0, 0.0),
        [],
        assumptions or [],
    )


def unrented_estimate(
    gpu: GpuSpec, gpu_count: int, model: ModelSpec, w: TrainingWorkload, reason: str
) -> TrainingEstimate:
    """An estimate the offer cannot supply at all (no layout sized, nothing timed), with the reason."""
    return unsized_estimate(gpu.id, gpu_count, reason, model_flops_per_token(model, w.method, w.seq_len))


def step_seconds(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    w: TrainingWorkload,
    layout: Layout,
    e: eff.TrainingEfficiency = eff.DEFAULT_TRAINING_EFFICIENCY,
) -> float:
    """Step time only (no terms), for ranking sweeps."""
    return layout_timing(gpu, gpu_count, model, w, layout, e)[0].total_s
