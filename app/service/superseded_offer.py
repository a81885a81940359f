"""An offer asked for by id whose price a newer one replaced (an old link's offer_id): said, never estimated silently.

An estimate on such an offer is of its machine, which is unchanged and carries no price; but a reader who follows the
link must learn the price is history, by which price and since when, and which offer to use now.
"""

from __future__ import annotations

from typing import Any

from app.scoring.pricing.replaced_prices import replacement
from app.scoring.specs import CatalogSnapshot, Offer


def usd(value: float) -> str:
    """$8.50, $1.249: cents, or the catalog's tenths of a cent where it has them."""
    return f"${value:,.2f}" if round(value, 2) == value else f"${value:,.3f}"


def superseded_words(offer: Offer, snapshot: CatalogSnapshot) -> tuple[str, Offer | None, str]:
    """What a superseded price's offer id is told wherever it is asked for (an estimate, the offer's price history):
    the note ('superseded: offer 132's $5.50/GPU-h (undated) was replaced by ...; no one rents at the earlier price and
    no ranking lists it'), the replacing offer (None: the catalog no longer holds it) and the url of its row."""
    now = replacement(offer, snapshot.offers)
    then = f"offer {offer.offer_id}'s {usd(offer.usd_per_gpu_hour)}/GPU-h ({offer.as_of or 'undated'})"
    if now is None:
        replaced, url = "a newer price the catalog no longer holds", f"/gpus/{offer.gpu_id}#earlier-prices"
    else:
        replaced = f"{now.provider_name}'s {usd(now.usd_per_gpu_hour)}/GPU-h since {now.as_of} (offer {now.offer_id})"
        url = f"/gpus/{offer.gpu_id}#offer-{now.offer_id}"
    note = f"superseded: {then} was replaced by {replaced}; no one rents at the earlier price and no ranking lists it"
    return note, now, url


def superseded_history_note(offer_id: int, snapshot: CatalogSnapshot) -> str | None:
    """The offer's price history's word on its latest price: the note where a newer price replaced it, else None."""
    offer = next((o for o in snapshot.offers if o.offer_id == offer_id), None)
    if offer is None or not offer.superseded:
        return None
    note, _, url = superseded_words(offer, snapshot)
    return f"{note} ({url})"


def superseded_body(offer: Offer | None, snapshot: CatalogSnapshot) -> dict[str, Any] | None:
    """The `offer_superseded` block of an estimate: null unless `offer` is a superseded price."""
    if offer is None or not offer.superseded:
        return None
    note, now, url = superseded_words(offer, snapshot)
    return {
        "note": f"{note}. This estimate is of offer {offer.offer_id}'s machine, which carries no price",
        "usd_per_gpu_hour": offer.usd_per_gpu_hour,
        "as_of": offer.as_of,
        "replaced_by_offer_id": now.offer_id if now else None,
        "replaced_by_usd_per_gpu_hour": now.usd_per_gpu_hour if now else None,
        "replaced_since": now.as_of if now else None,
        "url": url,
    }
