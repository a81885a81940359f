"""A query string's values: read into a dict (list fields gathered, numbers as typed, a key given twice refused)
and written back as the shortest exact text, defaults left out."""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from typing import Any

from pydantic import BaseModel

from app.service.query.form_numbers import FREE_TEXT, as_typed_number

LIST_FIELDS = ("providers", "price_types", "gpus", "vendors")
MAX_QUERY_VALUES = 200


def collect_values(items: list[tuple[str, str]], list_fields: Collection[str] = LIST_FIELDS) -> dict[str, Any]:
    """Multi-dict → dict of the text as typed (trimmed): list fields gather every value (comma-separated or
    repeated). What refills a refused form; read_numbers makes the values a model validates."""
    values: dict[str, Any] = {}
    for key, raw in items[:MAX_QUERY_VALUES]:
        value = raw.strip()
        if key in list_fields:
            values.setdefault(key, []).extend(v.strip() for v in value.split(",") if v.strip())
        elif value != "":
            values[key] = value
    return values


def read_numbers(typed: dict[str, Any]) -> dict[str, Any]:
    """Typed values with numbers read as people type them (`500,000`, `1e3`: app.service.query.form_numbers)."""
    return {k: as_typed_number(v) if isinstance(v, str) and k not in FREE_TEXT else v for k, v in typed.items()}


def query_shape_errors(items: list[tuple[str, str]], list_fields: Collection[str] = LIST_FIELDS) -> dict[str, str]:
    """A key the query reads once given twice is an error, not a silent pick of one value (a page
    answering for another model than the link shows); list fields may repeat. Too many values too, and a number
    written with underscores (underscore_errors): every page, twin and API query string passes here."""
    errors: dict[str, str] = {}
    if len(items) > MAX_QUERY_VALUES:
        errors["query"] = f"more than {MAX_QUERY_VALUES} query values"
    seen: set[str] = set()
    for key, _ in items[: MAX_QUERY_VALUES + 1]:
        if key in seen and key not in list_fields:
            errors.setdefault(key, f"given more than once; {key} takes one value")
        seen.add(key)
    return {**underscore_errors(items[:MAX_QUERY_VALUES], list_fields), **errors}


def underscore_errors(items: list[tuple[str, str]], list_fields: Collection[str] = LIST_FIELDS) -> dict[str, str]:
    """`1_000` is refused, naming its field: Python's int() and float() (so pydantic) read it, `6_0` as 60 too, but
    no canonical link writes it and a script that sends it meant 1000; ids and free text (FREE_TEXT, list fields)
    may hold underscores."""
    errors: dict[str, str] = {}
    for key, raw in items:
        value = raw.strip()
        if "_" in value and key not in FREE_TEXT and key not in list_fields and _reads_as_number(value):
            errors.setdefault(key, f"write {value.replace('_', '')}, without underscores")
    return errors


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def format_value(value: Any) -> str:
    """Shortest exact text: 2000000000.0 → 2000000000, 0.5 → 0.5."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e18 else repr(value)
    return str(value)


def non_default_fields(
    model: BaseModel, skip: tuple[str, ...] = (), given: Collection[str] = ()
) -> list[tuple[str, Any]]:
    """The fields that differ from their defaults, and those in `given` whatever their value."""
    pairs = []
    for name, default in _defaults(type(model)).items():
        value = getattr(model, name)
        if name in skip or value is None or (name not in given and value == default):
            continue
        pairs.append((name, value))
    return pairs


@cache
def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    """Each field's default, list fields last (a query's order), read once per model: pydantic inspects a default
    factory's signature on every get_default, which was a sixth of a warm ranking request's time. Compared, never
    handed out, so a factory's list is safely shared."""
    fields = model.model_fields
    ordered = [n for n in fields if n not in LIST_FIELDS] + [n for n in fields if n in LIST_FIELDS]
    return {name: fields[name].get_default(call_default_factory=True) for name in ordered}
