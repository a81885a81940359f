"""Operating points: TTFT, TPOT and throughput of a running batch under each batching mode and load.

Static and continuous batching, closed loops (clients beyond the running batch wait for a slot) and open
loops (Poisson arrivals settle where completions meet the rate, or overload), the M/D/1 prefill queue,
and the largest batch under latency limits. `estimate` picks the batch; the validator calls these directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from app.scoring.efficiency.inference import (
    PREFILL_FIRST_ENGINES,
    PREFILL_FIRST_WAIT_STEPS,
    InferenceEfficiency,
)
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.steps import (
    StepParts,
    decode_parts,
    mixed_step_parts,
    prefill_latency_ms,
    prefill_parts,
)
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
class OperatingPoint:
    """Timing of a chosen batch: what the estimate and the validator both need."""

    batch: float
    ttft_ms: float
    tpot_ms: float
    tokens_per_s: float  # whole instance, output tokens
    step: StepParts
    prefill: StepParts
    queue_ms: float = 0.0  # closed loop beyond the running batch: wait for a free slot (in ttft_ms)
    waiting: float = 0.0  # requests queued for a slot (concurrency - running batch)
    backlog_per_s: float = 0.0  # open loop above capacity: requests added to the queue each second
    prefill_queue_ms: float = 0.0  # mean M/D/1 wait of a prompt for the prefills ahead of it (in ttft_ms)
    prefill_utilisation: float = 0.0  # that queue's rho: the share of each step its prompts take
    poisson_arrivals: bool = False  # open loops and MLPerf-style servers; a closed loop's arrivals are departures
    first_prefill_ms: float = 0.0  # a request's own prompt through every pipeline stage in turn (in ttft_ms)
    step_wait_ms: float = 0.0  # under continuous batching: the running steps a new request waits for (in ttft_ms)
    ttft_prompts: float = 1.0  # prompts whose prefill the first token waits for: static batching's whole batch

    @property
    def own_prefill_ms(self) -> float:
        """The prefill the first token waits for (its own prompt; static batching's whole batch): TTFT's waits apart."""
        return self.ttft_ms - self.prefill_queue_ms - self.step_wait_ms - self.queue_ms

    def ttft_p99_ms(self, p99_over_mean: float, prompt_p99_over_mean: float | None = None) -> float:
        """p99 TTFT: the mean x the fitted p99 / mean ratio (p99_ttft_over_mean). A question that gives its prompt
        spread (p99 prompt / mean, 1 = one length) has its own prefill scaled by that instead, its waits by the ratio:
        a lone request of one prompt length then has its mean as its p99."""
        if prompt_p99_over_mean is None:
            return self.ttft_ms * p99_over_mean
        return self.own_prefill_ms * prompt_p99_over_mean + (self.ttft_ms - self.own_prefill_ms) * p99_over_mean

    @property
    def ttft_median_ms(self) -> float:
        """Median TTFT. Under Poisson arrivals, the mean with the M/D/1 wait replaced by its median; the other
        parts are symmetric or fixed (the running step's residual is uniform, a slot wait the same for every
        queued request). A closed loop's arrivals are the departures of its own clients, which stagger rather
        than bunch: the model has no distribution for that wait, and gives the mean."""
        if not self.poisson_arrivals:
            return self.ttft_ms
        median_wait_ms = md1_median_wait_ms(self.prefill.total_ms, self.prefill_utilisation)
        return self.ttft_ms - self.prefill_queue_ms + median_wait_ms


def request_life_ms(first_token_ms: float, step_ms: float, output_len: float) -> float:
    """One request's life: its first token, then one decode step for each further output token."""
    return first_token_ms + max(output_len - 1, 0) * step_ms


def mean_context(workload: InferenceWorkload) -> float:
    return workload.input_len + workload.output_len / 2


MAX_UTILISATION = 0.95  # project assumption: keeps the M/D/1 wait finite when the offered prefill load reaches capacity
# The open-loop search: the least running batch it considers (a trickle of requests keeps far below one
# in flight) and the relative precision to which it finds the batch (a change of that size moves no shown digit).
MIN_RUNNING_BATCH = 1e-6
BATCH_RTOL = 1e-4


CONTINUOUS_SCENARIOS = ("latency_bound", "max_throughput", "concurrency", "request_rate")


def token_budget_cap(
    ctx: InferenceContext, input_len: float, output_len: float, beam_width: int = 1, budget: int | None = None
) -> int | None:
    """Largest running batch the engine's per-iteration token budget (`budget`, else its default) sustains (None:
    the engine schedules no such budget: SGLang, llama.cpp, HF).

    In the continuous-batching steady state each step carries every running sequence's decode tokens (beams x the
    tokens a speculative step verifies) and the prompts of the requests arriving meanwhile, batch x input x
    tokens advanced per step / output; pipeline stages each take one micro-batch of batch / stages."""
    default = ctx.default_token_budget
    if default is None:
        return None
    budget = budget or default
    t = ctx.techniques
    verified = t.spec_draft_tokens + 1 if t.speculative else 1
    per_sequence = beam_width * verified + input_len * t.uncached_share * t.tokens_per_step / max(output_len, 1.0)
    return max(int(budget * ctx.pipeline_parallel / per_sequence), 1)


def first_prefill_ms(ctx: InferenceContext, eff: InferenceEfficiency, input_len: float, one: StepParts) -> float:
    """A request's own prompt as its first token waits for it: `one` (prefill_parts of one prompt) without PP; with
    it, the stages in turn (prefill_latency_ms), where `one` stays the time a stage is busy with it."""
    return one.total_ms if ctx.pipeline_parallel == 1 else prefill_latency_ms(ctx, eff, 1, input_len)


def loaded_ttft_ms(
    prefill_ms: float,
    service_ms: float,
    step_ms: float,
    batch: float,
    prefill_share: float,
    eff: InferenceEfficiency,
    engine: str = "",
) -> float:
    """TTFT under continuous batching: own prefill + waiting for running steps + M/D/1 prefill queue.

    `prefill_ms` is the request's own prompt as its first token waits for it (through every pipeline stage in
    turn), `service_ms` the time a prompt holds the prefill server (the same without PP; one stage's share with it).

    A new request waits for the iteration in flight (mean residual half a step) and its prefill then
    runs inside an iteration that also decodes the batch (`ttft_wait_steps` ~ 1.5 steps in all); an engine that
    prefills waiting prompts in a batch of their own (SGLang: PREFILL_FIRST_ENGINES) leaves only the residual.
    The prefill queue's utilisation rho is the share of each mixed step spent on the other requests'
    prefills (`prefill_share`, from the step with and without them): in iteration-level batching a queued
    prompt shares the weight read with the decode batch, so a memory-bound stand-alone prefill (MoE, short
    prompts) does not occupy the GPU for its whole stand-alone time. The M/D/1 queue then adds
    rho / (2(1 - rho)) x the stand-alone prefill (research §7.2 item 2).
    """
    return prefill_ms + md1_wait_ms(service_ms, prefill_share) + running_steps_wait_ms(step_ms, batch, eff, engine)


def running_steps_wait_ms(step_ms: float, batch: float, eff: InferenceEfficiency, engine: str = "") -> float:
    """The running steps a new request waits for (wait_steps of them), where `batch` other requests run; a request
    alone (closed loop of one) finds none, a trickle of them a share."""
    busy = min(batch, 1.0)
    return wait_steps(engine, eff) * step_ms * busy


def wait_steps(engine: str, eff: InferenceEfficiency) -> float:
    """Decode steps a new request waits for under load: the residual of the step in flight, plus the step that
    carries its prompt where the engine mixes prompts into decode steps (ttft_wait_steps)."""
    return PREFILL_FIRST_WAIT_STEPS if engine in PREFILL_FIRST_ENGINES else eff.ttft_wait_steps


def md1_wait_ms(service_ms: float, rho: float) -> float:
    """Mean M/D/1 queueing delay: rho / (2(1 - rho)) x service, rho held in [0, MAX_UTILISATION]."""
    rho = min(max(rho, 0.0), MAX_UTILISATION)
    return service_ms * rho / (2.0 * (1.0 - rho))


def md1_wait_cdf(wait_services: float, rho: float) -> float:
    """P(W <= t) in the M/D/1 queue, t in service times (Erlang 1909; Crommelin 1932):
    (1 - rho) x sum over k = 0..floor(t) of (rho (k - t))^k / k! x e^(-rho (k - t)). Exact; the alternating
    sum stays well conditioned for the waits of rho <= MAX_UTILISATION (a few tens of service times)."""
    total = 0.0
    for k in range(int(math.floor(wait_services)) + 1):
        x = rho * (k - wait_services)
        total += x**k / math.factorial(k) * math.exp(-x)
    return (1.0 - rho) * total


def md1_median_wait_ms(service_ms: float, rho: float) -> float:
    """Median M/D/1 queueing delay. A Poisson arrival finds the queue busy with probability rho (PASTA), so
    while rho <= 0.5 at least half the requests wait not at all; beyond, the exact waiting-time distribution
    is solved for its median by bisection (below the mean: the wait is skewed right)."""
    rho = min(max(rho, 0.0), MAX_UTILISATION)
    if rho <= 0.5 or service_ms <= 0:
        return 0.0
    low, high = 0.0, rho / (2.0 * (1.0 - rho))  # the mean wait, in service times: P(W <= mean) > 1/2
    for _ in range(4):  # a guard: never needed for M/D/1, whose P(W <= mean) is ~0.63
        if md1_wait_cdf(high, rho) >= 0.5:
            break
        high *= 2.0
    for _ in range(40):
        mid = (low + high) / 2.0
        low, high = (mid, high) if md1_wait_cdf(mid, rho) < 0.5 else (low, mid)
    return high * service_ms


def prefill_share_of_step(mixed: StepParts, decode_only: StepParts) -> float:
    """Share of a mixed step's time spent on the prefills it carries."""
    return max(mixed.total_ms - decode_only.total_ms, 0.0) / max(mixed.total_ms, 1e-9)


def prefill_utilisation(
    mixed: StepParts, decode_only: StepParts, batch: float, service_ms: float, first_ms: float, output_len: float
) -> float:
    """The M/D/1 prefill queue's utilisation: the share of each mixed step its prompts take, at most the share of
    time the arrivals' stand-alone prefills would take (batch x service / a request's life, Little's law). A prompt
    riding in decode steps shares their weight read, so it holds the GPUs no longer than alone; the step average
    can claim more where spreading a prompt over every step reads more weights than one pass (a MoE model's
    experts: 5 prompt tokens a step touch experts the 2,000 of one pass read once), which is not queueing."""
    alone = batch * service_ms / max(request_life_ms(first_ms, decode_only.total_ms, output_len), 1e-9)
    return min(prefill_share_of_step(mixed, decode_only), alone)


def operating_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    scenario: str,
    batch: float,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
    prefill_one: StepParts | None = None,
    first_ms: float | None = None,
) -> OperatingPoint:
    """TTFT, TPOT and instance output tok/s at `batch` requests under the scenario's batching mode.

    `prefill_one` (one request's prefill, the M/D/1 queue's service) and `first_ms` (its latency through the
    pipeline stages) do not depend on the batch: searches pass them in once."""
    prefill_one = prefill_one or prefill_parts(ctx, eff, 1, input_len)
    first_ms = first_ms if first_ms is not None else first_prefill_ms(ctx, eff, input_len, prefill_one)
    if scenario == "fixed_batch":  # static batching: the whole batch prefills, then decodes together
        prefill = prefill_parts(ctx, eff, batch, input_len)
        step = decode_parts(ctx, eff, batch * beam_width, input_len + output_len / 2)
        first_token_ms = prefill.total_ms
        if ctx.pipeline_parallel > 1:  # the batch's micro-batches fill the pipeline before its last prompt is done
            first_token_ms = prefill_latency_ms(ctx, eff, batch, input_len)
        total_ms = request_life_ms(first_token_ms, step.total_ms, output_len)
        tokens_per_s = batch * output_len / total_ms * 1e3
        return OperatingPoint(
            batch,
            first_token_ms,
            step.total_ms,
            tokens_per_s,
            step,
            prefill,
            first_prefill_ms=first_ms,
            ttft_prompts=batch,
        )
    if scenario == "single_stream":
        step = decode_parts(ctx, eff, beam_width, input_len + output_len / 2)
        total_ms = request_life_ms(first_ms, step.total_ms, output_len)
        tokens_per_s = output_len / total_ms * 1e3
        return OperatingPoint(1, first_ms, step.total_ms, tokens_per_s, step, prefill_one, first_prefill_ms=first_ms)
    step = mixed_step_parts(ctx, eff, batch, input_len, output_len, beam_width, others_only=scenario == "concurrency")
    others = max(batch - 1.0, 0.0) if scenario == "concurrency" else batch  # a request does not wait for itself
    decode_only = decode_parts(ctx, eff, batch * beam_width, input_len + output_len / 2)
    share = prefill_utilisation(step, decode_only, batch, prefill_one.total_ms, first_ms, output_len)
    ttft = loaded_ttft_ms(first_ms, prefill_one.total_ms, step.total_ms, others, share, eff, ctx.engine)
    if scenario == "concurrency":  # closed loop: Little's law over one request's life
        tokens_per_s = batch * output_len / request_life_ms(ttft, step.total_ms, output_len) * 1e3
    else:
        tokens_per_s = batch / step.total_ms * 1e3
    return OperatingPoint(
        batch,
        ttft,
        step.total_ms,
        tokens_per_s,
        step,
        prefill_one,
        prefill_queue_ms=md1_wait_ms(prefill_one.total_ms, share),
        prefill_utilisation=min(share, MAX_UTILISATION),
        poisson_arrivals=scenario == "latency_bound",  # MLPerf server: Poisson queries under latency limits
        first_prefill_ms=first_ms,
        step_wait_ms=running_steps_wait_ms(step.total_ms, others, eff, ctx.engine),
    )


def open_loop_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    requests_per_s: float,
    running_cap: int,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
) -> OperatingPoint:
    """Open loop (Poisson arrivals at `requests_per_s`): the running batch settles where the engine
    completes requests as fast as they arrive, B / life(B) = rate (Little's law); B rises with the rate.

    Above the capacity at the running cap the engine is overloaded: it runs the cap, and the queue grows
    by rate - capacity requests every second (`backlog_per_s`), so TTFT grows with the time under load.
    """
    rate_per_ms = requests_per_s / 1e3
    prefill_one = prefill_parts(ctx, eff, 1, input_len)
    first_ms = first_prefill_ms(ctx, eff, input_len, prefill_one)

    seen: dict[float, tuple[OperatingPoint, float]] = {}

    def at(batch: float) -> tuple[OperatingPoint, float]:
        if batch not in seen:
            point = operating_point(
                ctx, eff, "concurrency", batch, input_len, output_len, beam_width, prefill_one, first_ms
            )
            seen[batch] = point, batch / request_life_ms(point.ttft_ms, point.tpot_ms, output_len)
        return seen[batch]

    cap = float(max(running_cap, 1))
    full, capacity = at(cap)
    if rate_per_ms >= capacity:
        return replace(full, backlog_per_s=(rate_per_ms - capacity) * 1e3, poisson_arrivals=True)
    # The running batch B solves B = rate x life(B), and life only grows with the batch, so B is at least
    # rate x life(MIN_RUNNING_BATCH) (a trickle of requests): from there up to the cap, find it to BATCH_RTOL.
    trickle_ms = MIN_RUNNING_BATCH / at(MIN_RUNNING_BATCH)[1]
    low = min(max(rate_per_ms * trickle_ms, MIN_RUNNING_BATCH), cap)
    high = _log_root(lambda batch: math.log(at(batch)[1] / rate_per_ms), low, cap, BATCH_RTOL)
    point, _ = at(high)
    return replace(point, tokens_per_s=requests_per_s * output_len, poisson_arrivals=True)


def illinois(
    f: Callable[[float], float],
    low: tuple[float, float],
    high: tuple[float, float],
    width: float,
    probe_at: Callable[[float, float, float], float],
    keeps_low: Callable[[float], bool],
) -> tuple[float, float]:
    """Narrow a bracket (x, f(x)) of an increasing `f` to `width` by regula falsi, Illinois variant: the end kept
    twice running has its f halved, so both ends close in. `probe_at(low, step, high)` places the probe from the
    false-position step off `low` (inside the bracket); `keeps_low(f(probe))`: the probe replaces the lower end.
    Each probe keeps the bracket exact: on integers (width 1) the result equals a plain bisection's, on reals it is
    as tight. Returns the final (low, high)."""
    (x_low, f_low), (x_high, f_high) = low, high
    side = 0  # which end was kept last time
    while x_high - x_low > width:
        span = f_high - f_low
        step = -f_low / span * (x_high - x_low) if span > 0 else (x_high - x_low) / 2
        x = probe_at(x_low, step, x_high)
        fx = f(x)
        if keeps_low(fx):
            x_low, f_low = x, fx
            f_high = f_high / 2 if side == 1 else f_high
            side = 1
        else:
            x_high, f_high = x, fx
            f_low = f_low / 2 if side == -1 else f_low
            side = -1
    return x_low, x_high


def _log_root(gap: Callable[[float], float], low: float, high: float, rtol: float) -> float:
    """The least x in [low, high] known to within `rtol` (relative) with gap(x) >= 0, for an increasing `gap` with
    gap(high) >= 0. Regula falsi in log x: completions per ms against the running batch are nearly a power law,
    so their log is nearly linear in log x and a handful of evaluations close the bracket where a geometric
    bisection from MIN_RUNNING_BATCH to the cap takes ~18. A probe is kept at least half the tolerance inside the
    bracket, so the bracket always shrinks."""
    g_low, g_high = gap(low), gap(high)
    if g_low >= 0:
        return low
    width = math.log1p(rtol)

    def probe_at(u_low: float, step: float, u_high: float) -> float:
        return min(max(u_low + step, u_low + width / 2), u_high - width / 2)

    _, u_high = illinois(
        lambda u: gap(math.exp(u)), (math.log(low), g_low), (math.log(high), g_high), width, probe_at, lambda g: g < 0
    )
    return math.exp(u_high)


def closed_loop_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    concurrency: float,
    running_cap: int,
    input_len: float,
    output_len: float,
    beam_width: int = 1,
) -> OperatingPoint:
    """Closed loop with `concurrency` clients: the engine runs at most `running_cap` sequences (KV memory,
    engine batch cap); the rest wait for a slot. By Little's law a saturated engine completes
    B / life requests per ms, so a waiting request queues (C - B) x life / B ms before its prefill
    (NVIDIA NIM 70B 2xH100: TTFT 0.8 s at C=50 jumps to 8-89 s at C=100-250 while throughput stays flat)."""
    running = max(min(concurrency, float(running_cap)), 1.0)
    point = operating_point(ctx, eff, "concurrency", running, input_len, output_len, beam_width)
    waiting = max(concurrency - running, 0.0)
    if waiting <= 0:
        return point
    life_ms = request_life_ms(point.ttft_ms, point.tpot_ms, output_len)
    queue_ms = waiting * life_ms / running
    return replace(point, ttft_ms=point.ttft_ms + queue_ms, queue_ms=queue_ms, waiting=waiting)


def latency_bound_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    cap: int,
    workload_like: tuple[float, float, float, float],
    beam_width: int = 1,
    prompt_p99_over_mean: float | None = None,
) -> tuple[int, OperatingPoint | None]:
    """The latency-bound batch and its operating point. When even one request misses a limit the batch is 0
    and the point is batch 1's, the one that missed (None when no request fits at all).

    The slack max(TPOT / target, TTFT / limit) - 1 never falls as the batch grows, so the answer is the
    last batch with slack <= 0. Regula falsi (Illinois variant) on that slack brackets it in a handful
    of evaluations; each probe keeps the bracket exact, so the result equals a plain bisection's.
    """
    input_len, output_len, ttft_limit, tpot_limit = workload_like
    tpot_target = eff.slo_tpot_utilisation * tpot_limit
    prefill_one = prefill_parts(ctx, eff, 1, input_len)
    first_ms = first_prefill_ms(ctx, eff, input_len, prefill_one)
    seen: dict[int, OperatingPoint] = {}

    def slack(b: int) -> float:
        p = seen[b] = operating_point(
            ctx, eff, "latency_bound", b, input_len, output_len, beam_width, prefill_one, first_ms
        )
        return (
            max(p.tpot_ms / tpot_target, p.ttft_p99_ms(eff.p99_ttft_over_mean, prompt_p99_over_mean) / ttft_limit) - 1.0
        )

    if cap < 1:
        return 0, None
    low, s_low = 1, slack(1)
    if s_low > 0:
        return 0, seen[1]
    high, s_high = cap, slack(cap)
    if s_high <= 0:
        return cap, seen[cap]
    last, _ = illinois(
        lambda b: slack(int(b)),
        (low, s_low),
        (high, s_high),
        1,
        lambda lo, step, hi: min(max(lo + int(step), lo + 1), hi - 1),
        lambda s: s <= 0,
    )
    return int(last), seen[int(last)]
