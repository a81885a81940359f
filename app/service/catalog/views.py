"""Payload builders for the catalog: the API and the pages' JSON twins return exactly these."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.catalog import queries
from app.catalog.model_families import family_of
from app.catalog.prices.price_floors import PriceFloors
from app.catalog.snapshot import model_spec
from app.models.hardware import Gpu, Offer, PriceHistory, Provider
from app.models.llm import LlmModel, TokenPrice
from app.scoring.hardware.dtypes import WEIGHT_BYTES
from app.scoring.inference.ranking.release_precision import RELEASE_WEIGHT_DTYPE
from app.scoring.inference.step.memory import kv_bytes_per_token
from app.scoring.pricing import price_terms, token_prices
from app.scoring.pricing.replaced_prices import replacement
from app.service.catalog.list_filters import GpuListQuery, GpuOffersQuery, ModelListQuery
from app.service.catalog.schemas import (
    EarlierPricePublic,
    GpuDetail,
    GpuPublic,
    ModelDetail,
    ModelPublic,
    OfferPublic,
    PriceHistoryPublic,
    TermFloorPublic,
    TokenPricePublic,
)
from app.service.charts.gpu_prices import cheapest_price_bars, price_chart_label, price_charts

EVERY_OFFER = GpuOffersQuery()  # no filter, cheapest first


def _prices(cheapest: float | None, floors: PriceFloors | None) -> dict[str, Any]:
    return {
        "cheapest_usd_per_gpu_hour": cheapest,
        "on_demand_usd_per_gpu_hour": floors.on_demand_usd_per_gpu_hour if floors else None,
        "on_demand_provider": floors.on_demand_provider if floors else "",
        "on_demand_price_caveats": list(floors.on_demand_caveats) if floors else [],
        "plain_on_demand_usd_per_gpu_hour": floors.plain_on_demand_usd_per_gpu_hour if floors else None,
        "on_demand_as_of": floors.on_demand_as_of if floors else None,
        "on_demand_price_source_url": floors.on_demand_source_url if floors else "",
        "other_terms": [
            TermFloorPublic.model_validate(t, update={"price_source_url": t.source_url}) for t in floors.other_terms
        ]
        if floors
        else [],
    }


def gpu_public(row: queries.GpuRow) -> GpuPublic:
    return GpuPublic.model_validate(row.gpu, update=_prices(row.cheapest_usd_per_gpu_hour, row.floors))


def offer_public(offer: Offer, provider: Provider, stale_after_days: int) -> OfferPublic:
    stale = queries.is_stale(offer.as_of, stale_after_days)
    caveats = list(price_terms.price_caveats(offer.price_note))
    return OfferPublic.model_validate(
        offer, update={"provider_name": provider.name, "stale": stale, "price_caveats": caveats}
    )


def token_price_public(price: TokenPrice, provider: Provider, stale_after_days: int) -> TokenPricePublic:
    stale = queries.is_stale(price.as_of, stale_after_days)
    update = {
        "provider_name": provider.name,
        "stale": stale,
        "as_of_label": token_prices.as_of_label(price.as_of, price.as_of_basis),
        "flags": list(token_prices.row_flags(price, stale)),
    }
    return TokenPricePublic.model_validate(price, update=update)


def token_price_list(
    session: Session, model: str | None, stale_after_days: int, provider: str | None = None
) -> list[TokenPricePublic]:
    """The listed per-token prices (one entry per provider and model unless their terms differ), each with its date
    as the reference gives it and its labels, as /plan lists them: those it compares with first, then those it never
    does (unverified, deprecated, stale), so a placeholder is not the first, cheapest-looking row; each group cheapest
    output first."""
    rows = queries.list_token_prices(session, model, provider)
    kept = {id(t) for t in token_prices.one_per_provider_model(t for t, _ in rows)}
    prices = [token_price_public(t, p, stale_after_days) for t, p in rows if id(t) in kept]
    return sorted(
        prices, key=lambda price: not token_prices.comparable(price.unverified, price.deprecated, price.stale)
    )


def gpu_list(session: Session, query: GpuListQuery, stale_after_days: int) -> list[GpuPublic]:
    rows = queries.list_gpus(session, query.vendor, query.min_memory_gb, query.sort, stale_after_days)
    return [gpu_public(row) for row in rows]


def gpu_detail(
    session: Session, gpu: Gpu, stale_after_days: int, query: GpuOffersQuery | None = EVERY_OFFER
) -> GpuDetail:
    """A GPU with its offers (those `query` keeps, in its order); a price a newer one of the same offer replaced is
    listed apart, as history. The "from" prices stay those of every offer: a filter narrows the table, not the card."""
    rows = queries.list_offers(session, gpu=gpu.id)
    offers = [offer_public(o, p, stale_after_days) for o, p in rows if not queries.superseded(o)]
    earlier = [_earlier_price(offer_public(o, p, stale_after_days), offers) for o, p in rows if queries.superseded(o)]
    cheapest = min((o.usd_per_gpu_hour for o in offers), default=None)
    floors = queries.gpu_price_floors(session, stale_after_days, gpu.id).get(gpu.id)
    update = {**_prices(cheapest, floors), "offers": offers, "earlier_prices": earlier}
    return filtered_offers(GpuDetail.model_validate(gpu, update=update), query, stale_after_days)


def filtered_offers(detail: GpuDetail, query: GpuOffersQuery | None, stale_after_days: int) -> GpuDetail:
    """The offers and earlier prices `query` keeps, in its order, and the price chart of those offers; none where the
    query could not be read."""
    if query is None:
        return detail.model_copy(update={"offers": [], "earlier_prices": [], "charts": []})
    offers = query.apply(detail.offers)
    named = {o.provider_id: o.provider_name for o in detail.offers}  # a filtered-out provider is named too
    label = price_chart_label(detail.name, query.filter_words(named.get(query.provider or "", "")), stale_after_days)
    charts = price_charts(cheapest_price_bars(offers), label)
    return detail.model_copy(
        update={"offers": offers, "earlier_prices": query.apply(detail.earlier_prices), "charts": charts}
    )


def _earlier_price(earlier: OfferPublic, offers: list[OfferPublic]) -> EarlierPricePublic:
    now = replacement(earlier, offers)
    return EarlierPricePublic(**earlier.model_dump(), replaced_by_offer_id=now.id if now else None)


def model_public(model: LlmModel) -> ModelPublic:
    return ModelPublic.model_validate(model, update={"family": family_of(model.id)})


def model_list(session: Session, query: ModelListQuery | None = None) -> list[ModelPublic]:
    models = [model_public(m) for m in queries.list_models(session)]
    return query.apply(models) if query else models


def model_detail(session: Session, model: LlmModel, stale_after_days: int) -> ModelDetail:
    """The model, its memory footprint (what its page shows) and its per-token prices."""
    prices = token_price_list(session, model.id, stale_after_days)
    footprint = model_footprint(model)
    return ModelDetail.model_validate(
        model, update={"token_prices": prices, "family": family_of(model.id), **footprint}
    )


def model_footprint(model: LlmModel) -> dict[str, Any]:
    """Weights at BF16 and as released, and the BF16 KV cache per token: the model page's numbers, in its JSON too
    (they were on the page only, found by qa37)."""
    release_dtype = RELEASE_WEIGHT_DTYPE.get(model.release_precision, "bf16")
    released = release_dtype != "bf16"
    return {
        "weights_gb_bf16": model.params_b * WEIGHT_BYTES["bf16"],
        "release_weight_dtype": release_dtype if released else None,
        "release_weights_gb": model.params_b * WEIGHT_BYTES[release_dtype] if released else None,
        "kv_cache_bytes_per_token_bf16": int(kv_bytes_per_token(model_spec(model), "bf16")),
    }


def price_history_public(rows: list[PriceHistory], superseded_note: str | None) -> list[PriceHistoryPublic]:
    """An offer's price rows, oldest first; the latest carries the note where a newer offer's price replaced it."""
    public = [PriceHistoryPublic.model_validate(row, from_attributes=True) for row in rows]
    if public and superseded_note:
        public[-1].superseded_note = superseded_note
    return public
