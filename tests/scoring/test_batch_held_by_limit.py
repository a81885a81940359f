"""A latency-bound batch below what memory fits says which limit holds it: turning the TTFT limit from 500 to 350 ms
halves llama-3.1-70b FP8's batch on one B200 (62 -> 26) and raises its cost per token ~40 %, and the reason says the
TTFT limit did it, where it read only "fits: batch 26 of max 134" (found by smooth6)."""

import re

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
B200, MODEL = GPUS["B200"], MODELS["llama-3.1-70b"]


def _estimate(**fields: object):  # type: ignore[no-untyped-def]
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", **fields)  # type: ignore[arg-type]
    est = estimate_inference(B200, 1, MODEL, workload)
    assert est.feasible and est.batch < est.max_batch
    return est


def test_a_tight_ttft_limit_is_named_as_what_holds_the_batch():
    est = _estimate(ttft_ms=350)
    assert est.reason.endswith("; held by the 350 ms p99 TTFT limit")
    assert est.ttft_p99_ms <= 350 and est.ttft_p99_ms > 0.95 * 350


def test_the_tpot_target_is_named_where_it_holds_the_batch():
    est = _estimate(ttft_ms=1000, tpot_ms=50)
    assert est.reason.endswith("; held by the TPOT limit (mean at most 40 ms: 80% of the 50 ms p99 limit)")
    assert 0.95 * 40 < est.tpot_ms <= 40


def test_a_fixed_load_names_no_limit():
    est = estimate_inference(
        B200, 1, MODEL, InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", scenario="fixed_batch", batch=8)
    )
    assert "held by" not in est.reason


def test_the_limit_words_group_thousands_and_never_write_an_exponent():
    from app.scoring.inference.bands.limits import holding_limit_words

    w = InferenceWorkload(model="llama-3.1-70b", ttft_ms=600_000, tpot_ms=50)
    assert holding_limit_words(w, 0.8, 590_000, 1.0) == "held by the 600,000 ms p99 TTFT limit"
    w = InferenceWorkload(model="llama-3.1-70b", ttft_ms=1000, tpot_ms=12_500)
    assert (
        holding_limit_words(w, 0.8, 1.0, 9_000)
        == "held by the TPOT limit (mean at most 10,000 ms: 80% of the 12,500 ms p99 limit)"
    )


def test_a_batch_at_what_memory_fits_says_memory_holds_it():
    workload = InferenceWorkload(
        model="llama-3.1-70b", weight_dtype="fp8", input_len=32_000, output_len=500, ttft_ms=60_000, tpot_ms=200
    )
    est = estimate_inference(B200, 1, MODEL, workload)
    assert est.feasible and est.batch == est.max_batch
    assert est.reason.endswith(
        f"batch {est.batch} of max {est.max_batch} on 1×B200 (HGX, per GPU); held by memory (KV cache)"
    )


def test_the_tpot_reason_states_the_mean_as_a_ceiling_not_as_the_row_s_mean():
    """DeepSeek-R1 on 8×H200 at a 30 ms TPOT read "held by the TPOT limit (mean 24 ms: ...)" beside its TPOT column's
    22.7 ms mean: 24 ms is where batch 8 would go, the ceiling the batch is held under (found by qa40)."""
    est = _estimate(ttft_ms=1000, tpot_ms=30)
    said = re.search(r"held by the TPOT limit \(mean at most ([\d.]+) ms: 80% of the 30 ms p99 limit\)", est.reason)
    assert said is not None, est.reason
    assert est.tpot_ms <= float(said.group(1))
