"""Read queries of the catalog, shared by the pages, the JSON API and the CLI."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.catalog.prices.price_floors import PricedOffer, PriceFloors, price_floors
from app.models.hardware import Gpu, Offer, PriceHistory, Provider
from app.models.llm import LlmModel, TokenPrice
from app.scoring import specs
from app.scoring.pricing.offer_readings import newest_readings, reading_key

GpuSort = Literal["memory", "bandwidth", "bf16", "fp8", "price", "name"]
# Sort key → the Gpu attribute it orders by (largest first).
SORT_ATTRIBUTES = {
    "memory": "memory_gb",
    "bandwidth": "memory_bandwidth_tbs",
    "bf16": "bf16_tflops",
    "fp8": "fp8_tflops",
}


@dataclass(frozen=True, slots=True)
class GpuRow:
    gpu: Gpu
    cheapest_usd_per_gpu_hour: float | None  # any offer, any terms or date (not a price a newer one replaced)
    floors: PriceFloors | None  # the on-demand "from" price and the cheaper other terms; None: no offer


def gpu_price_floors(session: Session, stale_after_days: int, gpu_id: str | None = None) -> dict[str, PriceFloors]:
    query = select(Offer, Provider.name).join(Provider, col(Offer.provider_id) == col(Provider.id))
    if gpu_id:
        query = query.where(Offer.gpu_id == gpu_id)
    today = today_utc()
    return price_floors(
        PricedOffer(
            o.gpu_id,
            o.price_type,
            o.usd_per_gpu_hour,
            o.as_of,
            is_stale(o.as_of, stale_after_days, today),
            provider_name=name,
            price_note=o.price_note,
            source_url=o.source_url,
        )
        for o, name in session.exec(query).all()
    )


def cheapest_prices(session: Session) -> dict[str, float]:
    """Lowest $/GPU-hour per GPU over all offers (a price a newer one of its offer replaced is history, not one)."""
    query = select(Offer.gpu_id, func.min(Offer.usd_per_gpu_hour)).where(
        col(Offer.price_note).not_like(f"%{specs.SUPERSEDED_BY_NEWER_PRICE}%")
    )
    rows = session.exec(query.group_by(Offer.gpu_id)).all()
    return {gpu_id: float(price) for gpu_id, price in rows}


def list_gpus(
    session: Session,
    vendor: str | None = None,
    min_memory_gb: float | None = None,
    sort: GpuSort = "name",
    stale_after_days: int = 180,
) -> list[GpuRow]:
    """GPUs with their prices, filtered and sorted (best first; unknown values last). `price` sorts by the
    on-demand "from" price the page shows."""
    query = select(Gpu)
    if vendor:
        query = query.where(func.lower(Gpu.vendor) == vendor.lower())
    if min_memory_gb is not None:
        query = query.where(Gpu.memory_gb >= min_memory_gb)
    prices, floors = cheapest_prices(session), gpu_price_floors(session, stale_after_days)
    rows = [GpuRow(gpu, prices.get(gpu.id), floors.get(gpu.id)) for gpu in session.exec(query).all()]
    # By name first, so ties (every 80 GB card, every GPU without a price) keep name order, not the seed's.
    rows.sort(key=lambda r: (r.gpu.vendor, r.gpu.name))
    if sort == "name":
        return rows
    if sort == "price":
        return sorted(rows, key=lambda r: (_on_demand(r) is None, _on_demand(r) or 0.0))
    attribute = SORT_ATTRIBUTES[sort]
    return sorted(rows, key=lambda r: (getattr(r.gpu, attribute) is None, -(getattr(r.gpu, attribute) or 0.0)))


def _on_demand(row: GpuRow) -> float | None:
    return row.floors.on_demand_usd_per_gpu_hour if row.floors else None


def vendors(session: Session) -> list[str]:
    return list(session.exec(select(Gpu.vendor).distinct().order_by(Gpu.vendor)).all())


def list_offers(
    session: Session,
    gpu: str | None = None,
    provider: str | None = None,
    price_type: str | None = None,
    max_usd_per_gpu_hour: float | None = None,
) -> list[tuple[Offer, Provider]]:
    query = select(Offer, Provider).join(Provider, col(Offer.provider_id) == col(Provider.id))
    if gpu:
        query = query.where(func.lower(Offer.gpu_id) == gpu.lower())
    if provider:
        query = query.where(func.lower(Offer.provider_id) == provider.lower())
    if price_type:
        query = query.where(Offer.price_type == price_type)
    if max_usd_per_gpu_hour is not None:
        query = query.where(Offer.usd_per_gpu_hour <= max_usd_per_gpu_hour)
    query = query.order_by(col(Offer.usd_per_gpu_hour), col(Offer.provider_id), col(Offer.id))
    rows, _ = newest_readings(session.exec(query).all(), lambda row: offer_reading(row[0]), lambda row: _dated(row[0]))
    return [(offer, prov) for offer, prov in rows]


def superseded(offer: Offer) -> bool:
    """A price a newer, dated price of the same offer replaced (specs.Offer.superseded): the catalog shows it as
    history only."""
    return specs.SUPERSEDED_BY_NEWER_PRICE in offer.price_note


def offer_reading(offer: Offer | specs.Offer) -> tuple[Hashable, ...] | None:
    """offer_readings.reading_key of a stored offer or a snapshot's: an older copy of it is hidden where a newer one
    is stored (a database seeded before the seed builder merged such copies, or an import)."""
    return reading_key(
        offer.provider_id,
        offer.gpu_id,
        offer.gpu_count,
        offer.price_type,
        offer.instance_type,
        offer.region,
        offer.usd_per_gpu_hour,
    )


def _dated(offer: Offer | specs.Offer) -> date:
    return offer.as_of or date.min


def providers_by_name(session: Session) -> list[Provider]:
    return sorted(session.exec(select(Provider)).all(), key=lambda p: (p.name.casefold(), p.id))


def get_provider(session: Session, provider_id: str) -> Provider | None:
    found = session.get(Provider, provider_id)
    return found or session.exec(select(Provider).where(func.lower(Provider.id) == provider_id.lower())).first()


def list_models(session: Session) -> list[LlmModel]:
    # then the id, so a page of /api/v1/models never shifts between requests
    return list(session.exec(select(LlmModel).order_by(col(LlmModel.name), col(LlmModel.id))).all())


def list_token_prices(
    session: Session, model: str | None = None, provider: str | None = None
) -> list[tuple[TokenPrice, Provider]]:
    query = select(TokenPrice, Provider).join(Provider, col(TokenPrice.provider_id) == col(Provider.id))
    if model:
        query = query.where(func.lower(TokenPrice.model_id) == model.lower())
    if provider:
        query = query.where(TokenPrice.provider_id == provider)
    # ties on output: the cheaper input first (Together $3/$7 before SambaNova $5/$7 for DeepSeek-R1), then the ids,
    # the row's last, so a page of /api/v1/token-prices never shifts between requests
    query = query.order_by(
        col(TokenPrice.output_usd_per_mtok),
        col(TokenPrice.input_usd_per_mtok),
        col(TokenPrice.provider_id),
        col(TokenPrice.id),
    )
    return [(price, prov) for price, prov in session.exec(query).all()]


def get_gpu(session: Session, gpu_id: str) -> Gpu | None:
    return session.get(Gpu, gpu_id) or session.exec(select(Gpu).where(func.lower(Gpu.id) == gpu_id.lower())).first()


def get_model(session: Session, model_id: str) -> LlmModel | None:
    found = session.get(LlmModel, model_id)
    return found or session.exec(select(LlmModel).where(func.lower(LlmModel.id) == model_id.lower())).first()


def today_utc() -> date:
    """The day staleness is counted from: UTC's, as the ranking's snapshot counts it (snapshot.today_utc), so a price
    the catalog pages call fresh is one the ranking does not leave out as stale, whatever the server's time zone."""
    return datetime.now(UTC).date()


def is_stale(as_of: date | None, stale_after_days: int, today: date | None = None) -> bool:
    """Older than the limit, or undated (a historical snapshot whose day nobody recorded)."""
    return as_of is None or (today or today_utc()) - as_of > timedelta(days=stale_after_days)


def price_history(session: Session, offer_id: int) -> list[PriceHistory] | None:
    """An offer's price rows, oldest first; None when there is no such offer."""
    if session.get(Offer, offer_id) is None:
        return None
    query = select(PriceHistory).where(PriceHistory.offer_id == offer_id).order_by(col(PriceHistory.id))
    return list(session.exec(query).all())
