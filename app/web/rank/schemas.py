"""What the rank and estimate APIs answer, for /docs (app.service builds the dicts; the options are option_schemas')."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.service.rank.card_ratio import PAST_DATASHEET
from app.web.json_api.report_schemas import CATALOG_VERSION, ModelOut, ServerlessQuoteFields, TermOut, WeightsOut
from app.web.rank.layout_schema import LayoutOut
from app.web.rank.option_schemas import (
    BAND,
    INFEASIBLE_NULL,
    BandOut,
    InferenceOptionFields,
    InferenceOptionOut,
    LatencyFieldsOut,
    TrainingOptionFields,
    TrainingOptionOut,
)
from app.web.rank.superseded_schema import OFFER_SUPERSEDED, OfferSupersededOut
from app.web.rendering.chart_tables import ChartTable

WORKLOAD = "the request's workload as validated: every field it sets, defaults filled in, unset ones left out"
TERMS = "the explanation: each term of the estimate, with its value, unit and formula"
ASSUMPTIONS = "what the estimate assumes, the band's evidence last"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LowestReach(Strict):
    value: float = Field(description="ms")
    gpu_id: str = Field(description="catalog GPU id of the configuration that reaches it")
    gpu_count: int = Field(description="GPUs of that configuration")
    tensor_parallel: int = Field(description="its tensor-parallel degree")
    pipeline_parallel: int = Field(description="its pipeline-parallel degree")
    copies_sharing_load: int = Field(
        1,
        description="copies of it the load is spread over, each at its share, on the instance a row bills "
        "(copies_sharing_load of an option); value is one copy's",
    )


class LowestP99Out(Strict):
    ttft_p99_ms: LowestReach | None = Field(None, description="the lowest p99 time to first token reached, ms")
    tpot_p99_ms: LowestReach | None = Field(None, description="the lowest p99 time per output token reached, ms")


CARD_GPU = "a GPU the question names (gpus), once, under the catalog's id, in the order asked"
CARD_OPTION = (
    "its card's option, the numbers /compare shows: the GPU's best feasible option (the ranking's best row of it, "
    "without rank and terms), else its first infeasible one (feasible false, with the reason); null: no offer of it "
    "passes the filters"
)
CARD_LEFT_OUT = (
    "where no ranked offer of it runs the question (option null or infeasible): the offers of it the price terms or "
    "stale prices left out, in words, which may run it; else ''"
)
CARDS = "present only on /compare.json: one card per GPU the question names, as /compare shows them side by side"
CHARTS = (
    "present on the results pages' twins (/rank.json, /compare.json), and on the rank API only when asked for "
    "(`?charts=true`; `gpumatch rank … --charts --json`): each chart the page draws, as the numbers of its "
    "no-JavaScript table (unrounded), axes' units in the column titles, for the same leading configurations"
)


class InferenceCardOut(Strict):
    gpu_id: str = Field(description=CARD_GPU)
    option: InferenceOptionFields | None = Field(description=CARD_OPTION)
    left_out: str = Field(description=CARD_LEFT_OUT)


class TrainingCardOut(Strict):
    gpu_id: str = Field(description=CARD_GPU)
    option: TrainingOptionFields | None = Field(description=CARD_OPTION)
    left_out: str = Field(description=CARD_LEFT_OUT)


class ServerlessJobQuoteOut(ServerlessQuoteFields):
    job_usd: float = Field(description="the batch job through this API: requests × usd_per_request, $")


class RankResponseBase(Strict):
    phase: str = Field(description="inference | training")
    workload: dict[str, Any] = Field(description=WORKLOAD)
    model: ModelOut = Field(description="the model as the estimate read it")
    total_options: int = Field(description="every option of the ranking, feasible or not (options may be fewer: limit)")
    feasible_options: int = Field(description="options that can run the workload (the first ones of options)")
    notes: list[str] = Field(description="what a reader must know about this answer, in sentences")
    catalog_version: str = Field(description=CATALOG_VERSION)
    share_url: str = Field(description="the results page of this question (and sort)")
    sort: str | None = Field(
        None, description="present only when the request sorts: the column the feasible options are sorted by"
    )


class CheaperReplicasOut(Strict):
    note: str = Field(description="what one replica taking the load costs against replicas (also among notes)")
    url: str = Field(description="the same load as latency_bound with it as the peak (peak_concurrency or rate)")
    usd_per_million_output_tokens: float = Field(
        description="the cheapest fleet of those replicas (whole replicas always on), per million output tokens at "
        "this traffic"
    )
    ratio: float = Field(description="the best row's $ per million output tokens over that")


class OverloadedOut(Strict):
    note: str = Field(
        description="that the copies one rented instance holds fall behind the load on every offer that holds the model"
    )
    url: str = Field(description="the same load as latency_bound with it as the peak (peak_concurrency or rate)")


class NearestOptionOut(Strict):
    gpu_id: str = Field(description="the GPU of the refused configuration nearest the limits")
    gpu_count: int = Field(description="its GPUs")
    ttft_limit_needed_ms: float = Field(
        description="the least p99 TTFT limit one request in flight on it meets, ms (at the band's slow end with "
        "limits_at band_high)"
    )
    tpot_limit_needed_ms: float = Field(
        description="the least p99 TPOT limit it meets (its mean TPOT within the headroom share of it), ms; 0 for a "
        "one-token output"
    )
    ttft_ms: float = Field(description="the TTFT limit the note names: the needed one rounded up, never below asked")
    tpot_ms: float = Field(description="the TPOT limit the note names: the needed one rounded up, never below asked")
    note: str = Field(description="the nearest option and the limits that would admit it, in words (also in notes)")
    url: str = Field(description="the same question at the limits the note names")


class InferenceRankResponse(RankResponseBase):
    weights: WeightsOut = Field(
        description="the weight dtype ranked: the model's release precision unless weight_dtype is set"
    )
    options: list[InferenceOptionOut] = Field(
        description="best first, each with its `rank` (1 = best; a sorted answer keeps each option's rank); at a fixed "
        "client count, request rate or single stream the options over a latency limit (over_limits says which) after "
        "every one that meets them; infeasible options last, with a reason and null measures; each with its terms and "
        "its assumptions (the band's evidence last), which ?terms=false leaves out"
    )
    rank_by: str = Field(
        description="what the options are ranked by (auto resolved): output_tokens ($ per million output tokens), "
        "all_tokens ($ per million tokens in and out), requests ($ per thousand requests) or fleet ($ a month at "
        "the peak); each option's band_metric names its field"
    )
    over_limits_options: int = Field(
        description="how many of the feasible options, the last ones, are over a latency limit"
    )
    lowest_p99: LowestP99Out | None = Field(
        None,
        description="present only when every feasible option is over the limits: the lowest p99 TTFT and TPOT any "
        "layout of any offer's machine reaches at this load, each with its GPU, count, tensor and pipeline parallel",
    )
    nearest_option: NearestOptionOut | None = Field(
        None,
        description="present only when no option is feasible and the refusal nearest the limits was refused at them "
        "(the infeasible options then list those refused at the limits first, nearest first): it, and the limits "
        "that would admit it",
    )
    replicas_url: str | None = Field(
        None,
        description="present at a fixed client count or request rate, where each option is one replica taking the "
        "load whole: the same load ranked as latency_bound with it as the peak, spread over replicas sized to meet "
        "the limits (the link the results page always gives; `replicas` adds the comparison where they are at least "
        "twice cheaper per token)",
    )
    replicas: CheaperReplicasOut | None = Field(
        None,
        description="present only at a fixed client count or request rate whose best row, one rented instance "
        "taking it all over the copies it holds, costs at least twice per token what replicas sized to meet the "
        "limits would: the link to that question",
    )
    overloaded: OverloadedOut | None = Field(
        None,
        description="present only where no option is feasible because the copies one rented instance holds fall "
        "behind a fixed client count or request rate on every offer that holds the model (overloaded): the link to "
        "the same load spread over replicas sized to meet the limits, as the results page gives it",
    )
    serverless_job: list[ServerlessJobQuoteOut] | None = Field(
        None,
        description="present only for a batch job (job_requests): the same job through the cheapest current, "
        "verified per-token APIs for the model (or a comparable listed one: same dense/MoE kind, near in active and "
        "total parameters; marked substitute)",
    )
    serverless_job_left_out: list[ServerlessJobQuoteOut] | None = Field(
        None,
        description="present only for a batch job: labelled prices left out (unverified, deprecated, stale) that "
        "would have cost less than the first compared one",
    )
    cards: list[InferenceCardOut] | None = Field(None, description=CARDS)
    charts: list[ChartTable] | None = Field(None, description=CHARTS)
    cards_note: str | None = Field(
        None,
        description="present only on /compare.json: where the cards' output tokens/s per GPU differ by more than "
        f"{PAST_DATASHEET:g}× the larger of their datasheet ratios (memory bandwidth, dense peak), why, as the page "
        "says it under the cards ('' otherwise, and at a load the question fixes: a request rate, clients, a batch "
        "or one stream, where tokens/s per GPU divide that load by the GPU counts)",
    )


class GlobalBatchTypical(Strict):
    tokens: float = Field(description="GPT-3's batch at the nearest size, tokens")
    sequences: int = Field(description="the same at the workload's seq_len")
    read_at_params_b: float = Field(description="the GPT-3 size it is read at, billions of parameters")
    url: str = Field(description="the same question at that batch")


class GlobalBatchOut(Strict):
    sequences: int = Field(description="sequences per optimizer step")
    tokens: int = Field(description="tokens per optimizer step: sequences × seq_len")
    default: bool = Field(description="the default batch, not one the request gave")
    why: str = Field(description="where the batch comes from, in words")
    typical: GlobalBatchTypical | None = Field(
        description="pretraining far below a published batch: that batch; else null"
    )
    note: str = Field(description="the same in words (also in notes); empty otherwise")


class FrontierPointOut(Strict):
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs the run uses at this point")
    provider: str = Field(description="provider id of the offer priced")
    provider_name: str = Field(description="provider display name")
    price_type: str = Field(description="on_demand | spot | reserved | marketplace | capacity_block")
    days: float = Field(
        description="days from rental to finish at this count, as a row has them (start-up; spot: interruptions)"
    )
    total_usd: float = Field(
        description="$ billed at the machine's cheapest leading offer, as a row bills it (spot: interruptions)"
    )
    on_time: bool = Field(description="finishes within the deadline, as the rows check it (spot: with interruptions)")


class DeadlineMaxGpusOut(Strict):
    max_gpus: int = Field(description="the Max GPUs at which a run finishes in time")
    url: str = Field(description="the same question at that Max GPUs")


class TrainingRankResponse(RankResponseBase):
    options: list[TrainingOptionOut] = Field(
        description="runs within the deadline and budget by total_usd, cheapest first; then the runs that miss them, "
        "nearest the deadline first, with the reason; then the ones that do not fit (null measures); each with its "
        "terms and assumptions, which ?terms=false leaves out"
    )
    deadline_days: float = Field(description="the deadline the runs are held to, days (the workload's max_days)")
    frontier: list[FrontierPointOut] = Field(
        description="what scaling out buys: days and total $ per GPU count of the leading machines"
    )
    global_batch: GlobalBatchOut = Field(
        description="the global batch ranked at, whether it is the default and why; for pretraining far below a "
        "published batch (GPT-3's at the nearest size), that batch with `url`, and the `note` also in notes"
    )
    deadline_max_gpus: DeadlineMaxGpusOut | None = Field(
        None,
        description="present only when nothing finishes in time and Max GPUs stops the nearest run: the Max GPUs "
        "that would meet the deadline",
    )
    cards: list[TrainingCardOut] | None = Field(None, description=CARDS)
    charts: list[ChartTable] | None = Field(None, description=CHARTS)


class InferenceEstimateOut(Strict, LatencyFieldsOut):
    offer_superseded: OfferSupersededOut | None = Field(description=OFFER_SUPERSEDED)
    weights: WeightsOut = Field(description="the weight dtype estimated: the model's release precision unless set")
    feasible: bool = Field(description="the configuration runs the workload within its limits")
    reason: str = Field(description="why it fits (batch of max batch) or why not, in words")
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of the configuration")
    tensor_parallel: int = Field(description="tensor-parallel degree")
    pipeline_parallel: int = Field(description="pipeline-parallel degree")
    machine: str = Field(description="the machine the configuration is judged on")
    memory_gb: dict[str, float] = Field(description="GB per GPU: weights, kv_cache, reserve, capacity")
    max_batch: int | None = Field(description="the most sequences the memory holds" + INFEASIBLE_NULL)
    batch: int | None = Field(description="sequences run at once at the operating point" + INFEASIBLE_NULL)
    output_tokens_per_s: float | None = Field(
        description="output tokens/s of the configuration (a batch job: of the job)" + INFEASIBLE_NULL
    )
    output_tokens_per_s_per_gpu: float | None = Field(description="the same per GPU" + INFEASIBLE_NULL)
    band: BandOut | None = Field(description=BAND + INFEASIBLE_NULL)
    band_metric: str | None = Field(description="output_tokens_per_s" + INFEASIBLE_NULL)
    bound: str = Field(description="what bounds a decode step: memory or compute; empty if infeasible")
    attention_parallel: str = Field(description="tp: attention split by heads; dp: data-parallel attention")
    expert_parallel: str = Field(
        description="tp: experts split over the tensor-parallel group; ep: whole experts (a placement, as the question "
        "gave it; a training layout's expert_parallel is its EP degree, an int)"
    )
    job_hours: float | None = Field(
        description="a batch job: hours of work on each of its job_replicas, after the machine's start-up (the "
        "ranking's job_hours add it); else null"
    )
    job_replicas: int | None = Field(
        description="replicas a batch job is split over to meet its deadline (1 otherwise)" + INFEASIBLE_NULL
    )
    misses_limits: bool = Field(description="infeasible though the model fits: the latency limits or rate are missed")
    over_limits: str = Field(description="at a fixed load: the p99 latency limits it misses, in words; else empty")
    lowest_p99: tuple[tuple[float, int, int, int, int], tuple[float, int, int, int, int]] | None = Field(
        description="over the limits: the lowest p99 TTFT and TPOT any layout of the machine reaches at this load, "
        "each [ms, GPUs, tensor parallel, pipeline parallel, copies sharing the load]; else null (always, for one "
        "configuration's estimate)"
    )
    terms: list[TermOut] = Field(description=TERMS)
    assumptions: list[str] = Field(description=ASSUMPTIONS)


class TrainingEstimateOut(Strict):
    offer_superseded: OfferSupersededOut | None = Field(description=OFFER_SUPERSEDED)
    gpu_id: str = Field(description="catalog GPU id")
    gpu_count: int = Field(description="GPUs of the configuration")
    machine: str = Field(description="the machine the configuration is judged on")
    layout: LayoutOut | None = Field(description="the fastest layout that fits; null where none does")
    layout_text: str = Field(
        description="the layout in words (PP2 ZeRO-1 ×4, no recompute; HSDP 8×4: FSDP within groups of 8, 4 replicas; "
        "HSDP 16×2: groups of 16 over 2 nodes)"
    )
    fits: bool = Field(description="a layout fits the GPUs' memory")
    feasible: bool = Field(
        description="the same as fits: an estimate holds no deadline or budget (the ranking's feasible does)"
    )
    reason: str = Field(description="why nothing fits, in words; empty where a layout fits")
    memory_per_gpu_gb: float | None = Field(
        description="GB per GPU the layout takes: its need (the step's fullest moment) plus the runtime reserve, set "
        "against the card's allocator share (the need alone against the usable GB: the share less the reserve); where "
        "none fits: the fewest any could take; null where nothing was sized"
    )
    memory_breakdown_gb: dict[str, float] = Field(
        description="GB per GPU by part, each at its largest; they need not sum to memory_per_gpu_gb: not all parts "
        "are live at once, and the optimizer step may add its update's temporaries (the terms' 'memory: step peak')"
    )
    tokens_per_s_per_gpu: float | None = Field(description="training tokens/s per GPU" + INFEASIBLE_NULL)
    mfu: float | None = Field(description="model FLOPs utilisation, a fraction of the peak" + INFEASIBLE_NULL)
    step_time_s: float | None = Field(description="seconds per optimizer step" + INFEASIBLE_NULL)
    flops_per_token: float | None = Field(description="model FLOPs per trained token; null where the count is refused")
    band: BandOut | None = Field(description=BAND + INFEASIBLE_NULL)
    band_metric: str | None = Field(description="tokens_per_s_per_gpu" + INFEASIBLE_NULL)
    terms: list[TermOut] = Field(description=TERMS)
    assumptions: list[str] = Field(description=ASSUMPTIONS)
    memory_at_peak_gb: dict[str, float] = Field(
        description="GB per GPU live at the step's fullest moment (the backward's start, or the optimizer step with "
        "its update's temporaries): model_states (less gradients freed between steps), live_params, activations, "
        "logits, optimizer_temporaries and runtime_reserve, summing to memory_per_gpu_gb; empty where no layout fits"
    )
