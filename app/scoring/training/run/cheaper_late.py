"""The cheapest run that misses the deadline, where it bills less than the cheapest run that meets it (or, with none
within the budget on time, where it fits the budget): what the deadline costs, said beside what meets it. Found by
qa32: a 12 h deadline ranked 4×B200 at $303 "the cheapest run that finishes within 0.5 days" and never said that
1×B200 at $175 finishes in 1.8 days; with a $200 budget it said only "raise the budget"."""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.specs import Offer
from app.scoring.training.run.limit_words import usd_text

# A late run cheaper than what meets the deadline is named only where it finishes within this many deadlines: a 12 h
# deadline's 1.8-day run is an alternative a buyer may take, a 10-day deadline's 1.9-year one on a single node is not.
LATE_RUN_NAMED_WITHIN_DEADLINES = 4.0


@dataclass(frozen=True, slots=True)
class LateRun:
    """A run that misses the deadline (not spot waste): its offer, GPU count, billed total and reason."""

    offer: Offer
    gpu_count: int
    total_usd: float
    reason: str  # "finishes in 1.8 days, after the 12 h deadline"
    finish_hours: float  # where the deadline is checked (its band's slow end with limits_at band_high)

    def words(self) -> str:
        return f"{offer_words(self.offer, self.gpu_count)} bills {usd_text(self.total_usd)}"


def offer_words(offer: Offer, gpu_count: int) -> str:
    """`4×B200 at Lambda`, its terms named where they are not on-demand and a stale price said: `8×H100-SXM at
    CoreWeave (spot, stale price)`."""
    said = [offer.price_type.replace("_", " ")] if offer.price_type != "on_demand" else []
    said += ["stale price"] if offer.stale else []
    return f"{gpu_count:,}×{offer.gpu_id} at {offer.provider_name}" + (f" ({', '.join(said)})" if said else "")


def cheaper_late(
    current: LateRun | None, run: LateRun, budget_usd: float | None, slow_end_usd: float
) -> LateRun | None:
    """The cheaper of `current` and `run`, leaving out a run over the budget (checked as run_reason checks it)."""
    if budget_usd is not None and run.total_usd * slow_end_usd > budget_usd:
        return current
    return run if current is None or run.total_usd < current.total_usd else current


def deadline_costs_note(
    late: LateRun | None, best: Offer, best_gpu_count: int, best_usd: float, max_days: float
) -> str:
    """Where the cheapest run is late (within LATE_RUN_NAMED_WITHIN_DEADLINES) and bills less than the cheapest run on
    time: what it bills and misses by, and the cheapest that finishes in time; "" otherwise."""
    if late is None or late.total_usd >= best_usd:
        return ""
    if late.finish_hours > LATE_RUN_NAMED_WITHIN_DEADLINES * max_days * 24:
        return ""
    return (
        f"The deadline costs more than the cheapest run: {late.words()} but {late.reason}; "
        f"{offer_words(best, best_gpu_count)}, {usd_text(best_usd)}, is the cheapest that "
        "finishes in time."
    )


def within_budget_words(late: LateRun | None) -> str:
    """Said after nothing_within_budget_note: the cheapest run within the budget, which misses the deadline."""
    return "" if late is None else f" Within the budget, {late.words()} but {late.reason}."
