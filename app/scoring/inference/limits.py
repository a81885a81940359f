"""How each scenario treats the workload's TTFT and TPOT limits (p99, both).

- latency_bound chooses the batch that meets them: a configuration that cannot is infeasible.
- request_rate, concurrency and single_stream are live traffic at a load the workload fixes: the load is
  estimated as it runs, and a configuration whose p99 latencies miss a limit is **over the limits**: labelled,
  and ranked after every configuration that meets them (never preferred for being cheaper).
- fixed_batch and max_throughput fix a batch or ask for the most tokens a second (a benchmark, a batch job):
  latency is an outcome there, so a miss is said in the row's assumptions and the order is by cost alone.
"""

from __future__ import annotations

from app.scoring.workload import InferenceWorkload

LIMITS_APPLIED = ("latency_bound",)  # the operating points chosen to meet the TTFT and TPOT limits
LIMITS_RANKED = ("request_rate", "concurrency", "single_stream")  # misses ranked after the rows that meet them
FIXED_LOADS = {
    "request_rate": "a fixed request rate",
    "concurrency": "a fixed client count",
    "fixed_batch": "a fixed batch",
    "single_stream": "one request at a time",
    "max_throughput": "the throughput-maximising batch",
}


def missed_limits(w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float) -> list[str]:
    """Each limit a fixed load's p99 latencies are over, in words; none under latency_bound (met by construction)."""
    if w.scenario in LIMITS_APPLIED:
        return []
    return [
        f"{name} p99 {_ms(value)} ms is over the {_ms(limit)} ms limit"
        for name, value, limit in (("TTFT", ttft_p99_ms, w.ttft_ms), ("TPOT", tpot_p99_ms, w.tpot_ms))
        if value > limit
    ]


def _ms(value: float) -> str:
    """Milliseconds as a person reads them: whole above 100, else to a tenth (25.1 is over a 25 ms limit)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}".removesuffix(".0")


def over_limits(w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float) -> str:
    """What a live-traffic configuration misses ('' when it meets both limits, or where limits do not rank)."""
    if w.scenario not in LIMITS_RANKED:
        return ""
    return "; ".join(missed_limits(w, ttft_p99_ms, tpot_p99_ms))


def unapplied_limits_note(w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float) -> list[str]:
    """A fixed load is estimated as it runs, whatever the latency limits: say where it misses them and what the
    ranking does about it, so such a row is never read as meeting them."""
    missed = missed_limits(w, ttft_p99_ms, tpot_p99_ms)
    if not missed:
        return []
    load = FIXED_LOADS.get(w.scenario, w.scenario.replace("_", " "))
    if w.scenario in LIMITS_RANKED:
        consequence = "it is over the limits and ranked after every configuration that meets them"
    else:
        consequence = "the limits are reported, not applied"
    return [f"{' and '.join(missed)}: at {load} {consequence} (latency_bound picks the batch that meets them)"]


def limits_at_risk(
    w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float, ttft_p99_high_ms: float, tpot_p99_high_ms: float
) -> str:
    """Each limit the estimate meets but a p99 at its band's slow end (latency_bands) would not, in words; '' where
    none does, where the estimate already misses a limit, or where limits are not applied (fixed_batch,
    max_throughput): the ranking checks limits on the estimate, and this says how far to trust that check."""
    if w.scenario not in LIMITS_APPLIED + LIMITS_RANKED or missed_limits(w, ttft_p99_ms, tpot_p99_ms):
        return ""
    return "; ".join(
        f"{name} p99 {_ms(high)} ms at its band's slow end, over the {_ms(limit)} ms limit"
        for name, high, limit in (("TTFT", ttft_p99_high_ms, w.ttft_ms), ("TPOT", tpot_p99_high_ms, w.tpot_ms))
        if high > limit
    )
