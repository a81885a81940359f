"""A saved link's prices that moved since, among the offers its question ranks: each offer, saved price, today's.

A link reopened after Lambda's 2×B200 went from $6.89 to $9.89/GPU-h said "1 offer changed since" and named none,
though that offer was the link's #1 (qa43): the reader could not tell whether the answer they shared still held.
"""

from __future__ import annotations

from typing import Any

from app.scoring.pricing.offers import matching_offers
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import Filters
from app.service.superseded_offer import usd

MAX_NAMED = 3  # display: the note names this many moves, cheapest first; the JSON lists them all


def _key(o: Offer) -> tuple[Any, ...]:
    return (o.provider_id, o.gpu_id, o.gpu_count, o.price_type, o.instance_type, o.region)


def price_moves(saved: tuple[Offer, ...], filters: Filters | None, current: CatalogSnapshot) -> list[dict[str, Any]]:
    """Offers repriced, added or removed since the link was saved that its question's filters rank (the saved offer
    for a removed one, today's otherwise), cheapest first; none without a question."""
    if filters is None:
        return []
    before = {_key(o): o for o in saved if not o.superseded}
    after = {_key(o): o for o in current.offers if not o.superseded}
    moved = [k for k in before.keys() | after.keys() if _price(before.get(k)) != _price(after.get(k))]
    ranked = {id(o) for o in matching_offers([after.get(k) or before[k] for k in moved], current.gpus, filters)}
    rows = [_row(before.get(k), after.get(k)) for k in moved if id(after.get(k) or before[k]) in ranked]
    return sorted(rows, key=_cheapest_first)


def _cheapest_first(row: dict[str, Any]) -> tuple[Any, ...]:
    prices = [p for p in (row["saved_usd_per_gpu_hour"], row["usd_per_gpu_hour"]) if p is not None]
    return (min(prices), row["provider"], row["gpu_id"], row["gpu_count"], row["instance_type"], row["region"])


def _price(offer: Offer | None) -> float | None:
    return None if offer is None else offer.usd_per_gpu_hour


def _row(then: Offer | None, now: Offer | None) -> dict[str, Any]:
    offer = now or then
    assert offer is not None  # a moved key is in one of the two catalogs
    return {
        "offer_id": offer.offer_id,
        "provider": offer.provider_id,
        "provider_name": offer.provider_name,
        "gpu_id": offer.gpu_id,
        "gpu_count": offer.gpu_count,
        "price_type": offer.price_type,
        "instance_type": offer.instance_type,
        "region": offer.region,
        "saved_usd_per_gpu_hour": _price(then),
        "usd_per_gpu_hour": _price(now),
        "as_of": now.as_of.isoformat() if now is not None and now.as_of else None,
    }


def moves_note(moves: list[dict[str, Any]], changed: int) -> str:
    """The saved page's words on them: up to MAX_NAMED, each offer with its saved price and today's ('' when no
    offer changed)."""
    if not changed:
        return ""
    if not moves:
        return "None of them is an offer this question ranks."
    named = "; ".join(_words(m) for m in moves[:MAX_NAMED])
    more = len(moves) - MAX_NAMED
    lead = "The one this question ranks" if len(moves) == 1 else f"{len(moves)} of them this question ranks"
    return f"{lead}: {named}{f'; and {more} more' if more > 0 else ''}."


def _words(move: dict[str, Any]) -> str:
    what = f"{move['provider_name']}'s {move['gpu_count']}×{move['gpu_id']} {move['price_type'].replace('_', ' ')}"
    then, now = move["saved_usd_per_gpu_hour"], move["usd_per_gpu_hour"]
    if then is None:
        return f"{what}, new since at {usd(now)}/GPU-h ({move['as_of'] or 'undated'})"
    if now is None:
        return f"{what}, saved at {usd(then)}/GPU-h, no longer in the catalog"
    return f"{what}, saved at {usd(then)}/GPU-h, {usd(now)} today ({move['as_of'] or 'undated'})"
