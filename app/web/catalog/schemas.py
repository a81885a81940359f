"""Public JSON shapes of the catalog (the XBase / XPublic pattern)."""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import Field, SQLModel

from app.models.hardware import GpuBase, OfferBase, ProviderBase
from app.models.llm import LlmModelBase, TokenPriceBase


class TermFloorPublic(SQLModel):
    price_type: str
    usd_per_gpu_hour: float
    stale: bool
    as_of: date | None
    provider_name: str = Field("", description="who sells this price")
    price_caveats: list[str] = Field(default_factory=list, description="what a buyer must know about this price")
    price_source_url: str = Field("", description="where this price was read")


class GpuPublic(GpuBase):
    id: str
    cheapest_usd_per_gpu_hour: float | None = Field(None, description="lowest price of any offer: any terms, any date")
    on_demand_usd_per_gpu_hour: float | None = Field(
        None, description="lowest current on-demand price (stale ones left out): what a ranking uses by default"
    )
    on_demand_provider: str = Field("", description="who sells the lowest current on-demand price")
    on_demand_price_caveats: list[str] = Field(
        default_factory=list,
        description="labels of that price's caveats (a ranked row's price_caveats): an article's price, where "
        "available, community-hosted, a consumer card, a managed deployment...",
    )
    plain_on_demand_usd_per_gpu_hour: float | None = Field(
        None, description="where that price has caveats: the lowest current on-demand price without any"
    )
    on_demand_as_of: date | None = Field(None, description="the date of the lowest current on-demand price")
    on_demand_price_source_url: str = Field("", description="where the lowest current on-demand price was read")
    other_terms: list[TermFloorPublic] = Field(
        default_factory=list,
        description="per other price term, its cheapest offer (current, else stale) where it undercuts on demand",
    )


class OfferPublic(OfferBase):
    id: int
    provider_name: str
    stale: bool
    price_caveats: list[str] = Field(
        default_factory=list, description="labels of the price note's caveats a buyer must see, as a ranked row shows"
    )


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
    as_of_label: str = Field(description="the date as the reference gives it: 2026-11-05, ≤2026-12-01, ~2025, undated")
    flags: list[str] = Field(
        default_factory=list,
        description="unverified, deprecated (listed, never compared), disputed, availability_unconfirmed, weak_source "
        "(compared, labelled; a disputed price at the higher of its figures), stale (compared only with include_stale)",
    )


class ModelDetail(ModelPublic):
    token_prices: list[TokenPricePublic]


class Health(SQLModel):
    status: str
    database: str
    gpus: int
    offers: int = Field(description="every offer the catalog holds, dated or not")
    offers_dated: int = Field(
        description="offers with a price date (an undated price, a historical snapshot, counts as stale: ranked only "
        "with include_stale)"
    )
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
