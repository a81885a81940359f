"""Request and response models of the disaggregated-serving API (what /docs shows; the service builds the dicts)."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from app.scoring.serving.disaggregated.close_call import CLOSE_CALL_RULE
from app.scoring.serving.traffic.week import TRAFFIC_DESCRIPTION, Traffic
from app.scoring.workload import InferenceWorkload
from app.service.charts.tables import ChartTable
from app.web.json_api.report_schemas import (
    CATALOG_VERSION,
    SPARE_AT_PEAK,
    SPARE_OR_SPREAD_WORDS,
    MeanLatencyOut,
    ModelRef,
    P99LatencyOut,
    PriceProvenanceOut,
    TermOut,
    WeightsOut,
)
from app.web.rank.option_schemas import BandOut
from app.web.rank.schemas import WORKLOAD

# /disagg prices a layout at the traffic, so its $ per million is what the month's tokens cost, not the rank API's
# usd_per_million_output_tokens (one replica at full load): the same name there meant the other figure, hence new names.
AT_TRAFFIC_OUTPUT = (
    "$ per million output tokens served at this traffic: the monthly (autoscaled) cost ÷ the output tokens served in "
    "the month, idle capacity included; not the rank API's full-load figure"
)
DEPRECATED_OUTPUT = (
    "deprecated name of usd_per_million_output_tokens_at_traffic (the same value); the rank API's field of this "
    "name is the full-load figure"
)


COST_BAND = "low/high of monthly_usd across the p10-p90 throughput band of {}: what the verdict's close_call compares"


def _absent(value: object) -> bool:
    """A limits_at band_high field is left out of an answer on the estimate, which reads as it always has."""
    return value is None


class DisaggRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workload: InferenceWorkload = Field(description="the rank API's inference workload")
    traffic: Traffic = Field(default_factory=Traffic, description=TRAFFIC_DESCRIPTION)


class Pool(PriceProvenanceOut):
    role: str = Field(description="prefill | decode")
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs per instance")
    tensor_parallel: int = Field(description="tensor-parallel degree of the instance's layout")
    pipeline_parallel: int = Field(description="pipeline-parallel degree of the instance's layout")
    attention_parallel: str = Field(description="tp: attention split by heads; dp: data-parallel attention")
    provider: str = Field(description="provider id")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: date | None = Field(description="the price's date; null: undated")
    machine: str = Field(description="the offer's machine as the plan read it (node size, links, fabric)")
    batch: int = Field(description="prefill: prompts per pass; decode: sequences per step")
    step_ms: float = Field(description="prefill: one pass; decode: one step (the mean TPOT)")
    capacity_requests_per_s: float = Field(description="per instance, at the TTFT (prefill) or TPOT (decode) limit")
    replicas_at_peak: int = Field(
        description="instances of the role running at the peak hour: every copy the rentals (fabric path) or nodes "
        "hold, all serving a share of the peak (utilisation_at_peak and the TTFT's queue wait count them all)"
    )
    copies_per_rental: int = Field(1, description="fabric path: instances of the role one rented instance holds")
    rentals_at_peak: int | None = Field(
        None, description="fabric path: the offer's rented instances holding them (null on the node path)"
    )
    gpus_at_peak: int = Field(description="GPUs billed for them")
    copies_needed_at_peak: int | None = Field(
        None,
        description="fabric path: copies the peak hour's requests alone would keep busy (≤ replicas_at_peak; the "
        "rentals' other copies serve a share too, billed whole with them); null on the node path",
    )
    idle_gpus_at_peak: int = Field(
        0,
        description="fabric path: GPUs the peak hour's rentals bill that no copy runs on: gpus_at_peak − "
        "replicas_at_peak × gpu_count (0 where the copies fill their rentals), already in monthly_usd; 0 on the node "
        "path (the plan's idle_gpus_at_peak). Idle as it says: every copy serves a share of the peak, so, unlike the "
        "aggregated option's and /plan's spare GPUs, these are only GPUs a copy does not fit on",
    )
    fleet_note: str = Field(
        "",
        description="fabric path: replicas_at_peak, copies_needed_at_peak and idle_gpus_at_peak in words: '4 copies "
        "on a rented 8-GPU instance share the peak hour's requests (1 would serve them)'; empty where the peak needs "
        "every copy and no GPU is idle",
    )
    utilisation_at_peak: float = Field(description="peak-hour requests ÷ the instances' capacity")
    busy_share_at_peak: float = Field(
        description="the share of the peak hour an instance is busy: prefill, the share it spends prefilling (ρ, the "
        "queue wait's), utilisation_at_peak × the utilisation its TTFT limit allows (capacity_requests_per_s already "
        "leaves the idle time the queue needs); decode, utilisation_at_peak (its batch slots in use)"
    )
    monthly_usd: float = Field(description="autoscaled hour by hour")
    usd_per_million_tokens_at_traffic: float = Field(
        description="$ per million of the pool's own tokens (see `tokens`) served at this traffic: its monthly cost ÷ "
        "those tokens served in the month"
    )
    usd_per_million_tokens: float = Field(
        description="deprecated name of usd_per_million_tokens_at_traffic (the same value)", deprecated=True
    )
    tokens: str = Field(description="prompt | output")
    latency_band_ms: BandOut | None = Field(
        None,
        description="on the estimate and at limits_at band_high: low/high of the mean latency the pool is sized for, "
        "ms (prefill: the plan's mean TTFT, its first token and queue across the band, its KV transfer as estimated; "
        "decode: the mean TPOT), across the p10-p90 band of aggregated serving in the same regime, borrowed because "
        "no publication measures disaggregated pools (absent where the instance has no regime)",
        exclude_if=_absent,
    )
    latency_band_high_ratio: float | None = Field(
        None,
        description="limits_at band_high only: that band's high ratio, which the pool's latency (less the KV "
        "transfer) times meets its limit",
        exclude_if=_absent,
    )


# No p99s: a plan's pools are sized on means held under targets the p99 limits give (pools.py, pairing.py).
class DisaggregatedOut(MeanLatencyOut):
    ratio: str = Field(description="prefill : decode instances at the peak hour, e.g. 6P:8D")
    path: str = Field(
        description="fabric: each pool on its own instances, KV cache over the inter-node fabric; node: both roles "
        "inside one node or one NVLink domain of several nodes (node_unit), which scale together (unit_label)"
    )
    prefill_per_node: int | None = Field(description="node path: prefill instances per unit (unit_label)")
    decode_per_node: int | None = Field(description="node path: decode instances per unit (unit_label)")
    nodes_at_peak: int | None = Field(
        description="node path: units (unit_label) at the peak hour; where a unit is a group of instances inside an "
        "NVLink domain, several may share one domain"
    )
    node_unit: str = Field("node", description="the scale-up unit that holds both roles: node, or NVLink domain")
    unit_label: str | None = Field(
        None,
        description="node path: one unit, as the page says it: the node_unit itself where a unit bills all its GPUs, "
        "else a group of whole instances inside one (e.g. '48-GPU group in one NVLink domain')",
    )
    idle_gpus_at_peak: int = Field(0, description="node path: GPUs of rented whole instances neither role uses")
    kv_transfer_ms: float = Field(description="ms to move one request's KV cache from prefill to decode")
    kv_transfer_gbs: float = Field(description="GB/s of the path the KV cache moves over (fabric, node or domain)")
    monthly_usd: float = Field(description="$ a month of both pools, autoscaled hour by hour")
    usd_per_million_output_tokens_at_traffic: float = Field(description=AT_TRAFFIC_OUTPUT)
    usd_per_million_tokens_at_traffic: float = Field(
        description="the same for prompt and output tokens together: monthly ÷ all tokens served in the month"
    )
    usd_per_million_output_tokens: float = Field(description=DEPRECATED_OUTPUT, deprecated=True)
    usd_per_million_tokens: float = Field(
        description="deprecated name of usd_per_million_tokens_at_traffic (the same value)", deprecated=True
    )
    monthly_usd_band: BandOut | None = Field(
        description=COST_BAND.format(
            "each pool's regime, borrowed from aggregated serving: each pool's cost × 1 / its band's ratios, not "
            "re-rounded to whole replicas"
        )
    )
    prefill: Pool = Field(description="the prefill pool")
    decode: Pool = Field(description="the decode pool")
    terms: list[TermOut] = Field(description="the explanation: each term of the plan, with its formula and figures")


class AggregatedOut(PriceProvenanceOut, MeanLatencyOut, P99LatencyOut):
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of one copy of the layout")
    rented_gpus: int = Field(description="GPUs one replica bills: a whole instance where it holds several copies")
    copies_per_instance: int = Field(description="copies of the layout one rented instance holds")
    tensor_parallel: int = Field(description="tensor-parallel degree of the layout")
    pipeline_parallel: int = Field(description="pipeline-parallel degree of the layout")
    attention_parallel: str = Field(description="tp: attention split by heads; dp: data-parallel attention")
    provider: str = Field(description="provider id")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: date | None = Field(description="the price's date; null: undated")
    batch: int = Field(description="sequences one replica runs at once, prompts prefilled inside its steps")
    requests_in_flight: float | None = Field(
        default=None,
        description="where the latency limits hold only below one request in flight: the mean requests in flight, "
        "under 1, at the load that meets them (batch is then 1; the rank API's requests_in_flight); null otherwise",
    )
    decode_only_batch: int | None = Field(description="what the same hardware batches with no prefill in its steps")
    ttft_mean_band_ms: BandOut | None = Field(
        description="low/high of ttft_mean_ms, ms: the mean times the ratios of the option's p99 TTFT band (the "
        "rank API's ttft_p99_band ÷ ttft_p99_ms; measured / predicted holds for a latency's mean and its p99 alike, "
        "one band serving both), the p10-p90 of held-out latencies in its own regime, not borrowed"
    )
    tpot_mean_band_ms: BandOut | None = Field(
        description="low/high of tpot_mean_ms, ms: the mean times the ratios of the option's p99 TPOT band "
        "(tpot_p99_band ÷ tpot_p99_ms), as ttft_mean_band_ms"
    )
    output_tokens_per_s: float = Field(description="output tokens/s one replica serves at the operating point")
    replicas_at_peak: int = Field(description="copies of the layout at the peak hour")
    instances_at_peak: int = Field(description="rented instances holding them at the peak hour")
    gpus_at_peak: int = Field(description="GPUs those instances bill")
    monthly_usd: float = Field(description="$ a month, autoscaled hour by hour")
    monthly_usd_band: BandOut | None = Field(
        description=COST_BAND.format(
            "its layout's own regime (the lookup the rank API's band makes): monthly_usd × 1 / the band's ratios, not "
            "re-rounded to whole replicas"
        )
    )
    usd_per_million_output_tokens_at_traffic: float | None = Field(description=AT_TRAFFIC_OUTPUT)
    usd_per_million_output_tokens_full_load: float = Field(
        description="the rank API's and /plan's $ per million output tokens: one replica's $/hour ÷ the output tokens "
        "it serves an hour at full load"
    )
    usd_per_million_output_tokens: float | None = Field(description=DEPRECATED_OUTPUT, deprecated=True)
    terms: list[TermOut] = Field(description="the explanation: each term of the option, with its formula and figures")
    idle_gpus_at_peak: int = Field(
        0,
        description="GPUs the peak hour's instances bill beyond its replicas: gpus_at_peak − replicas_at_peak × "
        "gpu_count (a low traffic's one copy on a whole 8-GPU instance leaves 7), already in monthly_usd. As /plan's, "
        f"they are {SPARE_AT_PEAK}",
    )
    fleet_note: str = Field("", description=SPARE_OR_SPREAD_WORDS)
    copies_at_peak_if_spread: int | None = Field(
        None,
        description="where fleet_note says the spare GPUs would run copies too: every copy the peak hour's billed "
        "instances hold (the ranked row's copies_at_peak_if_spread); null where fleet_note says them spare or nothing",
    )


class VerdictOut(BaseModel):
    winner: str = Field(description="disaggregated | aggregated | close | disaggregated_only | neither")
    headline: str = Field(description="which layout pays and by how much, in one sentence")
    saving_usd_per_month: float | None = Field(description="aggregated − disaggregated (negative: aggregated cheaper)")
    saving_share: float | None = Field(description="saving_usd_per_month ÷ the aggregated monthly cost, a fraction")
    why: list[str] = Field(description="the numbers per pool behind the headline")
    close_call: bool = Field(
        description="the aggregated option's and the cheapest plan's monthly_usd_band overlap: the estimates cannot "
        f"order the two layouts (false where either is missing). {CLOSE_CALL_RULE}"
    )
    close_call_reason: str | None = Field(
        description="the sentence saying whether the gap is a close call, with both bands (null where a layout is "
        "missing or has no band)"
    )


class DisaggResponse(BaseModel):
    workload: dict[str, object] = Field(description=WORKLOAD)
    traffic: dict[str, object] = Field(
        description="the traffic as validated, with its mean requests_per_day and its busiest hour's "
        "peak_requests_per_s"
    )
    model: ModelRef = Field(description="the model served")
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    verdict: VerdictOut = Field(description="which layout costs less at this traffic, and why")
    aggregated: AggregatedOut | None = Field(
        description="the cheapest aggregated option (prompts prefilled inside the decode steps); null: none serves"
    )
    disaggregated: list[DisaggregatedOut] = Field(description="the cheapest disaggregated plans, cheapest first")
    pairings_considered: int = Field(description="(prefill, decode) instance pairings priced")
    limits_at_bands: str | None = Field(
        None,
        description="limits_at band_high only (absent on the estimate): that each pool meets its limit at the slow end "
        "of its latency band, and that those are aggregated serving's bands in the same regime, borrowed because no "
        "publication measures disaggregated pools (wider-is-safer approximations); the KV transfer stays on the "
        "estimate",
        exclude_if=_absent,
    )
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the disagg page of this question")
    charts: list[ChartTable] = Field(
        description="the /disagg page's chart in numbers: a row per layout (aggregated, then each disaggregated "
        "plan), columns aggregated, prefill pool and decode pool in $ per month (autoscaled), null where a bar has "
        "none; empty where no layout serves; "
        "the same numbers, unrounded, as the page's table under the chart and its JSON twin's `charts`"
    )
