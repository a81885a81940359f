"""Response models of the precision API (what /docs shows; the service builds the same dicts)."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from app.service.charts.tables import ChartTable
from app.web.json_api.report_schemas import CATALOG_VERSION, MeanLatencyOut, ModelRef, P99LatencyOut
from app.web.rank.option_schemas import COST_BASIS
from app.web.rank.schemas import WORKLOAD


class QualityRow(BaseModel):
    model_id: str = Field(description="catalog model id the row is for")
    model: str = Field(description="the model as the source names it")
    precision: str = Field(description="as published: fp8, int4_w4a16_gptq, fp4_nvfp4, ...")
    method: str = Field(description="the quantisation method as published (GPTQ, AWQ, NVFP4 recipe, …)")
    benchmark: str = Field(description="the benchmark the scores are on")
    recovery_pct: float | None = Field(description="quantised score ÷ baseline score × 100, as published")
    baseline_score: float | None = Field(description="the baseline's score on the benchmark; null: not published")
    quantized_score: float | None = Field(description="the quantised model's score; null: not published")
    as_of: str = Field(description="the source's date")
    source_url: str = Field(description="where the scores were read")
    note: str = Field(description="what the source says about the row, in words; empty otherwise")
    baseline: str = Field(description="what recovery_pct is measured against, as quality.csv gives it: native FP8, …")


class Band(BaseModel):
    low: float = Field(description="the band's low end (p10), in the unit of the figure it is a band of")
    high: float = Field(description="the band's high end (p90), in the unit of the figure it is a band of")


class BestOption(MeanLatencyOut, P99LatencyOut):
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of one replica")
    tensor_parallel: int = Field(description="tensor-parallel degree of the layout")
    provider: str = Field(description="provider id")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    price_note: str = Field("", description="the nuance the price type drops, as the catalog words it")
    price_caveats: list[str] = Field(
        default_factory=list, description="what a buyer must see before trusting the price: capacity not guaranteed, …"
    )
    price_source_url: str = Field("", description="where the price was read")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: date | None = Field(description="the price's date; null: undated")
    stale: bool = Field(False, description="older than the stale-after days, or undated (ranked with include_stale)")
    interruptible: bool = Field(False, description="spot: may be taken back at short notice")
    nodes: int = Field(1, description="physical nodes one replica spans")
    instance_gpus: int = Field(1, description="GPUs one rented instance bills (1 where GPUs are rented one by one)")
    copies_per_instance: int = Field(1, description="copies of the layout one rented instance holds (1: none shared)")
    instances: int | None = Field(None, description="rented instances its replicas need")
    idle_gpus: int = Field(
        0,
        description="at a fixed load (no peak): GPUs of its rented instances idle, no copy sharing the load on them, "
        "billed; 0 otherwise",
    )
    copies_sharing_load: int = Field(
        1,
        description="at a fixed load (a request rate, clients; no peak): the copies its rented instance holds that the "
        "load is spread over, each timed at its share (the rank API's copies_sharing_load); 1 otherwise",
    )
    spread_note: str = Field("", description="copies_sharing_load in words, as the rank API's spread_note")
    cluster_caveat: str = Field(
        "",
        description="a replica over more nodes than one on an offer that does not state how many it supplies: that "
        "size is assumed available, for the buyer to confirm; else empty",
    )
    batch: int = Field(description="sequences one replica runs at once at the operating point")
    requests_in_flight: float | None = Field(
        default=None,
        description="where the answer runs below one request in flight (the latency limits hold only there, or an "
        "open loop's arrivals keep fewer): the mean requests in flight, under 1 (batch is then 1; the rank API's "
        "requests_in_flight); null otherwise",
    )
    output_tokens_per_s: float = Field(description="output tokens/s one replica serves at the operating point")
    usd_per_million_output_tokens: float | None = Field(description="$ per million output tokens, " + COST_BASIS)
    usd_per_million_tokens: float | None = Field(description="$ per million tokens in and out, " + COST_BASIS)
    usd_per_thousand_requests: float | None = Field(description="$ per thousand requests, " + COST_BASIS)
    ranked_cost: float | None = Field(description="the workload's rank_by metric")
    memory_gb_per_gpu: dict[str, float] = Field(description="GB per GPU: weights, kv_cache, reserve, capacity")
    replica_memory_gb: float | None = Field(description="weights + KV cache over the replica's GPUs")
    band: Band | None = Field(description="p10-p90 band of ranked_cost, in its unit; null: none")
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
    label: str = Field(description="the row's name as the page heads it (BF16, FP8 + KV FP8, …)")
    weight_dtype: str = Field(description="the weights' dtype this row ranks")
    kv_dtype: str = Field(description="the KV cache's dtype this row ranks")
    runs_on: str = Field(description="the tensor peak the matmuls run on")
    weights_gb: float = Field(description="the whole model's weights at this dtype")
    kv_mb_per_1k_tokens: float = Field(description="MB of KV cache per 1,000 tokens of context, the whole model")
    feasible_options: int = Field(description="options that can run the workload at this precision")
    best: BestOption | None = Field(description="the cheapest of them by rank_by; null: none can run it")
    reason: str = Field(description="why no option is shown (empty when one is)")
    quality: list[QualityRow] = Field(description="published quality rows for this model and precision")
    quality_note: str = Field(description="how to read the row's quality (the reference, an upcast, no row)")
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
    source_url: str = Field(description="the page it was read from; empty when assumed")
    assumed: bool = Field(description="nothing in the reference says: BF16 assumed")


class PrecisionResponse(BaseModel):
    workload: dict[str, object] = Field(description=WORKLOAD)
    model: ModelRef = Field(description="the model compared")
    rank_by: str = Field(description="output_tokens | all_tokens | requests | fleet: what each row's best is by")
    ranked_unit: str = Field(description="ranked_cost's unit in words ($ per million output tokens, …)")
    rows: list[PrecisionRowOut] = Field(description="one row per precision, each re-ranking every offer")
    release: Release = Field(description="the model's release precision: the row the quality deltas refer to")
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the precision page of this question")
    charts: list[ChartTable] = Field(
        description="the /precision page's chart in numbers: a row per precision with a feasible option, its best "
        "option's ranked cost in `ranked_unit` (the column's title); "
        "the same numbers, unrounded, as the page's table under the chart and its JSON twin's `charts`"
    )
