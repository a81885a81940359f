"""Catalog tables. Units are in the field names; every spec and price row keeps its source."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class GpuBase(SQLModel):
    """An accelerator model with its dense tensor peaks (null = not supported or not published)."""

    vendor: str = Field(index=True, max_length=40)
    name: str = Field(max_length=120)
    architecture: str = Field(default="", max_length=120)
    memory_type: str = Field(default="", max_length=40)
    memory_gb: float = Field(gt=0, le=10_000)
    memory_bandwidth_tbs: float = Field(gt=0, le=1_000)
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None
    bf16_tflops: float | None = None
    fp16_tflops: float | None = None
    fp8_tflops: float | None = None
    int8_tops: float | None = None
    fp4_tflops: float | None = None
    interconnect: str = Field(default="", max_length=200)
    interconnect_gbs: float | None = Field(default=None, description="per GPU, bidirectional")
    scaleup_domain_gpus: int = 1
    pcie_gen: int | None = None
    tdp_w: float | None = None
    form_factor: str = Field(default="", max_length=200)
    release_year: int | None = None
    unverified_fields: str = Field(default="", max_length=500)
    verification: str = Field(default="", max_length=1000)
    source_url: str = Field(max_length=500)
    notes: str = Field(default="", max_length=4000)


class Gpu(GpuBase, table=True):
    id: str = Field(primary_key=True, max_length=64)


class ProviderBase(SQLModel):
    name: str = Field(max_length=120)
    kind: str = Field(max_length=20, description="hyperscaler | neocloud | marketplace | serverless")
    url: str = Field(default="", max_length=500)


class Provider(ProviderBase, table=True):
    id: str = Field(primary_key=True, max_length=64)


class OfferBase(SQLModel):
    """A rentable instance at a price; natural key is provider, GPU, count, type, instance, region."""

    provider_id: str = Field(foreign_key="provider.id", index=True, max_length=64)
    gpu_id: str = Field(foreign_key="gpu.id", index=True, max_length=64)
    gpu_count: int = Field(ge=1)
    instance_type: str = Field(default="", max_length=200)
    region: str = Field(default="", max_length=120)
    price_type: str = Field(index=True, max_length=20)
    price_note: str = Field(default="", max_length=500)
    usd_per_hour: float = Field(gt=0, le=10_000)
    usd_per_gpu_hour: float = Field(gt=0, le=1_000)
    # Null only for undated historical snapshots: shown as "undated", never ranked.
    as_of: date | None = None
    source_url: str = Field(max_length=500)
    retrieved_via: str = Field(default="", max_length=500)
    verification: str = Field(default="", max_length=500)
    notes: str = Field(default="", max_length=2000)


class Offer(OfferBase, table=True):
    __table_args__ = (
        UniqueConstraint(
            "provider_id", "gpu_id", "gpu_count", "price_type", "instance_type", "region", name="uq_offer_natural"
        ),
    )

    id: int | None = Field(default=None, primary_key=True)


class PriceHistory(SQLModel, table=True):
    """Append-only: one row for every price an offer has had, with who changed it and from where."""

    __tablename__ = "price_history"

    id: int | None = Field(default=None, primary_key=True)
    offer_id: int = Field(foreign_key="offer.id", index=True)
    usd_per_hour: float
    usd_per_gpu_hour: float
    as_of: date | None = None
    source_url: str = Field(max_length=500)
    changed_at: datetime = Field(default_factory=utcnow)
    changed_by: str = Field(default="seed", max_length=120)


class LlmModelBase(SQLModel):
    """A model architecture from its Hugging Face config.json or paper."""

    name: str = Field(max_length=120)
    params_b: float = Field(gt=0)
    active_params_b: float = Field(gt=0)
    layers: int = Field(ge=1)
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    num_shared_experts: int = 0
    attention: str = Field(default="gqa", max_length=8)
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    max_context: int | None = None
    source_url: str = Field(max_length=500)
    notes: str = Field(default="", max_length=4000)


class LlmModel(LlmModelBase, table=True):
    __tablename__ = "model"

    id: str = Field(primary_key=True, max_length=64)


class TokenPriceBase(SQLModel):
    """A serverless per-token price; model_id is null when the model is not in the catalog."""

    provider_id: str = Field(foreign_key="provider.id", index=True, max_length=64)
    model_id: str | None = Field(default=None, foreign_key="model.id", index=True, max_length=64)
    provider_model_id: str = Field(max_length=200)
    model_name: str = Field(default="", max_length=200)
    input_usd_per_mtok: float = Field(ge=0, le=10_000)
    output_usd_per_mtok: float = Field(ge=0, le=10_000)
    as_of: date | None = None
    source_url: str = Field(max_length=500)
    retrieved_via: str = Field(default="", max_length=500)
    verification: str = Field(default="", max_length=500)
    notes: str = Field(default="", max_length=2000)


class TokenPrice(TokenPriceBase, table=True):
    __tablename__ = "token_price"
    __table_args__ = (UniqueConstraint("provider_id", "provider_model_id", name="uq_token_price_natural"),)

    id: int | None = Field(default=None, primary_key=True)


class ShareLink(SQLModel, table=True):
    """A saved comparison: the canonical query and every offer price it was ranked with."""

    __tablename__ = "share_link"

    slug: str = Field(primary_key=True, max_length=16)
    path: str = Field(max_length=32, description="the page it reproduces: / or /compare")
    query: str = Field(max_length=4000)
    offers_json: str = Field(sa_type=Text, description="[[offer fields…], …] as ranked")
    prices_as_of: date | None = None
    created_at: datetime = Field(default_factory=utcnow)
