"""Where a load settles: the operating point of an open loop, a closed loop and the latency-bound batch.

An open loop (Poisson arrivals at a rate) runs the batch at which completions meet the rate, or overloads at the
running cap; a closed loop runs its clients up to the cap and queues the rest for a slot; the latency-bound batch is
the largest that meets the TTFT and TPOT limits. The searches (regula falsi, Illinois variant: `illinois`) call
operating_point at the batches they probe.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.batching.operating_points import OperatingPoint, first_prefill_ms, operating_point
from app.scoring.inference.batching.queueing import request_life_ms
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.records import replaced

# The open-loop search: the least running batch it considers (a trickle of requests keeps far below one
# in flight) and the relative precision to which it finds the batch (a change of that size moves no shown digit).
MIN_RUNNING_BATCH = 1e-6
BATCH_RTOL = 1e-4


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
        return replaced(full, backlog_per_s=(rate_per_ms - capacity) * 1e3, poisson_arrivals=True)
    # The running batch B solves B = rate x life(B), and life only grows with the batch, so B is at least
    # rate x life(MIN_RUNNING_BATCH) (a trickle of requests): from there up to the cap, find it to BATCH_RTOL.
    trickle_ms = MIN_RUNNING_BATCH / at(MIN_RUNNING_BATCH)[1]
    low = min(max(rate_per_ms * trickle_ms, MIN_RUNNING_BATCH), cap)
    high = _log_root(lambda batch: math.log(at(batch)[1] / rate_per_ms), low, cap, BATCH_RTOL)
    point, _ = at(high)
    return replaced(point, tokens_per_s=requests_per_s * output_len, poisson_arrivals=True)


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
    _, u_high = illinois(
        lambda u: gap(math.exp(u)),
        (math.log(low), g_low),
        (math.log(high), g_high),
        width,
        _log_probe(width),
        lambda g: g < 0,
    )
    return math.exp(u_high)


def _log_probe(width: float) -> Callable[[float, float, float], float]:
    """An Illinois probe in log x, kept at least half the bracket's target width inside it, so it always shrinks."""

    def probe_at(u_low: float, step: float, u_high: float) -> float:
        return min(max(u_low + step, u_low + width / 2), u_high - width / 2)

    return probe_at


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
    return replaced(point, ttft_ms=point.ttft_ms + queue_ms, queue_ms=queue_ms, waiting=waiting)


class LatencySlack:
    """max(mean TPOT / target, p99 TTFT / limit) - 1 of the latency-bound operating point at a batch: <= 0 where it
    meets the limits (the TPOT target is slo_tpot_utilisation of its limit), never falling as the batch grows. The
    points probed are kept in `seen`, by batch."""

    def __init__(
        self,
        ctx: InferenceContext,
        eff: InferenceEfficiency,
        workload_like: tuple[float, float, float, float],
        beam_width: int = 1,
        prompt_p99_over_mean: float | None = None,
    ) -> None:
        self.ctx, self.eff, self.beam_width, self.prompt_p99_over_mean = ctx, eff, beam_width, prompt_p99_over_mean
        self.input_len, self.output_len, self.ttft_limit, tpot_limit = workload_like
        self.tpot_target = eff.slo_tpot_utilisation * tpot_limit
        self.prefill_one = prefill_parts(ctx, eff, 1, self.input_len)
        self.first_ms = first_prefill_ms(ctx, eff, self.input_len, self.prefill_one)
        self.seen: dict[float, OperatingPoint] = {}

    def __call__(self, batch: float) -> float:
        p = self.seen[batch] = operating_point(
            self.ctx,
            self.eff,
            "latency_bound",
            batch,
            self.input_len,
            self.output_len,
            self.beam_width,
            self.prefill_one,
            self.first_ms,
        )
        ttft_p99_ms = p.ttft_p99_ms(self.eff.p99_ttft_over_mean, self.prompt_p99_over_mean)
        return max(p.tpot_ms / self.tpot_target, ttft_p99_ms / self.ttft_limit) - 1.0


def latency_bound_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    cap: int,
    workload_like: tuple[float, float, float, float],
    beam_width: int = 1,
    prompt_p99_over_mean: float | None = None,
    misses_from: int | None = None,
) -> tuple[int, OperatingPoint | None]:
    """The latency-bound batch and its operating point. When even one request misses a limit the batch is 0
    and the point is batch 1's, the one that missed (None when no request fits at all).

    The slack max(TPOT / target, TTFT / limit) - 1 rises with the batch, but not strictly everywhere: on
    the real catalog 29 of 526 curves dip a little (at most 0.0096, around batch 20-27; speed8's sweep),
    and none of those dips crosses zero. The search needs only that the slack's sign changes once, from
    <= 0 to > 0: the answer is the batch b with slack(b) <= 0 < slack(b + 1). Regula falsi (Illinois
    variant) keeps a bracket with slack <= 0 at its low end and > 0 at its high end and closes it to
    adjacent batches in a handful of evaluations; a dip moves where its probes land, never which b it
    returns, so the result equals a plain bisection's. A curve whose slack crossed zero more than once
    would get one of its crossings, not necessarily the last.

    `misses_from`: a batch below the cap proven to miss the limits (throughput_ceiling.floored_latency_search: its
    step floor is above the TPOT target), where the bracket's high end starts instead of at the cap, so the search
    closes it in fewer probes; a batch there that meets them after all (no bound) is passed over for the cap.
    """
    slack = LatencySlack(ctx, eff, workload_like, beam_width, prompt_p99_over_mean)
    seen = slack.seen
    if cap < 1:
        return 0, None
    low, s_low = 1, slack(1)
    if s_low > 0:
        return 0, seen[1]
    high, s_high = cap, 0.0
    if misses_from is not None and low < misses_from < cap:
        high, s_high = misses_from, slack(misses_from)
        if s_high <= 0:  # not a bound after all: the cap's bracket, as without one
            high = cap
    if high == cap:
        s_high = slack(cap)
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


def light_load_point(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    workload_like: tuple[float, float, float, float],
    beam_width: int = 1,
    prompt_p99_over_mean: float | None = None,
) -> OperatingPoint | None:
    """Below one request in flight: where latency_bound's batch 1 misses the limits, the largest mean running batch
    B < 1 that meets them, as latency_bound_point checks them (None when even a trickle of requests misses).

    latency_bound's operating point at a real batch B is a Poisson load that keeps B requests in flight on average:
    an arrival finds the running step busy with probability min(B, 1) and queues behind the prompts ahead of it,
    and as B falls to zero a request meets only its own prefill and decode. The slack never falls as B grows: regula
    falsi in log B (as _log_root) brackets the last B with slack <= 0 in [MIN_RUNNING_BATCH, 1] to BATCH_RTOL. The
    point serves B / step sequences' tokens a second, the throughput of a replica kept at that load."""
    slack = LatencySlack(ctx, eff, workload_like, beam_width, prompt_p99_over_mean)
    seen = slack.seen
    s_low, s_high = slack(MIN_RUNNING_BATCH), slack(1.0)
    if s_low > 0:
        return None
    if s_high <= 0:  # batch 1 meets the limits: latency_bound_point has its answer
        return seen[1.0]
    width = math.log1p(BATCH_RTOL)
    u_low, _ = illinois(
        lambda u: slack(math.exp(u)),
        (math.log(MIN_RUNNING_BATCH), s_low),
        (0.0, s_high),
        width,
        _log_probe(width),
        lambda s: s <= 0,
    )
    best = math.exp(u_low)
    return seen[best] if best in seen else seen[MIN_RUNNING_BATCH]
