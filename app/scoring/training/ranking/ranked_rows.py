"""A training ranking's rows: each offer's place in its tier, compared field by field, and the runs of a price group
(same machine and terms, cheapest first) that a ranking merges into its tiers."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator
from typing import NamedTuple

from app.scoring.pricing.price_terms import finish_hours
from app.scoring.specs import Offer
from app.scoring.training.run.offer_terms import RunTerms, run_total_usd
from app.scoring.workload import TrainingWorkload


class OnTimeRow(NamedTuple):
    """An offer whose run finishes in time and within the budget: cheapest first, then by GPU id, provider id and
    offer order."""

    total_usd: float
    gpu_id: str
    provider_id: str
    offer_index: int  # into snapshot_offers


class LateRow(NamedTuple):
    """An offer whose run misses the deadline or the budget: nearest the deadline first (0 when it is only over the
    budget), then cheapest, then by GPU id, provider id and offer order."""

    hours_past_deadline: float
    total_usd: float
    gpu_id: str
    provider_id: str
    offer_index: int


class UnfitRow(NamedTuple):
    """An offer whose machine cannot fit the model: by GPU id, provider id and offer order."""

    gpu_id: str
    provider_id: str
    offer_index: int


def on_time_count(offers: list[Offer], members: list[int], t: RunTerms, gpu_count: int, w: TrainingWorkload) -> int:
    """How many of a price group's offers (cheapest first) finish in time and within the budget: a prefix."""
    if t.reason:
        return 0
    if w.budget_usd is None:
        return len(members)
    budget = w.budget_usd / t.slow_end_usd  # run_reason's check: total × slow_end_usd ≤ budget
    return bisect_right(members, budget, key=lambda i: run_total_usd(t, gpu_count, offers[i].usd_per_gpu_hour))


def on_time_rows(offers: list[Offer], members: list[int], t: RunTerms, gpu_count: int) -> Iterator[OnTimeRow]:
    """A price group's offers as OnTimeRows, cheapest first, as read."""
    return (
        OnTimeRow(run_total_usd(t, gpu_count, offers[i].usd_per_gpu_hour), offers[i].gpu_id, offers[i].provider_id, i)
        for i in members
    )


def late_rows(
    offers: list[Offer], members: list[int], t: RunTerms, gpu_count: int, w: TrainingWorkload
) -> Iterator[LateRow]:
    """A price group's offers that miss the deadline or the budget as LateRows. A run 8 days into a 7-day deadline
    comes before a cheaper one of 69 days; runs on time but over the budget (0 hours past) come first, cheapest
    first."""
    past = math.inf if t.wasteful else max(finish_hours(t.run_hours, t.slow_end_hours) - w.max_days * 24, 0.0)
    return (
        LateRow(
            past, run_total_usd(t, gpu_count, offers[i].usd_per_gpu_hour), offers[i].gpu_id, offers[i].provider_id, i
        )
        for i in members
    )
