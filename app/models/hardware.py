"""The rental-market tables: accelerators, providers, their offers and every price an offer has had.

Units are in the field names; every spec and price row keeps its source. `utcnow` stamps the
append-only rows here and in app.models.versions."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pydantic import ValidationInfo, field_validator
from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.catalog import rules


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
