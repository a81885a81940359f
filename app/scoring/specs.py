"""Plain typed inputs of the scoring engine: a GPU, a model, a priced offer, a catalog snapshot.

The engine never touches the database: the catalog package builds these from rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from app.scoring.hashed_once import HashedOnce, hashed_once
from app.scoring.pricing.snapshot_memo import SnapshotMemo


@hashed_once
@dataclass(frozen=True, slots=True)
class GpuSpec(HashedOnce):
    """One accelerator model. Peaks are dense (no structured sparsity); None = not supported/unknown."""

    id: str
    vendor: str
    name: str
    architecture: str
    memory_gb: float
    memory_bandwidth_tbs: float
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None
    bf16_tflops: float | None = None
    fp16_tflops: float | None = None
    fp8_tflops: float | None = None
    int8_tops: float | None = None
    fp4_tflops: float | None = None
    interconnect: str = ""
    # Per-GPU bidirectional scale-up bandwidth (NVLink/xGMI/ICI); None = PCIe only.
    interconnect_gbs: float | None = None
    # GPUs joined by the scale-up fabric (8 on an HGX board, 72 on NVL72, 1 for PCIe-only cards).
    scaleup_domain_gpus: int = 1
    pcie_gen: int | None = None
    tdp_w: float | None = None
    form_factor: str = ""
    release_year: int | None = None
    verification: str = ""
    source_url: str = ""
    memory_type: str = ""  # HBM3e, GDDR7, ... as published; decides HBM vs GDDR behaviour, never the name
    # True when a tensor peak the estimate leans on is derived or unverified (shown as "peak estimated").
    peak_estimated: bool = False
    # What was borrowed from same-architecture GPUs for a figure the catalog lacks (app/scoring/hardware/gpu_gaps.py).
    gap_note: str = ""


# Name hints for cards without a memory_type (the catalog's GPUs all have one).
GDDR_HINTS = ("RTX", "GeForce", "L40", "L4", "A10", "A40", "T4", "Radeon")


def is_gddr(gpu: GpuSpec) -> bool:
    """Cards with GDDR memory (workstation/consumer/Ada-L PCIe) rather than HBM; the published memory
    type decides, the name is only a fallback for cards without one (custom or older catalogs)."""
    if gpu.memory_type:
        return gpu.memory_type.upper().startswith("GDDR")
    return gpu.memory_bandwidth_tbs < 1.5 and any(h in gpu.name for h in GDDR_HINTS)


# Bytes (in 10^9) one datasheet GB of an HBM part holds, as CUDA reports the card: HBM datasheets count binary GB.
# The lent H100 shows about 78 GiB of its "80 GB" and the H200 about 139 GiB of its "141 GB" (the device machines'
# specs; docs/measurements/README.md, card memory): 1.047 and 1.059 x 10^9 bytes per GB; the lower for every HBM
# part. vLLM's gpu_memory_utilization and TensorRT-LLM's free-memory fraction are shares of those bytes. GDDR cards
# keep 10^9: the data-centre ones reserve part of theirs for ECC, and a consumer card's few percent more is a margin.
HBM_BYTES_PER_DATASHEET_GB = 78 * 2**30 / 80 / 1e9


def card_gb(gpu: GpuSpec) -> float:
    """The card's memory as the engine sees it, in 10^9 bytes (the unit every need here is counted in)."""
    return gpu.memory_gb * (1.0 if is_gddr(gpu) else HBM_BYTES_PER_DATASHEET_GB)


ESTIMATED_PEAKS = ("derived", "unverified", "missing")


def peak_estimated(peak_verification: str, bf16_tflops: float | None, fp16_tflops: float | None) -> bool:
    """True when the 16-bit peak the estimate runs on is derived, unverified or absent (2 x FP32 then)."""
    return peak_verification in ESTIMATED_PEAKS or (bf16_tflops is None and fp16_tflops is None)


# A checkpoint's precision as released; unknown: the reference does not say, and BF16 is assumed (said).
RELEASE_PRECISIONS = ("bf16", "fp8", "mxfp4", "unknown")


@hashed_once
@dataclass(frozen=True, slots=True)
class ModelSpec(HashedOnce):
    """A transformer architecture, as read from a Hugging Face config.json or paper."""

    id: str
    name: str
    params_b: float
    active_params_b: float
    layers: int
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
    attention: str = "gqa"  # mha | gqa | mla
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    max_context: int | None = None
    source_url: str = ""
    # Sliding-window attention: `sliding_layers` of the `layers` attend to (and cache) only the last
    # `sliding_window` tokens (0 = none; config.json sliding_window + layer_types).
    sliding_window: int = 0
    sliding_layers: int = 0
    release_precision: str = "unknown"  # RELEASE_PRECISIONS: the checkpoint as released
    release_precision_source: str = ""  # where that was read (seed_data/models.csv, from the reference)
    quantization: str = ""  # a pasted config.json's quantization_config, in words (app.scoring.hf_config.quantization)
    # Layers with routed experts; the others have a dense FFN of `intermediate_size` (DeepSeek-V3: 58 of 61, the
    # first 3 dense; Llama 4 Maverick: every second of 48). Not given (0) for a MoE model: every layer.
    moe_layers: int = 0
    # MLA's projection sizes (config.json q_lora_rank, qk_nope_head_dim, v_head_dim; DeepSeek-V3: 1536, 128, 128), read
    # by the LoRA adapter count; 0 = not given (qk_nope/v 0: counted as GQA at heads x head_dim). q_lora_rank 0 with the
    # others given is one q_proj, as config.json's null (DeepSeek-V2-Lite).
    q_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # Routed experts held as fused 3-D parameters, not nn.Linear, so PEFT's all-linear leaves them frozen (gpt-oss,
    # Llama 4: app.scoring.hf_config.fused_experts); router_fused: the router too is a bare parameter (gpt-oss).
    experts_fused: bool = False
    router_fused: bool = False

    def __post_init__(self) -> None:
        # Frozen: set once here, so every caller reads a count (0 for a dense model, all layers when not given).
        count = (self.moe_layers or self.layers) if self.num_experts > 0 else 0
        object.__setattr__(self, "moe_layers", count)

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def dense_ffn_layers(self) -> int:
        """Layers with a dense FFN of `intermediate_size`: all of a dense model's, the rest of a MoE model's."""
        return self.layers - self.moe_layers

    @property
    def mla_projections_known(self) -> bool:
        """MLA with the sizes its five projections need (kv_lora_rank, qk_nope/qk_rope/v head dims)."""
        dims = (self.kv_lora_rank, self.qk_nope_head_dim, self.qk_rope_head_dim, self.v_head_dim)
        return self.attention == "mla" and all(d > 0 for d in dims)


# Price terms: on-demand (default), spot (interruptible), reserved (a commitment with a term),
# marketplace (community or peer hosts), capacity_block (a dated block of a cluster, paid up front).
PRICE_TYPES = ("on_demand", "spot", "reserved", "marketplace", "capacity_block")


@dataclass(frozen=True, slots=True)
class Offer:
    """A rentable instance price, normalised per GPU-hour."""

    provider_id: str
    provider_name: str
    gpu_id: str
    gpu_count: int
    price_type: str  # one of PRICE_TYPES
    usd_per_gpu_hour: float
    as_of: date | None = None
    instance_type: str = ""
    region: str = ""
    source_url: str = ""
    offer_id: int | None = None
    # The machine behind the price (None/"" = unknown; an unknown fabric means one machine, never a cluster).
    gpus_per_node: int | None = None
    intra_node_link: str = ""  # nvlink | xgmi | pcie | none
    inter_node_fabric: str = ""  # infiniband | roce | efa | ethernet | none
    inter_node_gbps_per_gpu: float | None = None
    max_nodes: int | None = None  # largest purchasable cluster; None = not stated
    scaleup_domain_gpus: int | None = None  # an NVLink domain wider than a node (NVL72 rack: 72); None = the node
    price_note: str = ""  # the nuance the price-type vocabulary drops ("as low as", managed endpoint, ...)
    min_term_hours: float | None = None  # reserved / capacity block: the commitment paid whether used or not
    stale: bool = False  # older than the configured stale-after days when the snapshot was loaded

    @property
    def inference_endpoint(self) -> bool:
        """A managed inference deployment (its price terms say so, scripts/build_seed_prices.py), not a machine a
        training job can run on."""
        return INFERENCE_ENDPOINT in self.price_note

    @property
    def unsold(self) -> bool:
        """A list price of a shape the provider does not sell on these terms (its price note says so,
        scripts/build_seed_prices.py): no machine a buyer can rent at it, so never ranked."""
        return UNSOLD_ON_THESE_TERMS in self.price_note

    @property
    def superseded(self) -> bool:
        """An earlier price of an offer that a newer, dated price of the same offer has replaced (its price note says
        so, scripts/offer_notes.py mark_superseded): history, no price anyone can rent at, so never ranked, even
        with stale prices asked for."""
        return SUPERSEDED_BY_NEWER_PRICE in self.price_note


# The words a managed inference deployment's price terms carry (seed and imported prices alike).
INFERENCE_ENDPOINT = "inference endpoint"
# The words a price note carries where the shape is not sold on the price's terms: GCP's a3-highgpu-1g is Spot or
# Flex-start only, and its on-demand row an "on-demand-equivalent list price" (shared/reference/prices.csv notes).
UNSOLD_ON_THESE_TERMS = "not sold on these terms"
# The words a price note carries where a newer, dated price of the same offer replaced it (Lambda's undated $2.99 H100
# snapshot beside its $3.99 price list of 2026-09-20): the catalog keeps it as history.
SUPERSEDED_BY_NEWER_PRICE = "superseded by a newer price"


@dataclass(frozen=True, slots=True)
class TokenPrice:
    """A serverless per-token API price for one model at one provider."""

    provider_id: str
    provider_name: str
    model_id: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    as_of: date | None = None
    cached_input_usd_per_mtok: float | None = None  # price of prompt tokens served from the provider's cache
    lora_serving: str = "unknown"  # yes | no | unknown: serves your LoRA adapter of this base at this price
    source_url: str = ""
    provider_model_id: str = ""  # the provider's name for the model (two entries of one model differ here)
    model_name: str = ""  # the model as the provider lists it
    as_of_basis: str = ""  # exact | on_or_before | approximate ("" = not stated: read as exact)
    unverified: bool = False  # the reference flags the figure UNVERIFIED (placeholder-looking)
    deprecated: bool = False  # the provider has deprecated or retired the model
    stale: bool = False  # older than the configured stale-after days (or undated) when the snapshot was loaded
    status_note: str = ""  # the reference's words for each of its flags
    disputed_input_usd_per_mtok: float | None = None  # another source's input price (a CONFLICT; None = none)
    disputed_output_usd_per_mtok: float | None = None  # another source's output price
    availability_unconfirmed: bool = False  # the reference asks to verify that the provider still serves the model
    weak_source: bool = False  # the source the figure was read from does not back it


@dataclass(frozen=True, slots=True)
class QualityResult:
    """A published accuracy of a quantised model against its baseline (empty scores = not published)."""

    model_id: str
    model: str
    precision: str  # as published: fp8, int4_w4a16_gptq, fp4_nvfp4, ...
    method: str
    benchmark: str
    recovery_pct: float | None
    baseline_score: float | None = None
    quantized_score: float | None = None
    as_of: str = ""
    source_url: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class TcoInput:
    """One sourced input for owning hardware; value_low/high are None where no figure was found."""

    item: str  # purchase_price_server | system_power_typical | electricity_price | pue | ...
    gpu_id: str
    value_low: float | None
    value_high: float | None
    unit: str
    value_text: str = ""
    as_of: str = ""
    source_url: str = ""
    note: str = ""

    @property
    def value(self) -> float | None:
        """The midpoint of a published range (the value itself when it is one number)."""
        if self.value_low is None or self.value_high is None:
            return None
        return (self.value_low + self.value_high) / 2


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    """Everything the engine needs, loaded once and shared across requests."""

    gpus: dict[str, GpuSpec] = field(default_factory=dict)
    models: dict[str, ModelSpec] = field(default_factory=dict)
    offers: tuple[Offer, ...] = ()
    # The catalog's own offer counts when loaded (/healthz reports them without the database): its offers as
    # /api/v1/offers lists them (superseded prices left out), those with a price date, and the superseded prices
    # (history); counted apart from `offers`, whichever of them it holds
    offers_in_catalog: int = 0
    offers_dated: int = 0
    earlier_prices_in_catalog: int = 0
    token_prices: tuple[TokenPrice, ...] = ()
    quality: tuple[QualityResult, ...] = ()
    tco: tuple[TcoInput, ...] = ()
    version: str = ""
    # Every provider of the catalog (id -> name), those without offers too; empty: the offers' providers.
    providers: dict[str, str] = field(default_factory=dict)
    # Results that depend on the catalog and the filters but not on the workload (the offers a filter set allows),
    # typed by kind; the snapshot is immutable, so they never go stale (snapshot_memo says what empties it).
    memo: SnapshotMemo = field(default_factory=SnapshotMemo, compare=False, hash=False, repr=False)
