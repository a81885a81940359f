"""The order a ranking reads offers in, built lazily from each configuration's offers.

Per (GPU, machine) slot, `slot_runs` holds its offers by price and by offer order (memoised per snapshot and filter
set). `priced_order` merges the slots' price runs into PricedRows, cheapest first, one row per (GPU, provider, price
type, layout); `infeasible_order` keeps the offers that cannot serve the model, one per reason, in offer order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from app.scoring.hardware.machines import Machine
from app.scoring.inference.ranking.pricing import ConfigurationPricing
from app.scoring.pricing.billed_terms import BillingTerms, billing_terms_key
from app.scoring.pricing.offers import MergedOrder, filter_key, offer_slots, snapshot_offers
from app.scoring.pricing.snapshot_memo import MemoKind
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload


class PricedRow(NamedTuple):
    """A feasible offer's place in a ranking tier, compared field by field: cheapest first, then by GPU id,
    provider id and offer order."""

    cost_usd: float  # the ranked metric, in its unit (RANK_UNITS of rank_by)
    gpu_id: str
    provider_id: str
    offer_index: int  # into snapshot_offers


class SlotRuns(NamedTuple):
    """Per (GPU, machine) slot: its offers by (price, provider id, offer order), by offer order, and its
    sellers as (provider id, price type); per offer, its (GPU, provider id, price type). Depends on the catalog and
    the filters only."""

    by_price: list[list[int]]
    in_order: list[list[int]]
    sellers: list[frozenset[tuple[str, str]]]
    terms: list[tuple[str, str, str]]  # by offer index: (GPU id, provider id, price type)
    # by offer index, the number of its billing terms (price type, stated minimum term, billing_terms_key): offers
    # with equal terms bill a batch job's hours alike; by number, the first offer with those terms
    billing: list[int]
    billing_offer: list[int]
    # per slot, each (GPU, provider id, price type) of its offers with the first offer that has it, in offer order: a
    # refused slot's offers with equal terms are one row of infeasible_order, whichever of them it keeps
    first_by_terms: list[list[tuple[tuple[str, str, str], int]]]
    # per slot, the other slots with offers of any of its (GPU, provider id, price type): a refused slot's reason tells
    # its rows apart from theirs only (infeasible_order reads it where one of them is refused too)
    terms_shared_with: list[frozenset[int]] = []


SLOT_RUNS: MemoKind[SlotRuns] = MemoKind("slot_runs")  # slot_runs per filter key


def slot_runs(snapshot: CatalogSnapshot, filters: InferenceWorkload) -> SlotRuns:
    """SlotRuns of snapshot_offers(snapshot, filters), memoised per snapshot and filter set."""

    def build() -> SlotRuns:
        offers = snapshot_offers(snapshot, filters)
        slot_of, slots = offer_slots(snapshot, filters)
        in_order: list[list[int]] = [[] for _ in slots]
        for index, slot in enumerate(slot_of):
            in_order[slot].append(index)
        by_price = [
            sorted(run, key=lambda i: (offers[i].usd_per_gpu_hour, offers[i].provider_id, i)) for run in in_order
        ]
        sellers = [frozenset((offers[i].provider_id, offers[i].price_type) for i in run) for run in in_order]
        terms = [(o.gpu_id, o.provider_id, o.price_type) for o in offers]
        firsts = [_first_by_terms(run, terms) for run in in_order]
        shared = _terms_shared_with(firsts)
        return SlotRuns(by_price, in_order, sellers, terms, *_billing_numbers(offers), firsts, shared)

    return snapshot.memo.get(SLOT_RUNS, filter_key(filters), build)


def _first_by_terms(run: list[int], terms: list[tuple[str, str, str]]) -> list[tuple[tuple[str, str, str], int]]:
    """SlotRuns.first_by_terms of one slot's offers (`run`, in offer order)."""
    first: dict[tuple[str, str, str], int] = {}
    for index in run:
        first.setdefault(terms[index], index)
    return list(first.items())


def _terms_shared_with(firsts: list[list[tuple[tuple[str, str, str], int]]]) -> list[frozenset[int]]:
    """SlotRuns.terms_shared_with from each slot's first_by_terms."""
    slots_of: dict[tuple[str, str, str], list[int]] = {}
    for slot, pairs in enumerate(firsts):
        for terms, _ in pairs:
            slots_of.setdefault(terms, []).append(slot)
    return [
        frozenset(other for terms, _ in pairs for other in slots_of[terms] if other != slot)
        for slot, pairs in enumerate(firsts)
    ]


def _billing_numbers(offers: list[Offer]) -> tuple[list[int], list[int]]:
    """SlotRuns.billing and billing_offer: each offer's billing terms numbered in offer order."""
    numbers: dict[tuple[str, float | None, BillingTerms], int] = {}
    billing: list[int] = []
    first: list[int] = []
    for index, o in enumerate(offers):
        terms = (o.price_type, o.min_term_hours, billing_terms_key(o.price_type, o.provider_id))
        number = numbers.get(terms)
        if number is None:
            number = numbers[terms] = len(first)
            first.append(index)
        billing.append(number)
    return billing, first


def _distinct_sellers(groups: dict[tuple, list[int]], sellers: list[frozenset[tuple[str, str]]]) -> int:
    """How many distinct (provider, price type) each group of slots has, summed over the groups."""
    total = 0
    for members in groups.values():
        total += (
            len(sellers[members[0]]) if len(members) == 1 else len(frozenset().union(*(sellers[s] for s in members)))
        )
    return total


def cost_run(
    offers: list[Offer], members: list[int], p: ConfigurationPricing, rank_by: str, gpu_id: str
) -> Iterator[PricedRow]:
    factor = p.factor(rank_by)
    if p.job_hours:
        return (PricedRow(p.billed_price(offers[i]) * factor, gpu_id, offers[i].provider_id, i) for i in members)
    return (PricedRow(offers[i].usd_per_gpu_hour * factor, gpu_id, offers[i].provider_id, i) for i in members)


def billed_run(offers: list[Offer], runs: SlotRuns, slot: int, p: ConfigurationPricing) -> list[int]:
    """A slot's offers cheapest first as they bill the work: by price, except that a batch job pays a committed
    offer's whole minimum term and a provider's whole billing unit, which can put them behind dearer offers."""
    by_price = runs.by_price[slot]
    job_hours = p.job_hours
    if not job_hours:
        return by_price
    # each offer's billed price as ConfigurationPricing.billed_price works it out (price x billed hours / the job's
    # hours), its billed hours read once per billing terms of the slot, not per offer (a batch job ranks every offer
    # of every slot this way); the (billed price, provider id, offer) keys sorted themselves: the order
    # sorted(key=...) gives, with no Python call a key
    billing = runs.billing
    billed_hours = p.billed_hours_by_terms(offers, {billing[i] for i in by_price}, runs.billing_offer)
    keys = [
        (offers[i].usd_per_gpu_hour * billed_hours[billing[i]] / job_hours, offers[i].provider_id, i) for i in by_price
    ]
    keys.sort()
    return [i for _, _, i in keys]


def priced_order(
    offers: list[Offer],
    slot_of: list[int],
    slots: list[tuple[str, Machine]],
    by_slot: list[ConfigurationPricing],
    runs: SlotRuns,
    rank_by: str,
    feasible: list[int],
) -> MergedOrder[PricedRow]:
    """PricedRows of the offers of the `feasible` slots, cheapest first, the cheapest
    offer per (GPU, provider, price type, configuration) only: one provider's bigger instances add no row for the
    same layout. A lazy merge of the slots' price runs (within a slot, cost is price times one factor)."""
    layout = [(p.est.gpu_count, p.est.tensor_parallel, p.est.pipeline_parallel) for p in by_slot]
    groups: dict[tuple, list[int]] = {}
    for s in feasible:
        groups.setdefault((slots[s][0], layout[s]), []).append(s)
    cost_runs = [
        cost_run(offers, billed_run(offers, runs, s, by_slot[s]), by_slot[s], rank_by, slots[s][0]) for s in feasible
    ]

    def same(row: PricedRow) -> tuple:
        offer = offers[row.offer_index]
        return (offer.gpu_id, offer.provider_id, offer.price_type, layout[slot_of[row.offer_index]])

    return MergedOrder(cost_runs, _distinct_sellers(groups, runs.sellers), same)


def infeasible_order(
    offers: list[Offer],
    slot_of: list[int],
    by_slot: list[ConfigurationPricing],
    runs: SlotRuns,
) -> list[int]:
    """Offers that cannot serve the model, in offer order, one per (GPU, provider, price type, reason): the first
    in offer order of each. Only the slots that cannot serve it are read.

    A slot's offers share its reason (read once a slot: a property), so of each (GPU, provider, price type) only the
    slot's first offer with it can be kept (SlotRuns.first_by_terms, once a catalog and filter set); each key keeps
    the earliest of those over the slots, and the offers kept are sorted back into offer order: the offers a walk in
    offer order with a set of keys seen keeps, with a Python step per slot and terms, not per offer (~4,000-10,000
    refused offers a ranking of 100x offers, a few dozen keys). A slot's reason is read only where another refused
    slot has offers of its terms (SlotRuns.terms_shared_with), the one case it can tell rows apart: a refusal's words
    are written when first read (a latency-limit refusal's time a search) and an answer shows few refused rows, often
    none (found by speed28: the 70B ranking wrote 22 refusals' words, ~7% of its CPU under cProfile, and showed none).
    Elsewhere the key holds no reason: its terms are the slot's alone among the refused."""
    refused = [not p.est.feasible for p in by_slot]
    kept: dict[tuple[tuple[str, str, str], str | None], int] = {}
    for s, p in enumerate(by_slot):
        if not refused[s]:
            continue
        reason = p.est.reason if any(refused[other] for other in runs.terms_shared_with[s]) else None
        for terms, index in runs.first_by_terms[s]:
            key = (terms, reason)
            if key not in kept or index < kept[key]:
                kept[key] = index
    return sorted(kept.values())
