"""Public JSON shapes of the catalog (the XBase / XPublic pattern)."""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import Field, SQLModel

from app.models.hardware import GpuBase, OfferBase, ProviderBase
from app.models.llm import LlmModelBase, TokenPriceBase
from app.service.charts.tables import ChartTable


class TermFloorPublic(SQLModel):
    price_type: str = Field(description="the price term: spot, reserved, marketplace or capacity_block")
    usd_per_gpu_hour: float = Field(description="its cheapest offer's $ per GPU-hour")
    stale: bool = Field(description="true where the price is older than GPUMATCH_STALE_AFTER_DAYS or undated")
    as_of: date | None = Field(description="the price's date (null: undated)")
    provider_name: str = Field("", description="who sells this price")
    price_caveats: list[str] = Field(default_factory=list, description="what a buyer must know about this price")
    price_source_url: str = Field("", description="where this price was read")


class GpuPublic(GpuBase):
    id: str = Field(description="the GPU's catalog id (the rank API's gpu_id and gpus filter)")
    cheapest_usd_per_gpu_hour: float | None = Field(
        None,
        description="lowest price of any offer: any terms, any date (not a price a newer one of the offer replaced)",
    )
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
    id: int = Field(description="the offer's catalog id (a ranked option's offer_id; /api/v1/offers/{id}/history)")
    provider_name: str = Field(description="the seller's name")
    stale: bool = Field(
        description="true where as_of is older than GPUMATCH_STALE_AFTER_DAYS or missing: ranked only with "
        "include_stale"
    )
    price_caveats: list[str] = Field(
        default_factory=list, description="labels of the price note's caveats a buyer must see, as a ranked row shows"
    )


class EarlierPricePublic(OfferPublic):
    replaced_by_offer_id: int | None = Field(
        default=None,
        description="the offer whose current price replaced this one (the provider's newest dated price of the GPU on "
        "the same terms, same instance size first; listed in `offers`); null where the catalog no longer holds one",
    )


class GpuDetail(GpuPublic):
    offers: list[OfferPublic] = Field(
        description="every offer of this GPU, any terms, any date, at its latest price (the one a ranking may use)"
    )
    earlier_prices: list[EarlierPricePublic] = Field(
        default_factory=list,
        description="history: prices a newer, dated price of the same offer replaced (their price note names it); "
        "never ranked, even with include_stale",
    )
    charts: list[ChartTable] = Field(
        default_factory=list,
        description="the GPU page's price chart of these offers (those the filters keep), as its no-JavaScript table "
        "gives it: a row per provider and price type (`provider (price type[, stale])`), its cheapest $ per GPU-hour; "
        "empty where no offer is kept",
    )


class TokenPricePublic(TokenPriceBase):
    id: int = Field(description="the price's catalog id")
    provider_name: str = Field(description="the seller's name")
    stale: bool = Field(
        description="true where as_of is older than GPUMATCH_STALE_AFTER_DAYS or missing: compared only with "
        "include_stale"
    )
    as_of_label: str = Field(description="the date as the reference gives it: 2026-11-05, ≤2026-12-01, ~2025, undated")
    flags: list[str] = Field(
        default_factory=list,
        description="unverified, deprecated (listed, never compared), disputed, availability_unconfirmed, weak_source "
        "(compared, labelled; a disputed price at the higher of its figures), stale (compared only with include_stale)",
    )


class ProviderPublic(ProviderBase):
    id: str = Field(description="the provider's catalog id (the providers filter)")
    offer_count: int = Field(default=0, description="GPU offers it has in the catalog")
    token_price_count: int = Field(
        default=0, description="per-token API prices it lists (each in /api/v1/providers/{id}'s token_prices)"
    )
    cheapest_token_price: TokenPricePublic | None = Field(
        default=None,
        description="its first-listed per-token price: one /plan compares with where it has any, cheapest output "
        "first (null: it lists none)",
    )
    h100_usd_per_gpu_hour: float | None = Field(
        default=None,
        description="its lowest current on-demand $ per GPU-hour for an H100 (SXM, PCIe, NVL; stale prices left "
        "out; null: none)",
    )
    h100_gpu_id: str = Field(default="", description="the H100 that price rents (empty: none)")


class ProviderDetail(ProviderPublic):
    offers: list[OfferPublic] = Field(description="its GPU offers at their latest prices, cheapest $/GPU-hour first")
    token_prices: list[TokenPricePublic] = Field(
        description="its per-token API prices: those /plan compares with first, then the unverified, deprecated and "
        "stale ones it never compares with (flags); each group cheapest output first"
    )


class ModelPublic(LlmModelBase):
    id: str = Field(description="the model's catalog id (a workload's model)")
    family: str = Field(
        default="", description="the family its catalog id starts with (Llama, Qwen, DeepSeek, …): /models' filter"
    )


class ModelDetail(ModelPublic):
    weights_gb_bf16: float = Field(description="the weights at BF16 (2 bytes per parameter), 10^9 bytes")
    release_weight_dtype: str | None = Field(
        default=None,
        description="the weight dtype a ranking without weight_dtype runs the release at (int4 for MXFP4, W4A16); "
        "null where that is BF16 (a BF16 or unknown release)",
    )
    release_weights_gb: float | None = Field(
        default=None, description="the weights at release_weight_dtype, 10^9 bytes; null where that is BF16"
    )
    kv_cache_bytes_per_token_bf16: int = Field(
        description="bytes of BF16 KV cache per cached token, every layer (MLA: the latent and the RoPE key); a "
        "sliding-window layer's share stops growing at sliding_window tokens"
    )
    token_prices: list[TokenPricePublic] = Field(
        description="every per-token API price listed for this model: those /plan compares with first, then the "
        "unverified, deprecated and stale ones it never compares with (flags); each group cheapest output first"
    )


class Health(SQLModel):
    status: str = Field(description="ok when the process answers")
    database: str = Field(description="ok where /readyz read the database; not checked on /healthz")
    gpus: int = Field(description="GPUs in the catalog it serves")
    offers: int = Field(
        description="the catalog's offers, dated or not, as /api/v1/offers lists them: a price a newer one of the "
        "same offer replaced is history, counted in earlier_prices"
    )
    offers_dated: int = Field(
        description="those offers with a price date (an undated price, a historical snapshot, counts as stale: ranked "
        "only with include_stale)"
    )
    earlier_prices: int = Field(
        description="superseded prices: history a newer price of the same offer replaced, never ranked (each GPU's "
        "earlier_prices in /api/v1/gpus/{id})"
    )
    newest_price_as_of: date | None = Field(
        default=None, description="the newest offer price's date (null: no dated price)"
    )


class PriceHistoryPublic(SQLModel):
    id: int = Field(description="the history row's id")
    offer_id: int = Field(description="the offer whose price this was")
    usd_per_hour: float = Field(description="$ an hour for the offer's GPUs")
    usd_per_gpu_hour: float = Field(description="$ per GPU-hour")
    as_of: date | None = Field(default=None, description="the day that price was read (null: undated)")
    source_url: str = Field(description="where that price was read")
    changed_at: datetime = Field(description="when the catalog took this price (UTC)")
    changed_by: str = Field(description="who: seed, cli:<login>, or the admin API's actor")
    superseded_note: str | None = Field(
        default=None,
        description="on the offer's latest price only, where a newer price of the same offer replaced it (history, "
        "never ranked; the estimate's offer_superseded note): by which price since when, and the url of that offer's "
        "row; null otherwise",
    )
