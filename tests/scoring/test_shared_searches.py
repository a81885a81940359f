"""A configuration's search runs once for every equal context: GPUs that differ in nothing the context holds (another
id, another product of the same card) share the answer, and another efficiency or workload gets its own."""

from dataclasses import replace

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.inference.batching.loops import latency_bound_point
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.inference.estimates.shared_searches import shared_search
from app.scoring.inference.step.context import InferenceContext, build_context

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100 = GPUS["H100-SXM"]


def _ctx(gpu_id: str) -> InferenceContext:
    return build_context(replace(H100, id=gpu_id), MODELS["llama-3.1-70b"], "fp8", "fp8", "vllm", 2)


def test_equal_contexts_share_one_search_and_others_search_again() -> None:
    calls: list[InferenceContext] = []

    def counted(
        ctx: InferenceContext, eff: InferenceEfficiency, cap: int, limits: tuple[float, float, float, float]
    ) -> tuple[int, OperatingPoint | None]:
        calls.append(ctx)
        return latency_bound_point(ctx, eff, cap, limits)

    limits = (2_017.0, 400.0, 1_000.0, 50.0)  # an input length of this test's own, so no other test's answer serves
    first, second = _ctx("h100-shared-a"), _ctx("h100-shared-b")
    assert first is not second and first == second
    answer = shared_search(counted, first, DEFAULT_EFFICIENCY, 256, limits)
    assert shared_search(counted, second, DEFAULT_EFFICIENCY, 256, limits) is answer
    assert len(calls) == 1
    assert answer[0] > 1  # a real search: the batch the limits allow
    assert answer == latency_bound_point(second, DEFAULT_EFFICIENCY, 256, limits)

    shared_search(counted, first, replace(DEFAULT_EFFICIENCY), 256, limits)  # an equal but other efficiency object
    shared_search(counted, first, DEFAULT_EFFICIENCY, 256, (2_018.0, *limits[1:]))  # another workload
    assert len(calls) == 3
