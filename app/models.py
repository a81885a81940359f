"""Catalog tables. Units are in the field names; every spec and price row keeps its source."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pydantic import ValidationInfo, field_validator, model_validator
from sqlalchemy import Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.catalog import rules
from app.scoring.hf_config.adapter_layout_checks import fused_needs_experts, nope_completes_head_dim
from app.scoring.specs import RELEASE_PRECISIONS


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
    # Status of the 16-bit tensor peak estimates run on: verified | derived | unverified | missing.
    peak_verification: str = Field(default="", max_length=20)
    verification: str = Field(default="", max_length=1000)
    source_url: str = Field(max_length=500)
    notes: str = Field(default="", max_length=4000)

    @field_validator("peak_verification")
    @classmethod
    def _peak_verification(cls, value: str) -> str:
        return rules.one_of(value, rules.PEAK_VERIFICATION, allow_empty=True)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class Gpu(GpuBase, table=True):
    id: str = Field(primary_key=True, max_length=64)


class ProviderBase(SQLModel):
    name: str = Field(max_length=120)
    kind: str = Field(max_length=20, description="hyperscaler | neocloud | marketplace | serverless")
    url: str = Field(default="", max_length=500)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return rules.http_url(value, allow_empty=True)


class Provider(ProviderBase, table=True):
    id: str = Field(primary_key=True, max_length=64)


class OfferBase(SQLModel):
    """A rentable instance at a price; natural key is provider, GPU, count, type, instance, region."""

    provider_id: str = Field(foreign_key="provider.id", index=True, max_length=64)
    gpu_id: str = Field(foreign_key="gpu.id", index=True, max_length=64)
    gpu_count: int = Field(ge=1, le=rules.MAX_GPU_COUNT)
    instance_type: str = Field(default="", max_length=200)
    region: str = Field(default="", max_length=120)
    price_type: str = Field(index=True, max_length=20, description="on_demand | spot | reserved | ...")
    price_note: str = Field(default="", max_length=500)
    usd_per_hour: float = Field(ge=rules.MIN_USD_PER_GPU_HOUR, le=rules.MAX_USD_PER_GPU_HOUR * rules.MAX_GPU_COUNT)
    usd_per_gpu_hour: float = Field(ge=rules.MIN_USD_PER_GPU_HOUR, le=rules.MAX_USD_PER_GPU_HOUR)
    # Null only for undated historical snapshots: shown as "undated", never ranked.
    as_of: date | None = None
    source_url: str = Field(max_length=500)
    retrieved_via: str = Field(default="", max_length=500)
    verification: str = Field(default="", max_length=500)
    notes: str = Field(default="", max_length=2000)
    # The machine behind the price (null/"" = unknown; an unknown fabric is one machine, not a cluster).
    gpus_per_node: int | None = Field(default=None, ge=1, le=rules.MAX_GPU_COUNT)
    intra_node_link: str = Field(default="", max_length=20, description="nvlink | xgmi | pcie | none")
    inter_node_fabric: str = Field(default="", max_length=20, description="infiniband | roce | efa | ethernet | none")
    inter_node_gbps_per_gpu: float | None = Field(default=None, gt=0, le=10_000)
    max_nodes: int | None = Field(default=None, ge=1, le=rules.MAX_GPU_COUNT)
    # GPUs one NVLink/xGMI domain spans when it is larger than a node (a GB200 NVL72 rack of 4-GPU nodes: 72);
    # null = the node is the domain.
    scaleup_domain_gpus: int | None = Field(default=None, ge=1, le=rules.MAX_GPU_COUNT)
    topology_source: str = Field(default="", max_length=500)
    # Reserved / capacity block: hours paid whether used or not (null = term not stated).
    min_term_hours: float | None = Field(default=None, gt=0, le=5 * 8784)

    @field_validator("price_type")
    @classmethod
    def _price_type(cls, value: str) -> str:
        return rules.price_type(value)

    @field_validator("usd_per_gpu_hour")
    @classmethod
    def _per_gpu(cls, value: float, info: ValidationInfo) -> float:
        return rules.consistent_total(value, info.data.get("usd_per_hour"), info.data.get("gpu_count"))

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: date | None) -> date | None:
        return rules.not_future(value)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)

    @field_validator("intra_node_link")
    @classmethod
    def _intra_node_link(cls, value: str) -> str:
        return rules.one_of(value, rules.INTRA_NODE_LINKS, allow_empty=True)

    @field_validator("inter_node_fabric")
    @classmethod
    def _inter_node_fabric(cls, value: str) -> str:
        return rules.one_of(value, rules.INTER_NODE_FABRICS, allow_empty=True)


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
    # Layers with routed experts (the rest have a dense FFN of intermediate_size); 0 for a MoE model: every layer.
    moe_layers: int = Field(default=0, ge=0)
    attention: str = Field(default="gqa", max_length=8)
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    # MLA's other projection sizes (config.json; 0 = not given: LoRA counts the attention as GQA) and experts held as
    # fused parameters that PEFT's all-linear leaves frozen (router_fused: the router too), as ModelSpec reads them.
    q_lora_rank: int = Field(default=0, ge=0)
    qk_nope_head_dim: int = Field(default=0, ge=0)
    v_head_dim: int = Field(default=0, ge=0)
    experts_fused: bool = False
    router_fused: bool = False
    max_context: int | None = None
    # Sliding-window attention: `sliding_layers` of the layers keep only the last `sliding_window` tokens.
    sliding_window: int = Field(default=0, ge=0)
    sliding_layers: int = Field(default=0, ge=0)
    # The checkpoint's precision as released (bf16 | fp8 | mxfp4 | unknown: BF16 assumed), and where that was read.
    release_precision: str = Field(default="unknown", max_length=8)
    release_precision_source: str = Field(default="", max_length=500)
    source_url: str = Field(max_length=500)
    notes: str = Field(default="", max_length=4000)

    @field_validator("moe_layers")
    @classmethod
    def _moe_layers(cls, value: int, info: ValidationInfo) -> int:
        layers, experts = info.data.get("layers"), info.data.get("num_experts")
        if layers is not None and value > layers:
            raise ValueError(f"{value} MoE layers is more than the model's {layers} layers")
        if value and not experts:
            raise ValueError("MoE layers need routed experts (num_experts > 0)")
        if experts and not value:  # a row that does not say: every layer, as ModelSpec reads it
            return layers or 0
        return value

    @field_validator("qk_nope_head_dim")
    @classmethod
    def _nope_completes_head_dim(cls, value: int, info: ValidationInfo) -> int:
        if value and info.data.get("attention") != "mla":
            raise ValueError("qk_nope_head_dim is MLA's: attention must be mla")
        return nope_completes_head_dim(value, info.data.get("head_dim"), info.data.get("qk_rope_head_dim") or 0)

    @field_validator("experts_fused", "router_fused")
    @classmethod
    def _fused_needs_experts(cls, value: bool, info: ValidationInfo) -> bool:
        return fused_needs_experts(value, info.data.get("num_experts"))

    @field_validator("sliding_layers")
    @classmethod
    def _sliding_layers(cls, value: int, info: ValidationInfo) -> int:
        layers = info.data.get("layers")
        if layers is not None and value > layers:
            raise ValueError(f"{value} sliding layers is more than the model's {layers} layers")
        if value and not info.data.get("sliding_window"):
            raise ValueError("sliding layers need a sliding_window")
        return value

    @field_validator("release_precision")
    @classmethod
    def _release_precision(cls, value: str) -> str:
        if value not in RELEASE_PRECISIONS:
            raise ValueError(f"must be one of {', '.join(RELEASE_PRECISIONS)}, not {value[:20]!r}")
        return value

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


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
    # Prompt tokens served from the provider's prefix cache (null = not published, not zero).
    cached_input_usd_per_mtok: float | None = Field(default=None, ge=0, le=10_000)
    lora_serving: str = Field(default="unknown", max_length=10, description="yes | no | unknown")
    lora_source: str = Field(default="", max_length=1000)
    as_of: date | None = None
    # How as_of reads: exact (the day it was read), on_or_before (an upper bound: a maintained table read that
    # day, the entry's own date unknown), approximate (year only); "" = not stated, read as exact.
    as_of_basis: str = Field(default="", max_length=20, description="exact | on_or_before | approximate")
    # Flags carried from the reference: such a price is listed, labelled, and never the cheapest to compare with.
    unverified: bool = Field(default=False, description="the reference flags the price UNVERIFIED (placeholder-like)")
    deprecated: bool = Field(default=False, description="the provider has deprecated or retired the model")
    # Doubts carried from the reference that still let a price be compared, labelled
    # (app/scoring/pricing/token_prices.py):
    # another source's figures (null = none), an endpoint the provider may have retired, a source that does not
    # back the figure.
    disputed_input_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="another source's input price for this entry (a CONFLICT)"
    )
    disputed_output_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="another source's output price for this entry (a CONFLICT)"
    )
    availability_unconfirmed: bool = Field(
        default=False, description="the reference asks to verify that the provider still serves the model"
    )
    weak_source: bool = Field(default=False, description="the source the figure was read from does not back it")
    status_note: str = Field(default="", max_length=500, description="the reference's words for each flag")
    source_url: str = Field(max_length=500)
    retrieved_via: str = Field(default="", max_length=500)
    verification: str = Field(default="", max_length=500)
    notes: str = Field(default="", max_length=2000)

    @field_validator("as_of_basis")
    @classmethod
    def _as_of_basis(cls, value: str) -> str:
        return rules.as_of_basis(value)

    @model_validator(mode="after")
    def _disputed_pair(self) -> TokenPriceBase:
        if (self.disputed_input_usd_per_mtok is None) != (self.disputed_output_usd_per_mtok is None):
            raise ValueError(
                "disputed_input_usd_per_mtok and disputed_output_usd_per_mtok: give both of the other source's "
                "figures, or neither"
            )
        return self

    @field_validator("lora_serving")
    @classmethod
    def _lora_serving(cls, value: str) -> str:
        return rules.one_of(value, rules.LORA_SERVING)

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: date | None) -> date | None:
        return rules.not_future(value)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class TokenPrice(TokenPriceBase, table=True):
    __tablename__ = "token_price"
    __table_args__ = (UniqueConstraint("provider_id", "provider_model_id", name="uq_token_price_natural"),)

    id: int | None = Field(default=None, primary_key=True)


class QualityResultBase(SQLModel):
    """A published accuracy of a quantised model against its unquantised baseline (reference quality.csv).

    model_id is null when the model is not in the catalog; empty scores mean not published, never zero."""

    model_id: str | None = Field(default=None, foreign_key="model.id", index=True, max_length=64)
    model: str = Field(max_length=200, description="the model as the source names it")
    precision: str = Field(max_length=40, description="fp8 | int4_w4a16_gptq | fp4_nvfp4 | ... as published")
    method: str = Field(max_length=300)
    benchmark: str = Field(max_length=200)
    baseline_score: float | None = None
    quantized_score: float | None = None
    recovery_pct: float | None = Field(default=None, ge=0, le=200, description="quantised / baseline × 100")
    as_of: str = Field(default="", max_length=20, description="as published: a day, a month or a year")
    source_url: str = Field(max_length=500)
    note: str = Field(default="", max_length=2000)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value)


class QualityResult(QualityResultBase, table=True):
    __tablename__ = "quality_result"
    __table_args__ = (UniqueConstraint("model", "precision", "method", "benchmark", name="uq_quality_result_natural"),)

    id: int | None = Field(default=None, primary_key=True)


class TcoInputBase(SQLModel):
    """One input for owning hardware (reference tco.csv): a purchase price, a power draw, $/kWh, PUE,
    colocation $/kW-month or a depreciation life. Empty values mean not found, never zero."""

    item: str = Field(max_length=40, index=True)
    gpu_id: str | None = Field(default=None, foreign_key="gpu.id", max_length=64)
    value_text: str = Field(default="", max_length=40, description="the value as published (ranges, ~)")
    value_low: float | None = None
    value_high: float | None = None
    unit: str = Field(max_length=200)
    as_of: str = Field(default="", max_length=20, description="as published: a day, a month, a quarter or a year")
    source_url: str = Field(default="", max_length=500)
    note: str = Field(default="", max_length=2000)

    @field_validator("source_url")
    @classmethod
    def _source_url(cls, value: str) -> str:
        return rules.http_url(value, allow_empty=True)


class TcoInput(TcoInputBase, table=True):
    __tablename__ = "tco_input"
    __table_args__ = (UniqueConstraint("item", "gpu_id", "unit", name="uq_tco_input_natural"),)

    id: int | None = Field(default=None, primary_key=True)


class CatalogRevision(SQLModel, table=True):
    """One row counting catalog edits: every seed, import or admin change that alters a row bumps it,
    so a running server notices non-price edits too (issue 11)."""

    __tablename__ = "catalog_revision"

    id: int = Field(default=1, primary_key=True)
    revision: int = 0
    changed_at: datetime = Field(default_factory=utcnow)


class PriceSnapshot(SQLModel, table=True):
    """The offers a ranking used, stored once per distinct content (one row per catalog version in
    practice): saved links reference it, so a thousand links cost a thousand short rows, not a
    thousand copies of the price list."""

    __tablename__ = "price_snapshot"

    id: str = Field(primary_key=True, max_length=64, description="sha256 hex of offers_json")
    offers_json: str = Field(sa_type=Text, description="[{offer field: value}, …] as ranked")
    created_at: datetime = Field(default_factory=utcnow)


class ShareLink(SQLModel, table=True):
    """A saved comparison: the canonical query and the price snapshot it was ranked with."""

    __tablename__ = "share_link"

    slug: str = Field(primary_key=True, max_length=16)
    path: str = Field(max_length=32, description="the page it reproduces: / or /compare")
    query: str = Field(max_length=4000)
    snapshot_id: str = Field(foreign_key="price_snapshot.id", index=True, max_length=64)
    prices_as_of: date | None = None
    created_at: datetime = Field(default_factory=utcnow)
