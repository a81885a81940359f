"""Host time of one forward pass: launch and sync per step and layer, scheduling and sampling per running
sequence, and the per-MoE-layer host time of an eager prefill in a PyTorch engine."""

from __future__ import annotations

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext


def overhead_ms(ctx: InferenceContext, eff: InferenceEfficiency, sequences: float = 1.0) -> float:
    """Launch/sync per step and layer, plus per-sequence scheduling and sampling work on the host."""
    return (
        eff.step_overhead_ms
        + ctx.layers_per_stage * eff.layer_overhead_ms
        + sequences * per_sequence_overhead_ms(ctx, eff)
    )


def per_sequence_overhead_ms(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Host time per running sequence per step: more in vLLM, whose scheduler, sampler and detokeniser run in
    Python on the step's critical path."""
    return eff.seq_overhead_ms + (eff.vllm_seq_overhead_ms if ctx.engine == "vllm" else 0.0)


def moe_prefill_ms(ctx: InferenceContext, eff: InferenceEfficiency) -> float:
    """Host time of one prefill pass through an MoE model's layers in a PyTorch engine (vLLM, SGLang, ...):
    prefill runs eagerly, without CUDA graphs, so each MoE layer's routing, token permutation and grouped-GEMM
    launches are paid per pass (BLIS trained physics on vLLM: +482 us per MoE layer; SGLang DeepSeek-R1 TTFT
    180-200 ms flat from 128 to 4k input tokens). llama.cpp and TensorRT-LLM's TensorRT engine flow
    (compiled_prefill) do not pay it (TRT-LLM Mixtral TP2 on A100: 24 ms to the first token of a 128-token prompt);
    TensorRT-LLM's PyTorch backend, its default since 1.0, does."""
    if not ctx.moe or ctx.compiled_prefill:
        return 0.0
    return ctx.moe_layers_per_stage * eff.moe_prefill_layer_ms
