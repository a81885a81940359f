"""Latency bands of both layouts. A disaggregated plan's pools: each pool's latency across the p10-p90 band of
aggregated serving in the same regime (efficiency.bands.band_ratio of the instance's band_regime: the lookup the
ranking's latency bands and limit multiples make), borrowed, on the estimate and at limits_at band_high alike; the KV
transfer between the pools on the estimate (no band covers it). The aggregated option's own: its means across the
bands the ranking gives its p99s."""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.bands import band_ratio
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import Band, Term, fixed
from app.scoring.inference.bands.limits import at_band_high
from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.serving.disaggregated.pairing import mean_ttft_budget_ms
from app.scoring.serving.disaggregated.pricing import DisaggregatedPlan
from app.scoring.workload import InferenceWorkload

# Why a disaggregated answer's bands are aggregated serving's: said wherever the answer is (page, JSON, CLI).
BORROWED_WORDS = (
    "These are the bands of aggregated serving in the same regime (engine × vendor × precision × dense/MoE, under "
    "traffic), borrowed because no publication measures disaggregated pools: wider-is-safer approximations."
)
BORROWED_BANDS = (
    "Limits at the slow end of the bands: each pool is sized so its latency times its band's high ratio meets the "
    "limit (the prefill pool's first token and queue against the TTFT band, the decode step against the TPOT band). "
    f"{BORROWED_WORDS} The KV transfer between the pools has no band and stays on the estimate."
)


@dataclass(frozen=True, slots=True)
class PoolBands:
    """A plan's mean latencies across their borrowed bands, and the high ratios its pools were sized with."""

    ttft_mean_ms: Band  # prefill first token + queue across the TTFT band, + the KV transfer as estimated
    tpot_mean_ms: Band  # the decode step across the TPOT band
    ttft_high_ratio: float  # the prefill instance's regime (limits.limit_multiples)
    tpot_high_ratio: float  # the decode instance's regime
    ttft_evidence: str  # the bands' sources (band_ratio's words)
    tpot_evidence: str


# What the aggregated option's mean latency bands are, and what the pools' are: the answer's notes.
LATENCY_BANDS_NOTE = (
    "Latency bands (p10-p90): the aggregated option's are its own, its mean TTFT and TPOT across the ratios of the "
    "bands the ranking gives its p99s (measured / predicted holds for a latency's mean and its p99 alike, one band "
    "serving both). Each pool's is borrowed from aggregated serving in the same regime (engine × vendor × precision × "
    "dense/MoE, under traffic), because no publication measures disaggregated pools: a wider-is-safer approximation. "
    "The prefill pool's band covers its first token and queue; the KV transfer added to it stays on the estimate."
)


def pool_bands(plan: DisaggregatedPlan) -> PoolBands | None:
    """The plan's latencies across their borrowed bands, on the estimate or at limits_at band_high (None: an
    instance with no regime)."""
    p, d = plan.pairing.prefill_instance, plan.pairing.decode_instance
    if p.band_regime is None or d.band_regime is None:
        return None
    transfer = plan.pairing.transfer_ms
    ttft_low, ttft_high, ttft_words = band_ratio("ttft_ms", *p.band_regime)
    tpot_low, tpot_high, tpot_words = band_ratio("tpot_ms", *d.band_regime)
    own_ms = plan.ttft_ms - transfer  # the prefill pool's share of the TTFT: first token and queue
    return PoolBands(
        ttft_mean_ms=Band(own_ms * ttft_low + transfer, own_ms * ttft_high + transfer),
        tpot_mean_ms=Band.around(plan.tpot_ms, tpot_low, tpot_high),
        ttft_high_ratio=ttft_high,
        tpot_high_ratio=tpot_high,
        ttft_evidence=ttft_words,
        tpot_evidence=tpot_words,
    )


def slow_end_line(plan: DisaggregatedPlan, workload: InferenceWorkload) -> str | None:
    """How the plan meets the limits at its bands' slow end, in numbers (None on the estimate)."""
    bands = pool_bands(plan)
    if bands is None or not at_band_high(workload):
        return None
    transfer = plan.pairing.transfer_ms
    budget = mean_ttft_budget_ms(workload, DEFAULT_EFFICIENCY)
    return (
        f"At the slow end of the bands: prefill first token + queue {fixed(plan.ttft_ms - transfer, 0)} ms × "
        f"{fixed(bands.ttft_high_ratio, 2)} (its TTFT band's high) + KV transfer {fixed(transfer, 1)} ms (on the "
        f"estimate: no band) = {fixed(bands.ttft_mean_ms.high, 0)} ms, within the {fixed(budget, 0)} ms mean TTFT "
        f"budget; decode step {fixed(plan.tpot_ms, 1)} ms × {fixed(bands.tpot_high_ratio, 2)} (its TPOT band's high) = "
        f"{fixed(bands.tpot_mean_ms.high, 1)} ms, within the "
        f"{fixed(DEFAULT_EFFICIENCY.slo_tpot_utilisation * workload.tpot_ms, 1)} ms TPOT target. {BORROWED_WORDS}"
    )


def band_terms(bands: PoolBands | None, workload: InferenceWorkload) -> list[Term]:
    """The high ratios the pools were sized with, as terms with their bands' evidence (none on the estimate)."""
    if bands is None or not at_band_high(workload):
        return []
    return [
        Term("TTFT band high", bands.ttft_high_ratio, "×", f"prefill first token + queue: {bands.ttft_evidence}"),
        Term("TPOT band high", bands.tpot_high_ratio, "×", f"decode step: {bands.tpot_evidence}"),
    ]


def aggregated_latency_bands(o: InferenceOption) -> tuple[Band, Band] | None:
    """The aggregated option's mean TTFT and TPOT across its p99s' bands (latency_bands): the ratio measured /
    predicted holds for a latency's mean and its p99 alike, so the mean's band is the p99 band's ratios times the
    mean (None: an option with no p99 band)."""
    ttft, tpot = o.ttft_mean_ms, o.tpot_mean_ms
    if None in (ttft, tpot, o.ttft_p99_band, o.tpot_p99_band) or not o.ttft_p99_ms or not o.tpot_p99_ms:
        return None
    assert ttft is not None and tpot is not None and o.ttft_p99_band is not None and o.tpot_p99_band is not None
    return (
        Band.around(ttft, o.ttft_p99_band.low / o.ttft_p99_ms, o.ttft_p99_band.high / o.ttft_p99_ms),
        Band.around(tpot, o.tpot_p99_band.low / o.tpot_p99_ms, o.tpot_p99_band.high / o.tpot_p99_ms),
    )
