"""Estimate one inference configuration: memory fit, operating batch, TTFT, TPOT and throughput."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

from app.scoring.dtypes import WEIGHT_BYTES
from app.scoring.efficiency.bands import band_ratio
from app.scoring.efficiency.inference import (
    DEFAULT_EFFICIENCY,
    DP_ATTENTION_ENGINES,
    STATIC_BATCH_ENGINES,
    InferenceEfficiency,
)
from app.scoring.engine_support import ENGINE_NAMES
from app.scoring.explain import Band, Term, duration_text
from app.scoring.inference.batch_job import JobPlan, plan_job
from app.scoring.inference.latency_bands import BandRegime, latency_bands
from app.scoring.inference.limits import (
    ON_ESTIMATE,
    SLOW_END,
    limit_multiples,
    limits_at_risk,
    over_limits,
    slow_end_words,
    unapplied_limits_note,
)
from app.scoring.inference.memory import (
    GB,
    attention_params,
    head_split_reason,
    kv_replicated_under_tp,
    max_sequences,
    memory_breakdown_gb,
    request_kv_tokens,
    usable_gb,
    weight_bytes,
    weight_bytes_per_gpu,
)
from app.scoring.inference.moe_host_reach import moe_host_reach
from app.scoring.inference.operating_points import (
    CONTINUOUS_SCENARIOS,
    OperatingPoint,
    closed_loop_point,
    latency_bound_point,
    open_loop_point,
    operating_point,
    token_budget_cap,
)
from app.scoring.inference.steps import (
    InferenceContext,
    build_context,
)
from app.scoring.inference.techniques import NO_TECHNIQUES, technique_terms, techniques_for
from app.scoring.inference.terms import p99_latencies_ms, step_terms
from app.scoring.specs import GpuSpec, ModelSpec, card_gb
from app.scoring.workload import ACTIVATION_DTYPE_KV_ENGINES, InferenceWorkload


@dataclass(frozen=True, slots=True)
class InferenceEstimate:
    feasible: bool
    reason: str
    gpu_id: str
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int
    memory_gb: dict[str, float] = field(default_factory=dict)
    max_batch: int = 0
    batch: int = 0
    ttft_ms: float = 0.0  # mean
    tpot_ms: float = 0.0  # mean
    ttft_median_ms: float = 0.0  # Poisson arrivals: the M/D/1 prefill wait at its median; closed loops: the mean
    ttft_p99_ms: float = 0.0  # OperatingPoint.ttft_p99_ms (mean x p99_ttft_over_mean): what the TTFT limit bounds
    tpot_p99_ms: float = 0.0  # mean x p99_over_mean (MLPerf LoadGen)
    output_tokens_per_s: float = 0.0
    output_tokens_per_s_per_gpu: float = 0.0
    terms: list[Term] = field(default_factory=list)
    band: Band = field(default_factory=lambda: Band(0.0, 0.0))
    ttft_p99_band: Band = field(default_factory=lambda: Band(0.0, 0.0))  # ms (latency_bands)
    tpot_p99_band: Band = field(default_factory=lambda: Band(0.0, 0.0))  # ms
    bound: str = ""
    assumptions: list[str] = field(default_factory=list)
    attention_parallel: str = "tp"  # "dp": data-parallel attention over the TP group (steps.InferenceContext)
    expert_parallel: str = "tp"  # "ep": MoE experts placed whole over the TP group (steps.busiest_group_coverage)
    job_hours: float | None = None  # a batch job (workload.job_requests): each replica's; tok/s is the job's
    job_replicas: int = 1  # replicas the job is split over to meet its deadline
    misses_limits: bool = False  # infeasible though the model fits: its latency limits or request rate are not met
    over_limits: str = ""  # feasible at a live-traffic load but over a latency limit, in words (limits.py)
    limits_at_risk: str = ""  # meets the limits, but a p99 at its band's slow end would not (limits.limits_at_risk)
    # Over the limits: the lowest p99 TTFT and TPOT any layout the machine supplies reaches at this load
    # (configurations.best_on_machine); the estimate API writes each as [ms, GPUs, tensor parallel, pipeline parallel]
    lowest_p99: LowestP99 | None = None


class P99Reach(NamedTuple):
    """The lowest p99 latency a machine's layouts reach at a load, and the layout reaching it (ordered: lowest
    first, then the fewest GPUs)."""

    p99_ms: float
    gpu_count: int
    tensor_parallel: int
    pipeline_parallel: int


class LowestP99(NamedTuple):
    """Where a machine serves a load only over the latency limits: the lowest p99 TTFT and TPOT it reaches."""

    ttft_p99_ms: P99Reach
    tpot_p99_ms: P99Reach


def _infeasible(
    gpu: GpuSpec, gpu_count: int, tp: int, pp: int, reason: str, memory: dict, misses_limits: bool = False
) -> InferenceEstimate:
    return InferenceEstimate(False, reason, gpu.id, gpu_count, tp, pp, memory_gb=memory, misses_limits=misses_limits)


def _batch_for(scenario: str, workload: InferenceWorkload, max_batch: int, cap: int) -> int:
    if scenario == "single_stream":
        return 1
    if scenario == "fixed_batch":
        return workload.batch or 1
    if scenario == "request_rate":  # set from the arrival rate by open_loop_point
        return 1
    if scenario == "concurrency":  # the running batch; clients beyond it queue (closed_loop_point)
        return min(workload.concurrency or 1, max_batch, cap)
    return min(max_batch, cap, workload.job_requests or cap)  # a job smaller than the batch runs as one batch


@dataclass(frozen=True, slots=True)
class Solution:
    """A feasible configuration's operating point, before its explanation is written (rankings compare
    several tensor-parallel degrees per GPU type and explain only the one they keep)."""

    gpu: GpuSpec
    gpu_count: int
    model: ModelSpec
    workload: InferenceWorkload
    tensor_parallel: int
    pipeline_parallel: int
    ctx: InferenceContext
    point: OperatingPoint
    batch: int
    max_batch: int
    efficiency: InferenceEfficiency
    job: JobPlan | None = None  # a batch job (workload.job_requests): its replicas and each one's share

    @property
    def output_tokens_per_s_per_gpu(self) -> float:
        return self.point.tokens_per_s / self.gpu_count

    @property
    def band_regime(self) -> BandRegime:
        return band_regime(self.gpu, self.model, self.workload, self.ctx, self.pipeline_parallel)

    @property
    def limit_multiples(self) -> tuple[float, float]:
        """The p99 TTFT and TPOT multiples at which the workload's limits are checked (limits.limit_multiples)."""
        return limit_multiples(self.workload, self.band_regime)


def band_regime(
    gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload, ctx: InferenceContext, pipeline_parallel: int
) -> BandRegime:
    """The regime an estimate's bands are looked up by."""
    return BandRegime(
        ctx.engine,
        gpu.vendor,
        workload.weight_dtype,
        "moe" if model.is_moe else "dense",
        ctx.tp_nodes > 1,
        pipeline_parallel,
        workload.scenario,
    )


def estimate_inference(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    tensor_parallel: int | None = None,
    pipeline_parallel: int = 1,
    efficiency: InferenceEfficiency = DEFAULT_EFFICIENCY,
    fabric_gbs: float = 0.0,
) -> InferenceEstimate:
    """Estimate serving `model` on `gpu_count` x `gpu` (TP defaults to gpu_count / PP)."""
    solved = solve_inference(
        gpu, gpu_count, model, workload, tensor_parallel, pipeline_parallel, efficiency, fabric_gbs=fabric_gbs
    )
    return explain(solved) if isinstance(solved, Solution) else solved


def solve_inference(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    tensor_parallel: int | None = None,
    pipeline_parallel: int = 1,
    efficiency: InferenceEfficiency = DEFAULT_EFFICIENCY,
    fabric_gbs: float = 0.0,
    attention_dp: bool | None = None,
) -> Solution | InferenceEstimate:
    """The operating point of a configuration, or an infeasible estimate saying why there is none.

    `attention_dp` None follows the workload's attention_parallel; "auto" solves both ways where TP would copy
    the KV cache onto every rank (MLA, few KV heads) and keeps the one with more output tokens/s (TP on ties)."""
    pp = max(pipeline_parallel, 1)
    tp = tensor_parallel or max(gpu_count // pp, 1)
    if attention_dp is None:
        if workload.attention_parallel == "auto" and tries_dp_attention(workload) and kv_replicated_under_tp(model, tp):
            both = [
                solve_inference(gpu, gpu_count, model, workload, tp, pp, efficiency, fabric_gbs, dp)
                for dp in (False, True)
            ]
            solved = [b for b in both if isinstance(b, Solution)]
            return max(solved, key=lambda b: b.point.tokens_per_s) if solved else both[0]
        attention_dp = workload.attention_parallel == "dp"
    dp = tp if attention_dp and tp > 1 else 1
    wdt, kvdt = workload.weight_dtype, workload.kv_dtype_effective
    held_tokens = request_kv_tokens(workload.input_len, workload.output_len, workload.beam_width)  # KV per request

    engine = workload.engine

    def memory() -> dict[str, float]:  # an infeasible estimate shows the footprint before any KV cache
        return memory_breakdown_gb(gpu, model, wdt, kvdt, held_tokens, 0, tp, pp, dp, engine)

    if dp == 1 and (unsplittable := head_split_reason(model, tp)) is not None:  # data-parallel attention splits none
        return _infeasible(gpu, gpu_count, tp, pp, unsplittable, memory())
    need_gb = weight_bytes(model, wdt) / GB
    have_gb = usable_gb(gpu, tp, engine) * tp * pp
    per_gpu_gb = weight_bytes_per_gpu(model, wdt, tp, pp, dp) / GB if dp > 1 else 0.0
    if per_gpu_gb > usable_gb(gpu, tp, engine):
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            (
                f"data-parallel attention keeps a full copy of the attention weights on each GPU: "
                f"{per_gpu_gb:.0f} GB of {wdt} weights per GPU, {usable_gb(gpu, tp, engine):.0f} GB usable"
            ),
            memory(),
        )
    if need_gb > have_gb:
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            (
                f"needs {need_gb:.0f} GB for {wdt} weights; {tp * pp}x{gpu.name} leave {have_gb:.0f} GB "
                f"after the runtime reserve ({gpu.memory_gb:g} GB each, {card_gb(gpu):.1f} x 10^9 bytes)"
            ),
            memory(),
        )
    beams = workload.beam_width
    max_batch = max_sequences(gpu, model, wdt, kvdt, held_tokens, tp, pp, dp, engine)
    if max_batch < 1:
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            (f"weights fit but no room for one request's KV cache at {held_tokens:.0f} tokens"),
            memory(),
        )
    ep = expert_parallel_degree(model, workload, tp)
    ctx = build_context(gpu, model, wdt, kvdt, workload.engine, tp, pp, fabric_gbs, dp, ep)
    techniques = techniques_for(workload)
    if techniques.active:
        ctx = replace(ctx, techniques=techniques)
    eff = efficiency
    scenario = workload.scenario
    cap = running_cap(ctx, workload)
    found: OperatingPoint | None = None
    if scenario == "latency_bound":
        # At the band's slow end the limits hold for the estimate times the band's high ratio: the search meets
        # them divided by it (the ratios are the regime's, the same at every batch).
        multiples = limit_multiples(workload, band_regime(gpu, model, workload, ctx, pp))
        batch, found = latency_bound_point(
            ctx,
            eff,
            min(max_batch, cap),
            (
                workload.input_len,
                workload.output_len,
                workload.ttft_ms / multiples[0],
                workload.tpot_ms / multiples[1],
            ),
            beams,
            workload.prompt_p99_over_mean,
        )
        if batch < 1:
            point = found or operating_point(ctx, eff, "latency_bound", 1, workload.input_len, workload.output_len)
            ttft_p99_ms = point.ttft_p99_ms(eff.p99_ttft_over_mean, workload.prompt_p99_over_mean)
            reason = _one_request_misses(workload, eff, ttft_p99_ms, point.tpot_ms, multiples)
            return _infeasible(gpu, gpu_count, tp, pp, reason, memory(), misses_limits=True)
    else:
        batch = _batch_for(scenario, workload, max_batch, cap)
        if batch > max_batch:
            return _infeasible(
                gpu,
                gpu_count,
                tp,
                pp,
                (f"batch {batch} needs KV for {batch} requests; only {max_batch} fit at {held_tokens:.0f} tokens"),
                memory(),
            )
    if found is None and scenario == "request_rate":
        found = open_loop_point(
            ctx,
            eff,
            workload.requests_per_s or 1.0,
            min(max_batch, cap),
            workload.input_len,
            workload.output_len,
            beams,
        )
        batch = max(round(found.batch), 1)
        if found.backlog_per_s > 0:
            reason = overload_reason(workload.requests_per_s or 1.0, found)
            return _infeasible(gpu, gpu_count, tp, pp, reason, memory(), misses_limits=True)
    if found is None and scenario == "concurrency":
        found = closed_loop_point(
            ctx, eff, workload.concurrency or 1, min(max_batch, cap), workload.input_len, workload.output_len, beams
        )
    batching = batching_scenario(workload)
    point = found or operating_point(ctx, eff, batching, batch, workload.input_len, workload.output_len, beams)
    job = None
    if workload.job_requests and scenario == "max_throughput":
        lengths = (workload.input_len, workload.output_len, beams)
        planned = plan_job(ctx, eff, workload.job_requests, point, lengths, workload.job_deadline_hours)
        if isinstance(planned, str):
            return _infeasible(gpu, gpu_count, tp, pp, planned, memory())
        job, point, batch = planned, planned.point, planned.batch
    return Solution(gpu, gpu_count, model, workload, tp, pp, ctx, point, batch, max_batch, eff, job)


def _one_request_misses(
    w: InferenceWorkload,
    eff: InferenceEfficiency,
    ttft_p99_ms: float,
    tpot_mean_ms: float,
    multiples: tuple[float, float],
) -> str:
    """Why latency_bound finds no batch: batch 1's p99 TTFT or mean TPOT, where the limits are checked."""
    target = eff.slo_tpot_utilisation * w.tpot_ms
    share = f"{eff.slo_tpot_utilisation:.0%} of the {w.tpot_ms:g} ms p99 limit, headroom for load"
    if multiples == ON_ESTIMATE:
        return (
            f"even one request misses the limits: p99 TTFT {ttft_p99_ms:.0f} ms (limit {w.ttft_ms:g}), "
            f"mean TPOT {tpot_mean_ms:.1f} ms (target {target:.1f}: {share})"
        )
    ttft_multiple, tpot_multiple = multiples
    return (
        f"even one request misses the limits {SLOW_END} {slow_end_words(multiples)}: p99 TTFT "
        f"{ttft_p99_ms * ttft_multiple:.0f} ms there, {ttft_p99_ms:.0f} estimated (limit {w.ttft_ms:g}), mean TPOT "
        f"{tpot_mean_ms * tpot_multiple:.1f} ms there, {tpot_mean_ms:.1f} estimated (target {target:.1f}: {share})"
    )


def batching_scenario(workload: InferenceWorkload) -> str:
    """The scenario operating_point times the running batch under: a statically batching engine at max throughput
    runs full batches one after another (the fixed-batch point); open and closed loops run loops of requests."""
    if workload.scenario == "max_throughput" and workload.engine in STATIC_BATCH_ENGINES:
        return "fixed_batch"
    if workload.scenario == "request_rate":
        return "concurrency"
    return workload.scenario


def tries_dp_attention(workload: InferenceWorkload) -> bool:
    """The workload's engine can run attention data-parallel (auto tries it; HF and llama.cpp split by heads only)."""
    return workload.engine in DP_ATTENTION_ENGINES


def expert_parallel_degree(model: ModelSpec, workload: InferenceWorkload, tensor_parallel: int) -> int:
    """GPUs the experts are placed whole on: the TP group when the workload asks for expert parallelism and the
    experts divide evenly over it, else 1 (each expert sharded over TP)."""
    tp = tensor_parallel
    if workload.expert_parallel == "ep" and model.is_moe and tp > 1 and model.num_experts % tp == 0:
        return tp
    return 1


def running_cap(ctx: InferenceContext, workload: InferenceWorkload) -> int:
    """The engine's cap on the running batch: its batch cap and, under continuous batching, what its
    per-iteration token budget sustains (token_budget_cap)."""
    cap = engine_batch_cap(workload, ctx)
    if workload.scenario not in CONTINUOUS_SCENARIOS:
        return cap
    budget = token_budget_cap(
        ctx, workload.input_len, workload.output_len, workload.beam_width, workload.max_num_batched_tokens
    )
    return cap if budget is None else min(cap, budget)


def engine_batch_cap(workload: InferenceWorkload, ctx: InferenceContext) -> int:
    """The engine's cap on sequences in one batch: the workload's max_num_seqs, else the engine's default on this
    GPU (engine_defaults: vLLM's depends on it)."""
    return workload.max_num_seqs or ctx.default_batch_cap


def _queue_note(point: OperatingPoint) -> list[str]:
    """A closed loop beyond the running batch: its clients queue for a slot, and TTFT includes the wait."""
    if point.waiting <= 0:
        return []
    return [
        f"overloaded: {point.waiting:g} of the clients wait for a free slot ({point.batch:g} run at once); "
        f"TTFT includes {point.queue_ms / 1e3:.1f} s of queueing"
    ]


# The horizon over which overload_reason pictures the growing queue: a minute, as its words say.
OVERLOAD_HORIZON_S = 60.0


def overload_reason(requests_per_s: float, point: OperatingPoint) -> str:
    """Why an open loop above capacity cannot serve its rate. Its queue grows by rate - capacity requests a second
    with no steady state, so after a minute a new arrival waits (rate - capacity) x 60 / capacity seconds for a
    slot (the fluid limit of the queue; finite_run.py replays such runs step by step for the validator and agrees
    to a few per cent once the backlog dominates)."""
    capacity = requests_per_s - point.backlog_per_s
    growth = point.backlog_per_s * OVERLOAD_HORIZON_S
    return (
        f"overloaded: keeps up with {capacity:.3g} requests/s at most (batch {point.batch:g}), "
        f"not {requests_per_s:,.7g}; the queue grows by {growth:,.0f} requests a minute, so after a minute a new "
        f"request waits {duration_text(growth / max(capacity, 1e-9))} for a slot: add replicas or GPUs"
    )


def _holding_cap(s: Solution) -> tuple[str, str] | None:
    """The engine cap that holds the batch, as (a few words for the option's reason, the term's detail); None where
    memory or the latency limits hold it."""
    w = s.workload
    cap = engine_batch_cap(w, s.ctx)
    if s.batch >= cap:
        origin = "max_num_seqs" if w.max_num_seqs else f"the {w.engine} default"
        return (
            f"held at the engine batch cap {cap}",
            f"batch held at the engine batch cap {cap} ({origin}); raise max_num_seqs if memory allows more",
        )
    if s.batch >= running_cap(s.ctx, w):
        budget = w.max_num_batched_tokens or s.ctx.default_token_budget or 0
        origin = "max_num_batched_tokens" if w.max_num_batched_tokens else f"the {w.engine} default"
        return (
            f"held by the engine's {budget:,}-token step budget",
            f"batch held at {s.batch} by the engine's {budget:,}-token step budget ({origin}): each step carries the "
            f"batch's decode tokens and the prompts arriving meanwhile ({w.input_len:g} prompt tokens per "
            f"{w.output_len:g} output tokens); raise max_num_batched_tokens to run more",
        )
    return None


def _held_by(s: Solution) -> str:
    """The holding cap in the option's reason, where it keeps the batch below what memory fits."""
    held = _holding_cap(s)
    return f"; {held[0]}" if held and s.batch < s.max_batch else ""


def _cap_note(s: Solution) -> list[str]:
    held = _holding_cap(s)
    return [held[1]] if held else []


def explain(solved: Solution) -> InferenceEstimate:
    """The full estimate of a solved configuration: memory at its batch, terms, band and assumptions."""
    s, point, w = solved, solved.point, solved.workload
    ttft_p99, tpot_p99 = p99_latencies_ms(point, s.efficiency, s.workload.prompt_p99_over_mean)
    regime = s.band_regime
    multiples = limit_multiples(w, regime)
    low, high, evidence = band_ratio("output_tok_s_per_gpu", *regime)
    latency = latency_bands(regime, ttft_p99, tpot_p99)
    tokens_per_s = point.tokens_per_s
    job = s.job
    if job is not None:
        tokens_per_s = job.output_tokens_per_s
    reach_tokens_per_s, reach_notes = moe_host_reach(s.ctx, s.efficiency, point, tokens_per_s)
    return InferenceEstimate(
        feasible=True,
        reason=f"fits: batch {s.batch} of max {s.max_batch} on {s.tensor_parallel * s.pipeline_parallel}x{s.gpu.name}"
        + _held_by(s),
        gpu_id=s.gpu.id,
        gpu_count=s.gpu_count,
        tensor_parallel=s.tensor_parallel,
        pipeline_parallel=s.pipeline_parallel,
        memory_gb=memory_breakdown_gb(
            s.gpu,
            s.model,
            w.weight_dtype,
            w.kv_dtype_effective,
            request_kv_tokens(w.input_len, w.output_len, w.beam_width),
            s.batch,
            s.tensor_parallel,
            s.pipeline_parallel,
            s.ctx.attention_dp,
            w.engine,
        ),
        max_batch=s.max_batch,
        batch=s.batch,
        ttft_ms=point.ttft_ms,
        tpot_ms=point.tpot_ms,
        ttft_median_ms=point.ttft_median_ms,
        ttft_p99_ms=ttft_p99,
        tpot_p99_ms=tpot_p99,
        output_tokens_per_s=tokens_per_s,
        output_tokens_per_s_per_gpu=tokens_per_s / s.gpu_count,
        terms=step_terms(s.ctx, s.efficiency, point, w.input_len, w.beam_width, w.prompt_p99_over_mean)
        + _technique_terms(solved)
        + [Term("running batch", s.batch, "sequences", note) for note in _cap_note(s)]
        + ([job.term()] if job else []),
        band=Band(tokens_per_s * low, max(tokens_per_s * high, reach_tokens_per_s)),
        ttft_p99_band=latency.ttft_p99,
        tpot_p99_band=latency.tpot_p99,
        bound=point.step.bound,
        assumptions=[
            *s.ctx.assumptions,
            *_layout_notes(s),
            *_small_batch_moe_note(s),
            *_rocm_note(s),
            *_cap_note(s),
            *_queue_note(point),
            *_job_note(s),
            *_kv_default_note(w),
            *unapplied_limits_note(w, ttft_p99, tpot_p99, multiples),
            *reach_notes,
            latency.note,
            evidence,
        ],
        attention_parallel="dp" if s.ctx.attention_dp > 1 else "tp",
        expert_parallel="ep" if s.ctx.expert_parallel > 1 else "tp",
        job_hours=job.hours if job else None,
        job_replicas=job.replicas if job else 1,
        over_limits=over_limits(w, ttft_p99, tpot_p99, multiples),
        limits_at_risk="" if job else limits_at_risk(w, ttft_p99, tpot_p99, *latency.p99_highs, multiples),
    )


def _kv_default_note(w: InferenceWorkload) -> list[str]:
    """Where FP8 weights run a BF16 cache by the engine's default (workload.default_kv_dtype), say so: the cache
    dtype is not in the question, and an FP8 one would hold twice the sequences."""
    if w.kv_dtype is not None or w.weight_dtype != "fp8" or w.engine not in ACTIVATION_DTYPE_KV_ENGINES:
        return []
    return [
        f"KV cache BF16: {ENGINE_NAMES[w.engine]}'s default keeps the activation dtype for FP8 weights; set kv_dtype "
        "fp8 for an FP8 cache (half the bytes a token)"
    ]


def _job_note(s: Solution) -> list[str]:
    """What a batch job's TTFT means: requests beyond the running batch wait for a slot first."""
    if s.job is None or s.job.time.requests <= s.batch:
        return []
    return [
        f"batch job: {s.batch:,} of a replica's {s.job.time.requests:,} requests run at once and the rest wait for a "
        "slot; the TTFT shown counts from when a request gets one"
    ]


# Fine-grained MoE (many narrow experts) decoding a handful of tokens a step: the routed experts are timed at the
# dense streaming rate, as the public SGLang and vLLM rows (batch 8 and up) fit. On an H200, grouped-GEMM kernels
# took a fixed 25-97 us per MoE layer on top of streaming below 32 tokens, and a ~45 us per layer floor worked out by
# hand put DeepSeek-R1 and Qwen3-30B-A3B at batch 1 at x0.71-0.74 of this estimate's tokens/s
# (docs/measurements/h200-2026-12-04-moe-served.json); no public row at batch 1-4 confirms or refutes it.
# The run timed 128 and 256 experts (gpt-oss-120b, Qwen3-30B-A3B, DeepSeek-R1) short of the rate and Mixtral's 8 wide
# ones at it; 32 (gpt-oss-20b) is the smallest served fine-grained count. At 8 tokens the grouped GEMMs reached
# 0.81-0.89 of their plateau and the public rows at concurrency 8 fit, so the spot ends at 4.
FINE_GRAINED_EXPERTS = 32
SMALL_MOE_BATCH = 4


def _small_batch_moe_note(s: Solution) -> list[str]:
    """Says where the estimate sits in a listed weak spot: fine-grained MoE at one to four sequences."""
    if s.model.num_experts < FINE_GRAINED_EXPERTS or s.batch > SMALL_MOE_BATCH:
        return []
    return [
        f"weak spot: {s.model.num_experts} fine-grained experts at batch {s.batch}: the routed experts are timed at "
        "the dense streaming rate, which public rows confirm from batch 8; GPU kernel timings of this regime "
        "suggest decode may be up to ~1.4x slower than estimated (docs/measurements)"
    ]


def _rocm_note(s: Solution) -> list[str]:
    """Says where the estimate sits in a listed weak spot: a PyTorch engine on ROCm, whose two public sources
    (argonne's stock vLLM 0.6.1 build of 2024, AMD's tuned MLPerf v4.1 run) disagree 2-5x on matmuls."""
    if not s.ctx.amd or s.ctx.engine not in ("vllm", "sglang"):
        return []
    return [
        "weak spot: vLLM/SGLang on ROCm: the ROCm factors are a compromise between a stock 2024 vLLM build and AMD's "
        "tuned MLPerf run, which disagree 2-5x on matmuls; held out, either source is missed by up to 2x (the band "
        "shows how far, and a current ROCm build may well run faster)"
    ]


def _layout_notes(s: Solution) -> list[str]:
    """Assumption lines for how the TP group splits experts and attention."""
    ep = s.ctx.expert_parallel
    experts = (
        [
            f"expert parallel over {ep} GPUs: {s.ctx.experts_per_group:g} whole experts each; the GPU whose experts a "
            "step touches most sets its pace (uniform routing, expected busiest of the GPUs)"
        ]
        if ep > 1
        else []
    )
    return experts + _attention_dp_note(s)


def _attention_dp_note(s: Solution) -> list[str]:
    dp = s.ctx.attention_dp
    if dp <= 1:
        if kv_replicated_under_tp(s.model, s.tensor_parallel):
            return [
                f"attention split over TP{s.tensor_parallel}: every GPU keeps the whole KV cache (MLA / few KV heads)"
            ]
        return []
    attention_gb = attention_params(s.model) * WEIGHT_BYTES[s.workload.weight_dtype] / s.pipeline_parallel / GB
    return [
        f"data-parallel attention over the {dp} GPUs (SGLang --enable-dp-attention): each keeps its own requests' "
        f"KV cache (1/{dp} of the TP copy) and a full copy of the attention weights ({attention_gb:.1f} GB)"
    ]


def _technique_terms(s: Solution) -> list[Term]:
    """Prefix cache / speculative decoding lines, against the same batch without them."""
    if not s.ctx.techniques.active:
        return []
    w = s.workload
    plain_ctx = replace(s.ctx, techniques=NO_TECHNIQUES)
    scenario = "concurrency" if w.scenario == "request_rate" else w.scenario  # both run loops of requests
    batch = s.point.batch if scenario == "concurrency" else s.batch
    base = operating_point(plain_ctx, s.efficiency, scenario, batch, w.input_len, w.output_len, w.beam_width)
    return technique_terms(s.ctx.techniques, s.point, base)
