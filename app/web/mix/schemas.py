"""Response model of the GPU-mix API (what /docs shows; the service builds the same dict)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.scoring.serving.mix.question import MixQuestion
from app.service.charts.tables import ChartTable
from app.web.json_api.report_schemas import (
    CATALOG_VERSION,
    SPARE_AT_PEAK,
    SPARE_WORDS,
    MeanLatencyOut,
    ModelRef,
    P99LatencyOut,
    PriceProvenanceOut,
    TermOut,
    WeightsOut,
)


class BucketOut(BaseModel):
    name: str = Field(description="the shape's key, or INPUTxOUTPUT")
    label: str = Field(description="the bucket as the page names it (chat, 1000 in / 200 out)")
    input_len: int = Field(description="prompt tokens of a request in the bucket")
    output_len: int = Field(description="output tokens of a request in the bucket")
    share: float = Field(description="of all requests: weight ÷ the weights' total")
    weight: float = Field(description="the share as given in `mix`")
    requests_per_s: float = Field(description="this bucket's rate at the busiest hour")
    source: str = Field(description="where a named shape's lengths come from")
    source_url: str = Field(description="the page those lengths were read from; empty for INPUTxOUTPUT")


class BucketFitOut(MeanLatencyOut, P99LatencyOut):
    bucket: str = Field(description="the bucket's name")
    requests_per_s: float = Field(description="what one replica sustains on this bucket at the limits; 0 = cannot")
    output_tokens_per_s: float = Field(description="output tokens/s one replica serves on this bucket")
    batch: int = Field(description="sequences one replica runs at once on this bucket")
    requests_in_flight: float | None = Field(
        default=None,
        description="where the latency limits hold on this bucket only below one request in flight: the mean "
        "requests in flight, under 1, at the load that meets them (batch is then 1; the rank API's "
        "requests_in_flight); null otherwise",
    )
    reason: str = Field(description="why it cannot serve the bucket (empty when it can)")


class ReplicaTypeOut(PriceProvenanceOut):
    key: str = Field(description="the replica type's id, as the fleet rows' `replica` name it")
    label: str = Field(description="the replica type in words (GPUs × GPU at provider)")
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of one copy of the layout")
    rented_gpus: int = Field(description="GPUs one replica bills: a whole instance where it holds several copies")
    copies: int = Field(description="copies of the layout one rented instance holds (its fits are all of them)")
    tensor_parallel: int = Field(description="tensor-parallel degree of the layout")
    pipeline_parallel: int = Field(description="pipeline-parallel degree of the layout")
    provider: str = Field(description="provider id")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: str | None = Field(description="the price's date; null: undated")
    machine: str = Field(description="the offer's machine (node size, links, fabric)")
    usd_per_replica_month: float = Field(description="$ a month of one replica on every hour")
    cheapest_for: list[str] = Field(description="buckets where this is its GPU type's cheapest configuration")
    fits: list[BucketFitOut] = Field(description="what one replica sustains on each bucket")


class FleetRow(PriceProvenanceOut):
    replica: str = Field(description="key of the replica type")
    label: str = Field(description="the replica type in words")
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of one copy of the layout")
    rented_gpus: int = Field(description="GPUs one replica bills")
    copies: int = Field(description="copies of the layout one rented instance holds")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: str | None = Field(description="the price's date; null: undated")
    replicas: int = Field(description="whole replicas of this type in the fleet, sized for the busiest hour")
    load_replicas: float = Field(description="Σ share × demand ÷ capacity: the fractional replicas its load needs")
    shares: dict[str, float] = Field(description="share of each bucket's requests it serves")
    serves: list[str] = Field(description="the buckets it serves any share of")
    usd_per_month: float = Field(description="$ a month of these replicas on every hour")
    terms: list[TermOut] = Field(description="the explanation: each term of the row, with its formula and figures")
    copies_at_peak: int = Field(
        0,
        description="copies of the layout its peak load needs: load_replicas × copies, rounded up (at most "
        "replicas × copies)",
    )
    idle_gpus_at_peak: int = Field(
        0,
        description="GPUs its replicas bill beyond the copies its peak load needs: replicas × rented_gpus − "
        "copies_at_peak × gpu_count (a low traffic's one copy on a whole 8-GPU instance leaves 7), already in "
        f"usd_per_month. They are {SPARE_AT_PEAK}",
    )
    fleet_note: str = Field(
        "",
        description=SPARE_WORDS + "; where the rented instances hold more copies than the peak needs, what running "
        "them all would give (copies_at_peak_if_spread): for a row serving one bucket as /plan says it, 'one copy "
        "serves the peak; run 8 copies on the 8 billed GPUs and the peak's p99 TTFT falls to 62 ms, TPOT to 9.1 ms "
        "(0.25 requests/s each, of the 2.4 one copy sustains at the limits)'; for a row serving several buckets the "
        "copies and each one's load, and that no p99 is given (a copy would serve several request lengths together, "
        "and an estimate times one at a time)",
    )
    requests_per_s_at_peak: float = Field(
        0.0, description="the busiest hour's requests/s this row serves: Σ over buckets of share × requests_per_s"
    )
    one_copy_requests_per_s: float = Field(
        0.0,
        description="what one copy of the layout sustains at the latency limits on this row's requests, its buckets "
        "in the proportions it serves them: requests_per_s_at_peak ÷ (load_replicas × copies), the capacities the "
        "program adds up (a replica type's fits ÷ copies)",
    )
    copies_at_peak_if_spread: int | None = Field(
        None,
        description="where its rented instances hold more copies than copies_at_peak: every copy they hold (replicas "
        "× copies), run on the spare GPUs too with the row's requests spread over them behind a load balancer, at "
        "the same bill; replicas, usd_per_month and the fits stay the sized fleet's (as the rank API's field of that "
        "name). Null otherwise, and where a copy would not keep up with its share",
    )
    spread_requests_per_s: float | None = Field(
        None,
        description="with copies_at_peak_if_spread: each copy's share of the row's requests, "
        "requests_per_s_at_peak ÷ copies_at_peak_if_spread (set against one_copy_requests_per_s). Null otherwise",
    )
    spread_ttft_p99_ms: float | None = Field(
        None,
        description="with copies_at_peak_if_spread, for a row serving one bucket: the p99 TTFT, ms, each copy runs "
        "at with spread_requests_per_s of that bucket, solved as the rank API's peak rows spread theirs. Null "
        "otherwise, and for a row serving several buckets: a copy would serve several request lengths together, and "
        "an estimate times one at a time (fleet_note says so)",
    )
    spread_tpot_p99_ms: float | None = Field(
        None, description="with spread_ttft_p99_ms: the p99 TPOT, ms, as spread_ttft_p99_ms. Null otherwise"
    )


class FleetOut(BaseModel):
    label: str = Field(description="cheapest mix, or the GPU type of a single-type fleet")
    usd_per_month: float = Field(description="$ a month of the whole fleet, always on, sized for the busiest hour")
    gpu_types: list[str] = Field(description="the GPU ids the fleet uses")
    rows: list[FleetRow] = Field(description="one row per replica type in the fleet")


class ShapeOut(BaseModel):
    key: str = Field(description="the name `mix` takes (chat, rag, code, reasoning)")
    label: str = Field(description="the shape in words")
    input_len: int = Field(description="prompt tokens of a request")
    output_len: int = Field(description="output tokens of a request")
    source: str = Field(description="where the lengths come from")
    source_url: str = Field(description="the page they were read from")


class MixQuestionOut(MixQuestion):
    mix_text: str = Field(description="the distribution in its query-string form, shares as given")
    shares_add_up_to: float = Field(description="the shares' total; shares are weights, divided by it")
    mix_normalised_text: str = Field(description="the distribution as fractions of all requests, as the plan reads it")


class MixResponse(BaseModel):
    question: MixQuestionOut = Field(description="the question as validated, defaults filled in")
    model: ModelRef = Field(description="the model served")
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    requests_per_day: float = Field(description="requests a day, mean over the week")
    peak_requests_per_s: float = Field(description="requests/s of the busiest hour, what the fleet is sized for")
    buckets: list[BucketOut] = Field(description="the length buckets with their shares and rates")
    mix: FleetOut | None = Field(description="the cheapest mix; null when some bucket has no offer that serves it")
    best_single: FleetOut | None = Field(description="the cheapest fleet of one GPU type serving every bucket")
    singles: list[FleetOut] = Field(description="single-type fleets, cheapest first (the first few)")
    single_types_feasible: int = Field(description="GPU types that can serve every bucket alone")
    saving_usd_per_month: float | None = Field(description="best single type − mix")
    saving_pct: float | None = Field(description="saving_usd_per_month ÷ the best single type's monthly cost × 100")
    replica_types: list[ReplicaTypeOut] = Field(description="every candidate the integer program considered")
    gpu_types_considered: int = Field(description="GPU types with a configuration that serves some bucket")
    offers_considered: int = Field(description="offers the candidates were chosen from")
    terms: list[TermOut] = Field(description="the explanation of the mix's cost")
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    shapes: list[ShapeOut] = Field(description="the named shapes and their sources")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the mix page of this question")
    charts: list[ChartTable] = Field(
        description="the /mix page's chart in numbers: a row per fleet (the cheapest mix, then the cheapest "
        "single-type fleets), a column per offer, each cell that offer's $ per month in the fleet (0 where it has "
        "none); "
        "the same numbers, unrounded, as the page's table under the chart and its JSON twin's `charts`"
    )
