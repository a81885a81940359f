"""An estimate's p99 TTFT and TPOT carry bands from the latency residuals of their regime, at their load."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import bands
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _estimate(scenario: str, **load: float):
    w = InferenceWorkload(model="llama-3.1-8b", engine="trtllm", scenario=scenario, **load)
    est = estimate_inference(GPUS["H100-SXM"], 1, MODELS["llama-3.1-8b"], w, tensor_parallel=1)
    assert est.feasible
    return est


def test_the_p99_latencies_carry_the_band_of_their_regime_and_load():
    busy = _estimate("request_rate", requests_per_s=2.0)
    low, high, _ = bands.band_ratio("ttft_ms", "trtllm", "NVIDIA", "bf16", "dense", scenario="request_rate")
    assert (busy.ttft_p99_band.low, busy.ttft_p99_band.high) == pytest.approx(
        (busy.ttft_p99_ms * low, busy.ttft_p99_ms * high)
    )
    low, high, _ = bands.band_ratio("tpot_ms", "trtllm", "NVIDIA", "bf16", "dense", scenario="request_rate")
    assert busy.tpot_p99_band.low == pytest.approx(busy.tpot_p99_ms * low)
    assert busy.tpot_p99_band.low <= busy.tpot_p99_ms <= busy.tpot_p99_band.high
    assert any(
        line.startswith("latency bands: TTFT")
        and "TTFT under traffic, TensorRT-LLM on NVIDIA" in line
        and "@" not in line
        for line in busy.assumptions
    )
    assert busy.assumptions[-1].startswith("band:")  # the throughput band's evidence stays last


def test_a_lone_request_has_a_narrower_ttft_band_than_one_under_traffic():
    """Held out, TTFT without arrivals measured 0.91-1.33x its prediction, under traffic 0.78-3.3x: a queue is
    what the model knows least."""
    lone = _estimate("single_stream")
    busy = _estimate("request_rate", requests_per_s=2.0)
    lone_ratio = lone.ttft_p99_band.high / lone.ttft_p99_ms
    busy_ratio = busy.ttft_p99_band.high / busy.ttft_p99_ms
    assert lone_ratio < busy_ratio
    assert any("TTFT at a fixed load" in line for line in lone.assumptions)
