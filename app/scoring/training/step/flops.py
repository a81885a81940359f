"""Training FLOPs per token, in the model-FLOPs convention MFU is quoted in (model_flops_per_token) and as the GPUs
execute them (executed_flops_per_token: recomputation, expert padding, the causal half of attention).

Formulas: shared/research/training_estimators.md §1.1, §6.2. Pure functions.
"""

from __future__ import annotations

from app.scoring.efficiency.training import TrainingEfficiency
from app.scoring.specs import ModelSpec
from app.scoring.training.layouts.memory import layer_mean_ffn_width
from app.scoring.training.step.frameworks import FRAMEWORK_CLASS

# Executed share of the score/AV FLOPs under a causal mask: flash attention skips the masked upper triangle
# (FlashAttention-2 paper §4: causal FLOPs are half the full count). Model-FLOPs conventions (MFU) keep 12·L·h·s.
CAUSAL_SHARE = 0.5


def value_head_dim(model: ModelSpec) -> int:
    """Width of one head's values. MLA's query/key heads are qk_nope + qk_rope wide (the catalog's head_dim, 192 on
    DeepSeek-V3) and its values qk_nope (128): v_head_dim = qk_nope_head_dim in the DeepSeek-V2/V3 and Kimi-K2
    configs, and hf_config's default where a config omits it. Other attention: head_dim."""
    if model.attention == "mla" and 0 < model.qk_rope_head_dim < model.head_dim:
        return model.head_dim - model.qk_rope_head_dim
    return model.head_dim


def attention_flops_per_token(model: ModelSpec, seq_len: int) -> float:
    """Score (QK^T, head_dim wide) and AV (value_head_dim wide) matmuls, fwd + bwd: 6 × layers × heads × (head_dim +
    value width) × seq_len; 12 × layers × (heads × head_dim) × seq_len where the two match (PaLM/LLM Foundry)."""
    width = model.head_dim + value_head_dim(model)
    return 6.0 * model.layers * model.num_attention_heads * width * seq_len


def dense_flops_per_token(model: ModelSpec, method: str) -> float:
    """k × active params: k = 6 for pretrain/full FT, 4 for LoRA/QLoRA (no weight gradients)."""
    k = 4.0 if method in ("lora", "qlora") else 6.0
    return k * model.active_params_b * 1e9


def routed_expert_params(model: ModelSpec) -> float:
    """Routed-expert weights one token passes through: MoE layers × top-k × 3 matrices × hidden × expert width
    (SwiGLU experts; DeepSeek-V3's first 3 dense layers and Llama 4 Maverick's every other are not MoE layers),
    at most the active parameters."""
    if not model.is_moe:
        return 0.0
    routed = model.moe_layers * model.experts_per_token * 3.0 * model.hidden_size * model.moe_intermediate_size
    return min(routed, model.active_params_b * 1e9)


def op_sac_recomputed_share(model: ModelSpec) -> float:
    """Share of a block's matmul weights that torchtitan's op-level SAC runs again in the backward pass.

    Its policy saves the output of every compute op except every second matmul of a block (torchtitan
    `_apply_ac_to_transformer_block`, mode "selective", option "op"): in call order q, k, v, o, gate, up, down
    that is k, o and the FFN's second projection (Llama-3-8B: 0.37 of the block's weights). Routed experts
    count as one FFN of top-k × their width on the MoE layers, a dense layer's as its own, averaged over the layers
    (an approximation: no torchtitan MoE row is in the validation file).
    """
    h, attention = model.hidden_size, model.num_attention_heads * model.head_dim
    width = layer_mean_ffn_width(model, model.experts_per_token * model.moe_intermediate_size)
    q = o = h * attention
    kv = h * model.num_kv_heads * model.head_dim
    ffn = h * width  # one of the three SwiGLU matrices
    return (kv + o + ffn) / (q + 2 * kv + o + 3 * ffn)


def recompute_flops_per_param(
    e: TrainingEfficiency, model: ModelSpec, recompute: str, framework: str, recomputed_share: float = 1.0
) -> float:
    """FLOPs per active parameter per token that recomputation adds: full runs the forward again (2 × N), partial
    on its recomputed layers only (2 × N × their share of the layers); Megatron-style selective recomputes the
    attention core only (~0.2 N, research §6.2); torchtitan's selective is op-level SAC, every second matmul of a
    block run again (2 × its share of N)."""
    if recompute == "full":
        return e.full_recompute_flops_per_param
    if recompute == "partial":
        return e.full_recompute_flops_per_param * recomputed_share
    if recompute != "selective":
        return 0.0
    if FRAMEWORK_CLASS.get(framework) == "torchtitan":
        return 2.0 * op_sac_recomputed_share(model)
    return e.selective_recompute_flops_per_param


def model_flops_per_token(model: ModelSpec, method: str, seq_len: int) -> float:
    return dense_flops_per_token(model, method) + attention_flops_per_token(model, seq_len)


def executed_flops_per_token(
    e: TrainingEfficiency,
    model: ModelSpec,
    method: str,
    seq_len: int,
    recompute: str,
    attention_span: int | None = None,
    capacity_factor: float = 1.0,
    framework: str = "auto",
    recomputed_share: float = 1.0,
) -> tuple[float, float]:
    """(matmul, attention) FLOPs a token costs as executed, which the compute phase is timed on: k × active params
    plus expert padding and recompute; the score/AV matmuls at their causal share (flash attention skips the masked
    half), a third more under full recompute (that third times the recomputed layers' share under partial). Model
    FLOPs (model_flops_per_token, the MFU convention) differ: no recompute, attention in full."""
    n_active = model.active_params_b * 1e9
    extra = recompute_flops_per_param(e, model, recompute, framework, recomputed_share)
    padded = max(0.0, capacity_factor - 1.0) * routed_expert_params(model)
    k = 4.0 if method in ("lora", "qlora") else 6.0
    dense = dense_flops_per_token(model, method) + k * padded + extra * (n_active + padded)
    span = min(seq_len, attention_span) if attention_span else seq_len
    attn = attention_flops_per_token(model, span) * _attention_passes(recompute, recomputed_share) * CAUSAL_SHARE
    return dense, attn


def _attention_passes(recompute: str, recomputed_share: float) -> float:
    """Attention FLOPs relative to forward + backward: a third more for the recomputed forward (full recompute), on
    the recomputed layers' share of them (partial)."""
    if recompute == "partial":
        return 1.0 + recomputed_share / 3
    return 4 / 3 if recompute == "full" else 1.0
