"""limits_at band_high: the TTFT and TPOT limits hold at the slow end of each p99's band, not only at the estimate."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import bands
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
LOOSE_TTFT = {"ttft_ms": 5000, "tpot_ms": 50}  # a TTFT limit the traffic band's slow end can meet on one GPU


def _estimate(gpu: str = "B200", count: int = 1, model: str = "llama-3.1-70b", **fields: object):
    w = InferenceWorkload(model=model, weight_dtype="fp8", **fields)  # type: ignore[arg-type]
    return estimate_inference(GPUS[gpu], count, MODELS[model], w)


@pytest.mark.parametrize(
    ("gpu", "count", "model", "limits"),
    [
        ("B200", 1, "llama-3.1-70b", LOOSE_TTFT),
        ("H100-SXM", 2, "llama-3.1-70b", LOOSE_TTFT),
        ("H100-SXM", 1, "llama-3.1-8b", {"ttft_ms": 2000, "tpot_ms": 30}),
    ],
)
def test_band_high_picks_a_batch_no_larger_whose_bands_slow_ends_meet_the_limits(gpu, count, model, limits):
    plain = _estimate(gpu, count, model, **limits)
    safe = _estimate(gpu, count, model, limits_at="band_high", **limits)
    assert plain.feasible and safe.feasible
    assert safe.batch < plain.batch  # the estimate's batch is "at risk": band_high backs off from it
    assert safe.ttft_p99_band.high <= limits["ttft_ms"] and safe.tpot_p99_band.high <= limits["tpot_ms"]
    assert safe.limits_at_risk == "" and plain.limits_at_risk != ""
    assert safe.output_tokens_per_s_per_gpu < plain.output_tokens_per_s_per_gpu


def test_the_default_is_the_estimate_and_answers_as_before():
    implicit = _estimate(**LOOSE_TTFT)
    explicit = _estimate(limits_at="estimate", **LOOSE_TTFT)
    assert implicit == explicit
    assert implicit.tpot_p99_band.high > 50 and implicit.limits_at_risk.startswith("TPOT")  # the brief's example


def test_a_configuration_whose_band_misses_even_at_batch_1_says_so_with_the_ratios():
    est = _estimate(limits_at="band_high", ttft_ms=1000, tpot_ms=20)
    assert not est.feasible and est.misses_limits
    ttft_high = bands.band_ratio("ttft_ms", "vllm", "NVIDIA", "fp8", "dense", scenario="latency_bound")[1]
    assert est.reason.startswith(f"even one request misses the limits at its band's slow end (TTFT {ttft_high:.2f}×")
    assert _estimate(ttft_ms=1000, tpot_ms=20).feasible  # on the estimate it serves


def test_live_traffic_over_the_band_high_is_over_the_limits_in_those_words():
    load = {"scenario": "concurrency", "concurrency": 64, **LOOSE_TTFT}
    plain, safe = _estimate(**load), _estimate(limits_at="band_high", **load)
    assert plain.over_limits == "" and plain.limits_at_risk.startswith("TPOT p99")
    assert safe.batch == plain.batch and safe.tpot_p99_ms == plain.tpot_p99_ms  # the load is the load
    assert safe.tpot_p99_band.high > 50 and safe.over_limits.startswith("TPOT p99 ")
    assert safe.over_limits.endswith(" ms at its band's slow end is over the 50 ms limit")
    assert safe.limits_at_risk == ""  # over the limits, labelled as such


def test_fixed_loads_only_report_the_limits_whatever_limits_at_says():
    load = {"scenario": "fixed_batch", "batch": 64, **LOOSE_TTFT}
    assert _estimate(limits_at="band_high", **load) == _estimate(**load)
