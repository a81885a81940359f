"""Reading one config.json key: the key names each family uses, and a bounded, validated integer.

Each integer is capped by the ModelArchitecture field it becomes (or is sized like), so the API, the
page's arch_* fields and a pasted config.json share one set of maxima and no key can drive unbounded
work (a loop over layers) or overflow (int(), round(), orjson's 64-bit integers): issue 11.
"""

from __future__ import annotations

import math
from typing import Any

from annotated_types import Le

from app.scoring.workload import ModelArchitecture

HIDDEN = ("hidden_size", "n_embd", "d_model")
LAYERS = ("num_hidden_layers", "n_layer", "num_layers")
HEADS = ("num_attention_heads", "n_head", "num_heads")
KV_HEADS = ("num_key_value_heads", "num_kv_heads", "n_head_kv")
INTERMEDIATE = ("intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size")
EXPERTS = ("num_local_experts", "n_routed_experts", "num_experts")
EXPERTS_PER_TOKEN = ("num_experts_per_tok", "experts_per_token", "num_experts_per_token")
MAX_CONTEXT = ("max_position_embeddings", "n_positions", "n_ctx", "seq_length")

_CAPPED_LIKE: dict[str, str] = {
    **dict.fromkeys(HIDDEN, "hidden_size"),
    **dict.fromkeys(LAYERS, "layers"),
    **dict.fromkeys(HEADS, "num_attention_heads"),
    **dict.fromkeys(KV_HEADS, "num_kv_heads"),
    **dict.fromkeys(INTERMEDIATE, "intermediate_size"),
    **dict.fromkeys(EXPERTS, "num_experts"),
    **dict.fromkeys(EXPERTS_PER_TOKEN, "experts_per_token"),
    **dict.fromkeys(MAX_CONTEXT, "max_context"),
    "vocab_size": "vocab_size",
    "head_dim": "head_dim",
    "moe_intermediate_size": "moe_intermediate_size",
    "shared_expert_intermediate_size": "moe_intermediate_size",
    "n_shared_experts": "num_shared_experts",
    "num_shared_experts": "num_shared_experts",
    "first_k_dense_replace": "layers",
    "moe_layer_freq": "layers",
    "decoder_sparse_step": "layers",
    "interleave_moe_layer_step": "layers",
    "kv_lora_rank": "kv_lora_rank",
    "q_lora_rank": "kv_lora_rank",
    "qk_rope_head_dim": "qk_rope_head_dim",
    "qk_nope_head_dim": "head_dim",
    "v_head_dim": "head_dim",
    "sliding_window": "sliding_window",
    "sliding_window_pattern": "layers",
    "max_window_layers": "layers",
}


def architecture_bound(field: str) -> float | None:
    """The upper (`le`) bound of a ModelArchitecture field, or None."""
    for item in ModelArchitecture.model_fields[field].metadata:
        if isinstance(item, Le):
            return float(item.le)  # type: ignore[arg-type]
    return None


def max_value(name: str) -> int:
    bound = architecture_bound(_CAPPED_LIKE[name])
    assert bound is not None, name  # every capped key maps to a field with an upper bound
    return int(bound)


def checked_int(name: str, value: Any, allow_zero: bool) -> int:
    """A config.json number as an int in [0 or 1, max]: finite and in range before any int() or arithmetic."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"hf_config: '{name}' must be an integer, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"hf_config: '{name}' must be a finite integer, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"hf_config: '{name}' must be positive, got {value!r}")
    limit = max_value(name)
    if value > limit:
        raise ValueError(f"hf_config: '{name}' must be at most {limit:,}, got {value!r}")
    if value != int(value):
        raise ValueError(f"hf_config: '{name}' must be an integer, got {value!r}")
    return int(value)


def pick(
    config: dict[str, Any],
    names: tuple[str, ...],
    required: bool = True,
    default: int | None = None,
    allow_zero: bool = False,
) -> int | None:
    """The first of `names` present (and not null) in `config`, as a validated, bounded positive int."""
    for name in names:
        if name in config and config[name] is not None:
            return checked_int(name, config[name], allow_zero)
    if required:
        others = f" (or {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""
        raise ValueError(f"hf_config: missing '{names[0]}'{others}")
    return default


def need(config: dict[str, Any], names: tuple[str, ...]) -> int:
    value = pick(config, names)
    assert value is not None  # _pick raises when a required key is missing
    return value


def opt(config: dict[str, Any], names: tuple[str, ...], default: int, allow_zero: bool = False) -> int:
    value = pick(config, names, required=False, allow_zero=allow_zero)
    return default if value is None else value


def flag(config: dict[str, Any], name: str, default: bool) -> bool:
    value = config.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"hf_config: '{name}' must be true or false, got {value!r}")
    return value
