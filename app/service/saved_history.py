"""A saved link's prices that are history now: superseded prices its question would rank, which the replay leaves out.

A link stores every offer of the catalog it was saved with, superseded prices too (specs.Offer.superseded: a newer
price of the same offer replaced them). Since trust7 no ranking lists such a price, a replay included, so a link saved
when one still ranked (Nebius's undated $5.50/GPU-h B200 was a 70B full fine-tune's #1 with stale prices asked for)
shows other rows, even another #1, while its price count says nothing changed: the price did not. The saved block
names those prices and what replaced them, so the reader is told instead of silently shown a different answer.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from app.scoring.pricing.offers import matching_offers
from app.scoring.pricing.replaced_prices import replacement
from app.scoring.specs import SUPERSEDED_BY_NEWER_PRICE, CatalogSnapshot, Offer
from app.scoring.workload import Filters
from app.service.superseded_offer import usd

# The day rankings stopped listing superseded prices (stale prices asked for or not): a link saved before it may have
# ranked one, a link saved since cannot have.
SUPERSEDED_UNRANKED_SINCE = date(2026, 12, 7)


def history_offers(saved: tuple[Offer, ...], filters: Filters | None, current: CatalogSnapshot) -> list[Offer]:
    """The saved superseded prices the question's filters would rank if they were offers (its GPUs, providers, price
    terms, stale prices asked for or not), cheapest first; none without a question."""
    superseded = [o for o in saved if o.superseded]
    if filters is None or not superseded:
        return []
    as_offers = {id(o): replace(o, price_note=o.price_note.replace(SUPERSEDED_BY_NEWER_PRICE, "")) for o in superseded}
    by_id = {id(o): o for o in superseded}
    kept = {id(o) for o in matching_offers(as_offers.values(), current.gpus, filters)}
    ids = [k for k, o in as_offers.items() if id(o) in kept]
    return sorted((by_id[k] for k in ids), key=lambda o: (o.usd_per_gpu_hour, o.provider_id, o.gpu_id))


def history_note(offers: list[Offer], current: CatalogSnapshot, saved_at: datetime | None = None) -> str:
    """The saved page's words on them ('' when none): each price, what replaced it, and, for a link saved before
    SUPERSEDED_UNRANKED_SINCE (or whose save time is unknown), that it may have ranked one."""
    if not offers:
        return ""
    parts = []
    for offer in offers:
        dated = offer.as_of or "undated"
        then = f"{offer.provider_name}'s {usd(offer.usd_per_gpu_hour)}/GPU-h {offer.gpu_id} ({dated})"
        now = replacement(offer, current.offers)
        parts.append(
            f"{then}, replaced by {usd(now.usd_per_gpu_hour)}/GPU-h since {now.as_of}"
            if now is not None
            else f"{then}, replaced by a newer price"
        )
    one = len(offers) == 1
    note = (
        f"{'A price' if one else f'{len(offers)} prices'} this link was saved with {'is' if one else 'are'} history "
        f"now, superseded, and no ranking lists {'it' if one else 'them'}, this one included: {'; '.join(parts)}."
    )
    if saved_at is not None and saved_at.date() >= SUPERSEDED_UNRANKED_SINCE:
        return note
    return (
        f"{note} A link saved while superseded prices still ranked (before {SUPERSEDED_UNRANKED_SINCE}) may have had "
        f"{'it' if one else 'one'} among its rows, even as its #1: those rows are not shown here."
    )
