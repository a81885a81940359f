"""Form fields that are another spelling of a workload field (tokens/s per user, optimizer steps), turned into that
field; an error about the computed field is reported at the field the user typed."""

from __future__ import annotations

import math
from typing import Any

from app.scoring.explain import fixed, significant
from app.scoring.input_checks.messages import NOT_FINITE
from app.scoring.workload import TrainingWorkload
from app.service.query.custom_model import custom_model_fields

# Form fields that are another spelling of a workload field, and how that field is computed from them: an error
# about the computed field is reported at the field the user typed (at_typed_field).
CONVENIENCES = {
    "tokens_per_s_per_user": "tpot_ms = 1000 ÷ tokens_per_s_per_user",
    "steps": "total_tokens = steps × global_batch_seqs × seq_len",
}


def _number(raw: Any) -> float | None:
    """A typed number, None when it is not one (NaN and ±inf are not)."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _convenience_value(name: str, raw: Any, errors: dict[str, str]) -> float | None:
    """A convenience field's own value, or None with an error at that field."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        errors[name] = f"must be a number, not {str(raw)[:40]!r}"
        return None
    if name == "steps" and not (math.isfinite(value) and value >= 1 and value.is_integer()):
        errors[name] = "must be a whole number of optimizer steps (at least 1)"
    elif not math.isfinite(value):
        errors[name] = NOT_FINITE
    elif value <= 0:
        errors[name] = "must be greater than 0"
    else:
        return value
    return None


def apply_conveniences(
    phase: str, values: dict[str, Any], errors: dict[str, str], computed: dict[str, str] | None = None
) -> dict[str, Any]:
    """The typed values as the workload's fields; `computed` gathers {target field: the convenience it came
    from} (for `at_typed_field`)."""
    computed = {} if computed is None else computed
    data = custom_model_fields({k: v for k, v in values.items() if k != "phase"}, errors)
    if phase == "inference" and "tokens_per_s_per_user" in data:
        rate = _convenience_value("tokens_per_s_per_user", data.pop("tokens_per_s_per_user"), errors)
        if rate is not None:
            _set_from_convenience("tokens_per_s_per_user", "tpot_ms", 1000.0 / rate, data, errors, computed)
    if phase == "training" and "steps" in data:
        steps = _convenience_value("steps", data.pop("steps"), errors)
        defaults = TrainingWorkload.model_fields
        seqs = _number(data.get("global_batch_seqs", defaults["global_batch_seqs"].default))
        seq_len = _number(data.get("seq_len", defaults["seq_len"].default))
        if steps is not None and seqs is not None and seq_len is not None:  # else their own errors say why
            _set_from_convenience("steps", "total_tokens", steps * seqs * seq_len, data, errors, computed)
    return data


def _set_from_convenience(
    convenience: str,
    field_name: str,
    value: float,
    data: dict[str, Any],
    errors: dict[str, str],
    computed: dict[str, str],
) -> None:
    """`field_name` set to `value`, computed from `convenience`. Given beside it, the field must say the same
    (within rounding): two values for one setting are an error naming both, not one silently winning, whatever
    the form showed (a default too: 100 steps beside a 2e9-token budget is two budgets)."""
    if field_name not in data:
        data[field_name] = value
        computed[field_name] = convenience  # the target, and the field it came from
        return
    typed = _number(data[field_name])
    if typed is None or math.isclose(typed, value, rel_tol=1e-9):
        return  # a bad field's own error says why; an equal one is the same question
    errors[convenience] = (
        f"give one of {convenience} or {field_name}, not both: {convenience} sets {field_name} = {_shown(value)} "
        f"({CONVENIENCES[convenience]}), but {field_name} is {_shown(typed)}"
    )


def _shown(value: float) -> str:
    """A number in an error message: 26,214,400 or 0.125."""
    return f"{fixed(value, 0)}" if value.is_integer() and abs(value) < 1e15 else f"{significant(value, 4)}"


def at_typed_field(name: str, message: str, computed: dict[str, str], value: Any = None) -> tuple[str, str]:
    """(field, message): an error about a field computed from a convenience field the user typed (tpot_ms from
    tokens/s per user) belongs at that field, saying how the value (`value`, when known) was computed."""
    typed = computed.get(name)
    if typed is None:
        return name, message
    result = f" = {significant(value, 4)}" if isinstance(value, float) else ""
    return typed, f"{CONVENIENCES[typed]}{result}: {message}"
