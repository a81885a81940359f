"""An open loop's running batch is a mean (Little's law), often between whole numbers: its terms and chart hovers
say the mean in flight, not "batch 1.05545" (Llama 3.1 70B FP8 at 0.33 requests/s on one B200, 8,000 in / 200 out)."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.explain import batch_words
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_batch_words_say_a_whole_batch_or_the_mean_in_flight():
    assert batch_words(8) == "batch 8" and batch_words(8.0) == "batch 8"
    assert batch_words(1.05545) == "1.06 requests in flight on average"
    assert batch_words(64.15) == "64.15 requests in flight on average"
    assert batch_words(0.17) == "0.17 requests in flight on average"


def test_an_open_loops_terms_say_its_mean_in_flight_in_two_places_at_most():
    values = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 8000, "output_len": 200}
    workload = InferenceWorkload.model_validate(values | {"scenario": "request_rate", "requests_per_s": 0.33})
    est = estimate_inference(GPUS["B200"], 1, MODELS["llama-3.1-70b"], workload)
    details = {t.name: t.detail for t in est.terms}
    assert "memory-bound at 1.07 requests in flight on average" in details["decode memory / compute"]
    assert "sequences: 1.070 running" in details["launch and host overheads"]
    assert "batch 1.0" not in " ".join(details.values())  # the old wording: "memory-bound at batch 1.06996"
