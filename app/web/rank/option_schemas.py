"""What one ranked option of the rank API says, field by field, for /docs: units, statistics, when null.

The handlers return plain dicts (app.service.rank.ranking); these models document them and tests/test_api_schemas.py
checks real answers against them, no field missing and none undeclared.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from app.web.json_api.report_schemas import SPARE_AT_PEAK, SPARE_WORDS, TPOT_P99, TTFT_P99, TermOut
from app.web.rank.layout_schema import LayoutOut

INFEASIBLE_NULL = "; null on an infeasible option"
# What a serving row's $ figures bill: a copy's share of an instance, or at a fixed load its whole instances.
COST_BASIS = (
    "one replica at full load, a copy billed its share of an instance; at a fixed load (clients, a request rate, one "
    "stream; no peak) that load spread over the copies its rented instance holds (copies_sharing_load), billed every "
    "GPU of the whole instances they run on, idle ones included (idle_gpus)"
)
TTFT_MEAN = "mean time to first token, ms: queueing and prefill (not the p99 the request's ttft_ms limits)"
TPOT_MEAN = "mean time per output token after the first, ms (not the p99 the request's tpot_ms limits)"
TTFT_MEDIAN = (
    "median time to first token, ms (Poisson arrivals: the M/D/1 prefill wait at its median; closed loops: the mean)"
)
DEPRECATED_TTFT = "deprecated name of ttft_mean_ms (the same value: the mean, not the p99 the request's ttft_ms limits)"
DEPRECATED_TPOT = "deprecated name of tpot_mean_ms (the same value: the mean, not the p99 the request's tpot_ms limits)"
BAND = (
    "low/high of the uncertainty band of the field band_metric names, in that field's unit; a billed amount (a run's "
    "total, a batch job's cost) billed at each end as its terms bill (billing unit, minimum term)"
)


class BandOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    low: float = Field(description="the band's low end (p10), in the unit of the figure it is a band of")
    high: float = Field(description="the band's high end (p90), in the unit of the figure it is a band of")


LATENCY_BAND = (
    "low/high of the p10-p90 band of {}, ms: held-out measured / predicted latencies of its regime at its load (under "
    "traffic, or without arrivals)"
)


class LatencyFieldsOut(BaseModel):
    """The latencies an inference option or estimate reports: means (and their deprecated names), the median and
    the p99s the request's limits are checked against."""

    ttft_mean_ms: float | None = Field(description=TTFT_MEAN + INFEASIBLE_NULL)
    tpot_mean_ms: float | None = Field(description=TPOT_MEAN + INFEASIBLE_NULL)
    ttft_ms: float | None = Field(description=DEPRECATED_TTFT, deprecated=True)
    tpot_ms: float | None = Field(description=DEPRECATED_TPOT, deprecated=True)
    ttft_median_ms: float | None = Field(description=TTFT_MEDIAN + INFEASIBLE_NULL)
    ttft_p99_ms: float | None = Field(description=TTFT_P99 + INFEASIBLE_NULL)
    tpot_p99_ms: float | None = Field(description=TPOT_P99 + INFEASIBLE_NULL)
    ttft_p99_band: BandOut | None = Field(description=LATENCY_BAND.format("ttft_p99_ms") + INFEASIBLE_NULL)
    tpot_p99_band: BandOut | None = Field(description=LATENCY_BAND.format("tpot_p99_ms") + INFEASIBLE_NULL)
    limits_at_risk: str = Field(
        description="the p99 limits it meets on its estimate that a p99 at its band's slow end would pass, in words; "
        "empty where none would, where it is over a limit, or where limits are not applied"
    )
    requests_in_flight: float | None = Field(
        description="where the answer runs below one request in flight: the mean requests in flight, under 1 (batch "
        "is then 1 and output_tokens_per_s that load's). Either the latency limits hold only there (one always in "
        "flight misses them) and this is the load that meets them, or an open loop's arrivals (scenario "
        "request_rate) keep fewer than one in flight (Little's law); null otherwise",
    )
    requests_per_s: float | None = Field(
        description="requests/s one replica sustains at the operating point: its requests in flight over one "
        "request's life (TTFT + a TPOT per further output token; Little's law), at most output_tokens_per_s / "
        "output_len; what replicas for a peak and /plan's fleets are sized by. A batch job's: over the job"
        + INFEASIBLE_NULL,
    )


class OfferFieldsOut(BaseModel):
    """What an option says of its offer and price (both phases)."""

    model_config = ConfigDict(extra="forbid")

    gpu_id: str = Field(description="catalog GPU id (`id` in /api/v1/gpus; a workload's `gpus` filter lists them)")
    provider: str = Field(
        description="the seller's catalog id: `provider_id` in /api/v1/offers and /api/v1/token-prices, `id` in "
        "/api/v1/providers; a workload's `providers` filter lists them"
    )
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    usd_per_gpu_hour: float = Field(description="the offer's price, $ per GPU-hour")
    as_of: date | None = Field(description="the price's date; null: undated")
    price_note: str = Field(description="the price's terms in words, as the source gives them")
    price_caveats: list[str] = Field(description="labels of the note's caveats a buyer must see")
    price_source_url: str = Field(description="where the price was read (`source_url` in /api/v1/offers)")
    stale: bool = Field(description="older than the stale-after days, or undated")
    interruptible: bool = Field(description="spot: may be taken back at short notice")
    offer_id: int | None = Field(
        description="the catalog offer (`id` in /api/v1/offers; an estimate's offer_id judges its machine)"
    )
    instance_type: str = Field(
        "", description="the offer's instance as its provider names it; empty: none in the catalog"
    )
    region: str = Field("", description="where the offer's price applies; empty: not stated")
    feasible: bool = Field(description="the configuration can run the workload at this offer")
    reason: str = Field(description="why it fits (inference) or why not; empty for a training run within limits")
    close_call: bool = Field(
        description="the order is within the uncertainty: on a runner-up, its band overlaps the best option's and it "
        "rests on another estimate (GPU, count or layout); on the best option, some runner-up is a close call"
    )
    terms: list[TermOut] = Field(
        default_factory=list, description="the explanation: each term of the estimate; left out with ?terms=false"
    )
    assumptions: list[str] = Field(
        default_factory=list,
        description="what the estimate assumes, the band's evidence last; left out with ?terms=false",
    )
    nodes: int = Field(description="physical nodes the configuration spans")
    machine: str = Field(description="the offer's machine as the ranking read it (node size, links, fabric)")


class InferenceOptionFields(OfferFieldsOut, LatencyFieldsOut):
    """A ranked inference option: one (GPU, count, layout) at one offer."""

    gpu_count: int = Field(description="GPUs of one replica (one copy of the layout)")
    tensor_parallel: int = Field(description="tensor-parallel degree of the layout")
    pipeline_parallel: int = Field(description="pipeline-parallel degree of the layout")
    attention_parallel: str = Field(description="tp: attention split by heads; dp: data-parallel attention")
    expert_parallel: str = Field(
        description="tp: experts split over the tensor-parallel group; ep: whole experts (a placement, as the question "
        "gave it; a training layout's expert_parallel is its EP degree, an int)"
    )
    batch: int | None = Field(description="sequences one replica runs at once at the operating point" + INFEASIBLE_NULL)
    output_tokens_per_s: float | None = Field(
        description="output tokens/s one replica serves at the operating point" + INFEASIBLE_NULL
    )
    usd_per_million_output_tokens: float | None = Field(
        description="$ per million output tokens, " + COST_BASIS + INFEASIBLE_NULL
    )
    usd_per_million_tokens: float | None = Field(
        description="$ per million tokens in and out, " + COST_BASIS + INFEASIBLE_NULL
    )
    usd_per_thousand_requests: float | None = Field(
        description="$ per thousand requests, " + COST_BASIS + INFEASIBLE_NULL
    )
    usd_per_month_at_peak: float | None = Field(
        description="with a peak (peak_requests_per_s or peak_concurrency): $ a month for the rented instances its "
        "replicas need, 730 h; else null. /plan and /disagg call a month's cost `monthly_usd` (and /plan's options "
        "`monthly_usd_always_on`, the same peak instances every hour)"
    )
    band: BandOut | None = Field(description=BAND + INFEASIBLE_NULL)
    band_metric: str | None = Field(
        description="the field the band is of: the ranked metric (usd_per_million_output_tokens, "
        "usd_per_million_tokens, usd_per_thousand_requests, or usd_per_month_at_peak, per rank_by)" + INFEASIBLE_NULL
    )
    memory_gb: dict[str, float] = Field(
        description="10^9 bytes per GPU: weights, kv_cache (at the operating batch), reserve (what the engine leaves "
        "unused), capacity (the card as CUDA shows it: an HBM datasheet's GB are binary, so an 80 GB H100 holds "
        "83.75); an infeasible option's shows what it would need"
    )
    replicas: int | None = Field(
        description="replicas (copies of the layout): 1, what a peak or a batch job's deadline needs, or at a fixed "
        "load the copies sharing it (copies_sharing_load)" + INFEASIBLE_NULL
    )
    instance_gpus: int = Field(description="GPUs one rental of the offer bills (an 8-GPU VM is rented whole)")
    copies_per_instance: int = Field(
        description="copies of the layout one rented instance holds; at a fixed load every one of them shares it "
        "(copies_sharing_load), but one stream runs on one, and fewer clients on as many copies (idle_gpus)"
    )
    instances: int | None = Field(description="rented instances the replicas need" + INFEASIBLE_NULL)
    idle_gpus: int = Field(
        0,
        description="at a fixed load (clients, a request rate, one stream; no peak): the GPUs of its rented "
        "instances left idle, no copy sharing the load on them (one stream on one TP2 copy of an 8-GPU instance: 6; "
        "3 clients on 3 of its 8 TP1 copies: 5), billed in its costs. 0 otherwise, and where every copy the instance "
        "holds shares the load",
    )
    idle_gpus_at_peak: int = Field(
        0,
        description="at a peak (peak_requests_per_s or peak_concurrency): GPUs its rented instances bill beyond the "
        "replicas the peak needs (2 copies on an 8-GPU instance: 6), instances × instance_gpus − replicas × gpu_count, "
        f"already in usd_per_month_at_peak, as /plan's idle_gpus_at_peak; 0 otherwise. They are {SPARE_AT_PEAK}",
    )
    fleet_note: str = Field(
        "",
        description=SPARE_WORDS + "; where the spare GPUs would hold whole copies (copies_at_peak_if_spread), what "
        "running them says instead: 'one copy serves the peak; run 8 copies on the 8 billed GPUs and the peak's p99 "
        "TTFT falls to 62 ms, TPOT to 9.1 ms'",
    )
    copies_sharing_load: int = Field(
        1,
        description="at a fixed load (a request rate, clients; no peak): the copies of the layout its rented "
        "instance holds that the load is spread over behind a load balancer, each at its share (a request rate split "
        "evenly; clients whole, as many copies as clients at most): ttft_*, tpot_*, batch, output_tokens_per_s and "
        "requests_per_s are one copy's (the busiest's, with clients); 1 otherwise and for one stream",
    )
    one_copy_ttft_p99_ms: float | None = Field(
        None,
        description="with copies_sharing_load above 1: the p99 TTFT one copy alone would serve the whole load at, "
        "ms; null where it would not keep up, and with one copy",
    )
    one_copy_tpot_p99_ms: float | None = Field(
        None,
        description="with copies_sharing_load above 1: the p99 TPOT one copy alone would serve it at, ms (as above)",
    )
    spread_note: str = Field(
        "",
        description="copies_sharing_load in words, as the page says them: '8 copies share this load (2.5 "
        "requests/s each), one on each GPU of the rented 8-GPU instance; one copy would serve it at p99 TTFT 510 ms, "
        "TPOT 38.6 ms'; empty with one copy",
    )
    copies_at_peak_if_spread: int | None = Field(
        None,
        description="at a peak whose billed instances hold more copies of the layout than the peak needs: every copy "
        "they hold (as many as the peak's clients at most), run on the spare GPUs too with the peak's load spread "
        "over them, each at its share; replicas, usd_per_month_at_peak and the ttft_*/tpot_* stay the sized fleet's "
        "(each copy at the load the ranking sized it for). Null otherwise, and where a copy would not keep up",
    )
    spread_ttft_p99_ms: float | None = Field(
        None,
        description="with copies_at_peak_if_spread: the p99 TTFT, ms, each of those copies runs at its share of the "
        "peak (the busiest's, with clients); the bill is the same. Null otherwise",
    )
    spread_tpot_p99_ms: float | None = Field(
        None, description="with copies_at_peak_if_spread: the p99 TPOT, ms, as spread_ttft_p99_ms. Null otherwise"
    )
    min_term_hours: float = Field(description="reserved / capacity block: hours paid for at least; 0 otherwise")
    job_hours: float | None = Field(
        description="a batch job (job_requests): its hours on `replicas`, from the machine's start-up (0.25 h, "
        "assumed) to its last request, what job_deadline_hours holds; else null"
    )
    job_billed_hours: float | None = Field(
        description="a batch job's hours as billed: spot's interruptions, the provider's billing unit, a committed "
        "term paid whole; else null"
    )
    job_usd: float | None = Field(description="a batch job: $ it is billed; else null")
    over_limits: str = Field(
        description="at a fixed load (clients, a request rate, one stream): the p99 latency limits it misses, in "
        "words (ranked after every option meeting them); empty otherwise"
    )
    cluster_caveat: str = Field(
        "",
        description="a replica over more nodes than one on an offer that does not state how many it supplies: that "
        "size is assumed available, for the buyer to confirm; else empty",
    )
    software_era_note: str = Field(
        "",
        description="where the engine or ROCm factors the estimate reads (vLLM's, SGLang's, llama.cpp's, ROCm's) rest "
        "only on publications more than 12 months older than the row's price date (as_of): their builds and dates, "
        "and that newer builds are likely faster, so the band's upper edge is no evidence of today's software: 'ROCm "
        "factors from mlperf-inf-v4.1 (2024-08: vLLM 0.4.3, ROCm 6.1.2) and argonne-llm-inference-bench (2024-11: "
        "vLLM 0.6.1), the newest 25 months before this price's date (2026-12-01): ...'. Empty otherwise; the "
        "estimate and its band are the same either way",
    )


class InferenceOptionOut(InferenceOptionFields):
    rank: int = Field(description="1 = best; a sorted answer keeps each option's rank")


class TrainingOptionFields(OfferFieldsOut):
    """A ranked training run: one GPU count and layout at one offer, under the offer's terms."""

    gpu_count: int = Field(description="GPUs the run uses")
    layout: str = Field(description="the parallel layout in words (empty where nothing fits)")
    feasible: bool = Field(description="fits, and finishes within the deadline and budget under the offer's terms")
    total_usd: float | None = Field(
        description="$ the run is billed under the offer's terms (minimum terms, billing units, spot's lost work): "
        "what the ranking orders by; null where it does not fit"
    )
    usd_per_step: float | None = Field(
        description="$ per optimizer step at the offer's price; null where it does not fit"
    )
    step_time_s: float | None = Field(description="seconds per optimizer step; null where it does not fit")
    tokens_per_s_per_gpu: float | None = Field(description="training tokens/s per GPU; null where it does not fit")
    mfu: float | None = Field(description="model FLOPs utilisation, a fraction of the peak; null where it does not fit")
    total_hours: float | None = Field(
        description="expected wall-clock hours of the run (spot: with interruptions); null where it does not fit"
    )
    days: float | None = Field(description="total_hours / 24; null where it does not fit")
    billed_hours: float | None = Field(
        description="hours billed: used hours rounded up to the billing unit, at least a committed minimum term; null "
        "where it does not fit"
    )
    expected_interruptions: float | None = Field(
        description="expected spot interruptions over the run (0 off spot); null where it does not fit"
    )
    memory_per_gpu_gb: float | None = Field(
        description="GB per GPU the layout takes: its need (the step's fullest moment) plus the runtime reserve, set "
        "against the card's allocator share (the need alone against the usable GB: the share less the reserve); an "
        "unfit option's: the fewest it could take; null where no layout was sized (the GPU has no published compute "
        "peak)"
    )
    band: BandOut | None = Field(description=BAND + "; null where it does not fit")
    band_metric: str | None = Field(
        description="the field the band is of: total_usd, the ranked metric, whose bands close calls compare; null "
        "where it does not fit"
    )
    billing_note: str = Field(description="how billed hours and spot's lost hours follow from the terms; empty if none")
    cluster_caveat: str = Field(
        description="a run over more nodes than one on an offer that does not state how many it supplies; else empty"
    )
    memory_breakdown_gb: dict[str, float] | None = Field(
        description="GB per GPU by part of this row's layout (model_states, live_params, activations, logits, "
        "runtime_reserve), each at its largest; they need not sum to memory_per_gpu_gb, as the need is the step's "
        "fullest moment, where gradients, activations and logits are not all live and the optimizer update may add "
        "temporaries (memory_at_peak_gb has the parts at that moment); null where no layout was sized"
    )
    deadline_at_risk: str = Field(
        description="what a run on time on its estimate would miss at its tokens/s band's slow end (the deadline, "
        "the budget), in words; empty where it misses nothing there, where it is already late or over budget, and "
        "with limits_at band_high (checked there)"
    )
    layout_detail: LayoutOut | None = Field(
        description="the layout `layout` words, as fields: the estimate API's `layout` for this GPU, count and offer "
        "(/api/v1/estimate/training with offer_id); null where `layout` is empty (no layout was sized)"
    )
    memory_at_peak_gb: dict[str, float] | None = Field(
        None,
        description="GB per GPU live at the step's fullest moment (the backward's start, or the optimizer step with "
        "its update's temporaries): model_states (less gradients freed between steps), live_params, activations, "
        "logits, optimizer_temporaries and runtime_reserve, summing to memory_per_gpu_gb: what its memory chart "
        "draws; null where no layout fits",
    )


class TrainingOptionOut(TrainingOptionFields):
    rank: int = Field(description="1 = best; a sorted answer keeps each option's rank")
