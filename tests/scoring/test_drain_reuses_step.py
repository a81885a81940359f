"""A batch job's drain starts from the decode-only step its operating point timed (keep_decode_only) instead of
timing it again: the same call, so the same float, on plain, speculative and beam-search jobs (found by speed8)."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.batching.batch_job import full_drain_s
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.steps import decode_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


@pytest.mark.parametrize(
    "fields",
    [
        {"model": "llama-3.1-8b"},
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "spec_acceptance": 0.7},
        {"model": "qwen3-30b-a3b", "beam_width": 3},
    ],
)
def test_a_jobs_drain_from_its_points_step_is_the_drain_timed_afresh(fields):
    workload = InferenceWorkload(scenario="max_throughput", job_requests=500_000, **fields)
    solved = solve_inference(GPUS["H100-SXM"], 2, MODELS[fields["model"]], workload)
    assert isinstance(solved, Solution)
    ctx, eff, w = solved.ctx, solved.efficiency, workload
    lengths = (w.input_len, w.output_len, w.beam_width)
    batch = solved.batch
    point = operating_point(ctx, eff, "max_throughput", batch, *lengths, keep_decode_only=True)
    assert point.decode_only == decode_parts(ctx, eff, batch * w.beam_width, w.input_len + w.output_len / 2)
    assert full_drain_s(ctx, eff, batch, *lengths, point) == full_drain_s(ctx, eff, batch, *lengths)
    # a point at another batch lends nothing: the drain at `batch` is timed afresh
    other = operating_point(ctx, eff, "max_throughput", batch + 1, *lengths, keep_decode_only=True)
    assert full_drain_s(ctx, eff, batch, *lengths, other) == full_drain_s(ctx, eff, batch, *lengths)
    assert operating_point(ctx, eff, "max_throughput", batch, *lengths).decode_only is None  # held only when asked
