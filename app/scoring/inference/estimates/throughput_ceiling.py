"""The most output tokens/s a layout can serve, from its context alone: best_on_machine skips a layout whose ceiling
cannot reach the best one found so far on its machine, instead of searching its operating point.

Latency-bound: the search returns a whole batch b in [1, cap] whose step meets the TPOT target (step(b) <= target)
and serves b / step(b) tokens per ms, or a light load B < 1 of one decoding sequence serving B / step(B). Every step is
at least L(b) (_StepFloor: the terms forward_parts adds for certain), and L(b) / b never rises, so b / step(b) is at
most B / L(B) for any B at least the largest batch whose L meets the target. The p99 TTFT limit the search meets
bounds it too (_TtftRoom): a new request waits for running steps, so a whole batch's step is bounded by what the limit
leaves after the request's own prefill, and where that prefill alone misses the limit no load meets it (ceiling 0).
A request-rate load that keeps up serves exactly its rate x output tokens (loops.open_loop_point); one that does not
is refused. At max throughput (a batch
job or not) under continuous batching the point is operating_point's at the batch B the scenario runs (estimate.
_batch_for), or, for a job whose share n per replica is under B, at n (batch_job.job_share): tokens/s b / step(b) with
step(b) the same mixed step, so at most B / L(B) for every b <= B (max_throughput_ceiling_per_s). Statically batching
engines (fixed-batch waves), other scenarios, speculative decoding and beam search have no ceiling here (None).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.batching.loops import latency_bound_point
from app.scoring.inference.batching.operating_points import OperatingPoint, first_prefill_ms
from app.scoring.inference.batching.queueing import wait_steps
from app.scoring.inference.estimates.shared_searches import shared_search
from app.scoring.inference.step.communication import GATHER_SCATTER_ENGINES, allreduce_ms, stage_send_ms
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.memory import attended_tokens
from app.scoring.inference.step.pass_rates import PassRates, dense_weight_ms, pass_rates
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.inference.step.routed_experts import expert_coverage
from app.scoring.inference.step.steps import mixed_step_parts, prefill_attention_flops, roofline_ms
from app.scoring.records import hot_record
from app.scoring.workload import InferenceWorkload

# Relative slack on every ceiling: float rounding in the timing's own arithmetic (about 1e-16 a step) can put a point
# a hair above the exact ceiling, which a dense model's step meets at its batch; a ceiling is only ever compared with
# another layout's tokens/s to 6 digits.
CEILING_ROUNDING_SLACK = 1e-9
# Steps from the cap toward the largest batch whose floor meets the TPOT target (_largest_batch): each stays at or
# above that batch, so each is a bound; the floor is nearly linear in the batch, and a few reach it.
BATCH_STEPS = 12
# Fixed-point steps toward the least running batch an open loop can settle at (open_loop_tpot_floor_ms): each is a
# lower bound; the batch's step floor is linear in it with a slope well under one, so a few come close.
OPEN_LOOP_STEPS = 8
# Relative rise of the forced batch under which open_loop_tpot_floor_ms stops stepping (any step is a bound).
OPEN_LOOP_RTOL = 0.01


def latency_bound_ceiling_per_s(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    cap: int,
    lengths: tuple[float, float, int],
    tpot_target_ms: float,
    ttft_limit_ms: float = math.inf,
    prompt_p99_over_mean: float | None = None,
) -> float | None:
    """Output tokens/s of the whole replica, at most, at the latency-bound batch of at most `cap` requests whose step
    meets `tpot_target_ms` and whose p99 TTFT meets `ttft_limit_ms`, the limits the search meets (module docstring;
    _TtftRoom: 0 where no load meets the TTFT limit, the layout then being refused). `lengths`: input and output
    tokens, beams. Positional arguments of plain values, so that shared_search answers it once per equal context."""
    input_len, output_len, beam_width = lengths
    if ctx.techniques.speculative or beam_width != 1:
        return None
    target_ms = tpot_target_ms
    if math.isfinite(ttft_limit_ms):
        room = _TtftRoom.of(ctx, eff, input_len, ttft_limit_ms, prompt_p99_over_mean)
        if room.own_prefill_misses:
            return 0.0
        target_ms = min(target_ms, room.step_bound_ms)
    floor, batch = shared_search(_batch_bound, ctx, eff, input_len, output_len, float(max(cap, 1)), target_ms)
    per_ms = max(batch / (floor.convex_ms(batch) + floor.concave_ms(batch)), 1.0 / floor.light_load_ms)
    return per_ms * 1e3 * (1.0 + CEILING_ROUNDING_SLACK)


def floored_latency_search(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    cap: int,
    limits: tuple[float, float, float, float],
    beam_width: int,
    prompt_p99_over_mean: float | None,
) -> tuple[int, OperatingPoint | None]:
    """loops.latency_bound_point (the same batch and point), its range ending below the cap where the step floor
    proves a batch misses the TPOT target: the search meets step(b) <= target, every step is at least its floor
    L(b), and L rises with the batch, so every batch above the largest whose floor meets the target misses it
    (_largest_batch returns a whole batch at least that one). Speculative decoding and beams: no floor, the cap's
    range. Positional arguments of plain values, so that shared_search answers it once per equal context."""
    input_len, output_len, _, tpot_limit_ms = limits
    misses_from = None
    if not ctx.techniques.speculative and beam_width == 1 and cap > 1:
        target_ms = eff.slo_tpot_utilisation * tpot_limit_ms
        misses_from = int(shared_search(_batch_bound, ctx, eff, input_len, output_len, float(cap), target_ms)[1]) + 1
    return latency_bound_point(ctx, eff, cap, limits, beam_width, prompt_p99_over_mean, misses_from)


def no_load_meets_ttft(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    input_len: float,
    ttft_limit_ms: float,
    prompt_p99_over_mean: float | None,
) -> bool:
    """Whether a request's own prefill alone misses the p99 TTFT limit (_TtftRoom.own_prefill_misses): then no load
    meets it, neither latency_bound's batch of one (its slack is positive, so the search finds no batch) nor a request
    alone (whose p99 TTFT is first x q' itself), and the latency-bound search refuses the layout as over the limits.
    Positional arguments of plain values, so that shared_search answers it once per equal context."""
    if not math.isfinite(ttft_limit_ms):
        return False
    own_ratio = eff.p99_ttft_over_mean if prompt_p99_over_mean is None else prompt_p99_over_mean
    least_ms = _prefill_gemm_ms(ctx, eff, input_len) * (1.0 - CEILING_ROUNDING_SLACK)
    if least_ms * own_ratio * (1.0 - CEILING_ROUNDING_SLACK) > ttft_limit_ms * (1.0 + CEILING_ROUNDING_SLACK):
        return True  # _TtftRoom's room is negative for any first prefill at least this long: no prefill timed
    return _TtftRoom.of(ctx, eff, input_len, ttft_limit_ms, prompt_p99_over_mean).own_prefill_misses


def _prefill_gemm_ms(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float) -> float:
    """A lone prompt's first prefill (first_prefill_ms) is at least its dense GEMMs' compute: without PP one pass,
    busy >= the dense roofline >= its FLOPs / peak (forward_parts; the routed experts' FLOPs, at most the tokens x
    routed FLOPs, left out); with PP every stage in turn, `stages` stage passes of 1 / stages of those FLOPs each
    (prefill_latency_ms of one prompt). Its comm, host time, attention and weight reads only add. 0 under
    data-parallel attention (whose GEMMs split otherwise: no bound here). The caller's CEILING_ROUNDING_SLACK covers
    the few roundings by which this sum's order differs from forward_parts'."""
    if ctx.attention_dp > 1:
        return 0.0
    shards = ctx.tensor_parallel * ctx.pipeline_parallel
    tokens = input_len * ctx.techniques.uncached_share
    dense_flops = max(tokens * ctx.flops_per_token / shards - tokens * ctx.routed_flops_per_token / shards, 0.0)
    return ctx.pipeline_parallel * dense_flops / pass_rates(ctx, eff).peak


@hot_record
class _TtftRoom:
    """What the p99 TTFT limit the latency-bound search meets (loops.LatencySlack) leaves a layout.

    Proof: operating_point's mean TTFT at a load of B requests in flight (latency_bound, any B > 0: a whole batch or
    light_load_point's B < 1) is first + queue + wait + batched (queueing.loaded_ttft_ms): first the request's own
    prefill (first_prefill_ms of prefill_parts(1), the very calls LatencySlack makes), queue the M/D/1 wait (>= 0: a
    non-negative service time x rho / (2(1 - rho)), rho held in [0, 0.95]; above one MoE prompt a step rho is the
    one-prompt batch's, still in that range), wait = w x step(B) x min(B, 1) (running_steps_wait_ms, w = wait_steps
    >= 0, step(B) the batch's own step, which the shared pass leaves as it is) and batched the other prompts' work in
    a shared MoE prefill pass (queueing.batched_pass_ms: (n - 1) / n x max(pass work - host time, 0) >= 0; 0 at one
    prompt a step or on a dense model). Its p99 is the mean x r (r = p99_ttft_over_mean) or, with a prompt spread q,
    first x q + (queue + wait + batched) x r (OperatingPoint.ttft_p99_ms; own_prefill_ms is first, the waits and
    batched subtracted). Both are at least first x q' (q' = r, or q), the non-negative queue and batched terms only
    adding: where that is over the limit no load meets it, and the layout is refused (own_prefill_misses). At a whole
    batch b >= 1 they are at least first x q' + w x r x step(b), so a batch that meets the limit has step(b) <=
    (limit - first x q') / (w x r) (step_bound_ms; inf where w = 0), and step(b) >= L(b), so _largest_batch's
    argument holds for the smaller of this and the TPOT target. Dropping batched (like queue) only loosens the bound,
    so it holds without timing the pass. CEILING_ROUNDING_SLACK widens both against float rounding in
    own_prefill_ms (ttft - waits) and the sums."""

    own_prefill_misses: bool
    step_bound_ms: float

    @classmethod
    def of(
        cls,
        ctx: InferenceContext,
        eff: InferenceEfficiency,
        input_len: float,
        ttft_limit_ms: float,
        prompt_p99_over_mean: float | None,
    ) -> _TtftRoom:
        first_ms = first_prefill_ms(ctx, eff, input_len, prefill_parts(ctx, eff, 1, input_len))
        own_ratio = eff.p99_ttft_over_mean if prompt_p99_over_mean is None else prompt_p99_over_mean
        room_ms = ttft_limit_ms * (1.0 + CEILING_ROUNDING_SLACK) - first_ms * own_ratio * (1.0 - CEILING_ROUNDING_SLACK)
        waits = wait_steps(ctx.engine, eff) * eff.p99_ttft_over_mean
        step_bound_ms = room_ms / waits * (1.0 + CEILING_ROUNDING_SLACK) if waits > 0 else math.inf
        return cls(own_prefill_misses=room_ms < 0, step_bound_ms=step_bound_ms)


def max_throughput_ceiling_per_s(
    ctx: InferenceContext, eff: InferenceEfficiency, batch: int, lengths: tuple[float, float, int]
) -> float | None:
    """Output tokens/s of the whole replica, at most, at max throughput under continuous batching with `batch`
    running requests or fewer (module docstring): operating_point times batch b at b / step(b), step(b) =
    mixed_step_parts(b) >= L(b), and L(b) / b never rises, so b / step(b) <= batch / L(batch) for every b <= batch (a
    batch job's share under the batch runs at its own smaller size: batch_job.job_share). Speculative decoding and
    beam search: None. Positional arguments of plain values, so that shared_search answers it once per equal
    context."""
    input_len, output_len, beam_width = lengths
    if ctx.techniques.speculative or beam_width != 1:
        return None
    floor = shared_search(_step_floor, ctx, eff, input_len, output_len)
    top = float(max(batch, 1))
    per_ms = max(top / (floor.convex_ms(top) + floor.concave_ms(top)), 1.0 / floor.light_load_ms)
    return per_ms * 1e3 * (1.0 + CEILING_ROUNDING_SLACK)


def request_rate_ceiling_per_s(workload: InferenceWorkload) -> float:
    """Output tokens/s of a replica that keeps up with the arrival rate: the rate's own tokens."""
    return (workload.requests_per_s or 1.0) * workload.output_len * (1.0 + CEILING_ROUNDING_SLACK)


def tpot_floor_ms(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, output_len: float) -> float | None:
    """The least mean TPOT any continuous-batching step of this context can have, ms (None: no floor here).

    Proof: a step's TPOT is mixed_step_parts' total_ms (operating_point, open or closed loop, any running batch B > 0),
    which decodes at least one sequence (max(B, 1)): every stage reads its dense weights (the dense GEMMs' roofline,
    never below its memory time), one sequence's KV cache at its context (the attention's roofline) and the routed
    experts its token touches, and pays its step's and that sequence's host time; comm and prompt work only add. That
    is _StepFloor.light_load_ms, over every stage. None under speculative decoding (total_ms divides by the tokens a
    step yields) and data-parallel attention (one sequence's KV is read on one rank of dp), as the ceilings."""
    if ctx.techniques.speculative or ctx.attention_dp > 1:
        return None
    # _StepFloor.of's light_load_ms alone, the same floats (test_layout_ceiling): its other terms are not read here
    return _light_load_ms(ctx, pass_rates(ctx, eff), input_len, output_len) * (1.0 - CEILING_ROUNDING_SLACK)


def open_loop_tpot_floor_ms(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    input_len: float,
    output_len: float,
    requests_per_s: float,
    running_cap: int,
) -> float | None:
    """The least mean TPOT loops.open_loop_point can return at `requests_per_s` with at most `running_cap` running,
    ms (None: no floor here, as tpot_floor_ms): tpot_floor_ms, raised by the running batch the rate forces.

    Proof. (1) The point's TPOT is step(x) = mixed_step_parts(x, others_only).total_ms at its running batch x
    (operating_point's concurrency scenario). step never falls as x rises: forward_parts runs max(x, 1) decoding
    sequences and the other max(x - 1, 0) x tokens_per_step / output prompts, both nondecreasing in x, and each term
    it adds is nondecreasing in them: the tokens (so the dense GEMM FLOPs, (F - R) x tokens with F >= R, and the
    experts' coverage 1 - (1 - k/E)^tokens), the KV read and the attention FLOPs (decoding sequences and prompts),
    the soft rooflines (m^p + c^p)^(1/p) (nondecreasing in m and c), the host time (a sequence each, one more once a
    prompt is carried, the MoE prefill passes min(prompts, 1)) and the all-reduces and stage sends (affine in the
    tokens, non-negative slopes). Excluded: expert parallel (busiest_group_coverage can fall near full coverage) and,
    as tpot_floor_ms, data-parallel attention and speculative decoding; expert parallel keeps tpot_floor_ms's floor.
    (2) The batch: overloaded (rate >= capacity at the cap), the point is the cap's, x = cap. Otherwise _log_root
    returns an x whose gap >= 0: x / life(x) >= rate (Little's law, life = request_life_ms = TTFT + (output - 1) x
    step(x)), and TTFT >= the first prefill (queueing.loaded_ttft_ms: first + queue + wait + batched, each >= 0;
    _TtftRoom) >= its dense GEMMs' compute (_prefill_gemm_ms, 0 under data-parallel attention). So with n_0 = 1
    and n_(k+1) = max(1, min(rate x (first_least + (output - 1) x step(n_k)), cap)): if n_k <= max(x, 1) then
    step(n_k) <= step(max(x, 1)) = step(x) (below one in flight the step is one sequence's with no prompts, as at
    1), so n_(k+1) <= max(x, 1) too; by induction step(n_k) <= step(x) for every k (at most OPEN_LOOP_STEPS).
    CEILING_ROUNDING_SLACK covers float rounding in the sums and in the root's exp(log x)."""
    if ctx.techniques.speculative or ctx.attention_dp > 1:
        return None
    light_ms = _light_load_ms(ctx, pass_rates(ctx, eff), input_len, output_len) * (1.0 - CEILING_ROUNDING_SLACK)
    if ctx.expert_parallel > 1:
        return light_ms
    rate_per_ms = requests_per_s / 1e3 * (1.0 - CEILING_ROUNDING_SLACK)
    first_least_ms = _prefill_gemm_ms(ctx, eff, input_len) * (1.0 - CEILING_ROUNDING_SLACK)
    decode_steps = max(output_len - 1.0, 0.0)
    cap = float(max(running_cap, 1))
    running, step_ms = 1.0, _open_loop_step_ms(ctx, eff, 1.0, input_len, output_len)
    for _ in range(OPEN_LOOP_STEPS):
        forced = max(1.0, min(rate_per_ms * (first_least_ms + decode_steps * step_ms), cap))
        if forced <= running * (1.0 + OPEN_LOOP_RTOL):
            break  # the next step would raise the floor by less than the tolerance: every n_k is a bound
        running, step_ms = forced, _open_loop_step_ms(ctx, eff, forced, input_len, output_len)
    return max(light_ms, step_ms * (1.0 - CEILING_ROUNDING_SLACK))


def _open_loop_step_ms(
    ctx: InferenceContext, eff: InferenceEfficiency, running: float, input_len: float, output_len: float
) -> float:
    """The step an open loop's requests decode in at `running` in flight (operating_point's concurrency step)."""
    return mixed_step_parts(ctx, eff, running, input_len, output_len, 1, others_only=True).total_ms


def _light_load_ms(ctx: InferenceContext, rates: PassRates, input_len: float, output_len: float) -> float:
    """_StepFloor.light_load_ms: one decoding sequence's step without prompt tokens, every stage: the dense weights'
    read, each stage's step host time, one sequence's KV read at its mean context, its host time and the routed experts
    one token touches (none read under expert parallel)."""
    pp = ctx.pipeline_parallel
    attended = attended_tokens(input_len + output_len / 2, ctx.sliding_window, ctx.sliding_share)
    kv_ms = ctx.kv_bytes_per_token_per_gpu * attended / rates.kv_bandwidth
    weights_ms = pp * dense_weight_ms(ctx, rates)
    experts_bytes_ms = 0.0
    if ctx.expert_parallel <= 1:
        experts_bytes_ms = pp * ctx.expert_weight_bytes_per_gpu / rates.expert_bandwidth
    experts_least_ms = experts_bytes_ms * expert_coverage(ctx.experts_active_share, 0.0)
    return weights_ms + pp * rates.step_host_ms + kv_ms + rates.sequence_host_ms + experts_least_ms


def per_gpu_digits(tokens_per_s_per_gpu: float) -> float:
    """Output tokens/s per GPU to 6 significant digits: how layouts are compared (configurations.LayoutPreference)."""
    return float(f"{tokens_per_s_per_gpu:.6g}")


@hot_record
class _StepFloor:
    """L(b), ms: a continuous-batching step of b running requests (steps.mixed_step_parts) over every pipeline stage,
    with only terms forward_parts adds for certain: the dense GEMMs' soft roofline (weights vs their matmul FLOPs,
    under data-parallel attention at the balanced split dp_attention_flops never goes below), the attention's (KV
    reads vs score/AV FLOPs), the all-reduces and stage sends, the host time (convex_ms: a norm plus affine terms with
    non-negative intercepts), and the routed experts' bytes the step's tokens touch and the MoE prefill host time
    (concave_ms: concave, zero or constant at no batch). So L is at least its convex part at its least concave part,
    and L(b) / b never rises."""

    weights_ms: float  # the dense weights' read, every stage
    dense_ms: float  # the dense matmuls' time per running request (its decode token and its prompt's share)
    attention_ms: float  # the attention's roofline per running request
    per_request_ms: float  # host time and comm's transfer per running request
    fixed_ms: float  # host time per step (and a prefill's sequence), comm's intercept
    power: float  # the soft roofline's p (roofline_ms); max(m, c) below 1, where the norm is not convex
    tokens_per_request: float  # tokens a running request puts in a step: its decode token and its prompt's share
    stages: int  # pipeline stages, each taking 1 / stages of the step's tokens
    prompt_share: float  # prompts a running request has prefilled per step
    experts_bytes_ms: float  # one stage's routed-expert weights read whole (0: a dense model, or expert parallel)
    active_share: float  # share of routed experts one token touches
    moe_prefill_ms: float  # an eager prefill pass's MoE host time, every stage
    light_load_ms: float  # one decoding sequence's step without prompt tokens: the floor below one in flight

    @classmethod
    def of(cls, ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, output_len: float) -> _StepFloor:
        fixed = shared_search(_context_floor, ctx, eff)  # what no length changes, once a context
        rates, pp, tp = fixed.rates, ctx.pipeline_parallel, ctx.tensor_parallel
        attended = attended_tokens(input_len + output_len / 2, ctx.sliding_window, ctx.sliding_share)
        share = ctx.techniques.tokens_per_step / max(output_len, 1.0)
        tokens = 1.0 + share * input_len * ctx.techniques.uncached_share
        # ranks a request's attention work is split over: TP's, or data-parallel attention's one of dp ranks
        attention_ranks = ctx.attention_dp if ctx.attention_dp > 1 else tp
        a = ctx.attention_gemm_share if ctx.attention_dp > 1 else 0.0
        gemm_flops = tokens * ctx.flops_per_token / pp * ((1.0 - a) / tp + a / attention_ranks)
        dense_ms = max(gemm_flops - tokens * ctx.routed_flops_per_token / (tp * pp), 0.0) / rates.peak
        prefilling = 1.0 if tokens > 1.0 else 0.0  # the step carries prompt tokens (their attention, a sequence's host)
        score_flops = ctx.attention_flops_per_token_ctx * attended
        score_flops += prefilling * prefill_attention_flops(ctx, share, input_len)
        score_ms = score_flops / (attention_ranks * pp) / rates.attention_rate
        kv_ms = ctx.kv_bytes_per_token_per_gpu * attended / rates.kv_bandwidth
        power, weights_ms = fixed.power, fixed.weights_ms
        return cls(
            weights_ms=weights_ms,
            dense_ms=dense_ms,
            attention_ms=_norm(kv_ms, score_ms, power),
            per_request_ms=rates.sequence_host_ms + max(fixed.comm_per_token_ms * tokens, 0.0),
            fixed_ms=pp * (rates.step_host_ms + prefilling * rates.sequence_host_ms) + fixed.comm_fixed_ms,
            power=power,
            tokens_per_request=tokens,
            stages=pp,
            prompt_share=share,
            experts_bytes_ms=fixed.experts_bytes_ms,
            active_share=ctx.experts_active_share,
            moe_prefill_ms=pp * rates.moe_prefill_ms,
            light_load_ms=weights_ms
            + pp * rates.step_host_ms
            + kv_ms
            + rates.sequence_host_ms
            + fixed.experts_least_ms,
        )

    def convex_ms(self, batch: float) -> float:
        variable = (self.attention_ms + self.per_request_ms) * batch
        return _norm(self.weights_ms, self.dense_ms * batch, self.power) + variable + self.fixed_ms

    def convex_slope(self, batch: float) -> float:
        """d convex_ms / d batch."""
        dense = self.dense_ms * batch
        rise = self.dense_ms
        if dense > 0 and math.isfinite(self.power):
            rise *= (dense / _norm(self.weights_ms, dense, self.power)) ** (self.power - 1.0)
        elif dense < self.weights_ms:
            rise = 0.0
        return rise + self.attention_ms + self.per_request_ms

    def concave_ms(self, batch: float) -> float:
        experts = 0.0
        if self.experts_bytes_ms:
            stage_tokens = self.tokens_per_request * batch / self.stages
            experts = self.experts_bytes_ms * expert_coverage(self.active_share, stage_tokens)
        return experts + min(self.prompt_share * batch, 1.0) * self.moe_prefill_ms


class _ContextFloor(NamedTuple):
    """What _StepFloor.of reads of a context that no length changes (its rates, comm's intercept and per-token slope,
    the norm's power, the weights' reads), worked out once a context and efficiency (_context_floor): a ranking
    asks ~70 step floors of ~60 contexts at its own lengths, and the next ranking the same contexts at others (found by
    speed28: ~half of each floor's ~13 us)."""

    rates: PassRates
    comm_fixed_ms: float
    comm_per_token_ms: float
    power: float
    weights_ms: float
    experts_bytes_ms: float
    experts_least_ms: float


def _context_floor(ctx: InferenceContext, eff: InferenceEfficiency) -> _ContextFloor:
    """_ContextFloor of a context, by position: shared_search answers it once per equal context (the same floats in
    the same order as _StepFloor.of worked them out)."""
    rates = pass_rates(ctx, eff)
    pp = ctx.pipeline_parallel
    # SGLang's data-parallel attention: a gather and a reduce-scatter of at least the pass's tokens (a decode
    # pass's padded tokens are never fewer; a pass with prompts pays two all-reduces): the least either way
    least = ctx.attention_dp > 1 and ctx.engine in GATHER_SCATTER_ENGINES
    comm_fixed = pp * (allreduce_ms(ctx, eff, 0.0, 0.0 if least else None) + stage_send_ms(ctx, 0.0))
    comm_per_token = (
        pp * (allreduce_ms(ctx, eff, 1.0 / pp, 1.0 / pp if least else None) + stage_send_ms(ctx, 1.0 / pp)) - comm_fixed
    )
    power = eff.overlap_power if eff.overlap_power >= 1.0 else math.inf
    weights_ms = pp * dense_weight_ms(ctx, rates)
    experts_bytes_ms = 0.0
    if ctx.expert_parallel <= 1:  # expert parallel reads its busiest group's experts: left out
        experts_bytes_ms = pp * ctx.expert_weight_bytes_per_gpu / rates.expert_bandwidth
    experts_least_ms = experts_bytes_ms * expert_coverage(ctx.experts_active_share, 0.0)
    return _ContextFloor(rates, comm_fixed, comm_per_token, power, weights_ms, experts_bytes_ms, experts_least_ms)


def _norm(memory_ms: float, compute_ms: float, power: float) -> float:
    """roofline_ms's soft roofline, (m^p + c^p)^(1/p); max(m, c) at p = inf."""
    if not math.isfinite(power):
        return max(memory_ms, compute_ms)
    return roofline_ms(memory_ms, compute_ms, power)


def _step_floor(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, output_len: float) -> _StepFloor:
    """_StepFloor.of, by position: shared_search answers it once per equal context and lengths, which a layout's
    ceilings (the TPOT target's, the TTFT limit's) and its floored search each read (found by speed24)."""
    return _StepFloor.of(ctx, eff, input_len, output_len)


def _batch_bound(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    input_len: float,
    output_len: float,
    cap: float,
    tpot_target_ms: float,
) -> tuple[_StepFloor, float]:
    """The step floor and _largest_batch at `cap` and `tpot_target_ms`, by position: shared_search answers it once per
    equal arguments. A layout's TTFT ceiling whose limit leaves the TPOT target as it is, and its floored search, read
    the very batch its TPOT ceiling found: each worked it out again, three times a layout that passes its ceilings (the
    R1 ranking's data-parallel attention layouts pass theirs since dpattn made them faster; found by speed24)."""
    floor = shared_search(_step_floor, ctx, eff, input_len, output_len)
    return floor, _largest_batch(floor, cap, tpot_target_ms)


def _largest_batch(floor: _StepFloor, cap: float, tpot_target_ms: float) -> float:
    """A whole batch at least the largest b <= cap whose floor meets the target (at least 1). Steps from the right:
    below a batch x the convex part is above its tangent at x and the concave part above its chord to the origin
    (concave_ms(b) / b never falls as b does), so the line through both meets the target at or above the answer."""
    batch = cap
    for _ in range(BATCH_STEPS):
        concave_ms = floor.concave_ms(batch)
        excess = floor.convex_ms(batch) + concave_ms - tpot_target_ms
        slope = floor.convex_slope(batch) + concave_ms / batch
        if excess <= 0 or slope <= 0:
            break
        step = excess / slope
        batch -= step
        if batch <= 1.0:
            return 1.0
        if step < 0.25:  # the next step moves it less than a quarter of a request: floored alike
            break
    return max(math.floor(batch * (1.0 + CEILING_ROUNDING_SLACK)), 1.0)
