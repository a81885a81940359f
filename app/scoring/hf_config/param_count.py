"""A pasted Hugging Face config.json's architecture (a dict read key by key) and its parameter counts.

Pure: no I/O, no network. Reads the key names of the common decoder-only families (Llama, Mistral,
Qwen2/Qwen3, Mixtral, Qwen2/3-MoE, DeepSeek-V2/V3 with MLA, gpt-oss, GPT-J, Falcon, OPT-style
`d_model`/`ffn_dim`) and counts weights the way the checkpoints store them:

- token embedding, plus an lm_head of the same size unless the embeddings are tied;
- attention: q/k/v/o projections with grouped KV heads (GQA/MQA), or MLA's low-rank q/kv projections
  and their norms; biases where the family has them;
- MLP: gated (gate, up, down = 3 matrices) for SwiGLU families, 2 matrices for GPT-J/Falcon/OPT-style;
- MoE layers: every routed expert, shared experts, the router; dense first layers
  (`first_k_dense_replace`), `mlp_only_layers` / `decoder_sparse_step` / `moe_layer_freq` schedules;
- norms (RMSNorm weight, or LayerNorm weight + bias).

It also keeps what a LoRA run adapts: MLA's q_lora_rank / qk_nope_head_dim / v_head_dim, and experts held as fused
parameters that PEFT's all-linear leaves frozen, by model_type (gpt_oss, llama4: app.scoring.hf_config.fused_experts).

Active parameters per token count the experts actually routed to (`num_experts_per_tok`) plus
everything dense, embeddings and lm_head included (the convention of the Mixtral 12.9B and
DeepSeek-V3 37B figures). Multi-token-prediction modules (DeepSeek's MTP) are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.scoring.hf_config import keys

# Families whose MLP is not gated (fc_in/fc_out) and that use LayerNorm with a bias.
_NON_GATED = {"gptj", "gpt2", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "opt", "bloom", "mpt"}
# Families whose attention and MLP share one input norm (parallel residual).
_PARALLEL = {"gptj"}
# Families whose transformers config defaults tie_word_embeddings to True (their configuration_*.py; Gemma's and
# Cohere's config.json files on the Hub leave the key out and rely on it).
_TIED_BY_DEFAULT = {
    "gpt2", "falcon", "RefinedWeb", "RefinedWebModel", "opt", "bloom",
    "gemma", "gemma2", "gemma3", "gemma3_text", "cohere", "cohere2",
}  # fmt: skip
# Families with a bias on the q/k/v projections even though config.json does not say so.
_QKV_BIAS = {"qwen2", "qwen2_moe"}
# Families with per-head RMSNorm on q and k.
_QK_NORM = {"qwen3", "qwen3_moe"}


def _mlp(hidden: int, inner: int, gated: bool, bias: bool) -> int:
    if gated:
        return 3 * hidden * inner + (2 * inner + hidden if bias else 0)
    return 2 * hidden * inner + (inner + hidden if bias else 0)


@dataclass(frozen=True, slots=True)
class _Dims:
    """The dense shape every family has."""

    model_type: str
    gated: bool
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate: int | None  # None: a MoE config that only gives moe_intermediate_size


@dataclass(frozen=True, slots=True)
class _Experts:
    count: int = 0
    per_token: int = 0
    inner: int = 0
    shared_count: int = 0
    shared_inner: int = 0


@dataclass(frozen=True, slots=True)
class _Attention:
    params: int
    kind: str
    head_dim: int
    kv_heads: int
    kv_lora: int = 0
    rope_dim: int = 0
    q_lora: int = 0
    nope_dim: int = 0
    v_dim: int = 0


def unwrap(config: Any) -> dict[str, Any]:
    if not isinstance(config, dict):
        raise ValueError("hf_config: expected a JSON object (dict)")
    text = config.get("text_config")
    if isinstance(text, dict) and not any(k in config for k in keys.HIDDEN):
        return {**config, **text}  # multimodal wrappers keep the LM under text_config
    return config


def read_dims(config: dict[str, Any]) -> _Dims:
    model_type = str(config.get("model_type", ""))
    gated = model_type not in _NON_GATED
    hidden = keys.need(config, keys.HIDDEN)
    layers = keys.need(config, keys.LAYERS)
    heads = keys.need(config, keys.HEADS)
    vocab = keys.need(config, ("vocab_size",))
    kv_heads = keys.pick(config, keys.KV_HEADS, required=False)
    if kv_heads is None:
        kv_heads = 1 if config.get("multi_query") else heads
    if kv_heads > heads:
        raise ValueError(f"hf_config: 'num_key_value_heads' ({kv_heads}) exceeds 'num_attention_heads' ({heads})")
    if heads % kv_heads:
        raise ValueError(
            f"hf_config: 'num_key_value_heads' ({kv_heads}) does not divide 'num_attention_heads' ({heads})"
        )
    head_dim = keys.pick(config, ("head_dim",), required=False)
    if head_dim is None:
        if hidden % heads:
            raise ValueError(
                f"hf_config: 'hidden_size' ({hidden:,}) is not divisible by 'num_attention_heads' "
                f"({heads}); give 'head_dim'"
            )
        head_dim = hidden // heads
    default_inner = None if gated else 4 * hidden
    intermediate = keys.pick(
        config,
        keys.INTERMEDIATE,
        required=default_inner is None and "moe_intermediate_size" not in config,
        default=default_inner,
    )
    return _Dims(model_type, gated, hidden, layers, heads, kv_heads, head_dim, vocab, intermediate)


def read_experts(config: dict[str, Any], intermediate: int | None) -> _Experts:
    count = keys.opt(config, keys.EXPERTS, 0, allow_zero=True)
    if not count:
        if intermediate is None:
            keys.need(config, keys.INTERMEDIATE)  # raises: names the key
        return _Experts()
    per_token = keys.need(config, keys.EXPERTS_PER_TOKEN)
    if per_token > count:
        raise ValueError(f"hf_config: 'num_experts_per_tok' ({per_token}) exceeds the number of experts ({count})")
    if intermediate is None:
        inner = keys.need(config, ("moe_intermediate_size",))
    else:
        inner = keys.opt(config, ("moe_intermediate_size",), intermediate)
    if config.get("shared_expert_intermediate_size"):  # Qwen2-MoE: one shared expert of its own size
        shared_count, shared_inner = 1, keys.need(config, ("shared_expert_intermediate_size",))
    else:
        shared_count = keys.opt(config, ("n_shared_experts", "num_shared_experts"), 0, allow_zero=True)
        shared_inner = shared_count * inner
    return _Experts(count, per_token, inner, shared_count, shared_inner)


def _mlp_only_layers(config: dict[str, Any], layers: int) -> set[int]:
    """Qwen-MoE's dense layers, as a set of indices (a list lookup per layer was quadratic)."""
    listed = config.get("mlp_only_layers") or []
    if not isinstance(listed, list):
        raise ValueError(f"hf_config: 'mlp_only_layers' must be a list, got {listed!r}")
    if len(listed) > layers:
        raise ValueError(f"hf_config: 'mlp_only_layers' lists more entries than there are layers ({layers})")
    for index in listed:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < layers:
            raise ValueError(f"hf_config: 'mlp_only_layers' entries must be layer indices below {layers}")
    return set(listed)


def moe_schedule(config: dict[str, Any], layers: int, experts: int) -> list[bool]:
    """Which layers are MoE layers: dense first layers, frequency and step schedules, listed dense layers."""
    first_dense = keys.opt(config, ("first_k_dense_replace",), 0, allow_zero=True)
    moe_freq = keys.opt(config, ("moe_layer_freq",), 1)
    sparse_step = keys.opt(config, ("decoder_sparse_step", "interleave_moe_layer_step"), 1)
    dense = _mlp_only_layers(config, layers)
    schedule = [
        bool(experts) and i >= first_dense and i % moe_freq == 0 and (i + 1) % sparse_step == 0 and i not in dense
        for i in range(layers)
    ]
    if experts and not any(schedule):
        raise ValueError(
            "hf_config: experts are configured but no layer is a MoE layer "
            "(check 'first_k_dense_replace' / 'mlp_only_layers' / 'decoder_sparse_step')"
        )
    return schedule


def _mla_attention(config: dict[str, Any], dims: _Dims, kv_lora: int) -> _Attention:
    hidden, heads = dims.hidden, dims.heads
    rope_dim = keys.need(config, ("qk_rope_head_dim",))
    nope_dim = keys.need(config, ("qk_nope_head_dim",))
    v_dim = keys.opt(config, ("v_head_dim",), nope_dim)
    q_lora = keys.opt(config, ("q_lora_rank",), 0, allow_zero=True)
    q_head = nope_dim + rope_dim
    # q: low-rank (q_a_proj + q_a_layernorm + q_b_proj) when q_lora_rank is set, else one q_proj
    params = hidden * q_lora + q_lora + q_lora * heads * q_head if q_lora else hidden * heads * q_head
    params += hidden * (kv_lora + rope_dim) + kv_lora  # kv_a_proj_with_mqa + kv_a_layernorm
    params += kv_lora * heads * (nope_dim + v_dim)  # kv_b_proj
    params += heads * v_dim * hidden  # o_proj
    return _Attention(params, "mla", q_head, heads, kv_lora, rope_dim, q_lora, nope_dim, v_dim)


def _grouped_attention(config: dict[str, Any], dims: _Dims) -> _Attention:
    hidden, heads, kv_heads, head_dim = dims.hidden, dims.heads, dims.kv_heads, dims.head_dim
    params = hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + heads * head_dim * hidden
    attention_bias = keys.flag(config, "attention_bias", False) or keys.flag(config, "bias", False)
    if attention_bias or dims.model_type in _QKV_BIAS:
        params += heads * head_dim + 2 * kv_heads * head_dim
    if attention_bias:
        params += hidden  # o_proj bias
    if dims.model_type in _QK_NORM:
        params += 2 * head_dim
    if dims.model_type == "gpt_oss":
        params += heads  # attention sinks
    return _Attention(params, "mha" if kv_heads == heads else "gqa", head_dim=head_dim, kv_heads=kv_heads)


def read_attention(config: dict[str, Any], dims: _Dims) -> _Attention:
    kv_lora = keys.opt(config, ("kv_lora_rank",), 0, allow_zero=True)
    return _mla_attention(config, dims, kv_lora) if kv_lora else _grouped_attention(config, dims)


def _norms_per_layer(config: dict[str, Any], model_type: str) -> int:
    parallel_falcon = (
        model_type == "falcon" and config.get("parallel_attn") and not config.get("new_decoder_architecture")
    )
    return 1 if model_type in _PARALLEL or parallel_falcon else 2


def count_params(
    config: dict[str, Any], dims: _Dims, experts: _Experts, attention: _Attention, schedule: list[bool]
) -> tuple[int, int]:
    """(total, active) parameters: every layer, then embeddings, lm_head and the final norm."""
    model_type, hidden, gated = dims.model_type, dims.hidden, dims.gated
    norm = hidden if gated else 2 * hidden  # RMSNorm weight, or LayerNorm weight + bias
    mlp_bias = keys.flag(config, "mlp_bias", False) or keys.flag(config, "bias", False) or model_type == "gptj"
    dense_mlp = _mlp(hidden, dims.intermediate or experts.inner, gated, mlp_bias)
    expert_mlp = _mlp(hidden, experts.inner, gated, model_type == "gpt_oss") if experts.count else 0
    gate_bias = model_type == "gpt_oss" or config.get("topk_method") == "noaux_tc"
    router = experts.count * hidden + (experts.count if gate_bias else 0)
    shared = _mlp(hidden, experts.shared_inner, gated, False) if experts.shared_inner else 0
    if shared and config.get("shared_expert_intermediate_size"):
        shared += hidden  # Qwen2-MoE shared_expert_gate
    base = attention.params + _norms_per_layer(config, model_type) * norm
    moe_layers = sum(schedule)
    dense_layers = len(schedule) - moe_layers
    total = dense_layers * (base + dense_mlp) + moe_layers * (base + experts.count * expert_mlp + shared + router)
    active = dense_layers * (base + dense_mlp) + moe_layers * (base + experts.per_token * expert_mlp + shared + router)
    tied = keys.flag(config, "tie_word_embeddings", model_type in _TIED_BY_DEFAULT)
    head = 0 if tied else dims.vocab * hidden + (dims.vocab if model_type == "gptj" else 0)
    outside = dims.vocab * hidden + head + norm  # embedding, lm_head, final norm
    return total + outside, active + outside


def _mla_sizes(shape: Any, nope_dim: int) -> dict[str, int]:
    """A shape's MLA sizes as config.json names them: its query LoRA rank (0: one q_proj) and value head width (not
    given: the no-RoPE query width), where the shape carries them (a custom_model, a catalog row, a ModelSpec)."""
    return {
        "qk_rope_head_dim": shape.qk_rope_head_dim,
        "qk_nope_head_dim": nope_dim,
        "q_lora_rank": getattr(shape, "q_lora_rank", 0) or 0,
        "v_head_dim": getattr(shape, "v_head_dim", 0) or nope_dim,
    }


def shape_param_count(shape: Any) -> int:
    """Total parameters a catalog-style shape (a custom_model, a catalog row) holds, counted as most checkpoints are
    built: a gated MLP, untied embeddings, its MoE layers last (the others dense of intermediate_size; every layer
    when the shape does not say), MLA's query low-rank where q_lora_rank is given (as config.json is counted).
    Tied, non-gated or interleaved checkpoints hold less (app.scoring.hf_config.params_check says how much less)."""
    heads, hidden = shape.num_attention_heads, shape.hidden_size
    head_dim = shape.head_dim or hidden // heads
    kv_heads = shape.num_kv_heads or heads
    dims = _Dims(
        "llama", True, hidden, shape.layers, heads, kv_heads, head_dim, shape.vocab_size, shape.intermediate_size
    )
    experts = _Experts()
    if shape.num_experts:
        inner, shared = shape.moe_intermediate_size or shape.intermediate_size, shape.num_shared_experts
        experts = _Experts(shape.num_experts, shape.experts_per_token, inner, shared, shared * inner)
    rope = shape.qk_rope_head_dim
    if shape.attention == "mla" and shape.kv_lora_rank and 0 < rope < head_dim:
        attention = _mla_attention(_mla_sizes(shape, head_dim - rope), dims, shape.kv_lora_rank)
    else:
        attention = _grouped_attention({}, dims)
    moe_layers = (getattr(shape, "moe_layers", None) or shape.layers) if shape.num_experts else 0
    schedule = [i >= shape.layers - moe_layers for i in range(shape.layers)]
    return count_params({"tie_word_embeddings": False}, dims, experts, attention, schedule)[0]
