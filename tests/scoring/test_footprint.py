"""A refused configuration shows its footprint before any KV cache: the same whatever the workload's lengths, so it is
worked out once per configuration, and each refusal gets a dict of its own."""

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.step.memory import footprint_gb, memory_breakdown_gb

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_footprint_is_the_breakdown_at_batch_zero_for_any_length() -> None:
    gpu, model = GPUS["L40S"], MODELS["deepseek-r1"]
    shown = footprint_gb(gpu, model, "fp8", "fp8", 4, 1, 4, "sglang")
    for held_tokens in (1.0, 2_000.0, 131_072.0):
        assert memory_breakdown_gb(gpu, model, "fp8", "fp8", held_tokens, 0, 4, 1, 4, "sglang") == shown
    assert shown["kv_cache"] == 0.0 and shown["weights"] > shown["capacity"]  # why it is refused: it does not fit


def test_each_footprint_is_a_dict_of_its_own() -> None:
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    first = footprint_gb(gpu, model, "bf16", "bf16", 1)
    first["weights"] = -1.0
    assert footprint_gb(gpu, model, "bf16", "bf16", 1)["weights"] > 100
