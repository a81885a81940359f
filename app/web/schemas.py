"""Public JSON shapes of the catalog (the XBase / XPublic pattern)."""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import SQLModel

from app.models import GpuBase, LlmModelBase, OfferBase, ProviderBase, TokenPriceBase


class GpuPublic(GpuBase):
    id: str
    cheapest_usd_per_gpu_hour: float | None = None


class OfferPublic(OfferBase):
    id: int
    provider_name: str
    stale: bool


class GpuDetail(GpuPublic):
    offers: list[OfferPublic]


class ProviderPublic(ProviderBase):
    id: str
    offer_count: int = 0


class ModelPublic(LlmModelBase):
    id: str


class TokenPricePublic(TokenPriceBase):
    id: int
    provider_name: str
    stale: bool


class ModelDetail(ModelPublic):
    token_prices: list[TokenPricePublic]


class Health(SQLModel):
    status: str
    database: str
    gpus: int
    offers: int
    newest_price_as_of: date | None = None


class PriceHistoryPublic(SQLModel):
    id: int
    offer_id: int
    usd_per_hour: float
    usd_per_gpu_hour: float
    as_of: date | None = None
    source_url: str
    changed_at: datetime
    changed_by: str
