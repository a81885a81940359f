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

    vendor: str = Field(index=True, max_length=40, description="the maker: NVIDIA, AMD, Intel, Google, ...")
    name: str = Field(max_length=120, description="the GPU's marketing name")
    architecture: str = Field(
        default="", max_length=120, description="the chip generation (Hopper, Blackwell, CDNA 3, ...)"
    )
    memory_type: str = Field(default="", max_length=40, description="HBM3, HBM3e, GDDR6, ...")
    memory_gb: float = Field(gt=0, le=10_000, description="memory per GPU, GB")
    memory_bandwidth_tbs: float = Field(gt=0, le=1_000, description="memory bandwidth per GPU, TB/s")
    fp32_tflops: float | None = Field(default=None, description="dense FP32 peak, TFLOPS (null: not published)")
    tf32_tflops: float | None = Field(
        default=None, description="dense TF32 tensor peak, TFLOPS (null: not supported or not published)"
    )
    bf16_tflops: float | None = Field(
        default=None,
        description="dense BF16 tensor peak, TFLOPS, without sparsity (null: not supported or not published)",
    )
    fp16_tflops: float | None = Field(default=None, description="dense FP16 tensor peak, TFLOPS, without sparsity")
    fp8_tflops: float | None = Field(
        default=None, description="dense FP8 tensor peak, TFLOPS, without sparsity (null: no FP8 tensor cores)"
    )
    int8_tops: float | None = Field(default=None, description="dense INT8 tensor peak, TOPS, without sparsity")
    fp4_tflops: float | None = Field(
        default=None, description="dense FP4 tensor peak, TFLOPS, without sparsity (null: no FP4 tensor cores)"
    )
    interconnect: str = Field(
        default="",
        max_length=200,
        description="the GPU-to-GPU link in words (NVLink 4, Infinity Fabric, none: PCIe only)",
    )
    interconnect_gbs: float | None = Field(default=None, description="per GPU, bidirectional")
    scaleup_domain_gpus: int = Field(default=1, description="GPUs one NVLink/xGMI domain joins (1: PCIe only)")
    pcie_gen: int | None = Field(default=None, description="PCIe generation of the host link")
    tdp_w: float | None = Field(default=None, description="board power, W")
    form_factor: str = Field(default="", max_length=200, description="SXM, OAM, PCIe, ... as the vendor states it")
    release_year: int | None = Field(default=None, description="year the GPU shipped")
    unverified_fields: str = Field(
        default="",
        max_length=500,
        description="the spec fields the reference could not verify, comma-separated (empty: none)",
    )
    # Status of the 16-bit tensor peak estimates run on: verified | derived | unverified | missing.
    peak_verification: str = Field(
        default="",
        max_length=20,
        description="status of the 16-bit tensor peak estimates run on: verified | derived | unverified | missing",
    )
    verification: str = Field(default="", max_length=1000, description="how the specs were checked, in words")
    source_url: str = Field(
        max_length=500, description="where the specs were read (the vendor's datasheet where there is one)"
    )
    notes: str = Field(
        default="", max_length=4000, description="caveats on the specs (sparsity, precision of a peak, ...)"
    )

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
    name: str = Field(max_length=120, description="the provider's name")
    kind: str = Field(max_length=20, description="hyperscaler | neocloud | marketplace | serverless")
    url: str = Field(default="", max_length=500, description="the provider's site")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        return rules.http_url(value, allow_empty=True)


class Provider(ProviderBase, table=True):
    id: str = Field(primary_key=True, max_length=64)


class OfferBase(SQLModel):
    """A rentable instance at a price; natural key is provider, GPU, count, type, instance, region."""

    provider_id: str = Field(
        foreign_key="provider.id",
        index=True,
        max_length=64,
        description="the seller's catalog id (a ranked option calls it `provider`)",
    )
    gpu_id: str = Field(foreign_key="gpu.id", index=True, max_length=64, description="the GPU's catalog id")
    gpu_count: int = Field(
        ge=1, le=rules.MAX_GPU_COUNT, description="GPUs the price rents together (an 8-GPU instance: 8)"
    )
    instance_type: str = Field(
        default="", max_length=200, description="the instance as the provider names it (p5.48xlarge; empty: not stated)"
    )
    region: str = Field(default="", max_length=120, description="where the price applies (empty: not stated)")
    price_type: str = Field(index=True, max_length=20, description="on_demand | spot | reserved | ...")
    price_note: str = Field(
        default="",
        max_length=500,
        description="the price's terms in words ('from' price, where available, ...): read for price_caveats",
    )
    usd_per_hour: float = Field(
        ge=rules.MIN_USD_PER_GPU_HOUR,
        le=rules.MAX_USD_PER_GPU_HOUR * rules.MAX_GPU_COUNT,
        description="$ an hour for all gpu_count GPUs",
    )
    usd_per_gpu_hour: float = Field(
        ge=rules.MIN_USD_PER_GPU_HOUR,
        le=rules.MAX_USD_PER_GPU_HOUR,
        description="$ per GPU-hour: usd_per_hour / gpu_count",
    )
    # Null only for undated historical snapshots: shown as "undated", never ranked.
    as_of: date | None = Field(
        default=None,
        description="the day the price was read (null: an undated historical snapshot, stale, ranked only "
        "with include_stale)",
    )
    source_url: str = Field(
        max_length=500, description="where the price was read (a ranked option calls it `price_source_url`)"
    )
    retrieved_via: str = Field(
        default="",
        max_length=500,
        description="how it was read, where not straight from source_url (a maintained table, an API)",
    )
    verification: str = Field(
        default="",
        max_length=500,
        description="primary (the provider's own price list) or secondary, and how it was checked",
    )
    notes: str = Field(default="", max_length=2000, description="anything else the reference says about the offer")
    # The machine behind the price (null/"" = unknown; an unknown fabric is one machine, not a cluster).
    gpus_per_node: int | None = Field(
        default=None, ge=1, le=rules.MAX_GPU_COUNT, description="GPUs in one node of this offer (null: not stated)"
    )
    intra_node_link: str = Field(default="", max_length=20, description="nvlink | xgmi | pcie | none")
    inter_node_fabric: str = Field(default="", max_length=20, description="infiniband | roce | efa | ethernet | none")
    inter_node_gbps_per_gpu: float | None = Field(
        default=None, gt=0, le=10_000, description="fabric bandwidth per GPU between nodes, Gb/s (null: not stated)"
    )
    max_nodes: int | None = Field(
        default=None,
        ge=1,
        le=rules.MAX_GPU_COUNT,
        description="the most nodes the offer supplies for one job (null: not stated; a layout over several "
        "nodes is then assumed available, named in its cluster_caveat)",
    )
    # GPUs one NVLink/xGMI domain spans when it is larger than a node (a GB200 NVL72 rack of 4-GPU nodes: 72);
    # null = the node is the domain.
    scaleup_domain_gpus: int | None = Field(
        default=None,
        ge=1,
        le=rules.MAX_GPU_COUNT,
        description="GPUs one NVLink domain spans where it is larger than a node (a GB200 NVL72 rack: 72); null: "
        "the node",
    )
    topology_source: str = Field(
        default="", max_length=500, description="where the machine's topology (links, fabric, nodes) was read"
    )
    # Reserved / capacity block: hours paid whether used or not (null = term not stated).
    min_term_hours: float | None = Field(
        default=None,
        gt=0,
        le=5 * 8784,
        description="reserved or capacity block: hours paid whether used or not (null: not stated; the shortest "
        "term in the reference's terms.csv is assumed)",
    )

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
