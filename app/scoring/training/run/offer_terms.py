"""A training run priced under one offer's terms, and held to the workload's deadline and budget.

Pay-as-you-go: GPUs × hours × price, the hours counted from the machine's start-up (price_terms.STARTUP_HOURS, as an
inference batch job's). Spot: the expected
wall time includes the work lost at each interruption (half a checkpoint interval) and the restart
(app.scoring.pricing.price_terms). Hours are billed as an inference batch job's are (price_terms.billed_use_hours):
rounded up to the provider's billing unit or the term's block (Vultr's hour, a capacity block's day), and reserved and
capacity blocks for at least their minimum term, so a year's reservation never wins a three-day job.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.pricing.price_terms import (
    COMMITTED,
    INTERRUPTIBLE,
    RESTART_HOURS,
    STARTUP_HOURS,
    billed_with_startup,
    billing_unit_hours,
    billing_unit_source,
    finish_hours,
    interruptions_per_node_month,
    min_term_hours,
    spot_run,
)
from app.scoring.training.run.limit_words import (
    SLOW_END,
    deadline_text,
    over_budget_text,
    past_deadline_text,
    spot_waste_text,
)
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class RunCost:
    """What one offer charges for the run, and whether that meets the workload's limits."""

    total_usd: float
    wall_hours: float  # expected, with interruptions on spot
    billed_hours: float  # wall rounded up to the billing unit, at least a committed minimum term
    interruptions: float  # expected over the run (spot), else 0
    reason: str  # empty when the run finishes in time and within budget

    @property
    def on_time(self) -> bool:
        return not self.reason


@dataclass(frozen=True, slots=True)
class RunTerms:
    """The part of a RunCost that does not depend on the price: the same for every offer with the same
    terms on the same machine, so a ranking works it out once per (machine, terms), not once per offer."""

    wall_hours: float  # start-up and the run (with spot's lost hours)
    billed_hours: float
    interruptions: float
    reason: str  # spot waste or the deadline; the budget needs the price
    wasteful: bool = False  # spot interruptions would waste too much of the run: not planned at all
    work_hours: float = 0.0  # the run without interruptions (run_hours on terms that are not interruptible)
    min_term_hours: float = 0.0  # paid whether used or not (committed terms)
    min_term_assumed: bool = False  # the source states no term: price_terms.DEFAULT_MIN_TERM_HOURS
    unit_hours: float | None = None  # the billing unit or term block the hours are rounded up to
    unit_source: str = ""  # where the unit is stated, or that none is (price_terms.billing_unit_source)
    # Where the deadline and budget are checked (limits_at): 1 on the estimate; at its band's slow end, the wall hours'
    # and the billed total's multiples there (SharedTerms.band_high, billed_band_ratios' high)
    slow_end_hours: float = 1.0
    slow_end_usd: float = 1.0
    startup_hours: float = 0.0  # STARTUP_HOURS, in wall_hours and billed

    @property
    def run_hours(self) -> float:
        """The run after its start-up (spot's lost hours included)."""
        return self.wall_hours - self.startup_hours


def run_terms(
    price_type: str,
    provider_id: str,
    min_term: float | None,
    nodes: int,
    work_hours: float,
    w: TrainingWorkload,
    slow_end_hours: float = 1.0,
) -> RunTerms:
    """The run's wall time (STARTUP_HOURS, then the work), billed hours and deadline verdict under one offer's terms;
    `provider_id` sets its spot interruption rate and billing unit ("" where neither depends on the provider).
    `slow_end_hours` (> 1 where the deadline must hold at the band's slow end): the run's multiple the deadline is
    checked at (the start-up does not scale with it); on spot that is the spot run of the slower work, since
    spot_run's expected wall time is proportional to the work."""
    wall, interruptions, reason = work_hours, 0.0, ""
    if price_type in INTERRUPTIBLE:
        rate = interruptions_per_node_month(provider_id, w.interruptions_per_node_month)
        run = spot_run(work_hours, nodes, rate, w.checkpoint_interval_hours)
        wall, interruptions = run.wall_hours, run.interruptions_per_hour * run.wall_hours
        if not run.feasible:
            loss_hours = w.checkpoint_interval_hours / 2 + RESTART_HOURS  # price_terms.spot_run's loss per interruption
            reason = spot_waste_text(run.lost_share, nodes, run.interruptions_per_hour, loss_hours)
    billed = billed_with_startup(wall, price_type, min_term, provider_id)
    wasteful = bool(reason)
    finish = finish_hours(wall, slow_end_hours)
    if not reason and finish > w.max_days * 24:
        where = f" {SLOW_END}" if slow_end_hours != 1.0 else ""
        late = past_deadline_text(finish / 24, w.max_days)
        reason = f"finishes in {late}{where}, after the {deadline_text(w.max_days, late)}"
    return RunTerms(
        wall_hours=STARTUP_HOURS + wall,
        billed_hours=billed,
        interruptions=interruptions,
        reason=reason,
        wasteful=wasteful,
        work_hours=work_hours,
        min_term_hours=min_term_hours(price_type, min_term),
        min_term_assumed=price_type in COMMITTED and not min_term,
        unit_hours=billing_unit_hours(price_type, provider_id),
        unit_source=billing_unit_source(price_type, provider_id),
        slow_end_hours=slow_end_hours,
        startup_hours=STARTUP_HOURS,
    )


def run_total_usd(terms: RunTerms, gpu_count: int, usd_per_gpu_hour: float) -> float:
    return gpu_count * usd_per_gpu_hour * terms.billed_hours


def run_reason(terms: RunTerms, total_usd: float, w: TrainingWorkload) -> str:
    """Why the run misses the workload's limits ("" when it meets them): spot waste, deadline, then budget (checked
    on the billed total times terms.slow_end_usd)."""
    if not terms.reason and w.budget_usd is not None and total_usd * terms.slow_end_usd > w.budget_usd:
        where = f" {SLOW_END}" if terms.slow_end_usd != 1.0 else ""
        return over_budget_text(total_usd * terms.slow_end_usd, w.budget_usd, where)
    return terms.reason


def priced_run(terms: RunTerms, gpu_count: int, usd_per_gpu_hour: float, w: TrainingWorkload) -> RunCost:
    total = run_total_usd(terms, gpu_count, usd_per_gpu_hour)
    return RunCost(
        total_usd=total,
        wall_hours=terms.wall_hours,
        billed_hours=terms.billed_hours,
        interruptions=terms.interruptions,
        reason=run_reason(terms, total, w),
    )
