"""operating_point writes out the prefill queue's utilisation (queueing.prefill_utilisation) and builds its point by
position: a search times a few hundred points a ranking. Every continuous-batching point, on every kind of layout,
load and length, equals the point as it was built (the function as it was, kept here as the reference)."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, InferenceEfficiency
from app.scoring.inference.batching.operating_points import (
    OperatingPoint,
    _decode_only,
    _moe_host_ms,
    first_prefill_ms,
    operating_point,
)
from app.scoring.inference.batching.queueing import (
    MAX_UTILISATION,
    batched_pass_ms,
    loaded_ttft_ms,
    md1_wait_ms,
    prefill_utilisation,
    request_life_ms,
    running_steps_wait_ms,
)
from app.scoring.inference.step.context import InferenceContext, build_context
from app.scoring.inference.step.pass_rates import pass_rates
from app.scoring.inference.step.prefill import prefill_parts
from app.scoring.inference.step.steps import mixed_step_parts, one_prompt_batch, prompts_per_step

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def continuous_point_as_it_was(
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    scenario: str,
    batch: float,
    input_len: float,
    output_len: float,
    beam_width: int,
    keep_decode_only: bool,
) -> OperatingPoint:
    prefill_one = prefill_parts(ctx, eff, 1, input_len)
    first_ms = first_prefill_ms(ctx, eff, input_len, prefill_one)
    closed = scenario == "concurrency"
    step = mixed_step_parts(ctx, eff, batch, input_len, output_len, beam_width, others_only=closed)
    step_ms, service_ms = step.total_ms, prefill_one.total_ms
    others = max(batch - 1.0, 0.0) if closed else batch
    decode_only = step if closed and batch <= 1 else _decode_only(ctx, eff, batch, input_len, output_len, beam_width)
    prompts = prompts_per_step(ctx, batch, output_len, closed)
    batched_ms = 0.0
    if prompts > 1.0 and pass_rates(ctx, eff).moe_prefill_ms > 0:
        at = one_prompt_batch(ctx, output_len, closed)
        at_step = mixed_step_parts(ctx, eff, at, input_len, output_len, beam_width, others_only=closed)
        at_decode = _decode_only(ctx, eff, at, input_len, output_len, beam_width)
        share = prefill_utilisation(at_step.total_ms, at_decode.total_ms, at, service_ms, first_ms, output_len)
        batched_ms = batched_pass_ms(step_ms - decode_only.total_ms, _moe_host_ms(step), prompts)
    else:
        share = prefill_utilisation(step_ms, decode_only.total_ms, batch, service_ms, first_ms, output_len)
    queue_ms = md1_wait_ms(service_ms, share)
    wait_ms = running_steps_wait_ms(step_ms * step.tokens_per_step, others, eff, ctx.engine)
    ttft = loaded_ttft_ms(first_ms, queue_ms, wait_ms, batched_ms)
    if closed:
        tokens_per_s = batch * output_len / request_life_ms(ttft, step_ms, output_len) * 1e3
        tokens_per_s = min(tokens_per_s, batch / step_ms * 1e3)
    else:
        tokens_per_s = batch / step_ms * 1e3
    return OperatingPoint(
        batch,
        ttft,
        step_ms,
        tokens_per_s,
        step,
        prefill_one,
        prefill_queue_ms=queue_ms,
        prefill_utilisation=min(share, MAX_UTILISATION),
        poisson_arrivals=scenario == "latency_bound",
        first_prefill_ms=first_ms,
        step_wait_ms=wait_ms,
        batched_prefill_ms=batched_ms,
        pass_prompts=max(prompts, 1.0) if batched_ms else 1.0,
        decode_only=decode_only if batch == 1 or keep_decode_only else None,
    )


# running batches (an open loop's trickle to thousands), (input, output) lengths (one output token: a request's life is
# its TTFT), beams; engines that mix prompts into decode steps or prefill first (SGLang), and a compiled one
BATCHES = (1e-6, 0.4, 1.0, 2.5, 37.0, 1_024.0)
LENGTHS = ((2_000.0, 256.0), (128.0, 1.0), (16_000.0, 2_000.0))


def test_every_continuous_point_is_the_point_built_as_it_was() -> None:
    checked, batched, closed_loops = 0, 0, 0
    for gpu_id, model_id, engine, (tp, pp) in itertools.product(
        ("H100-SXM", "L4", "MI300X"),
        ("llama-3.1-8b", "llama-3.1-70b", "deepseek-r1", "qwen3-30b-a3b", "gemma-3-4b"),
        ("vllm", "sglang", "trtllm"),
        ((1, 1), (8, 1), (4, 2)),
    ):
        ctx = build_context(GPUS[gpu_id], MODELS[model_id], "fp8", "fp8", engine, tp, pp)
        for scenario, batch, (input_len, output_len), beams, keep in itertools.product(
            ("concurrency", "latency_bound", "max_throughput"), BATCHES, LENGTHS, (1, 4), (False, True)
        ):
            args = (ctx, DEFAULT_EFFICIENCY, scenario, batch, input_len, output_len, beams)
            point = operating_point(*args, keep_decode_only=keep)
            assert repr(point) == repr(continuous_point_as_it_was(*args, keep)), (gpu_id, model_id, engine, tp, pp)
            checked += 1
            batched += point.batched_prefill_ms > 0
            closed_loops += scenario == "concurrency" and point.prefill_queue_ms > 0
    assert checked > 10_000 and batched > 100 and closed_loops > 100
