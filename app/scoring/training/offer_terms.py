"""A training run priced under one offer's terms, and held to the workload's deadline and budget.

Pay-as-you-go: GPUs × hours × price. Spot: the expected wall time includes the work lost at each
interruption (half a checkpoint interval) and the restart (app.scoring.price_terms). Reserved and
capacity blocks: paid for max(use, minimum term), so a year's reservation never wins a three-day job.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.price_terms import INTERRUPTIBLE, billed_hours, interruptions_per_node_month, spot_run
from app.scoring.specs import Offer
from app.scoring.workload import TrainingWorkload


@dataclass(frozen=True, slots=True)
class RunCost:
    """What one offer charges for the run, and whether that meets the workload's limits."""

    total_usd: float
    wall_hours: float  # expected, with interruptions on spot
    billed_hours: float  # max(wall, minimum term) on committed terms
    interruptions: float  # expected over the run (spot), else 0
    reason: str  # empty when the run finishes in time and within budget

    @property
    def on_time(self) -> bool:
        return not self.reason


def run_cost(offer: Offer, gpu_count: int, nodes: int, work_hours: float, w: TrainingWorkload) -> RunCost:
    wall, interruptions, reason = work_hours, 0.0, ""
    if offer.price_type in INTERRUPTIBLE:
        rate = interruptions_per_node_month(offer.provider_id, w.interruptions_per_node_month)
        run = spot_run(work_hours, nodes, rate, w.checkpoint_interval_hours)
        wall, interruptions = run.wall_hours, run.interruptions_per_hour * run.wall_hours
        if not run.feasible:
            reason = f"spot interruptions would waste {run.lost_share:.0%} of the run at {nodes} nodes"
    billed = billed_hours(wall, offer.price_type, offer.min_term_hours)
    total = gpu_count * offer.usd_per_gpu_hour * billed
    if not reason and wall > w.max_days * 24:
        reason = f"finishes in {wall / 24:,.1f} days, after the {w.max_days:g}-day deadline"
    if not reason and w.budget_usd is not None and total > w.budget_usd:
        reason = f"costs ${total:,.0f}, over the ${w.budget_usd:,.0f} budget"
    return RunCost(total_usd=total, wall_hours=wall, billed_hours=billed, interruptions=interruptions, reason=reason)
