"""Each GPU's "from" prices, as the catalog pages show them: the lowest current on-demand price (what a ranking
uses by default, DEFAULT_PRICE_TYPES, stale prices left out) and, apart and labelled, the cheapest of each other
term (or a stale price) that undercuts it, so a stale spot price never passes for the price a buyer pays today."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

ON_DEMAND = "on_demand"


@dataclass(frozen=True, slots=True)
class TermFloor:
    """The cheapest offer of a GPU under one price term: current ones first, else the cheapest stale one."""

    price_type: str
    usd_per_gpu_hour: float
    stale: bool
    as_of: date | None


@dataclass(frozen=True, slots=True)
class PriceFloors:
    on_demand_usd_per_gpu_hour: float | None  # lowest current on-demand price; None: no current on-demand offer
    other_terms: list[TermFloor]  # cheapest first; only those below the on-demand price (all, without one)


@dataclass(frozen=True, slots=True)
class PricedOffer:
    gpu_id: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    stale: bool


def _floor(offers: list[PricedOffer]) -> TermFloor:
    current = [o for o in offers if not o.stale]
    best = min(current or offers, key=lambda o: o.usd_per_gpu_hour)
    return TermFloor(best.price_type, best.usd_per_gpu_hour, best.stale, best.as_of)


def price_floors(offers: Iterable[PricedOffer]) -> dict[str, PriceFloors]:
    """Per GPU: its on-demand "from" price and the cheaper other terms."""
    by_term: dict[str, dict[str, list[PricedOffer]]] = {}
    for offer in offers:
        by_term.setdefault(offer.gpu_id, {}).setdefault(offer.price_type, []).append(offer)
    floors = {}
    for gpu, terms in by_term.items():
        current_on_demand = [o.usd_per_gpu_hour for o in terms.get(ON_DEMAND, []) if not o.stale]
        on_demand = min(current_on_demand, default=None)
        others = [_floor(group) for term, group in terms.items() if term != ON_DEMAND or on_demand is None]
        cheaper = [t for t in others if on_demand is None or t.usd_per_gpu_hour < on_demand]
        floors[gpu] = PriceFloors(on_demand, sorted(cheaper, key=lambda t: (t.usd_per_gpu_hour, t.price_type)))
    return floors
