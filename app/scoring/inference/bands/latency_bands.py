"""Bands on an estimate's latencies: the p10-p90 of leave-one-source-out TTFT and TPOT residuals in its regime, at
its load (efficiency.bands.load_metric: under traffic or without arrivals), as the throughput band is built."""

from __future__ import annotations

from typing import NamedTuple

from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, fixed


class LatencyBands(NamedTuple):
    ttft_p99: Band  # ms, around the p99 TTFT the limit is checked against
    tpot_p99: Band  # ms, around the p99 TPOT
    note: str  # the bands' evidence, for the estimate's assumptions

    @property
    def p99_highs(self) -> tuple[float, float]:
        """The slow ends of the p99 TTFT and TPOT bands, ms."""
        return self.ttft_p99.high, self.tpot_p99.high


class BandRegime(NamedTuple):
    """What a band is looked up by (efficiency.bands.band_ratio's arguments)."""

    engine: str
    vendor: str
    weight_dtype: str
    architecture: str  # "dense" or "moe"
    spans_nodes: bool
    pipeline_stages: int
    scenario: str


def p99_high_ratios(regime: BandRegime) -> tuple[float, float]:
    """The slow ends of the p99 TTFT and TPOT bands, as multiples of the estimate (band_ratio: each at least 1)."""
    return band_ratio("ttft_ms", *regime)[1], band_ratio("tpot_ms", *regime)[1]


def latency_bands(regime: BandRegime, ttft_p99_ms: float, tpot_p99_ms: float) -> LatencyBands:
    """The p99 TTFT and TPOT bands of an estimate in `regime`; the ratio measured / predicted of a latency holds for
    its mean and its p99 alike (the validation rows state either, and one band serves both)."""
    bands, evidence = [], []
    for metric, value, name in (("ttft_ms", ttft_p99_ms, "TTFT"), ("tpot_ms", tpot_p99_ms, "TPOT")):
        low, high, words = band_ratio(metric, *regime)
        bands.append(Band.around(value, low, high))
        evidence.append(f"{name} {fixed(low, 2)}-{fixed(high, 2)}x the estimate ({words})")
    return LatencyBands(bands[0], bands[1], "latency bands: " + "; ".join(evidence))
