"""The worked example of the soft roofline on /methodology, computed by the engine so the page cannot drift from it."""

from __future__ import annotations

from typing import Any

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.steps import roofline_ms
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload
from app.service.query.canonical import canonical_query

# The first row of a golden question (tests/golden: rank_inference_70b_fp8): Llama 3.1 70B FP8 on vLLM, one B200.
EXAMPLE_GPU, EXAMPLE_MODEL = "B200", "llama-3.1-70b"
EXAMPLE_WORKLOAD = InferenceWorkload(
    model=EXAMPLE_MODEL,
    weight_dtype="fp8",
    kv_dtype="fp8",
    input_len=2000,
    output_len=400,
    ttft_ms=1000,
    tpot_ms=50,
    engine="vllm",
)


def roofline_example(
    gpus: dict[str, GpuSpec], models: dict[str, ModelSpec], eff: InferenceEfficiency = DEFAULT_EFFICIENCY
) -> dict[str, Any] | None:
    """The example's decode step, kernel class by kernel class; None where the catalog lacks its GPU or model."""
    gpu, model = gpus.get(EXAMPLE_GPU), models.get(EXAMPLE_MODEL)
    if gpu is None or model is None:
        return None
    solved = solve_inference(gpu, 1, model, EXAMPLE_WORKLOAD, efficiency=eff)
    detail = solved.point.step.breakdown if isinstance(solved, Solution) else None
    if not isinstance(solved, Solution) or detail is None:
        return None
    memory_ms, compute_ms = detail.dense
    power = eff.overlap_power
    return {
        "gpu": gpu.name,
        "model": model.name,
        "engine": "vLLM",
        "rank_url": "/?" + canonical_query("inference", EXAMPLE_WORKLOAD),  # the ranking whose first row this is
        "input_len": EXAMPLE_WORKLOAD.input_len,
        "output_len": EXAMPLE_WORKLOAD.output_len,
        "tpot_limit_ms": EXAMPLE_WORKLOAD.tpot_ms,
        "batch": solved.batch,
        "power": power,
        "dense_memory_ms": memory_ms,
        "dense_compute_ms": compute_ms,
        "dense_ms": roofline_ms(memory_ms, compute_ms, power),
        "attention_ms": roofline_ms(*detail.attention, power),
        "overheads_ms": solved.point.step.overhead_ms,
        "step_ms": solved.point.step.total_ms,
    }
