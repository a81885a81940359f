"""Payloads of /providers and a provider's page: its GPU offers and, where it sells tokens, its per-token prices, so a
provider selling only API access reads as what it sells, not as "0 GPU offers"."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from app.catalog import queries
from app.models.hardware import Offer, Provider
from app.scoring.pricing import token_prices
from app.service.catalog.list_filters import ProviderListQuery
from app.service.catalog.schemas import OfferPublic, ProviderDetail, ProviderPublic, TokenPricePublic
from app.service.catalog.views import offer_public, token_price_list, token_price_public

OfferRow = Offer | OfferPublic  # the list counts stored rows; a provider's page its payloads
H100_CLASS_PREFIX = "H100"  # catalog GPU ids of the H100s: H100-SXM, H100-PCIE, H100-NVL, H100-SXM-HBM2E-96GB


@dataclass
class TokenPriceSummary:
    """A provider's listed per-token prices: how many, and the first as token_price_list orders them."""

    count: int = 0
    first: TokenPricePublic | None = None


def provider_list(
    session: Session, stale_after_days: int, query: ProviderListQuery | None = None
) -> list[ProviderPublic]:
    """Every provider with its offers and token prices summed up: three queries, whatever the number of providers,
    and no payload per offer or price (the list shows counts and one price each)."""
    offers: dict[str, list[Offer]] = defaultdict(list)
    for offer, _ in queries.list_offers(session):
        if not queries.superseded(offer):
            offers[offer.provider_id].append(offer)
    prices = _token_price_summaries(session, stale_after_days)
    rows = [
        provider_public(p, offers[p.id], prices.get(p.id, TokenPriceSummary()), stale_after_days)
        for p in queries.providers_by_name(session)
    ]
    return query.apply(rows) if query else rows


def _token_price_summaries(session: Session, stale_after_days: int) -> dict[str, TokenPriceSummary]:
    """Per provider, token_price_list's count and first row (the first /plan compares with, cheapest output first,
    else the first listed), from the stored rows."""
    rows = queries.list_token_prices(session)  # cheapest output first
    kept = {id(t) for t in token_prices.one_per_provider_model(t for t, _ in rows)}
    today = queries.today_utc()
    counts: dict[str, int] = defaultdict(int)
    firsts: dict[str, tuple[bool, int]] = {}  # provider -> (not compared, row index): the least is listed first
    for index, (price, _) in enumerate(rows):
        if id(price) in kept:
            counts[price.provider_id] += 1
            stale = queries.is_stale(price.as_of, stale_after_days, today)
            rank = (not token_prices.comparable(price.unverified, price.deprecated, stale), index)
            firsts[price.provider_id] = min(firsts.get(price.provider_id, rank), rank)
    return {
        provider_id: TokenPriceSummary(count, token_price_public(*rows[firsts[provider_id][1]], stale_after_days))
        for provider_id, count in counts.items()
    }


def provider_public(
    provider: Provider, offers: Sequence[OfferRow], prices: TokenPriceSummary, stale_after_days: int
) -> ProviderPublic:
    today = queries.today_utc()
    current = (o for o in offers if _h100_on_demand(o) and not queries.is_stale(o.as_of, stale_after_days, today))
    h100 = min(current, key=lambda o: o.usd_per_gpu_hour, default=None)
    update = {
        "offer_count": len(offers),
        "token_price_count": prices.count,
        "cheapest_token_price": prices.first,
        "h100_usd_per_gpu_hour": h100.usd_per_gpu_hour if h100 else None,
        "h100_gpu_id": h100.gpu_id if h100 else "",
    }
    return ProviderPublic.model_validate(provider, update=update)


def _h100_on_demand(offer: OfferRow) -> bool:
    return offer.gpu_id.upper().startswith(H100_CLASS_PREFIX) and offer.price_type == "on_demand"


def provider_detail(session: Session, provider: Provider, stale_after_days: int) -> ProviderDetail:
    rows = queries.list_offers(session, provider=provider.id)
    offers = [offer_public(o, p, stale_after_days) for o, p in rows if not queries.superseded(o)]
    prices = token_price_list(session, None, stale_after_days, provider=provider.id)
    summary = TokenPriceSummary(len(prices), prices[0] if prices else None)
    listed = provider_public(provider, offers, summary, stale_after_days)
    return ProviderDetail(**listed.model_dump(), offers=offers, token_prices=prices)
