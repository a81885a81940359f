"""A regime's latency band ratios and evidence note are kept by regime: whatever regime asked before, the bands and
note an estimate gets are those band_ratio gives its own regime, written afresh."""

import itertools
import random

from app.scoring.efficiency.bands import band_ratio
from app.scoring.explain import Band, fixed
from app.scoring.inference.bands.latency_bands import BandRegime, LatencyBands, latency_bands

ENGINES = ("trtllm", "vllm", "sglang", "llamacpp", "hf")
SCENARIOS = ("latency_bound", "max_throughput", "fixed_batch", "concurrency", "request_rate", "single_stream")


def written_afresh(regime: BandRegime, ttft_p99_ms: float, tpot_p99_ms: float) -> LatencyBands:
    bands, evidence = [], []
    for metric, value, name in (("ttft_ms", ttft_p99_ms, "TTFT"), ("tpot_ms", tpot_p99_ms, "TPOT")):
        low, high, words = band_ratio(metric, *regime)
        bands.append(Band.around(value, low, high))
        evidence.append(f"{name} {fixed(low, 2)}-{fixed(high, 2)}× the estimate ({words})")
    return LatencyBands(bands[0], bands[1], "latency bands: " + "; ".join(evidence))


def test_kept_latency_bands_read_as_the_bands_written_afresh_for_their_own_regime() -> None:
    regimes = [
        BandRegime(*fields)
        for fields in itertools.product(
            ENGINES,
            ("nvidia", "amd"),
            ("bf16", "fp8", "int4", "fp4"),
            ("dense", "moe"),
            (False, True),
            (1, 2, 4),
            SCENARIOS,
        )
    ]
    order = regimes + random.Random(15).sample(regimes, len(regimes))  # each regime asked after others, twice
    notes = set()
    for regime in order:
        kept = latency_bands(regime, 812.5, 31.25)
        assert repr(kept) == repr(written_afresh(regime, 812.5, 31.25)), regime
        notes.add(kept.note)
    assert len(order) > 5_000 and len(notes) > 20  # regimes whose bands differ
