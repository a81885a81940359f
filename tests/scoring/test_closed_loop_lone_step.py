"""A closed loop at a running batch <= 1 carries no other request's prompt, so its mixed step is its decodes alone:
operating_point keeps that one step as the decode-only step instead of timing it twice. The shortcut is exact only
while mixed_step_parts passes decode_parts the very arguments the decode-only call does, zeros for every prefill
one; this checks it field by field, across the context kinds (found by speed8)."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.steps import decode_parts, mixed_step_parts
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
CASES = [  # (GPU, count, TP, PP, fabric GB/s, workload): dense, MoE with EP, data-parallel MLA, speculative, 2 nodes
    ("H100-SXM", 1, 1, 1, 0.0, {"model": "llama-3.1-8b"}),
    ("H100-SXM", 8, 8, 1, 0.0, {"model": "qwen3-30b-a3b", "expert_parallel": "ep"}),
    ("H200", 8, 8, 1, 0.0, {"model": "deepseek-r1", "weight_dtype": "fp8", "attention_parallel": "dp"}),
    ("H100-SXM", 2, 2, 1, 0.0, {"model": "llama-3.1-70b", "weight_dtype": "fp8", "spec_acceptance": 0.7}),
    ("H100-SXM", 16, 8, 2, 50.0, {"model": "llama-3.1-405b", "weight_dtype": "fp8", "beam_width": 2}),
]


@pytest.mark.parametrize(("gpu", "count", "tp", "pp", "fabric", "fields"), CASES)
def test_a_closed_loops_step_at_batch_one_or_less_is_its_decode_only_step(gpu, count, tp, pp, fabric, fields):
    workload = InferenceWorkload(scenario="concurrency", concurrency=1, **fields)
    solved = solve_inference(GPUS[gpu], count, MODELS[fields["model"]], workload, tp, pp, fabric_gbs=fabric)
    assert isinstance(solved, Solution)
    ctx, eff, w = solved.ctx, solved.efficiency, workload
    lengths = (w.input_len, w.output_len, w.beam_width)
    for batch in (1e-6, 0.37, 1, 1.0):
        mixed = mixed_step_parts(ctx, eff, batch, *lengths, others_only=True)
        alone = decode_parts(ctx, eff, max(batch, 1.0) * w.beam_width, w.input_len + w.output_len / 2)
        assert mixed == alone, batch
        point = operating_point(ctx, eff, "concurrency", batch, *lengths)
        assert point.step == alone and point.prefill_utilisation == 0.0 and point.prefill_queue_ms == 0.0
    assert mixed_step_parts(ctx, eff, 1.5, *lengths, others_only=True) != decode_parts(
        ctx, eff, 1.5 * w.beam_width, w.input_len + w.output_len / 2
    )  # above one, the others' prompts ride in the step
