"""Bands on an estimate's latencies: the p10-p90 of leave-one-source-out TTFT and TPOT residuals in its regime, at
its load (efficiency.bands.load_metric: under traffic or without arrivals), as the throughput band is built."""

from __future__ import annotations

from functools import lru_cache
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


# A regime's latency band ratios and their evidence line, by regime: band_ratio keeps the ratios, but the line (four
# ratios to two decimals and the rows behind them) was written anew for every configuration a ranking explains (~20 a
# 70B ranking, ~35 a batch job's) though it reads the regime alone. A pure function of the regime while the committed
# bands stay as loaded, as band_ratio's own cache.
_LATENCY_BANDS_CACHE_SIZE = 4096


def latency_bands(regime: BandRegime, ttft_p99_ms: float, tpot_p99_ms: float) -> LatencyBands:
    """The p99 TTFT and TPOT bands of an estimate in `regime`; the ratio measured / predicted of a latency holds for
    its mean and its p99 alike (the validation rows state either, and one band serves both)."""
    (ttft_low, ttft_high), (tpot_low, tpot_high), note = _regime_latency_bands(regime)
    return LatencyBands(
        Band.around(ttft_p99_ms, ttft_low, ttft_high), Band.around(tpot_p99_ms, tpot_low, tpot_high), note
    )


@lru_cache(maxsize=_LATENCY_BANDS_CACHE_SIZE)
def _regime_latency_bands(regime: BandRegime) -> tuple[tuple[float, float], tuple[float, float], str]:
    """The (low, high) ratios of the p99 TTFT and TPOT bands in `regime`, and the note naming their evidence."""
    ratios, evidence = [], []
    for metric, name in (("ttft_ms", "TTFT"), ("tpot_ms", "TPOT")):
        low, high, words = band_ratio(metric, *regime)
        ratios.append((low, high))
        evidence.append(f"{name} {fixed(low, 2)}-{fixed(high, 2)}× the estimate ({words})")
    return ratios[0], ratios[1], "latency bands: " + "; ".join(evidence)
