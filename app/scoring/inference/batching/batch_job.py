"""A batch job: N requests submitted at once to one replica running at its max-throughput operating point.

The steady state times a step at the running batch B with its share of prompt tokens (the mixed step), so
N x output_len / tokens_per_s pays for every request's prompt and every decode step at batch B. A finite job differs
at its end: once the queue is empty the running batch empties as its requests finish, and the last request admitted
still needs all of its decode steps. In the fluid picture (lengths vary, so when the queue empties the running
requests' remaining steps are spread evenly over one life), the steady state counted those remaining steps at half
a life of batch-B steps, while the drain runs a life of steps whose batch shrinks evenly from B to 0, each timed at
its own batch. Decode steps shrink with the batch but not in proportion (the weights are read whatever the batch),
so the drain adds output_len x (mean drain step - batch-B step / 2); for a step a + c x batch that is half a life of
the fixed part a. A job of at most B requests runs them as one batch (the steady state at that batch: its prompts,
then its decode steps; no drain); from B to 2B requests the drain grows linearly to its full size (the second
batch's worth fills the slots the first frees), so the job's length is continuous in N.

An engine that batches statically (HF generate) runs the job in waves instead: each wave of B prompts is prefilled,
then decoded to its end, and the last wave holds what is left (the fixed-batch operating point at each size).

With a deadline the job is split evenly over the fewest replicas that finish it in time: each runs the busiest
share, ceil(N / replicas) requests, as a job of its own (a share smaller than the batch runs as one batch of its
size). A share's time never grows with the replicas, so the fewest is found by a search from below at the job's
time / the deadline (splitting never speeds a job up more than in proportion), in doubling strides and then by
bisection, with MAX_JOB_REPLICAS above.

Lengths are the workload's means, as everywhere in the estimate; a long tail of output lengths drains for longer
(the longest request sets the end), which this does not see.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from app.scoring.efficiency.inference import STATIC_BATCH_ENGINES, InferenceEfficiency
from app.scoring.explain import Term, duration_text, figure, significant
from app.scoring.inference.batching.operating_points import OperatingPoint, operating_point
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.steps import decode_parts
from app.scoring.pricing.price_terms import STARTUP_HOURS, hours_after_startup
from app.scoring.training.run.limit_words import days_text, deadline_text, past_deadline_text

# Midpoints at which the drain's decode step is timed as the batch empties (its mean over the drain; the step is
# smooth in the batch: 8 midpoints are within 1% of 64 on Llama 3.1 8B and DeepSeek-R1, a 1-6 s term).
DRAIN_POINTS = 8
# The most replicas of one configuration a deadline may ask for: the search's bound. No catalog states how many
# machines a provider has free, so a plan of thousands of replicas is not one a buyer can act on from a price list.
MAX_JOB_REPLICAS = 4096


@dataclass(frozen=True, slots=True)
class JobTime:
    """How long a batch job takes on one replica, in two parts that add."""

    requests: int
    running: int  # requests decoding together
    steady_s: float  # N x output_len / tokens_per_s
    drain_s: float  # the drain beyond steady packing (0 for a job of at most one batch)
    output_len: float
    waves: int = 0  # static batching: the batches run one after another (steady_s is their total)

    @property
    def seconds(self) -> float:
        return self.steady_s + self.drain_s

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def output_tokens_per_s(self) -> float:
        """Output tokens per second over the whole job (whole replica)."""
        return self.requests * self.output_len / self.seconds


@dataclass(frozen=True, slots=True)
class JobPlan:
    """A batch job over `replicas` replicas of one configuration, each running at most `time.requests` requests."""

    requests: int  # the whole job
    replicas: int
    batch: int  # requests decoding together on each replica
    point: OperatingPoint  # the steady state at that batch
    time: JobTime  # the busiest replica's share

    @property
    def hours(self) -> float:
        return self.time.hours

    @property
    def output_tokens_per_s(self) -> float:
        """Output tokens per second per replica over the job (what $ per token divides by)."""
        return self.requests * self.time.output_len / (self.replicas * self.time.seconds)

    def term(self) -> Term:
        t = self.time
        value, unit = (t.hours, "h") if t.hours >= 1 else (t.seconds / 60, "min")
        if t.waves:
            drain = f" in {t.waves:,} waves of up to {t.running:,} (static batching: each wave prefills, then decodes)"
        elif t.drain_s > 0:
            drain = f"; then the last {t.running:,} running requests drain, +{duration_text(t.drain_s)}"
        else:
            drain = f"; one batch of {t.requests:,}, no drain"
        where = (
            f"on each of {self.replicas:,} replicas ({self.requests:,} requests split evenly)"
            if self.replicas > 1
            else "on one replica (k replicas: about 1/k of the time, the same cost)"
        )
        per = "3,600 s/h" if unit == "h" else "60 s/min"
        drained = f" + {figure(t.drain_s)} s drain / {per}" if t.drain_s > 0 and not t.waves else ""
        return Term(
            "batch job",
            value,
            unit,
            f"{t.requests:,} requests × {significant(t.output_len)} output tokens / "
            f"{figure(self.point.tokens_per_s)} tokens/s / {per}{drained}; {duration_text(t.steady_s)} at the "
            f"batch's output tokens/s{drain}; {duration_text(t.seconds)} {where}",
        )


def drain_step_ms(ctx: InferenceContext, eff: InferenceEfficiency, running: int, context: float, beams: int) -> float:
    """The mean decode step while `running` sequences finish evenly: each step timed at its own batch."""
    total = 0.0
    for k in range(DRAIN_POINTS):
        batch = running * (k + 0.5) / DRAIN_POINTS
        total += decode_parts(ctx, eff, batch * beams, context).total_ms
    return total / DRAIN_POINTS


def full_drain_s(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    running: int,
    input_len: float,
    output_len: float,
    beams: int = 1,
    point: OperatingPoint | None = None,
) -> float:
    """The drain of a job of at least two batches: output_len decode steps x (mean drain step - batch step / 2).
    The batch step is `point`'s decode-only step where it keeps one at batch `running` (operating_point times it as
    decode_parts(running x beams, the mean context), the very call made here otherwise), else timed here."""
    steps = output_len / ctx.techniques.tokens_per_step
    context = input_len + output_len / 2
    kept = point.decode_only if point is not None and point.batch == running else None
    full_ms = (kept or decode_parts(ctx, eff, running * beams, context)).total_ms
    return steps * max(drain_step_ms(ctx, eff, running, context, beams) - full_ms / 2, 0.0) / 1e3


def job_time(requests: int, running: int, tokens_per_s: float, output_len: float, drain_s: float) -> JobTime:
    """A job of `requests` requests at `running` requests decoding together and `tokens_per_s` (the steady state at
    that batch), `drain_s` the full drain at that batch (full_drain_s). See the module's docstring."""
    ramp = min(1.0, max(requests - running, 0) / running)
    return JobTime(requests, running, requests * output_len / tokens_per_s, ramp * drain_s, output_len)


def job_share(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    requests: int,
    replicas: int,
    point: OperatingPoint,
    lengths: tuple[float, float, int],
    drain_s: Callable[[], float] | None = None,
) -> JobPlan:
    """The job split evenly over `replicas`, each running the busiest share at `point`'s batch, or as one batch of
    its own size where the share is smaller. `drain_s`: the full drain at the batch (full_drain_s), where a caller
    times it once for several splits."""
    input_len, output_len, beams = lengths
    batch = round(point.batch)
    if ctx.engine in STATIC_BATCH_ENGINES:
        return _waves(ctx, eff, requests, replicas, batch, lengths)
    n = math.ceil(requests / replicas)
    if n <= batch:  # one batch of its own size
        # the same prompt at every batch: the point's own prefill and its latency serve each share's
        p = point
        if n != batch:
            p = operating_point(
                ctx, eff, "max_throughput", n, input_len, output_len, beams, point.prefill, point.first_prefill_ms
            )
        return JobPlan(requests, replicas, n, p, job_time(n, n, p.tokens_per_s, output_len, 0.0))
    drain = drain_s() if drain_s else full_drain_s(ctx, eff, batch, input_len, output_len, beams, point)
    return JobPlan(requests, replicas, batch, point, job_time(n, batch, point.tokens_per_s, output_len, drain))


def _waves(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    requests: int,
    replicas: int,
    batch: int,
    lengths: tuple[float, float, int],
) -> JobPlan:
    """Static batching: the share in waves of `batch` prompts, each prefilled then decoded to its end."""
    input_len, output_len, beams = lengths
    n = math.ceil(requests / replicas)
    size = min(batch, n)
    count = math.ceil(n / size)
    full = operating_point(ctx, eff, "fixed_batch", size, input_len, output_len, beams)
    left = n - (count - 1) * size
    last = full if left == size else operating_point(ctx, eff, "fixed_batch", left, input_len, output_len, beams)
    seconds = ((count - 1) * size / full.tokens_per_s + left / last.tokens_per_s) * output_len
    return JobPlan(requests, replicas, size, full, JobTime(n, size, seconds, 0.0, output_len, count))


def plan_job(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    requests: int,
    point: OperatingPoint,
    lengths: tuple[float, float, int],
    deadline_hours: float | None = None,
) -> JobPlan | str:
    """The job on the fewest replicas that finish it within `deadline_hours` (one without a deadline) after their
    start-up (price_terms.STARTUP_HOURS, as a training run's), each at `point`'s batch or its share if smaller; a
    reason where no number of replicas does."""
    input_len, output_len, beams = lengths
    drain: list[float] = []  # the full drain at the batch, timed once (a share under the batch has none)

    def drain_s() -> float:
        if not drain:
            drain.append(full_drain_s(ctx, eff, round(point.batch), input_len, output_len, beams, point))
        return drain[0]

    def share(replicas: int) -> JobPlan:
        return job_share(ctx, eff, requests, replicas, point, lengths, drain_s)

    plan = share(1)
    if deadline_hours is None:
        return plan
    # in a training run's words (limit_words), which tell a finish from a deadline at any scale
    deadline_days, startup = deadline_hours / 24, days_text(STARTUP_HOURS / 24)
    work_hours = hours_after_startup(deadline_hours)  # the job's requests start after the machine's start-up
    if work_hours <= 0:
        return f"the {startup} start-up alone fills the job's {deadline_text(deadline_days)}: a later deadline"
    if plan.hours <= work_hours:
        return plan
    deadline_hours = work_hours
    most = min(requests, MAX_JOB_REPLICAS)
    fastest = share(most)
    if fastest.hours > deadline_hours:
        alone = "one request alone" if most == requests else f"{MAX_JOB_REPLICAS:,} replicas"
        finish = past_deadline_text((STARTUP_HOURS + fastest.hours) / 24, deadline_days)
        return (
            f"{alone} would finish in {finish} ({startup} start-up + {days_text(fastest.hours / 24)} of job), after "
            f"the job's {deadline_text(deadline_days, finish)}"
        )
    # a share's time never grows with the replicas; low misses the deadline, high meets it. The answer sits just
    # above the job's time / the deadline: step up from there by doubling strides, then bisect the last stride
    low, high = max(1, math.ceil(plan.replicas * plan.hours / deadline_hours) - 1), fastest
    stride = 1
    while low + stride < high.replicas:
        probe = share(low + stride)
        if probe.hours <= deadline_hours:
            high = probe
            break
        low, stride = probe.replicas, stride * 2
    while high.replicas - low > 1:
        middle = share((low + high.replicas) // 2)
        if middle.hours <= deadline_hours:
            high = middle
        else:
            low = middle.replicas
    return high
