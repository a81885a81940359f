"""How many GPUs of one type a training run uses: the candidate counts (the fewest that fit, then powers of two
and multiples of the scale-up domain on a geometric grid up to Max GPUs, a few dozen counts even at 65,536), the
fewest that fit, and the cheapest count for the run, its start-up included, among those that meet the deadline
(best_estimate), each count timed at most once and only if its compute time alone could still beat the best cost so
far."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple, TypeAlias

from app.scoring.hardware.machines import Machine
from app.scoring.pricing.price_terms import STARTUP_HOURS, finish_hours
from app.scoring.specs import GpuSpec
from app.scoring.training.estimate import TrainingEstimate, estimate_training, slow_end_hours_ratio
from app.scoring.training.layouts.memory import Layout
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.workload import TrainingWorkload


def node_multipliers(limit: int) -> list[int]:
    """1…8, then four per doubling, at most 25 % apart (10, 12, 14, 16, 20, 24, 28, 32, 40…), up to limit."""
    out = list(range(1, min(limit, 8) + 1))
    base = 8
    while base <= limit:
        out.extend(k for k in range(base + base // 4, 2 * base + 1, base // 4) if k <= limit)
        base *= 2
    return out


def candidate_counts(min_count: int, max_gpus: int, node_gpus: int) -> list[int]:
    """min_count, then powers of two and node multiples (node × node_multipliers) above it, up to max_gpus."""
    counts = {min_count}
    n = 1
    while n <= max_gpus:
        if n > min_count:
            counts.add(n)
        n *= 2
    node = node_gpus if node_gpus >= 8 else 8  # PCIe cards and NVL pairs: 8-GPU servers
    counts.update(k * node for k in node_multipliers(max_gpus // node) if k * node > min_count)
    return sorted(c for c in counts if c <= max_gpus)


@lru_cache(maxsize=256)
def count_grid(max_gpus: int, node_gpus: int) -> tuple[int, ...]:
    return tuple(candidate_counts(1, max_gpus, node_gpus))


def whole_nodes(machine: Machine) -> Callable[[int], bool]:
    """Counts a machine supplies: part of one node, or whole nodes; and whole rented instances (a job on 4 GPUs of
    an 8-GPU instance pays for all 8, and all 8 train faster for the same bill)."""
    per_node, instance = machine.gpus_per_node, machine.instance_gpus
    return lambda n: (n <= per_node or n % per_node == 0) and n % instance == 0


def _any_count(n: int) -> bool:
    return True


def min_fitting_count(gpu: GpuSpec, search: LayoutSearch, allowed: Callable[[int], bool] = _any_count) -> int | None:
    """Fewest GPUs that fit: the first fitting grid count, refined down over the node multiples the
    geometric grid skipped (a scan for short gaps, bisection for long ones), so the result is the
    same as walking every node multiple while fitting is monotone in the count."""
    node = gpu.scaleup_domain_gpus if gpu.scaleup_domain_gpus >= 8 else 8
    below = 0
    for n in count_grid(search.workload.max_gpus, gpu.scaleup_domain_gpus):
        if not allowed(n):
            continue
        if search.fits(gpu, n):
            break
        below = n
    else:
        return None
    low_k, high_k = below // node + 1, (n - 1) // node  # node multiples strictly between below and n
    if high_k - low_k < 32:
        return next((k * node for k in range(low_k, high_k + 1) if allowed(k * node) and search.fits(gpu, k * node)), n)
    while low_k <= high_k:  # invariant: n fits; every multiple below low_k does not
        mid = (low_k + high_k) // 2
        if allowed(mid * node) and search.fits(gpu, mid * node):
            n, high_k = mid * node, mid - 1
        else:
            low_k = mid + 1
    return n


class TimedCount(NamedTuple):
    """One GPU count's fastest fitting layout (None where none fits) and its step time (GpuTimer.best_layout)."""

    step_x_count: float  # step seconds × GPU count; inf where no layout fits
    layout: Layout | None
    step_s: float  # the layout's StepTime.total_s, handed to estimate_training so the layout is not timed twice


# (GPU id, count) -> that count timed: each count is timed at most once.
LayoutMemo: TypeAlias = dict[tuple[str, int], TimedCount]


def timed_count(timer: GpuTimer, gpu_id: str, gpu_count: int, memo: LayoutMemo) -> TimedCount:
    """The count's fastest layout and step time, read from `memo` where it was timed already."""
    key = (gpu_id, gpu_count)
    timed = memo.get(key)
    if timed is None:
        layout, seconds = timer.best_layout(gpu_count)
        timed = memo[key] = TimedCount(seconds * gpu_count if layout else float("inf"), layout, seconds)
    return timed


# (GPU count, run hours) -> the run's wall hours on its terms (spot: interruptions and restarts included)
RunWall: TypeAlias = Callable[[int, float], float]


def steps_of(w: TrainingWorkload) -> float:
    return w.total_tokens / (w.global_batch_seqs * w.seq_len)


def best_estimate(
    gpu: GpuSpec,
    search: LayoutSearch,
    memo: LayoutMemo,
    allowed: Callable[[int], bool] = _any_count,
    deadline_hours: float | None = None,
    run_wall: RunWall | None = None,
) -> TrainingEstimate:
    """Cheapest GPU count for the run (run_gpu_seconds: its steps and its start-up, billed on every GPU) for one GPU
    type among the counts that finish within the deadline (`deadline_hours`, the workload's: a count's run after its
    start-up, price_terms.finish_hours, as a row's verdict checks it); if none does, the fastest count tried.
    Infeasible estimate if none fits. `run_wall` (spot): a count's wall hours for its run's hours, interruptions
    included, as its row adds them.

    Every count of the grid up to Max GPUs is a candidate: cost is not unimodal in the count (a larger count makes
    room for a pipeline or ZeRO-1 layout that a smaller one cannot hold), so no run of worse counts ends the sweep. A
    count is skipped unless its compute time alone, a lower bound on its cost, could beat the best. With limits_at
    band_high a count meets the deadline only if its hours at its band's slow end do.

    What a row is ranked by, its offer's price × billed GPU-hours, is this cost at one price wherever hours are
    billed as used. Left out, as each offer of the slot bills differently (measured 2026-12-06 on every on-time offer of
    the seeded catalog for 70B full FT at 0.2B, 2B and 20B tokens, 8B full FT, pretraining and 70B LoRA, spot at the
    stated and at 4 interruptions a node-month): rounding up to an hourly billing unit and a spot run's
    interruptions (which grow with the nodes) moved no row's cheapest count; the start-up did (70B full FT on
    B200s: 16 GPUs are the cheapest per step, 8 cost 4.6% less in all at 0.2B tokens, 21% less at 50M)."""
    model, w = search.model, search.workload
    first = min_fitting_count(gpu, search, allowed)
    if first is None:  # why the largest count the machine supplies under Max GPUs does not fit
        supplied = (n for n in reversed(count_grid(w.max_gpus, gpu.scaleup_domain_gpus)) if allowed(n))
        top = w.max_gpus if allowed(w.max_gpus) else next(supplied, w.max_gpus)
        return estimate_training(
            gpu, top, model, w, e=search.e, fits_with=lambda update: search.fits_with(gpu, top, update)
        )
    timer = GpuTimer(search, gpu)
    steps, run_steps = slow_end_steps(gpu, w), steps_of(w)
    best: TimedCount | None = None
    best_n, best_cost = first, float("inf")
    fastest: tuple[float, int, TimedCount] | None = None  # (hours, count, timed) of counts that miss the deadline
    sweep = (first, *(c for c in count_grid(w.max_gpus, gpu.scaleup_domain_gpus) if c > first))  # candidate_counts
    for n in sweep:
        if not allowed(n):
            continue
        threshold = best_cost * 0.999  # a larger count must be cheaper by more than rounding to replace a smaller
        if run_gpu_seconds(timer.compute_s(n, "none") * n, n, run_steps) >= threshold:  # compute alone: no better
            continue
        timed = timed_count(timer, gpu.id, n, memo)
        per_step, layout = timed.step_x_count, timed.layout
        hours = steps * per_step / n / 3600
        wall = run_wall(n, hours) if run_wall is not None and layout is not None else hours
        if deadline_hours is not None and layout is not None and finish_hours(wall) > deadline_hours:
            if fastest is None or hours < fastest[0]:
                fastest = (hours, n, timed)
            continue  # too slow: a larger count may finish in time
        cost = run_gpu_seconds(per_step, n, run_steps)
        if cost < threshold:
            best_n, best, best_cost = n, timed, cost
    if (best is None or best.layout is None) and fastest is not None:
        _, best_n, best = fastest
    if best is None or best.layout is None:
        return estimate_training(gpu, best_n, model, w, e=search.e)
    memory = search.layout_memory(best.layout, best_n)
    return estimate_training(gpu, best_n, model, w, layout=best.layout, e=search.e, step_s=best.step_s, memory=memory)


def run_gpu_seconds(step_x_count: float, gpu_count: int, steps: float) -> float:
    """GPU-seconds a run is billed where hours are billed as used: its steps (step time × count each) and its
    start-up (price_terms.STARTUP_HOURS) on every GPU."""
    return step_x_count * steps + gpu_count * STARTUP_HOURS * 3600


def slow_end_steps(gpu: GpuSpec, w: TrainingWorkload) -> float:
    """The steps a deadline check times: steps_of, times the hours' ratio at the band's slow end with limits_at
    band_high (so hours = these steps × seconds per step meet the deadline there)."""
    return steps_of(w) * deadline_hours_ratio(gpu, w)


def deadline_hours_ratio(gpu: GpuSpec, w: TrainingWorkload) -> float:
    """The multiple of the estimated hours a deadline check times: the band's slow end with limits_at band_high,
    else 1."""
    return slow_end_hours_ratio(gpu, w) if w.limits_at == "band_high" else 1.0
