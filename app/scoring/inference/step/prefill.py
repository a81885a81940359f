"""A prompt's prefill: every prompt of a pass together (prefill_parts), the pass a first token waits for under
pipeline parallelism (prompt_stage_pass: whole prompts in micro-batches, one stage at a time) and the latency that
gives (prefill_latency_ms). Built on steps.forward_parts; continuous batching's mixed step is steps.mixed_step_parts.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext
from app.scoring.inference.step.steps import StepParts, forward_parts, prefill_attention_flops


def prefill_parts(ctx: InferenceContext, eff: InferenceEfficiency, requests: float, input_len: float) -> StepParts:
    """Prefill of `requests` prompts together (no decoding sequences in the pass)."""
    tokens = requests * input_len * ctx.techniques.uncached_share
    attention = prefill_attention_flops(ctx, requests, input_len)
    return forward_parts(ctx, eff, 0.0, 0.0, tokens, attention, prefill_passes=1.0, prefill_requests=requests)


def prompt_stage_pass(
    ctx: InferenceContext, eff: InferenceEfficiency, prompts: float, input_len: float
) -> tuple[StepParts, float]:
    """The pass a first token waits for, as one pipeline stage runs it, and the micro-batches m it comes in. Without
    PP, prefill_parts (the one stage holds every layer) and m = 1. With PP a request sits in one micro-batch at a time
    (vLLM, TensorRT-LLM): the prompts split into m = min(prompts, stages) micro-batches of whole prompts, and the pass
    is one stage's layers over one micro-batch (its total_ms is `stages` of them, as every StepParts of PP)."""
    pp = ctx.pipeline_parallel
    if pp == 1:
        return prefill_parts(ctx, eff, prompts, input_len), 1.0
    batches = min(max(prompts, 1.0), float(pp))
    per_batch = prompts / batches
    tokens = per_batch * input_len * ctx.techniques.uncached_share
    attention = prefill_attention_flops(ctx, per_batch, input_len)
    # forward_parts splits what it is given into one micro-batch per stage: given `pp` micro-batches' worth, each
    # stage carries one micro-batch of `per_batch` whole prompts, and total_ms is `pp` stage times
    stage = forward_parts(
        ctx, eff, 0.0, 0.0, tokens * pp, attention * pp, prefill_passes=1.0, prefill_requests=per_batch
    )
    return stage, batches


def prefill_latency_ms(ctx: InferenceContext, eff: InferenceEfficiency, prompts: float, input_len: float) -> float:
    """Time from a prefill pass's start to its last prompt's first token. Without PP, prefill_parts' total. With
    PP the m micro-batches of prompt_stage_pass run the stages in turn: (m + stages - 1) stage times, where
    prefill_parts (the throughput view, every stage kept busy) is `stages` of them. A lone prompt takes every
    stage's time in turn: PP divides its layers, not its latency."""
    pp = ctx.pipeline_parallel
    stage, batches = prompt_stage_pass(ctx, eff, prompts, input_len)
    if pp == 1:
        return stage.total_ms
    return stage.total_ms / pp * (batches + pp - 1)
