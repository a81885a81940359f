"""How each scenario treats the workload's TTFT and TPOT limits (p99, both).

- latency_bound chooses the batch that meets them: a configuration that cannot is infeasible.
- request_rate, concurrency and single_stream are live traffic at a load the workload fixes: the load is
  estimated as it runs, and a configuration whose p99 latencies miss a limit is **over the limits**: labelled,
  and ranked after every configuration that meets them (never preferred for being cheaper).
- fixed_batch and max_throughput fix a batch or ask for the most tokens a second (a benchmark, a batch job):
  latency is an outcome there, so a miss is said in the row's assumptions and the order is by cost alone.

Where the limits hold is the workload's limits_at: on the estimated p99 (estimate), or at the slow end of its p10-p90
band (band_high: the estimate times the band's high ratio, latency_bands.p99_high_ratios), for a hard SLO.
"""

from __future__ import annotations

from app.scoring.explain import fixed, percent, significant
from app.scoring.inference.bands.latency_bands import BandRegime, p99_high_ratios
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
ON_ESTIMATE = (1.0, 1.0)  # the p99 TTFT and TPOT multiples at which limits are checked on the estimate itself
SLOW_END = "at its band's slow end"
# workload.tpot_limit_ms: a one-token output has no time per output token, so only its TTFT limit holds
ONE_TOKEN_NOTE = "no TPOT limit applies to a one-token output (it has no time per output token), only the TTFT limit"


def one_token_note(w: InferenceWorkload) -> list[str]:
    """Says the TPOT limit was not held where the question's outputs are one token and its limits count."""
    limits_count = w.scenario in LIMITS_APPLIED + LIMITS_RANKED
    return (
        [f"{significant(w.tpot_ms)} ms TPOT limit not applied: {ONE_TOKEN_NOTE}"]
        if limits_count and w.output_len <= 1
        else []
    )


def at_band_high(w: InferenceWorkload) -> bool:
    """The limits must hold at the slow end of each p99's band: asked for, under a scenario that applies or ranks
    the limits (fixed_batch and max_throughput only report them, on the estimate)."""
    return w.limits_at == "band_high" and w.scenario in LIMITS_APPLIED + LIMITS_RANKED


def limit_multiples(w: InferenceWorkload, regime: BandRegime) -> tuple[float, float]:
    """What the p99 TTFT and TPOT estimates are multiplied by where the limits are checked: 1 on the estimate,
    the band's high ratio (at least 1) at its slow end."""
    return p99_high_ratios(regime) if at_band_high(w) else ON_ESTIMATE


def slow_end_words(multiples: tuple[float, float]) -> str:
    """The multiples a band's slow end puts on the estimates, for a reason: `(TTFT 1.25×, TPOT 1.36× the estimate)`."""
    return f"(TTFT {fixed(multiples[0], 2)}×, TPOT {fixed(multiples[1], 2)}× the estimate)"


def missed_limits(
    w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float, multiples: tuple[float, float] = ON_ESTIMATE
) -> list[str]:
    """Each limit a fixed load's p99 latencies (times `multiples`: limit_multiples) are over, in words; none under
    latency_bound (met by construction)."""
    if w.scenario in LIMITS_APPLIED:
        return []
    where = f" {SLOW_END}" if multiples != ON_ESTIMATE else ""
    return [
        f"{name} p99 {_ms(value)} ms{where} is over the {_ms(limit)} ms limit"
        for name, value, limit in (
            ("TTFT", ttft_p99_ms * multiples[0], w.ttft_ms),
            ("TPOT", tpot_p99_ms * multiples[1], w.tpot_limit_ms),
        )
        if value > limit
    ]


def _ms(value: float) -> str:
    """Milliseconds as a person reads them: whole above 100, else to a tenth (25.1 is over a 25 ms limit)."""
    return f"{fixed(value, 0)}" if value >= 100 else f"{fixed(value, 1)}".removesuffix(".0")


def over_limits(
    w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float, multiples: tuple[float, float] = ON_ESTIMATE
) -> str:
    """What a live-traffic configuration misses ('' when it meets both limits, or where limits do not rank)."""
    if w.scenario not in LIMITS_RANKED:
        return ""
    return "; ".join(missed_limits(w, ttft_p99_ms, tpot_p99_ms, multiples))


def unapplied_limits_note(
    w: InferenceWorkload, ttft_p99_ms: float, tpot_p99_ms: float, multiples: tuple[float, float] = ON_ESTIMATE
) -> list[str]:
    """A fixed load is estimated as it runs, whatever the latency limits: say where it misses them and what the
    ranking does about it, so such a row is never read as meeting them."""
    missed = missed_limits(w, ttft_p99_ms, tpot_p99_ms, multiples)
    if not missed:
        return []
    load = FIXED_LOADS.get(w.scenario, w.scenario.replace("_", " "))
    if w.scenario in LIMITS_RANKED:
        consequence = "it is over the limits and ranked after every configuration that meets them"
    else:
        consequence = "the limits are reported, not applied"
    return [f"{' and '.join(missed)}: at {load} {consequence} (latency_bound picks the batch that meets them)"]


def limits_at_risk(
    w: InferenceWorkload,
    ttft_p99_ms: float,
    tpot_p99_ms: float,
    ttft_p99_high_ms: float,
    tpot_p99_high_ms: float,
    multiples: tuple[float, float] = ON_ESTIMATE,
) -> str:
    """Each limit the estimate meets but a p99 at its band's slow end (latency_bands) would not, in words; '' where
    none does, where the row already misses a limit where it is checked (`multiples`: limit_multiples), or where
    limits are not applied (fixed_batch, max_throughput): this says how far to trust the ranking's check. Checked at
    the band's slow end (limits_at band_high), a row that meets the limits is never at risk."""
    if w.scenario not in LIMITS_APPLIED + LIMITS_RANKED or missed_limits(w, ttft_p99_ms, tpot_p99_ms, multiples):
        return ""
    return "; ".join(
        f"{name} p99 {_ms(high)} ms {SLOW_END}, over the {_ms(limit)} ms limit"
        for name, high, limit in (("TTFT", ttft_p99_high_ms, w.ttft_ms), ("TPOT", tpot_p99_high_ms, w.tpot_limit_ms))
        if high > limit
    )


def holding_limit_words(
    w: InferenceWorkload,
    tpot_target_share: float,
    ttft_p99_ms: float,
    tpot_mean_ms: float,
    multiples: tuple[float, float] = ON_ESTIMATE,
) -> str:
    """Which limit holds latency_bound's batch below what memory fits, for the option's reason: the one its point is
    nearest (the search stops at the last batch whose max(TTFT p99 / limit, TPOT / target) is at most 1, so the
    larger share is the one the next batch breaks). Without it a tighter TTFT limit halved the batch, and the cost
    per token doubled, under a reason that read only "fits: batch 26 of max 134" (found by smooth6)."""
    ttft_share = ttft_p99_ms * multiples[0] / w.ttft_ms
    target_ms = tpot_target_share * w.tpot_limit_ms
    tpot_share = tpot_mean_ms * multiples[1] / target_ms
    if ttft_share >= tpot_share:
        return f"held by the {significant(w.ttft_ms)} ms p99 TTFT limit"
    share = f"{percent(tpot_target_share)} of the {significant(w.tpot_ms)} ms p99 limit"
    return f"held by the TPOT limit (mean at most {significant(target_ms, 3)} ms: {share})"


def one_replica_load(workload: InferenceWorkload) -> bool:
    """A fixed load one replica takes whole (a request rate, clients, one stream; no peak): nothing fills the other
    copies a rented instance holds, so a row rents the whole instances of that replica. A peak sizes replicas (and
    rents whole instances by fleet_factor), a batch job spreads over every copy, and a capacity question (latency_bound,
    max_throughput, fixed_batch) prices a copy at full use, where the instance's other copies do earn their share.
    A machine's layouts are compared by the same bill (configurations.billed_gpus)."""
    peak = workload.peak_requests_per_s or workload.peak_concurrency
    return workload.scenario in LIMITS_RANKED and not peak and not workload.job_requests
