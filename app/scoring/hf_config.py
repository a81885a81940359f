"""A ModelSpec from a pasted Hugging Face config.json (a dict): architecture fields and parameter counts.

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

Active parameters per token count the experts actually routed to (`num_experts_per_tok`) plus
everything dense, embeddings and lm_head included (the convention of the Mixtral 12.9B and
DeepSeek-V3 37B figures). Multi-token-prediction modules (DeepSeek's MTP) are not counted.
"""

from __future__ import annotations

from typing import Any

from app.scoring.specs import ModelSpec

# Families whose MLP is not gated (fc_in/fc_out) and that use LayerNorm with a bias.
_NON_GATED = {"gptj", "gpt2", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "opt", "bloom", "mpt"}
# Families whose attention and MLP share one input norm (parallel residual).
_PARALLEL = {"gptj"}
# Families whose transformers config defaults tie_word_embeddings to True.
_TIED_BY_DEFAULT = {"gpt2", "falcon", "RefinedWeb", "RefinedWebModel", "opt", "bloom"}
# Families with a bias on the q/k/v projections even though config.json does not say so.
_QKV_BIAS = {"qwen2", "qwen2_moe"}
# Families with per-head RMSNorm on q and k.
_QK_NORM = {"qwen3", "qwen3_moe"}


def _pick(
    config: dict[str, Any],
    names: tuple[str, ...],
    required: bool = True,
    default: int | None = None,
    allow_zero: bool = False,
) -> int | None:
    """The first of `names` present (and not null) in `config`, as a validated positive int."""
    for name in names:
        if name in config and config[name] is not None:
            value = config[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
                raise ValueError(f"hf_config: '{name}' must be an integer, got {value!r}")
            if int(value) < 0 or (int(value) == 0 and not allow_zero):
                raise ValueError(f"hf_config: '{name}' must be positive, got {value!r}")
            return int(value)
    if required:
        others = f" (or {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""
        raise ValueError(f"hf_config: missing '{names[0]}'{others}")
    return default


def _need(config: dict[str, Any], names: tuple[str, ...]) -> int:
    value = _pick(config, names)
    assert value is not None  # _pick raises when a required key is missing
    return value


def _opt(config: dict[str, Any], names: tuple[str, ...], default: int, allow_zero: bool = False) -> int:
    value = _pick(config, names, required=False, allow_zero=allow_zero)
    return default if value is None else value


def _flag(config: dict[str, Any], name: str, default: bool) -> bool:
    value = config.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"hf_config: '{name}' must be true or false, got {value!r}")
    return value


def _mlp(hidden: int, inner: int, gated: bool, bias: bool) -> int:
    if gated:
        return 3 * hidden * inner + (2 * inner + hidden if bias else 0)
    return 2 * hidden * inner + (inner + hidden if bias else 0)


def model_spec_from_hf_config(config: dict, model_id: str = "custom") -> ModelSpec:
    """Architecture and total/active parameter counts from a config.json dict; ValueError names a bad key."""
    if not isinstance(config, dict):
        raise ValueError("hf_config: expected a JSON object (dict)")
    if (
        "text_config" in config
        and isinstance(config["text_config"], dict)
        and not any(k in config for k in ("hidden_size", "n_embd", "d_model"))
    ):
        config = {**config, **config["text_config"]}  # multimodal wrappers keep the LM under text_config
    model_type = str(config.get("model_type", ""))
    gated = model_type not in _NON_GATED
    layernorm = not gated

    hidden = _need(config, ("hidden_size", "n_embd", "d_model"))
    layers = _need(config, ("num_hidden_layers", "n_layer", "num_layers"))
    heads = _need(config, ("num_attention_heads", "n_head", "num_heads"))
    vocab = _need(config, ("vocab_size",))
    kv_heads = _pick(config, ("num_key_value_heads", "num_kv_heads", "n_head_kv"), required=False)
    if kv_heads is None:
        kv_heads = 1 if config.get("multi_query") else heads
    if kv_heads > heads:
        raise ValueError(f"hf_config: 'num_key_value_heads' ({kv_heads}) exceeds 'num_attention_heads' ({heads})")
    head_dim = _pick(config, ("head_dim",), required=False)
    if head_dim is None:
        if hidden % heads:
            raise ValueError(
                f"hf_config: 'hidden_size' ({hidden}) is not divisible by 'num_attention_heads' "
                f"({heads}); give 'head_dim'"
            )
        head_dim = hidden // heads
    default_inner = None if gated else 4 * hidden
    intermediate = _pick(
        config,
        ("intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size"),
        required=default_inner is None and "moe_intermediate_size" not in config,
        default=default_inner,
    )

    # Mixture of experts.
    experts = _opt(config, ("num_local_experts", "n_routed_experts", "num_experts"), 0, allow_zero=True)
    per_token = 0
    expert_inner = 0
    shared_count = 0
    shared_inner = 0
    if experts:
        per_token = _need(config, ("num_experts_per_tok", "experts_per_token", "num_experts_per_token"))
        if per_token > experts:
            raise ValueError(
                f"hf_config: 'num_experts_per_tok' ({per_token}) exceeds the number of experts ({experts})"
            )
        if intermediate is None:
            expert_inner = _need(config, ("moe_intermediate_size",))
        else:
            expert_inner = _opt(config, ("moe_intermediate_size",), intermediate)
        if config.get("shared_expert_intermediate_size"):  # Qwen2-MoE: one shared expert of its own size
            shared_count = 1
            shared_inner = _need(config, ("shared_expert_intermediate_size",))
        else:
            shared_count = _opt(config, ("n_shared_experts", "num_shared_experts"), 0, allow_zero=True)
            shared_inner = shared_count * expert_inner
    if intermediate is None:
        if not experts:
            _need(config, ("intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size"))  # raises: names the key
        intermediate = expert_inner

    first_dense = _opt(config, ("first_k_dense_replace",), 0, allow_zero=True)
    moe_freq = _opt(config, ("moe_layer_freq",), 1)
    sparse_step = _opt(config, ("decoder_sparse_step", "interleave_moe_layer_step"), 1)
    mlp_only = config.get("mlp_only_layers") or []
    if not isinstance(mlp_only, list):
        raise ValueError(f"hf_config: 'mlp_only_layers' must be a list, got {mlp_only!r}")
    moe_layers = [
        bool(experts) and i >= first_dense and i % moe_freq == 0 and (i + 1) % sparse_step == 0 and i not in mlp_only
        for i in range(layers)
    ]
    if experts and not any(moe_layers):
        raise ValueError(
            "hf_config: experts are configured but no layer is a MoE layer "
            "(check 'first_k_dense_replace' / 'mlp_only_layers' / 'decoder_sparse_step')"
        )

    # Attention.
    norm = 2 * hidden if layernorm else hidden
    kv_lora = _opt(config, ("kv_lora_rank",), 0, allow_zero=True)
    rope_dim = 0
    if kv_lora:
        rope_dim = _need(config, ("qk_rope_head_dim",))
        nope_dim = _need(config, ("qk_nope_head_dim",))
        v_dim = _opt(config, ("v_head_dim",), nope_dim)
        q_lora = _opt(config, ("q_lora_rank",), 0, allow_zero=True)
        q_head = nope_dim + rope_dim
        # q: low-rank (q_a_proj + q_a_layernorm + q_b_proj) when q_lora_rank is set, else one q_proj
        q_proj = hidden * q_lora + q_lora + q_lora * heads * q_head if q_lora else hidden * heads * q_head
        attention = q_proj
        attention += hidden * (kv_lora + rope_dim) + kv_lora  # kv_a_proj_with_mqa + kv_a_layernorm
        attention += kv_lora * heads * (nope_dim + v_dim)  # kv_b_proj
        attention += heads * v_dim * hidden  # o_proj
        head_dim, kv_heads, kind = q_head, heads, "mla"
    else:
        attention = hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim + heads * head_dim * hidden
        attention_bias = _flag(config, "attention_bias", False) or _flag(config, "bias", False)
        if attention_bias or model_type in _QKV_BIAS:
            attention += heads * head_dim + 2 * kv_heads * head_dim
        if attention_bias:
            attention += hidden  # o_proj bias
        if model_type in _QK_NORM:
            attention += 2 * head_dim
        if model_type == "gpt_oss":
            attention += heads  # attention sinks
        kind = "mha" if kv_heads == heads else "gqa"

    mlp_bias = _flag(config, "mlp_bias", False) or _flag(config, "bias", False) or model_type == "gptj"
    dense_mlp = _mlp(hidden, intermediate, gated, mlp_bias)
    expert_mlp = _mlp(hidden, expert_inner, gated, model_type == "gpt_oss") if experts else 0
    router = experts * hidden + (experts if model_type == "gpt_oss" or config.get("topk_method") == "noaux_tc" else 0)
    shared = _mlp(hidden, shared_inner, gated, False) if shared_inner else 0
    if shared and config.get("shared_expert_intermediate_size"):
        shared += hidden  # Qwen2-MoE shared_expert_gate
    norms_per_layer = (
        1
        if model_type in _PARALLEL
        or (model_type == "falcon" and config.get("parallel_attn") and not config.get("new_decoder_architecture"))
        else 2
    )

    total = active = 0
    for is_moe in moe_layers:
        base = attention + norms_per_layer * norm
        if is_moe:
            total += base + experts * expert_mlp + shared + router
            active += base + per_token * expert_mlp + shared + router
        else:
            total += base + dense_mlp
            active += base + dense_mlp
    embedding = vocab * hidden
    tied = _flag(config, "tie_word_embeddings", model_type in _TIED_BY_DEFAULT)
    head = 0 if tied else vocab * hidden + (vocab if model_type == "gptj" else 0)
    outside = embedding + head + norm  # + final norm
    total += outside
    active += outside

    max_context = _pick(config, ("max_position_embeddings", "n_positions", "n_ctx", "seq_length"), required=False)
    name = str(config.get("_name_or_path") or model_id)
    return ModelSpec(
        id=model_id,
        name=name,
        params_b=round(total / 1e9, 3),
        active_params_b=round(active / 1e9, 3),
        layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        num_experts=experts,
        experts_per_token=per_token,
        moe_intermediate_size=expert_inner if experts else 0,
        num_shared_experts=shared_count,
        attention=kind,
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope_dim,
        max_context=max_context,
    )
