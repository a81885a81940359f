"""A question's custom model: read from a form's arch_* fields or a pasted config.json, and written back as a
link's arch_* pairs, so that a custom model's link reproduces it as a catalog model's does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.scoring.hf_config.model_spec import model_spec_from_hf_config
from app.scoring.input_checks import strict_json
from app.scoring.input_checks.json_bounds import MAX_SERIALIZED_BYTES, check_bounded_object
from app.scoring.workload import ModelArchitecture, ModelChoice
from app.service.query.values import format_value, non_default_fields

ARCH_PREFIX = "arch_"
RAW_MODEL_FIELDS = ("custom_model", "hf_config")  # a query gives these as the form's arch_* and hf_config_json


def custom_model_fields(data: dict[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    """`data` (a form's typed values) with its custom model (`model=custom`, arch_* fields, a pasted config.json in
    hf_config_json) as the question's `custom_model`; a config.json that cannot be read is an error at
    hf_config_json. Every page that takes a custom model reads it here."""
    arch = {k[len(ARCH_PREFIX) :]: data.pop(k) for k in list(data) if k.startswith(ARCH_PREFIX)}
    config_text = data.pop("hf_config_json", None)
    if data.get("model") not in (None, "custom") and not config_text:
        arch = {}  # a catalog model chosen in a form that still holds a custom architecture's fields: the choice wins
    if data.get("model") == "custom" or arch or config_text:
        data.pop("model", None)
        from_config = _arch_from_config(config_text, errors) if config_text else None
        if from_config is not None and arch.get("name"):
            from_config["name"] = arch["name"]  # a config.json names no model: the name typed beside it does
        if not config_text or from_config is not None:
            data["custom_model"] = from_config or arch
        # else: the config.json's own error is the answer, not the required fields of an architecture never read
    return data


def catalog_choices(typed: dict[str, Any]) -> dict[str, Any]:
    """A form's typed values less a `model` that names no catalog id: `model=custom`, or any model beside a pasted
    config.json (custom_model_fields reads either as the custom model)."""
    if typed.get("model") == "custom" or typed.get("hf_config_json"):
        return {k: v for k, v in typed.items() if k != "model"}
    return typed


def _arch_from_config(text: str, errors: dict[str, str]) -> dict[str, Any] | None:
    try:
        if len(text) > MAX_SERIALIZED_BYTES:  # before parsing: json.loads of megabytes is the cost to avoid
            raise ValueError(f"larger than {MAX_SERIALIZED_BYTES // 1024} KB")
        config = strict_json.loads(text)  # a key given twice is an error, not its last value
        if not isinstance(config, dict):
            raise ValueError("the pasted text is not a JSON object")
        return arch_of_config(check_bounded_object(config))
    except (ValueError, TypeError, RecursionError) as exc:
        errors["hf_config_json"] = unreadable_config(exc)
        return None


def unreadable_config(exc: Exception) -> str:
    """Why a pasted config.json cannot be read, said beside its field: the reader's `hf_config: ` prefix left out,
    as the field is named already (it read "hf_config: could not read this config.json: hf_config: 'x' must …")."""
    return f"could not read this config.json: {str(exc).removeprefix('hf_config: ')}"


def arch_of_config(config: dict[str, Any]) -> dict[str, Any]:
    """A config.json's architecture as the custom model's fields (the form's arch_* fields); ValueError as
    model_spec_from_hf_config's."""
    spec = model_spec_from_hf_config(config, "custom")
    names = ModelArchitecture.model_fields
    arch = {k: getattr(spec, k) for k in names if hasattr(spec, k) and getattr(spec, k) not in (None, "")}
    if arch.get("moe_layers") in (0, spec.layers):  # none or every layer: what a blank MoE layers field reads
        del arch["moe_layers"]
    if not spec.sliding_window or spec.sliding_layers == spec.layers:  # none, or every layer: a blank field's reading
        arch.pop("sliding_layers", None)
    return arch


def _custom_architecture(question: ModelChoice) -> ModelArchitecture | None:
    """The question's custom model: given field by field, or read from its config.json (an API's hf_config), so that
    its link carries the architecture as the page's own link does (the page reads a pasted config.json the same way)."""
    if question.custom_model is not None or question.hf_config is None:
        return question.custom_model
    try:
        return ModelArchitecture.model_construct(**arch_of_config(question.hf_config))
    except (ValueError, TypeError, RecursionError):  # the ranking reads it again and answers 422 naming the key
        return None


def architecture_pairs(question: ModelChoice) -> list[tuple[str, str]] | None:
    """The question's custom model as a link's arch_* pairs (its non-default fields and the five every architecture
    needs); None for a catalog model, or a config.json that cannot be read (the answer is its 422)."""
    custom = _custom_architecture(question)
    if custom is None:
        return None
    pairs = [(ARCH_PREFIX + name, format_value(value)) for name, value in non_default_fields(custom)]
    for name in ("params_b", "layers", "hidden_size", "num_attention_heads", "intermediate_size"):
        if not any(p[0] == ARCH_PREFIX + name for p in pairs):
            pairs.append((ARCH_PREFIX + name, format_value(getattr(custom, name))))
    return pairs


def form_field(loc: Sequence[str]) -> str:
    """The form field a validation error's location names: a custom model's field is its arch_* field, an error
    naming no field is the model's."""
    if loc and loc[0] == "custom_model":
        return ARCH_PREFIX + loc[1] if len(loc) > 1 else "model"
    return loc[0] if loc else "model"
