"""Payloads of /providers and a provider's page: its GPU offers and, where it sells tokens, its per-token prices, so a
provider selling only API access reads as what it sells, not as "0 GPU offers"."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlmodel import Session

from app.catalog import queries
from app.models.hardware import Offer, Provider
from app.web.catalog.list_filters import ProviderListQuery
from app.web.catalog.schemas import OfferPublic, ProviderDetail, ProviderPublic, TokenPricePublic
from app.web.catalog.views import offer_public, token_price_list

OfferRow = Offer | OfferPublic  # the list counts stored rows; a provider's page its payloads
H100_CLASS_PREFIX = "H100"  # catalog GPU ids of the H100s: H100-SXM, H100-PCIE, H100-NVL, H100-SXM-HBM2E-96GB


def provider_list(
    session: Session, stale_after_days: int, query: ProviderListQuery | None = None
) -> list[ProviderPublic]:
    """Every provider with its offers and token prices summed up: three queries, whatever the number of providers;
    the offers are counted from their stored rows, no payload built per offer (the list shows counts and one price)."""
    offers: dict[str, list[Offer]] = defaultdict(list)
    for offer, _ in queries.list_offers(session):
        if not queries.superseded(offer):
            offers[offer.provider_id].append(offer)
    prices: dict[str, list[TokenPricePublic]] = defaultdict(list)
    for price in token_price_list(session, None, stale_after_days):
        prices[price.provider_id].append(price)
    rows = [
        provider_public(p, offers[p.id], prices[p.id], stale_after_days) for p in queries.providers_by_name(session)
    ]
    return query.apply(rows) if query else rows


def provider_public(
    provider: Provider, offers: Sequence[OfferRow], prices: list[TokenPricePublic], stale_after_days: int
) -> ProviderPublic:
    today = queries.today_utc()
    current = (o for o in offers if _h100_on_demand(o) and not queries.is_stale(o.as_of, stale_after_days, today))
    h100 = min(current, key=lambda o: o.usd_per_gpu_hour, default=None)
    update = {
        "offer_count": len(offers),
        "token_price_count": len(prices),
        "cheapest_token_price": prices[0] if prices else None,
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
    summary = provider_public(provider, offers, prices, stale_after_days)
    return ProviderDetail(**summary.model_dump(), offers=offers, token_prices=prices)
