"""An open loop's trickle keeps far below one request in flight (Little's law): its answer says that mean, never
"batch 1". (Poisson arrivals that see the time-average batch below one in flight, PASTA, were tried on 2026-12-06
and not adopted: they move the inference fit off its committed constants, docs/ACCURACY.md.)"""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_a_trickle_says_its_mean_in_flight_not_batch_one():
    w = InferenceWorkload(
        model="llama-3.3-70b", engine="trtllm", weight_dtype="fp8", scenario="request_rate", requests_per_s=1
    )
    est = estimate_inference(
        GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w.model_copy(update={"requests_per_s": 0.01})
    )
    assert est.reason.startswith("fits: 0.") and "requests in flight on average" in est.reason, est.reason
    busy = estimate_inference(GPUS["H100-SXM"], 2, MODELS["llama-3.3-70b"], w.model_copy(update={"requests_per_s": 2}))
    assert busy.reason.startswith(f"fits: batch {busy.batch} of max")
