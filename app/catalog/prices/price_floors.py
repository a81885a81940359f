"""Each GPU's "from" prices, as the catalog pages show them: the lowest current on-demand price (what a ranking
uses by default, DEFAULT_PRICE_TYPES, stale prices left out) and, apart and labelled, the cheapest of each other
term (or a stale price) that undercuts it, so a stale spot price never passes for the price a buyer pays today.

Each "from" price names who sells it and carries its caveats (app/scoring/pricing/price_terms.py PRICE_CAVEATS), as a
ranked
row does: a bare $2.60 for H200 hid that GMI Cloud's price is an article's and "where available". Where the on-demand
floor has caveats, the lowest current on-demand price without any is given beside it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from app.scoring.pricing.price_terms import price_caveats
from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE, UNSOLD_ON_THESE_TERMS

ON_DEMAND = "on_demand"


@dataclass(frozen=True, slots=True)
class TermFloor:
    """The cheapest offer of a GPU under one price term: current ones first, else the cheapest stale one."""

    price_type: str
    usd_per_gpu_hour: float
    stale: bool
    as_of: date | None
    provider_name: str = ""
    price_caveats: tuple[str, ...] = ()
    source_url: str = ""  # where the price was read


@dataclass(frozen=True, slots=True)
class PriceFloors:
    on_demand_usd_per_gpu_hour: float | None  # lowest current on-demand price; None: no current on-demand offer
    other_terms: list[TermFloor]  # cheapest first; only those below the on-demand price (all, without one)
    on_demand_provider: str = ""  # who sells the lowest current on-demand price
    on_demand_caveats: tuple[str, ...] = ()  # what a buyer must know about that price
    # Where that price has caveats: the lowest current on-demand price without any (None: no such offer, or no caveat)
    plain_on_demand_usd_per_gpu_hour: float | None = None
    on_demand_as_of: date | None = None  # that price's date and where it was read: dated as every price is
    on_demand_source_url: str = ""


@dataclass(frozen=True, slots=True)
class PricedOffer:
    gpu_id: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: date | None
    stale: bool
    provider_name: str = ""
    price_note: str = ""
    source_url: str = ""

    @property
    def caveats(self) -> tuple[str, ...]:
        return price_caveats(self.price_note)


def _cheapest(offers: list[PricedOffer]) -> PricedOffer:
    """The lowest price; of equal prices, one without caveats."""
    return min(offers, key=lambda o: (o.usd_per_gpu_hour, bool(o.caveats), o.provider_name))


def _floor(offers: list[PricedOffer]) -> TermFloor:
    current = [o for o in offers if not o.stale]
    best = _cheapest(current or offers)
    return TermFloor(
        best.price_type,
        best.usd_per_gpu_hour,
        best.stale,
        best.as_of,
        best.provider_name,
        best.caveats,
        best.source_url,
    )


def _on_demand(offers: list[PricedOffer]) -> tuple[PricedOffer | None, float | None]:
    """The lowest current on-demand offer, and where it has caveats the lowest current price without any."""
    current = [o for o in offers if not o.stale]
    if not current:
        return None, None
    best = _cheapest(current)
    plain = [o.usd_per_gpu_hour for o in current if not o.caveats]
    return best, (min(plain, default=None) if best.caveats else None)


def price_floors(offers: Iterable[PricedOffer]) -> dict[str, PriceFloors]:
    """Per GPU: its on-demand "from" price and the cheaper other terms; a list price of a shape not sold on its terms
    (specs.UNSOLD_ON_THESE_TERMS), or one a newer price of the same offer replaced (specs.SUPERSEDED_BY_NEWER_PRICE), is
    no price a buyer can pay, so never a floor."""
    by_term: dict[str, dict[str, list[PricedOffer]]] = {}
    for offer in offers:
        if UNSOLD_ON_THESE_TERMS in offer.price_note or SUPERSEDED_BY_NEWER_PRICE in offer.price_note:
            continue
        by_term.setdefault(offer.gpu_id, {}).setdefault(offer.price_type, []).append(offer)
    floors = {}
    for gpu, terms in by_term.items():
        best, plain = _on_demand(terms.get(ON_DEMAND, []))
        on_demand = best.usd_per_gpu_hour if best else None
        others = [_floor(group) for term, group in terms.items() if term != ON_DEMAND or on_demand is None]
        cheaper = [t for t in others if on_demand is None or t.usd_per_gpu_hour < on_demand]
        floors[gpu] = PriceFloors(
            on_demand,
            sorted(cheaper, key=lambda t: (t.usd_per_gpu_hour, t.price_type)),
            best.provider_name if best else "",
            best.caveats if best else (),
            plain,
            best.as_of if best else None,
            best.source_url if best else "",
        )
    return floors
