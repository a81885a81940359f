"""A saved link replayed: its question over today's catalog at the prices it was saved with, and what changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from app.catalog.saved_links import SavedLink
from app.scoring.specs import CatalogSnapshot, Offer
from app.service.moved_offers import relabel_moved_offers
from app.service.workload_query import ParsedQuery, parse

MAX_QUERY_ITEMS = 200  # a saved query is canonical and short; a longer one is cut, never read whole


@dataclass(frozen=True, slots=True)
class Replay:
    """What a saved link's page ranks: its parsed question, the catalog at its prices, and the `saved` block."""

    parsed: ParsedQuery
    snapshot: CatalogSnapshot
    saved: dict[str, Any]


def query_items(query: str) -> list[tuple[str, str]]:
    return parse_qsl(query, keep_blank_values=True)[:MAX_QUERY_ITEMS]


def replay(link: SavedLink, current: CatalogSnapshot) -> Replay:
    """Today's GPUs, models and token prices with the link's offers (relabelled where the catalog has since moved
    them: moved_offers), and how many offers changed since."""
    offers = relabel_moved_offers(link.offers, current)
    snapshot = CatalogSnapshot(
        gpus=current.gpus,
        models=current.models,
        offers=offers,
        token_prices=current.token_prices,
        version=f"saved-{link.slug}",
        providers=current.providers,
    )
    saved = {
        "slug": link.slug,
        "prices_as_of": link.prices_as_of,
        "saved_at": link.saved_at,
        "offers_changed_since": price_changes(offers, current.offers),
        "current_url": f"{link.path}?{link.query}",
    }
    return Replay(parse(query_items(link.query)), snapshot, saved)


def price_changes(saved: tuple[Offer, ...], current: tuple[Offer, ...]) -> int:
    """Offers added, removed or repriced since the link was saved."""

    def key(o: Offer) -> tuple[Any, ...]:
        return (o.provider_id, o.gpu_id, o.gpu_count, o.price_type, o.instance_type, o.region)

    before = {key(o): o.usd_per_gpu_hour for o in saved}
    after = {key(o): o.usd_per_gpu_hour for o in current}
    return sum(1 for k in before.keys() | after.keys() if before.get(k) != after.get(k))
