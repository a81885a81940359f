"""The field a JSON body's unknown key was likely meant to be: `{"tpot": 40}` answered only pydantic's "Extra inputs
are not permitted", where a page's query names the nearest field it takes (service.query.fields)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any, get_args

from fastapi import Request
from pydantic import BaseModel


def body_model(request: Request) -> type[BaseModel] | None:
    """The model the matched route reads its JSON body into, if it reads one."""
    field = getattr(request.scope.get("route"), "body_field", None)
    annotation = getattr(getattr(field, "field_info", None), "annotation", None)
    return _model_in(annotation)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((found for arg in get_args(annotation) if (found := _model_in(arg)) is not None), None)


def nearest_field(model: type[BaseModel], loc: Sequence[Any]) -> str | None:
    """The field of the model holding `loc`'s last key (workload.tpot: the workload's) nearest that key, if any."""
    *path, key = loc
    for part in path:
        if isinstance(part, int):
            continue  # a list's item: the model the list holds, found from the list's field already
        field = model.model_fields.get(str(part))
        inner = _model_in(field.annotation) if field is not None else None
        if inner is None:
            return None
        model = inner
    names = sorted(field.alias or name for name, field in model.model_fields.items())
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.7)  # tpot: tpot_ms; bogus: nothing
    return close[0] if close else None
