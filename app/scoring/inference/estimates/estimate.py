"""Estimate one inference configuration: memory fit, operating batch, TTFT, TPOT and throughput.

solve_inference finds the operating point of one GPU x count x layout (or says why there is none);
estimate_inference explains it (explain_estimate.explain)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache, partial
from typing import NamedTuple

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, DP_ATTENTION_ENGINES, InferenceEfficiency
from app.scoring.explain import WrittenOnce, fixed, significant
from app.scoring.inference.bands.limits import ON_ESTIMATE, at_band_high, limit_multiples
from app.scoring.inference.batching.batch_job import JobPlan, plan_job
from app.scoring.inference.batching.loops import (
    closed_loop_point,
    latency_bound_point,
    light_load_point,
    open_loop_point,
)
from app.scoring.inference.batching.operating_points import OperatingPoint, operating_point
from app.scoring.inference.batching.running_batch import batching_scenario, running_cap
from app.scoring.inference.estimates.layout_setup import LayoutSetup, layout_setup
from app.scoring.inference.estimates.refusals import alone_words, meets_limits, one_request_misses, overload_reason
from app.scoring.inference.estimates.results import DpAttentionTried, InferenceEstimate, Solution, band_regime
from app.scoring.inference.estimates.shared_searches import shared_search
from app.scoring.inference.estimates.throughput_ceiling import (
    CEILING_ROUNDING_SLACK,
    floored_latency_search,
    latency_bound_ceiling_per_s,
    max_throughput_ceiling_per_s,
    no_load_meets_ttft,
    open_loop_tpot_floor_ms,
    per_gpu_digits,
    tpot_floor_ms,
)
from app.scoring.inference.explanation.explain_estimate import explain
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.memory import (
    GB,
    footprint_gb,
    head_split_reason,
    kv_replicated_under_tp,
    request_kv_tokens,
    stage_split_reason,
    usable_gb,
    weight_bytes,
    weight_bytes_per_gpu,
)
from app.scoring.inference.step.techniques import ServingTechniques, techniques_for
from app.scoring.records import hot_record
from app.scoring.specs import GpuSpec, ModelSpec, card_gb
from app.scoring.workload import InferenceWorkload


def _infeasible(
    gpu: GpuSpec,
    gpu_count: int,
    tp: int,
    pp: int,
    reason: str | WrittenOnce[str],
    memory: Callable[[], dict[str, float]],
    misses_limits: bool = False,
    limits_needed: WrittenOnce[tuple[float, ...]] | tuple[float, ...] = (),
) -> InferenceEstimate:
    """A refusal; its memory footprint is written when first read (a ranking shows few of the layouts it refuses)."""
    footprint = WrittenOnce(memory)
    return InferenceEstimate(
        False,
        reason,
        gpu.id,
        gpu_count,
        tp,
        pp,
        memory_footprint_gb=footprint,
        misses_limits=misses_limits,
        limits_needed=limits_needed,
    )


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


class _Overload(NamedTuple):
    """An open loop above a layout's capacity: the refusal, and the requests/s the layout keeps up with."""

    refusal: InferenceEstimate
    capacity_per_s: float


class _Outclassed:
    """A layout whose throughput ceiling (throughput_ceiling.py) is below the tokens/s per GPU it had to reach."""


_OUTCLASSED = _Outclassed()


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
    solved = solve_unless_outclassed(
        gpu, gpu_count, model, workload, tensor_parallel, pipeline_parallel, efficiency, fabric_gbs, attention_dp
    )
    assert solved is not None  # nothing to outclass it: no floor
    return solved


def solve_unless_outclassed(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    tensor_parallel: int | None = None,
    pipeline_parallel: int = 1,
    efficiency: InferenceEfficiency = DEFAULT_EFFICIENCY,
    fabric_gbs: float = 0.0,
    attention_dp: bool | None = None,
    floor_per_gpu: float | None = None,
    tpot_p99_bar_ms: float | None = None,
    reads: WorkloadReads | None = None,
) -> Solution | InferenceEstimate | None:
    """solve_inference, or None where the layout provably serves fewer output tokens/s per GPU (to 6 significant
    digits, as configurations.LayoutPreference compares them) than `floor_per_gpu`, or at a request rate a p99 TPOT
    over `tpot_p99_bar_ms` (throughput_ceiling.tpot_floor_ms): its search is skipped. `reads`: workload_reads(workload)
    where the caller has them (a machine's layouts share them)."""
    solved = _solve(
        gpu,
        gpu_count,
        model,
        workload,
        tensor_parallel,
        pipeline_parallel,
        efficiency,
        fabric_gbs,
        attention_dp,
        floor_per_gpu,
        tpot_p99_bar_ms,
        reads,
    )
    if isinstance(solved, _Outclassed):
        return None
    return solved.refusal if isinstance(solved, _Overload) else solved


def _solve(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    tensor_parallel: int | None,
    pipeline_parallel: int,
    efficiency: InferenceEfficiency,
    fabric_gbs: float,
    attention_dp: bool | None,
    floor_per_gpu: float | None = None,
    tpot_p99_bar_ms: float | None = None,
    reads: WorkloadReads | None = None,
) -> Solution | InferenceEstimate | _Overload | _Outclassed:
    pp = max(pipeline_parallel, 1)
    tp = tensor_parallel or max(gpu_count // pp, 1)
    reads = reads or workload_reads(workload)
    if attention_dp is None:
        if reads.tries_dp and kv_replicated_under_tp(model, tp):
            if _holds_no_model(gpu, model, workload.weight_dtype, tp, pp, workload.engine):
                # refused either way before any search: the refusal by heads, as `both[0]` below would be
                return _solve(
                    gpu, gpu_count, model, workload, tp, pp, efficiency, fabric_gbs, False, floor_per_gpu, None, reads
                )
            heads = _solve(
                gpu, gpu_count, model, workload, tp, pp, efficiency, fabric_gbs, False, floor_per_gpu, None, reads
            )
            # data-parallel attention is kept only with more tokens/s than a solved way by heads (which wins ties):
            # where its ceiling cannot reach that way's tokens/s per GPU, it is outclassed unsearched (kept below)
            dp_floor = floor_per_gpu
            if isinstance(heads, Solution):
                dp_floor = max(_per_gpu(heads), floor_per_gpu or 0.0)
            both = [
                heads,
                _solve(gpu, gpu_count, model, workload, tp, pp, efficiency, fabric_gbs, True, dp_floor, None, reads),
            ]

            # data-parallel attention searched in full, for the note of a kept heads split
            resolve = partial(
                _solve, gpu, gpu_count, model, workload, tp, pp, efficiency, fabric_gbs, True, None, None, reads
            )

            solved = [b for b in both if isinstance(b, Solution)]
            if any(isinstance(b, _Outclassed) for b in both):
                # the layout keeps the way with more tokens/s: an outclassed way loses to a solved one that reaches
                # the floor (so that one is kept, as below), and the layout is outclassed if none does
                reaching = _reaching(solved, floor_per_gpu)
                return _with_dp_tried(reaching[0], both[1], resolve) if reaching else _OUTCLASSED
            if solved:
                return _with_dp_tried(max(solved, key=lambda b: b.point.tokens_per_s), both[1], resolve)
            # overloaded either way: the refusal of the layout that keeps up with more, so its "at most" is the most
            overloads = [b for b in both if isinstance(b, _Overload)]
            return max(overloads, key=lambda b: b.capacity_per_s) if len(overloads) == len(both) else both[0]
        attention_dp = workload.attention_parallel == "dp"
    dp = tp if attention_dp and tp > 1 else 1
    wdt, kvdt, held_tokens = reads.weight_dtype, reads.kv_dtype, reads.held_tokens  # held: KV per request

    engine = workload.engine

    # an infeasible estimate shows the footprint before any KV cache
    memory: Callable[[], dict[str, float]] = partial(footprint_gb, gpu, model, wdt, kvdt, tp, pp, dp, engine)
    setup = _before_search(gpu, gpu_count, model, wdt, kvdt, engine, tp, pp, dp, fabric_gbs, workload.expert_parallel)
    if isinstance(setup, InferenceEstimate):  # refused before any search
        return setup
    beams = workload.beam_width
    lengths = (workload.input_len, workload.output_len, beams)
    max_batch = setup.max_sequences(model, held_tokens)
    if max_batch < 1:
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            (f"weights fit but no room for one request's KV cache at {fixed(held_tokens, 0)} tokens"),
            memory,
        )
    ctx = setup.ctx
    techniques = reads.techniques
    if techniques.active:
        ctx = replace(ctx, techniques=techniques)
    eff = efficiency
    scenario = workload.scenario
    # at a request rate every layout that keeps up serves the rate's tokens: one whose p99 TPOT cannot come under the
    # best's on the same bill cannot win (configurations._solve_tier); skipped before its open-loop search, and before
    # the running cap is worked out, which only the rate's forced-batch floor and the search read
    rate_bar = tpot_p99_bar_ms if scenario == "request_rate" and workload.beam_width == 1 else None
    if rate_bar is not None and _rate_outclassed(ctx, eff, workload, max_batch, rate_bar):
        return _OUTCLASSED
    cap = running_cap(ctx, workload)
    found: OperatingPoint | None = None
    if scenario == "latency_bound":
        # At the band's slow end the limits hold for the estimate times the band's high ratio: the search meets
        # them divided by it (the ratios are the regime's, the same at every batch).
        multiples = _limit_multiples(gpu, model, workload, ctx, pp)
        limits = (
            workload.input_len,
            workload.output_len,
            workload.ttft_ms / multiples[0],
            workload.tpot_limit_ms / multiples[1],
        )
        q = workload.prompt_p99_over_mean
        if floor_per_gpu is None and shared_search(no_load_meets_ttft, ctx, eff, workload.input_len, limits[2], q):
            # refused as the search below refuses it (no batch, nor a request alone, meets the limits); the words,
            # which time that search, are written when read: a ranking shows one refusal a machine
            late = _LateRefusal(ctx, eff, workload, min(max_batch, cap), limits, multiples)
            needed = WrittenOnce(late.limits_needed)
            return _infeasible(gpu, gpu_count, tp, pp, WrittenOnce(late.words), memory, True, needed)
        if floor_per_gpu is not None:
            target_ms = eff.slo_tpot_utilisation * limits[3]  # the TPOT the search meets (loops.LatencySlack)
            # the TPOT target's ceiling first; the TTFT limit's (which times a prefill) only where that one falls short
            for ttft_limits in ((), (limits[2], workload.prompt_p99_over_mean)):
                ceiling = shared_search(
                    latency_bound_ceiling_per_s, ctx, eff, min(max_batch, cap), lengths, target_ms, *ttft_limits
                )
                if ceiling is not None and per_gpu_digits(ceiling / gpu_count) < floor_per_gpu:
                    return _OUTCLASSED
        batch, found = shared_search(
            floored_latency_search, ctx, eff, min(max_batch, cap), limits, beams, workload.prompt_p99_over_mean
        )
        if batch < 1:
            point, alone = _one_request(ctx, eff, workload, found)
            light = None
            if meets_limits(workload, eff, alone, multiples):  # below one request in flight the limits may hold
                light = shared_search(light_load_point, ctx, eff, limits, beams, workload.prompt_p99_over_mean)
            if light is None:
                reason = WrittenOnce(partial(_misses_limits_words, workload, eff, point, alone, multiples))
                needed = WrittenOnce(partial(_limits_needed, workload, eff, point, multiples))
                return _infeasible(gpu, gpu_count, tp, pp, reason, memory, True, needed)
            return Solution(gpu, gpu_count, model, workload, tp, pp, ctx, light, 1, max_batch, eff, light_load=True)
    else:
        batch = _batch_for(scenario, workload, max_batch, cap)
        if batch > max_batch:
            return _infeasible(
                gpu,
                gpu_count,
                tp,
                pp,
                (
                    f"batch {batch} needs KV for {batch} requests; only {max_batch} fit at {fixed(held_tokens, 0)} "
                    "tokens"
                ),
                memory,
            )
    if found is None and scenario == "request_rate":
        found = shared_search(
            open_loop_point,
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
            rate = workload.requests_per_s or 1.0
            reason = WrittenOnce(partial(overload_reason, rate, found))
            refusal = _infeasible(gpu, gpu_count, tp, pp, reason, memory, misses_limits=True)
            capacity = rate - found.backlog_per_s
            refusal = replace(refusal, attention_parallel="dp" if dp > 1 else "tp", keeps_up_with_per_s=capacity)
            return _Overload(refusal, capacity)
    if found is None and scenario == "concurrency":
        found = shared_search(
            closed_loop_point,
            ctx,
            eff,
            workload.concurrency or 1,
            min(max_batch, cap),
            workload.input_len,
            workload.output_len,
            beams,
        )
    batching = batching_scenario(workload)
    if floor_per_gpu is not None and batching == "max_throughput":  # continuous batching; fixed-batch waves: none
        ceiling = shared_search(max_throughput_ceiling_per_s, ctx, eff, batch, lengths)
        if ceiling is not None and per_gpu_digits(ceiling / gpu_count) < floor_per_gpu:
            return _OUTCLASSED
    job = None
    if workload.job_requests and scenario == "max_throughput":
        planned = shared_search(
            job_at, ctx, eff, batching, batch, lengths, workload.job_requests, workload.job_deadline_hours
        )
        if isinstance(planned, str):
            return _infeasible(gpu, gpu_count, tp, pp, planned, memory)
        job, point, batch = planned, planned.point, planned.batch
    else:
        point = found or operating_point(ctx, eff, batching, batch, *lengths)
    return Solution(gpu, gpu_count, model, workload, tp, pp, ctx, point, batch, max_batch, eff, job)


def _reaching(solved: list[Solution], floor_per_gpu: float | None) -> list[Solution]:
    """The solved ways that reach `floor_per_gpu` (all of them without one). A function of its own, as _solve's words
    are partials: a closure in _solve made its arguments cells, set up on each of a ranking's ~150 solves (speed28)."""
    return [b for b in solved if floor_per_gpu is None or _per_gpu(b) >= floor_per_gpu]


def loses_on_tpot_unsearched(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    workload: InferenceWorkload,
    tensor_parallel: int,
    pipeline_parallel: int,
    fabric_gbs: float,
    tpot_p99_bar_ms: float,
    reads: WorkloadReads,
) -> bool:
    """Whether solve_unless_outclassed with this bar (`fabric_gbs`, no floor, the default efficiency) would skip the
    layout by its p99 TPOT floor (_rate_outclassed), or refuse it before its search (_before_search's refusal, no room
    for one request's KV cache): from the lookups _solve reads, without the rest of a solve. A request
    rate's tier asks it where its best meets the limits on this bill (configurations._solve_tier), and there neither a
    skipped nor a refused layout can become the best, nor is either read (found by speed23: ~130 of a ranking's ~180
    layouts went through a whole solve's set-up to be skipped). False where _solve would not skip by the bar: another
    scenario, beams, attention both ways (auto)."""
    if workload.scenario != "request_rate" or workload.beam_width != 1:
        return False
    pp = max(pipeline_parallel, 1)
    tp = tensor_parallel or max(gpu_count // pp, 1)
    if reads.tries_dp and kv_replicated_under_tp(model, tp):
        return False  # both ways solved, neither against the bar
    dp = tp if workload.attention_parallel == "dp" and tp > 1 else 1
    wdt, kvdt, engine = reads.weight_dtype, reads.kv_dtype, workload.engine
    setup = _before_search(gpu, gpu_count, model, wdt, kvdt, engine, tp, pp, dp, fabric_gbs, workload.expert_parallel)
    if isinstance(setup, InferenceEstimate):
        return True
    ctx = setup.ctx
    if reads.techniques.active:
        ctx = replace(ctx, techniques=reads.techniques)
    eff = DEFAULT_EFFICIENCY
    # _rate_outclassed's first floor, read before the KV room: over the bar, the layout loses whatever its room (none:
    # refused; some: skipped by that same floor), and ~5 in 6 of a ranking's layouts stop here
    least_ms = shared_search(tpot_floor_ms, ctx, eff, workload.input_len, workload.output_len)
    if least_ms is not None and least_ms * eff.p99_over_mean > tpot_p99_bar_ms * (1.0 + CEILING_ROUNDING_SLACK):
        return True
    max_batch = setup.max_sequences(model, reads.held_tokens)
    if max_batch < 1:
        return True
    return _rate_outclassed(ctx, eff, workload, max_batch, tpot_p99_bar_ms)


def _rate_outclassed(
    ctx: InferenceContext, eff: InferenceEfficiency, workload: InferenceWorkload, max_batch: int, bar_ms: float
) -> bool:
    """Whether a request rate's layout provably serves a p99 TPOT over `bar_ms` (the best's on the same bill): one
    sequence's step floor first (a few products); the rate's forced batch (throughput_ceiling.open_loop_tpot_floor_ms,
    at the running cap) only where that does not decide."""
    bar_ms = bar_ms * (1.0 + CEILING_ROUNDING_SLACK)
    least_ms = shared_search(tpot_floor_ms, ctx, eff, workload.input_len, workload.output_len)
    if least_ms is not None and least_ms * eff.p99_over_mean <= bar_ms:
        rate = workload.requests_per_s or 1.0
        lengths_in_out = (workload.input_len, workload.output_len)
        running = min(max_batch, running_cap(ctx, workload))
        least_ms = shared_search(open_loop_tpot_floor_ms, ctx, eff, *lengths_in_out, rate, running)
    return least_ms is not None and least_ms * eff.p99_over_mean > bar_ms


def _one_request(
    ctx: InferenceContext, eff: InferenceEfficiency, workload: InferenceWorkload, found: OperatingPoint | None
) -> tuple[OperatingPoint, OperatingPoint]:
    """Where latency_bound finds no batch: its batch 1's point (`found`, or timed here where no request fits at all)
    and a request alone (scenario single_stream), from the same prefill."""
    point = found or operating_point(ctx, eff, "latency_bound", 1, workload.input_len, workload.output_len)
    decode_one = point.decode_only if point.batch == 1 else None  # batch 1's decodes: one request's
    lengths = (workload.input_len, workload.output_len, workload.beam_width)
    alone = operating_point(ctx, eff, "single_stream", 1, *lengths, point.prefill, point.first_prefill_ms, decode_one)
    return point, alone


@hot_record
class _LateRefusal:
    """A layout refused at the latency limits before its search (throughput_ceiling.no_load_meets_ttft): the words
    the search's refusal says, from the points it would have timed."""

    ctx: InferenceContext
    eff: InferenceEfficiency
    workload: InferenceWorkload
    cap: int
    limits: tuple[float, float, float, float]
    multiples: tuple[float, float]

    def words(self) -> str:
        w = self.workload
        _, found = shared_search(
            latency_bound_point, self.ctx, self.eff, self.cap, self.limits, w.beam_width, w.prompt_p99_over_mean
        )
        point, alone = _one_request(self.ctx, self.eff, w, found)
        return _misses_limits_words(w, self.eff, point, alone, self.multiples)

    def limits_needed(self) -> tuple[float, ...]:
        w = self.workload
        _, found = shared_search(
            latency_bound_point, self.ctx, self.eff, self.cap, self.limits, w.beam_width, w.prompt_p99_over_mean
        )
        return _limits_needed(w, self.eff, _one_request(self.ctx, self.eff, w, found)[0], self.multiples)


# Refusals before any search (more stages than layers, heads a TP group cannot split, weights over what the GPUs
# leave) by all they read: none reads the workload's lengths, limits or load, so the next ranking, whatever its
# lengths, refuses the same layouts in the same words. The seeded DeepSeek-R1 ranking refuses ~116 layouts this way.
# _before_search keeps as many layouts (a refusal or a setup each).
_REFUSALS_CACHE_SIZE = 4096


@lru_cache(maxsize=_REFUSALS_CACHE_SIZE)
def _before_search(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    wdt: str,
    kvdt: str,
    engine: str,
    tp: int,
    pp: int,
    dp: int,
    fabric_gbs: float,
    expert_parallel: str,
) -> InferenceEstimate | LayoutSetup:
    """What _solve reads of a layout before its search, by all it reads: its refusal where it holds no model whatever
    the load (_refused_unsearched), else its setup (layout_setup) at its expert parallelism (`expert_parallel`: the
    workload's, expert_parallel_degree). One lookup where each of a ranking's ~180 layouts made two (speed23)."""
    refused = _refused_unsearched(gpu, gpu_count, model, wdt, kvdt, engine, tp, pp, dp)
    if refused is not None:
        return refused
    ep = _expert_parallel_of(model, expert_parallel, tp)
    return layout_setup(gpu, model, wdt, kvdt, engine, tp, pp, fabric_gbs, dp, ep)


@lru_cache(maxsize=_REFUSALS_CACHE_SIZE)
def _refused_unsearched(
    gpu: GpuSpec,
    gpu_count: int,
    model: ModelSpec,
    wdt: str,
    kvdt: str,
    engine: str,
    tp: int,
    pp: int,
    dp: int,
) -> InferenceEstimate | None:
    """The layout's refusal where it holds no model whatever the load (_solve's first checks), else None."""

    def memory() -> dict[str, float]:  # an infeasible estimate shows the footprint before any KV cache
        return footprint_gb(gpu, model, wdt, kvdt, tp, pp, dp, engine)

    if (too_many_stages := stage_split_reason(model, pp)) is not None:
        return _infeasible(gpu, gpu_count, tp, pp, too_many_stages, memory)
    if dp == 1 and (unsplittable := head_split_reason(model, tp)) is not None:  # data-parallel attention splits none
        return _infeasible(gpu, gpu_count, tp, pp, unsplittable, memory)
    need_gb = weight_bytes(model, wdt) / GB
    usable_per_gpu_gb = usable_gb(gpu, tp, engine)
    have_gb = usable_per_gpu_gb * tp * pp  # as _holds_no_model reckons it
    per_gpu_gb = weight_bytes_per_gpu(model, wdt, tp, pp, dp) / GB if dp > 1 else 0.0
    if per_gpu_gb > usable_per_gpu_gb:
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            WrittenOnce(
                lambda: (
                    f"data-parallel attention keeps a full copy of the attention weights on each GPU: "
                    f"{fixed(per_gpu_gb, 0)} GB of {wdt} weights per GPU, "
                    f"{fixed(usable_gb(gpu, tp, engine), 0)} GB usable"
                )
            ),
            memory,
        )
    if need_gb > have_gb:
        return _infeasible(
            gpu,
            gpu_count,
            tp,
            pp,
            WrittenOnce(  # shown for few of the layouts a ranking refuses
                lambda: (
                    f"needs {fixed(need_gb, 0)} GB for {wdt} weights; {tp * pp}×{gpu.name} "
                    f"{'leaves' if tp * pp == 1 else 'leave'} "
                    f"{fixed(have_gb, 0)} GB after the runtime reserve ({significant(gpu.memory_gb)} GB each, "
                    f"{fixed(card_gb(gpu), 1)} × 10^9 bytes)"
                )
            ),
            memory,
        )
    return None


def _holds_no_model(gpu: GpuSpec, model: ModelSpec, weight_dtype: str, tp: int, pp: int, engine: str) -> bool:
    """The layout is refused whichever way its attention is split, before any search: more stages than layers, or
    weights over what its GPUs leave (_solve's first checks; data-parallel attention only adds a check)."""
    if stage_split_reason(model, pp) is not None:
        return True
    return weight_bytes(model, weight_dtype) / GB > usable_gb(gpu, tp, engine) * tp * pp


def _limit_multiples(
    gpu: GpuSpec, model: ModelSpec, workload: InferenceWorkload, ctx: InferenceContext, pp: int
) -> tuple[float, float]:
    """limits.limit_multiples, with the band regime looked up only where the limits are checked at its slow end."""
    return (
        limit_multiples(workload, band_regime(gpu, model, workload, ctx, pp)) if at_band_high(workload) else ON_ESTIMATE
    )


def _per_gpu(solved: Solution) -> float:
    return per_gpu_digits(solved.output_tokens_per_s_per_gpu)


def _misses_limits_words(
    workload: InferenceWorkload,
    eff: InferenceEfficiency,
    point: OperatingPoint,
    alone: OperatingPoint,
    multiples: tuple[float, float],
) -> str:
    """Why latency_bound finds no batch (batch 1's `point` misses the limits), and what a request `alone` meets."""
    ttft_p99_ms = point.ttft_p99_ms(eff.p99_ttft_over_mean, workload.prompt_p99_over_mean)
    reason = one_request_misses(workload, eff, ttft_p99_ms, point.tpot_ms, multiples)
    return reason + alone_words(workload, eff, alone, multiples)


def _limits_needed(
    workload: InferenceWorkload, eff: InferenceEfficiency, point: OperatingPoint, multiples: tuple[float, float]
) -> tuple[float, ...]:
    """The least p99 TTFT and TPOT limits batch 1's `point` meets as meets_limits checks them (its mean TPOT within
    slo_tpot_utilisation of the TPOT limit; 0 where a one-token output has no TPOT limit): how near a refusal is."""
    ttft = point.ttft_p99_ms(eff.p99_ttft_over_mean, workload.prompt_p99_over_mean) * multiples[0]
    tpot = 0.0 if math.isinf(workload.tpot_limit_ms) else point.tpot_ms * multiples[1] / eff.slo_tpot_utilisation
    return ttft, tpot


def job_at(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    batching: str,
    batch: int,
    lengths: tuple[float, float, int],
    requests: int,
    deadline_hours: float | None,
) -> JobPlan | str:
    """A batch job planned from the operating point at `batch` (plan_job): one function of its arguments, so
    shared_search answers it once per equal context."""
    point = operating_point(ctx, eff, batching, batch, *lengths, keep_decode_only=True)  # the drain starts from it
    return plan_job(ctx, eff, requests, point, lengths, deadline_hours)


class WorkloadReads(NamedTuple):
    """What _solve reads of a workload that no layout and no copy's share of a fixed load changes (per_copy_workload
    sets only the rate or the clients): worked out once a machine (configurations.best_on_machine) rather than once a
    layout, ~180 a ranking (found by speed23)."""

    weight_dtype: str
    kv_dtype: str  # kv_dtype_effective
    held_tokens: float  # request_kv_tokens: a request's KV over its life
    techniques: ServingTechniques  # techniques_for
    tries_dp: bool  # attention_parallel auto on an engine that runs attention data-parallel (tries_dp_attention)


def workload_reads(workload: InferenceWorkload) -> WorkloadReads:
    """The workload's WorkloadReads."""
    return WorkloadReads(
        workload.weight_dtype,
        workload.kv_dtype_effective,
        request_kv_tokens(workload.input_len, workload.output_len, workload.beam_width),
        techniques_for(workload),
        workload.attention_parallel == "auto" and tries_dp_attention(workload),
    )


def _with_dp_tried(
    kept: Solution, dp: Solution | InferenceEstimate | _Overload | _Outclassed, resolve: Callable[[], object]
) -> Solution:
    """`kept`, and where it splits attention by heads, how data-parallel attention fared beside it (its note): `dp`,
    or where a ceiling skipped its search, `resolve()`, the search without a floor, when first read. Solved in full,
    a way the ceiling skipped serves fewer tokens/s than `kept` (or none), so the note reads the same either way."""
    if kept.ctx.attention_dp > 1:
        return kept

    def tried() -> DpAttentionTried:
        found = resolve() if isinstance(dp, _Outclassed) else dp
        if isinstance(found, Solution):
            return DpAttentionTried(solution=found)
        if isinstance(found, InferenceEstimate) and not found.feasible:
            return DpAttentionTried(refusal=found)
        return DpAttentionTried()

    return replace(kept, dp_attention_tried=WrittenOnce(tried))


def tries_dp_attention(workload: InferenceWorkload) -> bool:
    """The workload's engine can run attention data-parallel (auto tries it; HF and llama.cpp split by heads only)."""
    return workload.engine in DP_ATTENTION_ENGINES


def expert_parallel_degree(model: ModelSpec, workload: InferenceWorkload, tensor_parallel: int) -> int:
    """GPUs the experts are placed whole on: the TP group when the workload asks for expert parallelism and the
    experts divide evenly over it, else 1 (each expert sharded over TP)."""
    return _expert_parallel_of(model, workload.expert_parallel, tensor_parallel)


def _expert_parallel_of(model: ModelSpec, asked: str, tensor_parallel: int) -> int:
    """expert_parallel_degree from the workload's expert_parallel (`asked`)."""
    tp = tensor_parallel
    if asked == "ep" and model.is_moe and tp > 1 and model.num_experts % tp == 0:
        return tp
    return 1
