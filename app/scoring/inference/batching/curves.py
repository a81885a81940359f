"""A configuration's operating curve: its timing as the running batch grows, by the function its answer came from.

The charts sweep the batch; the ranking solves for one. Both call operating_point with the solution's own context,
efficiency and batching scenario (and, for a batch job, job_share with its replicas), so the chosen point is one of
the curve's points, not a neighbour computed another way.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.explain import fixed, percent, significant
from app.scoring.inference.bands.limits import LIMITS_APPLIED, LIMITS_RANKED
from app.scoring.inference.batching.batch_job import job_share
from app.scoring.inference.batching.operating_points import OperatingPoint, operating_point
from app.scoring.inference.batching.running_batch import batching_scenario, running_cap
from app.scoring.inference.estimates.results import Solution
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
class CurvePoint:
    batch: float  # running sequences (an open loop settles at a fractional mean)
    output_tokens_per_s: float  # whole replica; a batch job's over the job, as its answer counts them
    tpot_ms: float  # mean
    meets_ttft: bool = True  # its p99 TTFT within the TTFT limit, where the scenario holds or ranks by the limits


@dataclass(frozen=True, slots=True)
class TpotLine:
    """The mean TPOT a scenario holds the answer to, and what it is in words."""

    tpot_ms: float
    name: str


def sweep_batches(max_batch: int, chosen: float) -> list[float]:
    """1, 2, 4, … up to the largest batch that fits, that batch, and the chosen one."""
    batches, b = {float(max(1, max_batch)), chosen}, 1
    while b < max_batch:
        batches.add(float(b))
        b *= 2
    return sorted(batches)


def operating_curve(solved: Solution) -> list[CurvePoint]:
    """The solution's timing at each swept batch, chosen batch included (its point is the answer's)."""
    w = solved.workload
    if w.scenario == "single_stream":  # one request at a time: there is no batch to grow
        return [_curve_point(solved, solved.point.batch)]
    largest = min(solved.max_batch, running_cap(solved.ctx, w))
    return [_curve_point(solved, batch) for batch in sweep_batches(largest, solved.point.batch)]


def _curve_point(solved: Solution, batch: float) -> CurvePoint:
    w = solved.workload
    if batch == solved.point.batch:
        point = solved.point
    else:
        scenario = batching_scenario(w)
        point = operating_point(solved.ctx, solved.efficiency, scenario, batch, w.input_len, w.output_len, w.beam_width)
    tokens_per_s = point.tokens_per_s
    if solved.job is not None:  # the job at this batch, split over the answer's replicas
        lengths = (w.input_len, w.output_len, w.beam_width)
        plan = job_share(solved.ctx, solved.efficiency, solved.job.requests, solved.job.replicas, point, lengths)
        tokens_per_s, point = plan.output_tokens_per_s, plan.point
    return CurvePoint(batch, tokens_per_s, point.tpot_ms, _meets_ttft(solved, point))


def _meets_ttft(solved: Solution, point: OperatingPoint) -> bool:
    """Whether the point's p99 TTFT is within the TTFT limit, as the answer is checked (on the estimate); always,
    where the scenario neither holds nor ranks by the limits (a batch job, a fixed batch, max throughput)."""
    w = solved.workload
    if w.scenario not in LIMITS_APPLIED + LIMITS_RANKED:
        return True
    p99_ms = point.ttft_p99_ms(solved.efficiency.p99_ttft_over_mean, w.prompt_p99_over_mean)
    return p99_ms <= w.ttft_ms * (1 + 1e-9)


def tpot_line(workload: InferenceWorkload, eff: InferenceEfficiency) -> TpotLine | None:
    """Where a chart of mean TPOT draws the limit: latency_bound holds the mean to a target below the p99 limit
    (slo_tpot_utilisation); live traffic is over the limit where its p99 (mean x p99_over_mean) is; a batch job
    or a fixed batch applies no limit, so there is no line."""
    limit = workload.tpot_ms
    if workload.scenario in LIMITS_APPLIED:
        target = eff.slo_tpot_utilisation * limit
        share = f"{percent(eff.slo_tpot_utilisation)} of the {significant(limit)} ms p99 limit"
        return TpotLine(target, f"mean TPOT target {fixed(target)} ms ({share})")
    if workload.scenario in LIMITS_RANKED:
        mean = limit / eff.p99_over_mean
        return TpotLine(mean, f"TPOT limit {significant(limit)} ms p99 (mean {fixed(mean)} ms)")
    return None
