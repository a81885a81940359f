"""The matching offers of a training ranking in price groups: the offers of one (GPU, machine) slot under the same
price terms, whose run costs differ only by the price, so each group ranks in price order. Memoised per catalog
snapshot and filter set."""

from __future__ import annotations

from typing import NamedTuple

from app.scoring.pricing.offers import filter_key, offer_slots, snapshot_offers
from app.scoring.pricing.price_terms import INTERRUPTIBLE, billing_unit_hours
from app.scoring.pricing.snapshot_memo import MemoKind
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import TrainingWorkload


class PriceGroup(NamedTuple):
    """What the offers of one price group share: their machine and the terms that bill their runs."""

    slot: int  # the (GPU, machine) slot
    price_type: str
    seller: str  # the provider where spot rates and billing units are its own; else ""
    min_term_hours: float | None


class PriceRuns(NamedTuple):
    """The matching offers in price groups: same machine and same price terms, so their run costs differ
    only by the price and rank in price order. Depends on the catalog and the filters only."""

    group_of: list[int]  # per offer, its group
    groups: list[PriceGroup]
    members: list[list[int]]  # per group, its offers by (price, provider id, offer order)
    by_slot: list[list[int]]  # per slot, its offers by (provider id, offer order)


PRICE_RUNS: MemoKind[PriceRuns] = MemoKind("price_runs")  # price_runs per filter key


def price_runs(snapshot: CatalogSnapshot, filters: TrainingWorkload) -> PriceRuns:
    """PriceRuns of snapshot_offers(snapshot, filters), memoised per snapshot and filter set."""

    def build() -> PriceRuns:
        offers = snapshot_offers(snapshot, filters)
        slot_of, machines = offer_slots(snapshot, filters)
        numbers: dict[PriceGroup, int] = {}
        group_of = []
        for offer, slot in zip(offers, slot_of, strict=True):
            # spot rates and billing units are per provider: their offers group apart
            per_provider = offer.price_type in INTERRUPTIBLE or billing_unit_hours(offer.price_type, offer.provider_id)
            seller = offer.provider_id if per_provider else ""
            group = PriceGroup(slot, offer.price_type, seller, offer.min_term_hours)
            group_of.append(numbers.setdefault(group, len(numbers)))
        members: list[list[int]] = [[] for _ in numbers]
        by_slot: list[list[int]] = [[] for _ in machines]
        for index, (number, slot) in enumerate(zip(group_of, slot_of, strict=True)):
            members[number].append(index)
            by_slot[slot].append(index)
        for run in members:
            run.sort(key=lambda i: (offers[i].usd_per_gpu_hour, offers[i].provider_id, i))
        for run in by_slot:
            run.sort(key=lambda i: (offers[i].provider_id, i))
        return PriceRuns(group_of, list(numbers), members, by_slot)

    return snapshot.memo.get(PRICE_RUNS, filter_key(filters), build)
