"""Offers a saved link stored under a provider or price type the catalog has since corrected, read as they are now.

A link replays the prices it was saved with (app/service/saved_links.py), but not their old labels where the catalog
found them wrong: before migration 0010, RunPod's Community Cloud rows were `runpod`, on demand, named as Secure Cloud,
so an old link ranked third-party hosts as plain "RunPod on demand", in default rankings. Each move here is one of
the catalog's migrations, applied to the stored JSON as it is read; the stored row is left as it was saved.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.scoring.specs import CatalogSnapshot, Offer


@dataclass(frozen=True, slots=True)
class Move:
    from_provider: str
    region: str
    from_price_type: str
    to_provider: str
    to_provider_name: str  # where the current catalog has no offer of the provider to take its name from
    to_price_type: str
    migration: str


MOVES = (
    Move("runpod", "Community Cloud", "on_demand", "runpod-community", "RunPod Community Cloud", "marketplace", "0010"),
)


def relabel_moved_offers(saved: tuple[Offer, ...], current: CatalogSnapshot) -> tuple[Offer, ...]:
    """`saved` with each offer a catalog migration moved under its current provider and price type; its price,
    date and machine as saved. The price note (its caveats) is the current catalog's for the same machine where it
    has one, since the old row's note did not say what the move says."""
    names = {o.provider_id: o.provider_name for o in current.offers}
    notes = {(o.provider_id, o.gpu_id, o.gpu_count, o.region, o.price_type): o.price_note for o in current.offers}
    out = []
    for offer in saved:
        for m in MOVES:
            if (offer.provider_id, offer.region, offer.price_type) != (m.from_provider, m.region, m.from_price_type):
                continue
            key = (m.to_provider, offer.gpu_id, offer.gpu_count, offer.region, m.to_price_type)
            offer = replace(
                offer,
                provider_id=m.to_provider,
                provider_name=names.get(m.to_provider, m.to_provider_name),
                price_type=m.to_price_type,
                price_note=notes.get(key, offer.price_note),
            )
        out.append(offer)
    return tuple(out)
