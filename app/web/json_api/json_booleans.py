"""A JSON body's booleans are JSON's true and false: pydantic's lax mode also reads "yes", "on", "1", 1 and 0 as
booleans, so `"include_stale": "yes"` or `1` ranked stale prices without a word. The JSON API takes JSON's types
as JSON writes them (numbers: input_checks.numbers_only, form_numbers); the pages and the command line still read
text ("true", "on"), which is all a query string or a flag carries. Found by walking the body along its model."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from app.scoring.input_checks import strict_json

NOT_A_BOOLEAN = "must be true or false (a JSON boolean), not a string or a number"


Problems = list[tuple[strict_json.Path, str]]


def boolean_problems(annotation: Any, value: Any, path: strict_json.Path = ()) -> Problems:
    """(path, message) for each value that a boolean field of `annotation` (a body model, a list of them, or a model
    inside one) holds and that is not a JSON boolean; a field that also takes another type is left to its checks."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if members == [bool]:
            return boolean_problems(bool, value, path) if value is not None else []
        found = [p for a in members if a is not bool for p in boolean_problems(a, value, path)]
        return list(dict.fromkeys(found))
    if origin is list and isinstance(value, list):
        (item,) = get_args(annotation)
        return [p for index, v in enumerate(value) for p in boolean_problems(item, v, (*path, index))]
    if annotation is bool:
        return [] if isinstance(value, bool) else [(path, NOT_A_BOOLEAN)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, dict):
        fields = ((field.alias or name, field.annotation) for name, field in annotation.model_fields.items())
        return [p for key, kind in fields if key in value for p in boolean_problems(kind, value[key], (*path, key))]
    return []
