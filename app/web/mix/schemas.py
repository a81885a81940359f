"""Response model of the GPU-mix API (what /docs shows; the service builds the same dict)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.scoring.serving.mix.question import MixQuestion
from app.web.json_api.report_schemas import MeanLatencyOut, ModelRef, PriceProvenanceOut, TermOut, WeightsOut


class BucketOut(BaseModel):
    name: str = Field(description="the shape's key, or INPUTxOUTPUT")
    label: str
    input_len: int
    output_len: int
    share: float = Field(description="of all requests: weight ÷ the weights' total")
    weight: float = Field(description="the share as given in `mix`")
    requests_per_s: float = Field(description="this bucket's rate at the busiest hour")
    source: str = Field(description="where a named shape's lengths come from")
    source_url: str


class BucketFitOut(MeanLatencyOut):
    bucket: str
    requests_per_s: float = Field(description="what one replica sustains on this bucket at the limits; 0 = cannot")
    output_tokens_per_s: float
    batch: int
    reason: str = Field(description="why it cannot serve the bucket (empty when it can)")


class ReplicaTypeOut(PriceProvenanceOut):
    key: str
    label: str
    gpu_id: str
    gpu_count: int = Field(description="GPUs of one copy of the layout")
    rented_gpus: int = Field(description="GPUs one replica bills: a whole instance where it holds several copies")
    copies: int = Field(description="copies of the layout one rented instance holds (its fits are all of them)")
    tensor_parallel: int
    pipeline_parallel: int
    provider: str
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    as_of: str | None
    machine: str
    usd_per_replica_month: float
    cheapest_for: list[str] = Field(description="buckets where this is its GPU type's cheapest configuration")
    fits: list[BucketFitOut]


class FleetRow(PriceProvenanceOut):
    replica: str = Field(description="key of the replica type")
    label: str
    gpu_id: str
    gpu_count: int
    rented_gpus: int
    copies: int
    provider_name: str
    price_type: str
    usd_per_gpu_hour: float
    replicas: int
    load_replicas: float = Field(description="Σ share × demand ÷ capacity: the fractional replicas its load needs")
    shares: dict[str, float] = Field(description="share of each bucket's requests it serves")
    serves: list[str]
    usd_per_month: float
    terms: list[TermOut]


class FleetOut(BaseModel):
    label: str
    usd_per_month: float
    gpu_types: list[str]
    rows: list[FleetRow]


class ShapeOut(BaseModel):
    key: str
    label: str
    input_len: int
    output_len: int
    source: str
    source_url: str


class MixQuestionOut(MixQuestion):
    mix_text: str = Field(description="the distribution in its query-string form, shares as given")
    shares_add_up_to: float = Field(description="the shares' total; shares are weights, divided by it")
    mix_normalised_text: str = Field(description="the distribution as fractions of all requests, as the plan reads it")


class MixResponse(BaseModel):
    question: MixQuestionOut
    model: ModelRef
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    requests_per_day: float
    peak_requests_per_s: float
    buckets: list[BucketOut]
    mix: FleetOut | None = Field(description="the cheapest mix; null when some bucket has no offer that serves it")
    best_single: FleetOut | None = Field(description="the cheapest fleet of one GPU type serving every bucket")
    singles: list[FleetOut] = Field(description="single-type fleets, cheapest first (the first few)")
    single_types_feasible: int
    saving_usd_per_month: float | None = Field(description="best single type − mix")
    saving_pct: float | None
    replica_types: list[ReplicaTypeOut] = Field(description="every candidate the integer program considered")
    gpu_types_considered: int
    offers_considered: int
    terms: list[TermOut]
    notes: list[str]
    shapes: list[ShapeOut] = Field(description="the named shapes and their sources")
    catalog_version: str
    share_url: str
