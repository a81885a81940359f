"""An MoE model's open-loop TTFT never falls as the request rate rises (found by smooth7: DeepSeek-R1 on 8xH200 went
663 -> 589 ms from 4.5 to 7.6 requests/s). Above one prompt a step the step pays the eager MoE prefill host time once
(mixed_step_parts' cap), so the prompts' share of the step fell with the batch and the M/D/1 wait with it; now the
prompts share a pass (bulk service, queueing.batched_pass_ms): the queue stays at its utilisation where a step carries
one prompt and the pass grows by the others' work. Below one prompt a step nothing moves."""

from __future__ import annotations

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.batching.operating_points import operating_point
from app.scoring.inference.batching.queueing import md1_wait_ms, prefill_utilisation
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.step.steps import decode_parts, mixed_step_parts, one_prompt_batch
from app.scoring.workload import InferenceWorkload
from benchmarks import smoothness_sweep as sweep

GPUS, MODELS = load_gpu_specs(), load_model_specs()
RATE_AXIS = next(axis for axis in sweep.AXES if axis.name == "requests_per_s")
DEEPSEEK = [q for q in sweep.QUESTIONS if q.model_id == "deepseek-r1"]


@pytest.mark.parametrize("question", DEEPSEEK, ids=lambda q: q.label)
def test_deepseek_open_loop_ttft_never_falls_as_the_rate_rises(question: sweep.Question) -> None:
    points = [p for p in sweep.sweep(question, RATE_AXIS, sweep.as_the_api, GPUS, MODELS) if p.feasible]
    above_one_prompt = [p for p in points if p.batch > 1_000]  # 1,000 output tokens: one prompt a step
    assert len(above_one_prompt) >= 4  # the rates smooth7 found falling are in the grid
    for low, high in zip(points, points[1:], strict=False):
        assert high.ttft_ms * sweep.SLACK >= low.ttft_ms, (low.value, low.ttft_ms, high.value, high.ttft_ms)


def _solved(model: str, **fields: object) -> Solution:
    workload = InferenceWorkload(model=model, scenario="request_rate", requests_per_s=1, **fields)  # type: ignore[arg-type]
    solved = solve_inference(GPUS["H200"], 8, MODELS[model], workload, 8, 1)
    assert isinstance(solved, Solution)
    return solved


def test_the_shared_pass_starts_at_one_prompt_a_step_continuously_and_grows():
    solved = _solved("deepseek-r1", weight_dtype="fp8", engine="sglang")
    ctx, eff, w = solved.ctx, solved.efficiency, solved.workload
    at = one_prompt_batch(ctx, w.output_len)

    def point(batch: float):  # type: ignore[no-untyped-def]
        return operating_point(ctx, eff, "request_rate", batch, w.input_len, w.output_len)

    below, just_above, above, far = point(at * (1 - 1e-9)), point(at * (1 + 1e-9)), point(1.5 * at), point(2 * at)
    assert below.batched_prefill_ms == 0 and just_above.batched_prefill_ms < 1e-6
    assert just_above.ttft_ms == pytest.approx(below.ttft_ms, rel=1e-6)
    # the queue's utilisation is held where the step carries one prompt; the prompts' shared pass grows from 0
    assert above.prefill_utilisation == far.prefill_utilisation == pytest.approx(below.prefill_utilisation, rel=1e-6)
    assert 0 < above.batched_prefill_ms < far.batched_prefill_ms and above.pass_prompts == pytest.approx(1.5)
    assert below.ttft_ms < above.ttft_ms < far.ttft_ms
    # its own prefill is what is left of the TTFT without the waits (the p99's scaling reads it)
    assert far.own_prefill_ms == pytest.approx(far.first_prefill_ms, rel=1e-9)


def test_below_one_prompt_a_step_the_queue_is_the_steps_prompt_share_as_before():
    solved = _solved("deepseek-r1", weight_dtype="fp8", engine="sglang")
    ctx, eff, w = solved.ctx, solved.efficiency, solved.workload
    batch = 0.8 * one_prompt_batch(ctx, w.output_len)
    p = operating_point(ctx, eff, "request_rate", batch, w.input_len, w.output_len)
    mixed = mixed_step_parts(ctx, eff, batch, w.input_len, w.output_len).total_ms
    alone = decode_parts(ctx, eff, batch, w.input_len + w.output_len / 2).total_ms
    assert p.batched_prefill_ms == 0 and p.pass_prompts == 1
    rho = prefill_utilisation(mixed, alone, batch, p.prefill.total_ms, p.first_prefill_ms, w.output_len)
    assert p.prefill_utilisation == rho and p.prefill_queue_ms == md1_wait_ms(p.prefill.total_ms, rho)


def test_a_dense_model_pays_no_moe_host_time_and_keeps_its_queue():
    solved = _solved("llama-3.1-70b", weight_dtype="fp8")
    ctx, eff, w = solved.ctx, solved.efficiency, solved.workload
    p = operating_point(ctx, eff, "request_rate", 3 * one_prompt_batch(ctx, w.output_len), w.input_len, w.output_len)
    assert p.batched_prefill_ms == 0 and p.prefill_queue_ms > 0
