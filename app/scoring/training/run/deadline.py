"""What stops a training run short of its deadline, and what would let it finish: the nearest run's note, and the
Max GPUs at which that machine would finish in time."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from app.scoring.pricing.price_terms import STARTUP_HOURS, finish_hours, hours_after_startup
from app.scoring.specs import GpuSpec, Offer
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.run.limit_words import days_text, deadline_text
from app.scoring.workload import TrainingWorkload

MOST_GPUS_NAMED = 1_000_000  # a linear-scaling count above this says nothing a buyer can use
LARGEST_MAX_GPUS = 65_536  # the largest Max GPUs a question takes (TrainingWorkload.max_gpus)


def max_gpus_stop(w: TrainingWorkload, gpu_count: int) -> str:
    """The late run's reason where Max GPUs, not the machine, caps the count (the fastest count is the largest it
    allows)."""
    return f"Max GPUs ({w.max_gpus:,}) stops it at {gpu_count:,} GPUs"


def count_meeting_deadline(
    gpu: GpuSpec,
    search: LayoutSearch,
    allowed: Callable[[int], bool],
    grid: Callable[[int], Iterable[int]],
    supply_limit: int | None,
    steps: float,
) -> int | None:
    """The fewest GPUs above the workload's Max GPUs at which this machine finishes the run in time (its own hours,
    without spot interruptions), within what it supplies (`supply_limit`, None: unstated) and the largest Max GPUs
    a question takes; None if no such count. `grid(limit)`: the candidate counts up to a limit, as the ranking's."""
    w = search.workload
    limit = min(LARGEST_MAX_GPUS, supply_limit or LARGEST_MAX_GPUS)
    if limit <= w.max_gpus:
        return None
    deadline_hours = w.max_days * 24
    if hours_after_startup(deadline_hours) <= 0:  # the start-up alone fills it
        return None
    timer = GpuTimer(search.for_machine(w.model_copy(update={"max_gpus": limit}), search.e), gpu)
    for n in grid(limit):
        if n <= w.max_gpus or not allowed(n):
            continue
        if finish_hours(steps * timer.compute_s(n, "none") / 3600) > deadline_hours:  # compute alone is too slow
            continue
        layout, seconds = timer.best_layout(n)
        if layout is not None and finish_hours(steps * seconds / 3600) <= deadline_hours:
            return n
    return None


def nothing_on_time_note(
    offer: Offer,
    gpu_count: int,
    work_hours: float,
    cap: int,
    limit_reason: str | None,
    w: TrainingWorkload,
    where: str = "",
    more_gpus_help: bool = True,
) -> str:
    """What the nearest run misses by, and what would let one finish in time; `work_hours` are where the deadline is
    checked (`where`: ' at its band's slow end' with limits_at band_high). `more_gpus_help` False: a search above Max
    GPUs on the nearest machines found no count that finishes in time, so raising Max GPUs is no advice."""
    n, deadline_h = gpu_count, hours_after_startup(w.max_days * 24)  # the hours the run has after its start-up
    text = (
        f"No option finishes within the {deadline_text(w.max_days)}: the nearest, {n}×{offer.gpu_id} at "
        f"{offer.provider_name}, takes {days_text((STARTUP_HOURS + work_hours) / 24)} "
        f"({days_text(STARTUP_HOURS / 24)} start-up + {days_text(work_hours / 24)} of run){where}."
    )
    if deadline_h <= 0:
        return text + f" The {days_text(STARTUP_HOURS / 24)} start-up alone fills the deadline: a later deadline."
    scaled = n * work_hours / deadline_h
    if not scaled < MOST_GPUS_NAMED:  # a deadline of seconds: no cluster comes near it
        return text + " No offer in the catalog supplies the GPUs that would finish in time: a later deadline."
    needed = math.ceil(scaled)
    text += f" About {needed:,} {offer.gpu_id} would finish in time if the run scaled linearly"
    if needed > cap and limit_reason:
        limit = limit_reason.replace("this offer", "that offer")
        return text + f", but {limit}. Try a later deadline, or offers with more nodes."
    if needed > w.max_gpus and not more_gpus_help:
        return text + (
            ", but no larger Max GPUs lets the nearest machines finish in time: try a later deadline, offers with more "
            "nodes, or a larger global batch (more work per step to spread over more GPUs)."
        )
    if needed > w.max_gpus:
        return text + f": Max GPUs is the limit; raise Max GPUs (now {w.max_gpus:,}) or the deadline."
    if not more_gpus_help:
        return text + (
            f", but it does not scale so far: {n:,} is the nearest machine's fastest count. Try a later deadline, or a "
            "larger global batch (more work per step to spread over more GPUs)."
        )
    if needed > cap:
        return text + f", but that offer supplies at most {cap:,}: a later deadline, or offers with more nodes."
    return text + "."


def nothing_within_budget_note(offer: Offer, gpu_count: int, reason: str) -> str:
    """Where every run on time is over the budget: the cheapest one, what it bills, and what would let one fit.
    `reason`: that run's own (`costs $10,146, over the $5,000 budget`)."""
    return (
        f"No option finishes within the budget: the cheapest on time, {gpu_count:,}×{offer.gpu_id} at "
        f"{offer.provider_name}, {reason}. Raise the budget to what it bills, or train on fewer tokens."
    )
