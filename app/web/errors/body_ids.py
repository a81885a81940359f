"""A JSON body refused on its shape still names the catalog ids it gets wrong: `{"model": "NOPE", "input_len": -1}`
answered input_len alone, and the unknown model only once that was fixed (found by qa30's buyer walk)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from app.scoring.specs import CatalogSnapshot
from app.service.catalog_ids import typed_id_errors
from app.web.errors.error_shape import field_entries
from app.web.errors.near_miss import model_in


def body_values(model: type[BaseModel], body: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted field, value) for each of the body's fields the model reads, into its nested models (workload.model),
    not into free-form objects (an hf_config's keys are no fields)."""
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key not in body:
            continue
        inner = model_in(info.annotation)
        if inner is not None and isinstance(body[key], dict):
            yield from body_values(inner, body[key], f"{prefix}{key}.")
        else:
            yield prefix + key, body[key]


def body_id_errors(
    model: type[BaseModel] | None, body: Any, snapshot: CatalogSnapshot | None, errors: list[dict[str, str]]
) -> list[dict[str, str]]:
    """{field, message} for each catalog id field of a refused body naming ids the catalog lacks (fields already in
    `errors` are not read again)."""
    if model is None or snapshot is None or not isinstance(body, dict):
        return []
    return field_entries(typed_id_errors(dict(body_values(model, body)), snapshot, {e["field"] for e in errors}))
