"""A ModelSpec from a pasted Hugging Face config.json (a dict): its architecture and parameter counts
(hf_config.param_count), release precision (hf_config.quantization), fused experts and sliding window
(hf_config.sliding), a short display name, held
to the same ModelArchitecture bounds as a typed custom model.

Pure: no I/O, no network.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from app.scoring.hf_config import keys
from app.scoring.hf_config import quantization as hf_quantization
from app.scoring.hf_config.fused_experts import NOT_FUSED, fused_experts
from app.scoring.hf_config.param_count import (
    count_params,
    moe_schedule,
    read_attention,
    read_dims,
    read_experts,
    unwrap,
)
from app.scoring.hf_config.sliding import read_sliding
from app.scoring.input_checks.messages import error_message
from app.scoring.specs import ModelSpec
from app.scoring.workload import PARAMS_COUNTED, ModelArchitecture

MAX_NAME_CHARS = 80  # ModelArchitecture.name's bound
_SNAPSHOT_PARTS = re.compile(r"^(?:[0-9a-f]{7,64}|snapshots)$")  # a hub cache's revision folders


def display_name(raw: object, fallback: str) -> str:
    """A config.json's `_name_or_path` as a short name: a hub id (`meta-llama/Llama-3.1-8B`) as it is, a local
    path (`/data/hub/models--meta-llama--Llama-3.1-8B/snapshots/0e9e…`) as its last meaningful part
    (`meta-llama/Llama-3.1-8B`), anything still longer cut to 80 characters; the pasted form and the API alike."""
    text = " ".join(str(raw or "").split())
    parts = [p for p in re.split(r"[\\/]", text) if p not in ("", ".", "..", "~")]
    is_path = text.startswith(("/", "~", ".", "\\")) or "\\" in text or re.match(r"^[A-Za-z]:", text) is not None
    if parts and (is_path or len(text) > MAX_NAME_CHARS or len(parts) > 2):
        while len(parts) > 1 and _SNAPSHOT_PARTS.match(parts[-1]):
            parts.pop()
        last = parts[-1]
        text = last.removeprefix("models--").replace("--", "/", 1) if last.startswith("models--") else last
    if len(text) > MAX_NAME_CHARS:
        text = text[: MAX_NAME_CHARS - 1] + "…"
    return text or fallback


def _within_architecture_bounds(spec: ModelSpec) -> ModelSpec:
    """The spec must pass the same ModelArchitecture bounds as a typed custom model (derived counts too)."""
    values = {name: getattr(spec, name) for name in ModelArchitecture.model_fields if hasattr(spec, name)}
    values["name"] = values["name"][:MAX_NAME_CHARS] or "custom"
    try:
        ModelArchitecture.model_validate(values, context={PARAMS_COUNTED: True})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "model"
        raise ValueError(f"hf_config: {where} {error_message(error)}") from None
    return spec


def model_spec_from_hf_config(config: dict, model_id: str = "custom") -> ModelSpec:
    """Architecture and total/active parameter counts from a config.json dict; ValueError names a bad key."""
    config = unwrap(config)
    dims = read_dims(config)
    experts = read_experts(config, dims.intermediate)
    schedule = moe_schedule(config, dims.layers, experts.count)
    attention = read_attention(config, dims)
    total, active = count_params(config, dims, experts, attention, schedule)
    quantization = hf_quantization.read_quantization(config) or hf_quantization.NONE
    fused = fused_experts(dims.model_type) if experts.count else NOT_FUSED
    window, sliding_layers = read_sliding(config, dims.layers, dims.model_type)
    return _within_architecture_bounds(
        ModelSpec(
            id=model_id,
            name=display_name(config.get("_name_or_path"), model_id),
            params_b=round(total / 1e9, 3),
            active_params_b=round(active / 1e9, 3),
            layers=dims.layers,
            hidden_size=dims.hidden,
            num_attention_heads=dims.heads,
            num_kv_heads=attention.kv_heads,
            head_dim=attention.head_dim,
            intermediate_size=dims.intermediate or experts.inner,
            vocab_size=dims.vocab,
            num_experts=experts.count,
            experts_per_token=experts.per_token,
            moe_intermediate_size=experts.inner,
            num_shared_experts=experts.shared_count,
            attention=attention.kind,
            kv_lora_rank=attention.kv_lora,
            qk_rope_head_dim=attention.rope_dim,
            q_lora_rank=attention.q_lora,
            qk_nope_head_dim=attention.nope_dim,
            v_head_dim=attention.v_dim,
            experts_fused=fused.experts_fused,
            router_fused=fused.router_fused,
            max_context=keys.pick(config, keys.MAX_CONTEXT, required=False),
            sliding_window=window,
            sliding_layers=sliding_layers,
            moe_layers=sum(schedule),
            release_precision=quantization.release_precision,
            release_precision_source=hf_quantization.source(quantization.words, quantization.release_precision),
            quantization=quantization.words,
        )
    )
