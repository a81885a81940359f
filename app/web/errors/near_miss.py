"""The field a JSON body's unknown key was likely meant to be: `{"tpot": 40}` answered only pydantic's "Extra inputs
are not permitted", where a page's query names the nearest field it takes (service.query.fields)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any, get_args, get_type_hints

from fastapi import Request
from pydantic import BaseModel


def body_model(request: Request) -> type[BaseModel] | None:
    """The model the matched route reads its JSON body into, if it reads one: as its body parameter, or through a
    dependency returning it (POST /share reads a JSON body or a form in app/web/share/request.py)."""
    route = request.scope.get("route")
    field = getattr(route, "body_field", None)
    annotation = getattr(getattr(field, "field_info", None), "annotation", None)
    if annotation is None:
        dependencies = getattr(getattr(route, "dependant", None), "dependencies", ())
        annotation = next((found for d in dependencies if (found := _returned_model(d.call)) is not None), None)
    return model_in(annotation)


def _returned_model(call: Any) -> type[BaseModel] | None:
    """A dependency's returned model that refuses unknown keys (only such a model raises the error hinted at): not
    the settings or a snapshot another dependency hands the route."""
    try:
        model = model_in(get_type_hints(call).get("return"))
    except (NameError, TypeError):  # a dependency whose annotations do not resolve returns no body model
        return None
    return model if model is not None and model.model_config.get("extra") == "forbid" else None


def model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((found for arg in get_args(annotation) if (found := model_in(arg)) is not None), None)


def nearest_field(model: type[BaseModel], loc: Sequence[Any]) -> str | None:
    """The field of the model holding `loc`'s last key (workload.tpot: the workload's) nearest that key, if any."""
    *path, key = loc
    for part in path:
        if isinstance(part, int):
            continue  # a list's item: the model the list holds, found from the list's field already
        field = model.model_fields.get(str(part))
        inner = model_in(field.annotation) if field is not None else None
        if inner is None:
            return None
        model = inner
    names = sorted(field.alias or name for name, field in model.model_fields.items())
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.7)  # tpot: tpot_ms; bogus: nothing
    return close[0] if close else None
