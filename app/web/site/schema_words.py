"""One JSON-schema fragment of the OpenAPI document in words: its type, its limits and its default, as a reader of
the static API reference needs them (`integer | null`, `1 to 1,000`, `"bf16"`)."""

from __future__ import annotations

import json
from typing import Any

from app.scoring.explain import significant

Schema = dict[str, Any]
REF_PREFIX = "#/components/schemas/"


def ref_name(schema: Schema) -> str | None:
    ref = schema.get("$ref")
    return ref.removeprefix(REF_PREFIX) if isinstance(ref, str) else None


def resolve(schema: Schema, components: dict[str, Schema]) -> Schema:
    name = ref_name(schema)
    return components.get(name, {}) if name else schema


def branches(schema: Schema) -> list[Schema]:
    """The alternatives a value may take, null left out (Optional[X] is anyOf [X, null])."""
    options = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf") or [schema]
    return [option for option in options if option.get("type") != "null"]


def nullable(schema: Schema) -> bool:
    return any(option.get("type") == "null" for option in schema.get("anyOf") or schema.get("oneOf") or [])


def type_text(schema: Schema) -> str:
    words = " | ".join(dict.fromkeys(_one_type(option) for option in branches(schema)))
    return f"{words} | null" if nullable(schema) else words


def _one_type(schema: Schema) -> str:
    name = ref_name(schema)
    if name:
        return name
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return "array [" + ", ".join(type_text(item) for item in schema["prefixItems"]) + "]"
        return f"array of {type_text(schema.get('items') or {})}"
    if isinstance(kind, list):
        return " | ".join(str(one) for one in kind)
    if kind is None:
        return "any"
    return f"{kind} ({schema['format']})" if "format" in schema else str(kind)


def _number(value: float) -> str:
    return significant(float(value))


def _first(schema: Schema, *keys: str) -> float | None:
    return next((schema[key] for key in keys if key in schema), None)


def _range(schema: Schema) -> list[str]:
    """`1 to 1,000` where both ends are inclusive, else each bound with its sign (`> 0`, `≤ 8`)."""
    low, high = _first(schema, "minimum", "ge"), _first(schema, "maximum", "le")
    above, below = _first(schema, "exclusiveMinimum", "gt"), _first(schema, "exclusiveMaximum", "lt")
    if low is not None and high is not None:
        return [f"{_number(low)} to {_number(high)}"]
    signed = (("≥", low), ("≤", high), (">", above), ("<", below))
    return [f"{sign} {_number(value)}" for sign, value in signed if value is not None]


def _length(schema: Schema, key: str, unit: str) -> list[str]:
    low, high = schema.get(f"min{key}"), schema.get(f"max{key}")
    if low is not None and high is not None:
        return [f"{low} to {high} {unit}"]
    return [f"at least {low} {unit}"] * (low is not None) + [f"at most {high} {unit}"] * (high is not None)


def _bounds(schema: Schema) -> list[str]:
    words = _range(schema) + _length(schema, "Length", "characters") + _length(schema, "Items", "items")
    if "enum" in schema:
        words.append("one of " + ", ".join(str(value) for value in schema["enum"]))
    if "pattern" in schema:
        words.append(f"matching {schema['pattern']}")
    return words


def limits_text(schema: Schema) -> str:
    """Bounds of the field, of each of its alternatives, and of each item of an array (`each: ...`)."""
    words = _bounds(schema)
    for option in branches(schema):
        if option is not schema:
            words += _bounds(option)
        items = option.get("items")
        if option.get("type") == "array" and isinstance(items, dict):
            each = [word for item in branches(items) for word in _bounds(item)]
            words += [f"each {'; '.join(each)}"] if each else []
    return "; ".join(dict.fromkeys(words))


def default_text(schema: Schema) -> str | None:
    return json.dumps(schema["default"], ensure_ascii=False) if "default" in schema else None
