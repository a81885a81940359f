"""The sorts and filters of /gpus, /models, /providers and a GPU's offers (/gpus/{id}): one model per list, read by the
page, its `.json` twin, the API route and the `gpumatch catalog` command alike; each but the GPUs' (which the database
query sorts) applies itself to the rows the catalog views build."""

from __future__ import annotations

from datetime import date
from typing import ClassVar, Literal, TypeVar

from pydantic import Field, model_validator

from app.catalog import queries, rules
from app.scoring.workload.field_types import PriceType
from app.service.catalog.list_query import ListQuery
from app.service.catalog.schemas import ModelPublic, OfferPublic, ProviderPublic

ModelKind = Literal["dense", "moe"]
ModelSort = Literal["name", "params", "context"]
ProviderSells = Literal["gpu_offers", "per_token_only"]
ProviderKind = Literal["hyperscaler", "neocloud", "marketplace", "serverless"]
ProviderSort = Literal["name", "offers", "h100_price"]
OfferSort = Literal["price", "date", "provider"]
ID_PATTERN = r"^[A-Za-z0-9._\-]+$"
OfferT = TypeVar("OfferT", bound=OfferPublic)  # an offer, or an earlier price


class GpuListQuery(ListQuery):
    SORT_ORDERS: ClassVar[dict[str, str]] = {
        "name": "ascending",
        **dict.fromkeys(("memory", "bandwidth", "bf16", "fp8"), "descending"),
        "price": "ascending",
    }

    vendor: str | None = Field(None, max_length=40, description="only this vendor's GPUs (NVIDIA, AMD, …), any case")
    min_memory_gb: float | None = Field(
        None, ge=0, le=10_000, description="only GPUs with at least this much memory, GB"
    )
    sort: queries.GpuSort = Field(
        "name",
        description="order: vendor and name; the largest memory, bandwidth, dense BF16 or FP8 peak first; or the "
        "cheapest on-demand 'from' price first (price); unknown values last",
    )


class ModelListQuery(ListQuery):
    SORT_ORDERS: ClassVar[dict[str, str]] = {"name": "ascending", "params": "descending", "context": "descending"}

    family: str | None = Field(
        None, max_length=40, description="only this family's models (a model's `family`: Llama, Qwen, …), any case"
    )
    kind: ModelKind | None = Field(None, description="only dense models, or only mixtures of experts (moe)")
    min_params_b: float | None = Field(None, ge=0, le=100_000, description="at least this many parameters, billions")
    max_params_b: float | None = Field(None, gt=0, le=100_000, description="at most this many parameters, billions")
    min_context: int | None = Field(
        None, ge=1, le=100_000_000, description="a context of at least this many tokens (unstated: left out)"
    )
    sort: ModelSort = Field(
        "name", description="order: name; the most total parameters (params) or the longest context first"
    )

    @model_validator(mode="after")
    def _params_range(self) -> ModelListQuery:
        low, high = self.min_params_b, self.max_params_b
        if low is not None and high is not None and high < low:
            # in words, no query keys: the page shows it beside "Params at most", the JSON under field max_params_b
            raise ValueError(
                f"max_params_b: {high:g} billion is fewer than the least asked for, {low:g} billion: "
                "no model could be listed"
            )
        return self

    def apply(self, models: list[ModelPublic]) -> list[ModelPublic]:
        kept = [m for m in models if self._keeps(m)]
        if self.sort == "params":
            return sorted(kept, key=lambda m: -m.params_b)
        if self.sort == "context":
            return sorted(kept, key=lambda m: (m.max_context is None, -(m.max_context or 0)))
        return kept  # the catalog lists by name

    def _keeps(self, model: ModelPublic) -> bool:
        checks = (
            self.family is None or model.family.lower() == self.family.lower(),
            self.kind is None or (model.num_experts > 0) == (self.kind == "moe"),
            self.min_params_b is None or model.params_b >= self.min_params_b,
            self.max_params_b is None or model.params_b <= self.max_params_b,
            self.min_context is None or (model.max_context or 0) >= self.min_context,
        )
        return all(checks)


class ProviderListQuery(ListQuery):
    SORT_ORDERS: ClassVar[dict[str, str]] = {"name": "ascending", "offers": "descending", "h100_price": "ascending"}

    sells: ProviderSells | None = Field(
        None, description="gpu_offers: providers renting GPUs; per_token_only: those selling only per-token API access"
    )
    kind: ProviderKind | None = Field(None, description="only this kind of provider")
    sort: ProviderSort = Field(
        "name",
        description="order: name; the most GPU offers first (offers); the cheapest current on-demand H100 first "
        "(h100_price; none last)",
    )

    def apply(self, providers: list[ProviderPublic]) -> list[ProviderPublic]:
        kept = [p for p in providers if self._keeps(p)]
        if self.sort == "offers":
            return sorted(kept, key=lambda p: -p.offer_count)
        if self.sort == "h100_price":
            return sorted(kept, key=lambda p: (p.h100_usd_per_gpu_hour is None, p.h100_usd_per_gpu_hour or 0.0))
        return kept  # the catalog lists by name as people sort it

    def _keeps(self, provider: ProviderPublic) -> bool:
        per_token_only = provider.offer_count == 0 and provider.token_price_count > 0
        sells = {None: True, "gpu_offers": provider.offer_count > 0, "per_token_only": per_token_only}[self.sells]
        return sells and (self.kind is None or provider.kind == self.kind)


class GpuOffersQuery(ListQuery):
    SORT_ORDERS: ClassVar[dict[str, str]] = {"price": "ascending", "date": "descending", "provider": "ascending"}

    provider: str | None = Field(
        None, max_length=64, pattern=ID_PATTERN, description="only this provider's offers (`id` in /api/v1/providers)"
    )
    price_type: PriceType | None = Field(None, description="only offers on this price term")
    region: str | None = Field(
        None, max_length=120, description="only offers whose region contains this text, any case (unstated: left out)"
    )
    min_gpus: int | None = Field(
        None, ge=1, le=rules.MAX_GPU_COUNT, description="only offers renting at least this many GPUs together"
    )
    sort: OfferSort = Field(
        "price", description="order: the cheapest $/GPU-hour first (price); the newest price first (date); provider"
    )

    def apply(self, offers: list[OfferT]) -> list[OfferT]:
        kept = [o for o in offers if self._keeps(o)]
        if self.sort == "date":
            return sorted(kept, key=lambda o: (o.as_of is None, -(o.as_of or date.min).toordinal()))
        if self.sort == "provider":
            return sorted(kept, key=lambda o: (o.provider_name.casefold(), o.usd_per_gpu_hour))
        return kept  # the catalog lists cheapest first

    def _keeps(self, offer: OfferPublic) -> bool:
        checks = (
            self.provider is None or offer.provider_id.lower() == self.provider.lower(),
            self.price_type is None or offer.price_type == self.price_type,
            self.region is None or self.region.lower() in offer.region.lower(),
            self.min_gpus is None or offer.gpu_count >= self.min_gpus,
        )
        return all(checks)

    @property
    def filtered(self) -> bool:
        return bool(self.base_query())

    def filter_words(self, provider_name: str = "") -> str:
        """The filters in words, as a chart of the kept offers says them: "on demand, at lambda, region containing
        'us', 8 GPUs or more"; "" where none applies. `provider_name`: the provider's name, else its id is said."""
        words = [self.price_type.replace("_", " ")] if self.price_type else []
        words += [f"at {provider_name or self.provider}"] if self.provider else []
        words += [f"region containing '{self.region}'"] if self.region else []
        words += [f"{self.min_gpus} GPUs or more"] if self.min_gpus else []
        return ", ".join(words)
