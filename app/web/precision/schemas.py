"""Response models of the precision API (what /docs shows; the service builds the same dicts)."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from app.web.json_api.report_schemas import MeanLatencyOut, ModelRef


class QualityRow(BaseModel):
    model_id: str
    model: str = Field(description="the model as the source names it")
    precision: str = Field(description="as published: fp8, int4_w4a16_gptq, fp4_nvfp4, ...")
    method: str
    benchmark: str
    recovery_pct: float | None = Field(description="quantised score ÷ baseline score × 100, as published")
    baseline_score: float | None
    quantized_score: float | None
    as_of: str
    source_url: str
    note: str
    baseline: str = Field(description="what recovery_pct is measured against, as quality.csv gives it: native FP8, …")


class Band(BaseModel):
    low: float = Field(description="the band's low end (p10), in the unit of the figure it is a band of")
    high: float = Field(description="the band's high end (p90), in the unit of the figure it is a band of")


class BestOption(MeanLatencyOut):
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    provider: str
    provider_name: str
    price_type: str
    price_note: str = Field("", description="the nuance the price type drops, as the catalog words it")
    price_caveats: list[str] = Field(
        default_factory=list, description="what a buyer must see before trusting the price: capacity not guaranteed, …"
    )
    price_source_url: str = Field("", description="where the price was read")
    usd_per_gpu_hour: float
    as_of: date | None
    batch: int
    output_tokens_per_s: float
    usd_per_million_output_tokens: float | None
    usd_per_million_tokens: float | None
    usd_per_thousand_requests: float | None
    ranked_cost: float | None = Field(description="the workload's rank_by metric")
    memory_gb_per_gpu: dict[str, float]
    replica_memory_gb: float | None = Field(description="weights + KV cache over the replica's GPUs")
    band: Band | None
    replicas: int = Field(1, description="replicas: a batch job's, split to meet its deadline")
    job_hours: float | None = Field(None, description="a batch job (job_requests): its time on those replicas")
    job_usd: float | None = Field(None, description="what the batch job is billed over all its replicas")
    over_limits: str = Field(
        "", description="at a live-traffic load, the latency limits even this precision's best option misses"
    )


class PrecisionRowOut(BaseModel):
    key: str = Field(
        description="bf16 | fp8 | fp8_kv_fp8 | fp4 | mxfp4 (a model released in it only) | int4 | "
        "int8 (weight-only, W8A16) | int8_w8a8 (INT8 tensor peak) | kv_fp8"
    )
    label: str
    weight_dtype: str
    kv_dtype: str
    runs_on: str = Field(description="the tensor peak the matmuls run on")
    weights_gb: float = Field(description="the whole model's weights at this dtype")
    kv_mb_per_1k_tokens: float
    feasible_options: int
    best: BestOption | None
    reason: str = Field(description="why no option is shown (empty when one is)")
    quality: list[QualityRow] = Field(description="published quality rows for this model and precision")
    quality_note: str
    role: str = Field(
        description="reference: the model's released precision, the deltas' reference; upcast: BF16 weights above a "
        "lower-precision release; empty otherwise"
    )
    rank_url: str | None = Field(
        None, description="the results page ranking exactly this row's question (its dtypes; FP4: FP4 GPUs only)"
    )


class Release(BaseModel):
    precision: str = Field(description="bf16 | fp8 | mxfp4: the precision the model is released in")
    row: str = Field(description="the key of the row that is the release (the reference)")
    source: str = Field(description="where it was read (quality.csv), or that BF16 was assumed")
    source_url: str
    assumed: bool = Field(description="nothing in the reference says: BF16 assumed")


class PrecisionResponse(BaseModel):
    workload: dict[str, object]
    model: ModelRef
    rank_by: str
    ranked_unit: str
    rows: list[PrecisionRowOut]
    release: Release
    notes: list[str]
    catalog_version: str
    share_url: str
