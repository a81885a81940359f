"""Trainable LoRA parameters as PEFT's target_modules="all-linear" adapts a model: rank × (d_in + d_out) on every
nn.Linear but the output head (peft 0.21.2, tuners_utils `_maybe_include_all_linear_layers`), following the model's
own module layout: MLA's five projections, and no adapters on experts (or a router) held as parameter tensors.

Transformers 4.x holds the experts and router of Mixtral, Qwen2/3-MoE and DeepSeek-V3 as nn.Linear; transformers 5
fuses the experts into 3-D parameters, and peft maps all-linear back onto them for these families, one rank-r adapter
per expert (peft `transformers_weight_conversion` `_convert_peft_config_moe` over transformers 5.25
`conversion_mapping`; `lora.ParamWrapper`: A in × r·E, B r·E × out). There gate and up share one fused adapter of rank
2r whose B spans both outputs: r × 2 × expert width more per expert than counted here (Qwen3-30B-A3B: 18 % more on the
experts). Unsloth's default targets (q/k/v/o/gate/up/down_proj) add the experts (`get_moe_target_parameters`, unsloth
2026.10.9) but not the router (r × (hidden + experts) a layer: 0.1 % of DeepSeek-V3's adapters). gpt-oss and Llama 4
hold their routed experts as parameter tensors that all-linear does not map, so PEFT leaves them frozen
(ModelSpec.experts_fused; app.scoring.hf_config.fused_experts says which modules each keeps as nn.Linear).
"""

from __future__ import annotations

from functools import lru_cache

from app.scoring.efficiency import training as eff
from app.scoring.explain import fixed
from app.scoring.specs import ModelSpec

# Adapter counts by (model, rank, targets): a training ranking's layout searches and memory breakdowns read the count
# ~300 times for its one model and rank (found by speed26).
_ADAPTER_PARAMS_CACHE_SIZE = 1024


def lora_adapter_params(model: ModelSpec, rank: int) -> float:
    """Trainable LoRA parameters: attention on every layer (attention_adapter_width), the gated MLP on the dense
    layers, and on a MoE layer what moe_layer_adapter_width counts."""
    return _adapter_params(model, rank, eff.LORA_TARGETS_ALL_LINEAR)


@lru_cache(maxsize=_ADAPTER_PARAMS_CACHE_SIZE)
def _adapter_params(model: ModelSpec, rank: int, all_linear: bool) -> float:
    """lora_adapter_params, `all_linear`: the targets (eff.LORA_TARGETS_ALL_LINEAR), read by the caller."""
    attention = attention_adapter_width(model)
    if not all_linear:
        return float(rank * attention * model.layers)
    dense_mlp = 3 * (model.hidden_size + model.intermediate_size)
    ffn = model.dense_ffn_layers * dense_mlp + model.moe_layers * moe_layer_adapter_width(model)
    return float(rank * (attention * model.layers + ffn))


def attention_adapter_width(model: ModelSpec) -> int:
    """Σ (d_in + d_out) over one layer's attention projections: q, k, v, o at heads × head_dim, or MLA's where its
    sizes are known (mla_adapter_width; an MLA model without them is counted the GQA way, as before they were read)."""
    if model.mla_projections_known:
        return mla_adapter_width(model)
    h = model.hidden_size
    q_out = model.num_attention_heads * model.head_dim
    kv_out = model.num_kv_heads * model.head_dim
    return (h + q_out) + 2 * (h + kv_out) + (q_out + h)


def mla_adapter_width(model: ModelSpec) -> int:
    """MLA's projections (transformers DeepseekV3Attention): q_a_proj hidden → q_lora_rank and q_b_proj → heads ×
    (qk_nope + qk_rope), or one q_proj hidden → heads × (qk_nope + qk_rope) where q_lora_rank is 0 (DeepSeek-V2-Lite);
    kv_a_proj_with_mqa hidden → kv_lora_rank + qk_rope; kv_b_proj kv_lora_rank → heads × (qk_nope + v); o_proj
    heads × v → hidden. DeepSeek-V3: 99,392 a layer, where heads × head_dim would count 126,976 (28 % more)."""
    h, heads, q_rank, kv_rank = model.hidden_size, model.num_attention_heads, model.q_lora_rank, model.kv_lora_rank
    q_out = heads * (model.qk_nope_head_dim + model.qk_rope_head_dim)
    query = (h + q_rank) + (q_rank + q_out) if q_rank else h + q_out
    kv_a = h + kv_rank + model.qk_rope_head_dim
    kv_b = kv_rank + heads * (model.qk_nope_head_dim + model.v_head_dim)
    out = heads * model.v_head_dim + h
    return query + kv_a + kv_b + out


def moe_layer_adapter_width(model: ModelSpec) -> int:
    """Σ (d_in + d_out) over the linear layers of one MoE layer's FFN that all-linear adapts: every routed expert's
    gate, up and down projections (each expert its own rank-r pair) unless the experts are fused parameters, the shared
    experts' (one MLP of num_shared × expert width, as DeepSeek-V3 and Llama 4 build it) and the router's hidden →
    experts unless it too is a bare parameter (gpt-oss)."""
    h = model.hidden_size
    expert_width = model.moe_intermediate_size or model.intermediate_size
    routed = 0 if model.experts_fused else model.num_experts * 3 * (h + expert_width)
    shared = 3 * (h + model.num_shared_experts * expert_width) if model.num_shared_experts else 0
    router = 0 if model.router_fused else h + model.num_experts
    return routed + shared + router


def lora_note(model: ModelSpec, rank: int) -> str:
    """Which weights a LoRA run adapts on this model, and how many parameters that trains."""
    trained = f"{fixed(lora_adapter_params(model, rank) / 1e6, 1)} M trainable parameters"
    if not model.is_moe and not model.mla_projections_known:
        return f"LoRA rank {rank} on all linear layers ({trained}); FLOPs 4 × params per token"
    flops = "FLOPs 4 × active params per token" if model.is_moe else "FLOPs 4 × params per token"
    adapted = _joined(_adapted_parts(model))
    if not model.is_moe:
        return f"LoRA rank {rank} on all linear layers: {adapted} ({trained}); {flops}"
    if model.experts_fused:
        frozen = "its routed experts and router are" if model.router_fused else "its routed experts are"
        return (
            f"LoRA rank {rank} on all linear layers: {adapted} ({trained}); {frozen} parameter tensors, not nn.Linear, "
            f"so PEFT's all-linear leaves them frozen; {flops}"
        )
    return (
        f"LoRA rank {rank} on all linear layers, a MoE's included: {adapted} ({trained}), as PEFT's all-linear adapts "
        "them (Unsloth's default adapts the experts too); transformers 5's fused gate/up adapter (rank 2r) trains up "
        f"to a fifth more on the experts; {flops}"
    )


def _adapted_parts(model: ModelSpec) -> list[str]:
    if model.mla_projections_known:
        query = "q_a/q_b" if model.q_lora_rank else "q"
        parts = [f"MLA's {query}, kv_a/kv_b and o projections"]
    else:
        parts = ["attention"]
    if model.dense_ffn_layers and model.is_moe:
        layers = "dense layer's" if model.dense_ffn_layers == 1 else "dense layers'"
        parts.append(f"the {model.dense_ffn_layers} {layers} MLP")
    elif model.dense_ffn_layers:
        parts.append("the MLP")
    if model.is_moe and not model.experts_fused:
        parts.append("every routed expert's gate/up/down (each expert its own adapters)")
    if model.num_shared_experts:
        parts.append("the shared expert" if model.num_shared_experts == 1 else "the shared experts")
    if model.is_moe and not model.router_fused:
        parts.append("the router")
    if len(parts) == 1:
        parts[0] += " only"
    return parts


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
