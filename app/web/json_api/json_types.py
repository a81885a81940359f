"""A JSON body's booleans and numbers are JSON's. Pydantic's lax mode also reads "yes", "on", "1", 1 and 0 as booleans
(`"include_stale": "yes"` ranked stale prices without a word) and a number's string as the number, unevenly:
`"output_len": "1000"` was read as 1000 while `"1e3"` was refused and `"total_tokens": "2e9"` read. The JSON API takes
JSON's types as JSON writes them (a boolean where a number belongs: input_checks.numbers_only); the pages, their .json
twins and the command line still read text ("true", "1e3", "1,000": form_numbers), which is all a query string or a
flag carries. Saved links store a query string, so no stored question is read through these checks. Found by walking
the body along its model."""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from app.scoring.input_checks import strict_json

NOT_A_BOOLEAN = "must be true or false (a JSON boolean), not a string or a number"
NOT_A_NUMBER = 'must be a JSON number, not a string: write it without quotes (1000, not "1000")'
NUMBERS = (int, float)


Problems = list[tuple[strict_json.Path, str]]


def type_problems(annotation: Any, value: Any, path: strict_json.Path = ()) -> Problems:
    """(path, message) for each value of the body along `annotation` (a body model, a list of them, or a model inside
    one) where a boolean field holds anything but a JSON boolean, or a number field a string; a field that also takes
    another scalar type (a string, a literal) is left to its own checks."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return _union_problems([a for a in get_args(annotation) if a is not type(None)], value, path)
    if origin is list and isinstance(value, list):
        (item,) = get_args(annotation)
        return [p for index, v in enumerate(value) for p in type_problems(item, v, (*path, index))]
    if annotation is bool:
        return [] if isinstance(value, bool) else [(path, NOT_A_BOOLEAN)]
    if annotation in NUMBERS:
        return [(path, NOT_A_NUMBER)] if isinstance(value, str) else []  # a boolean: NumbersNotBooleans says so
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, dict):
        fields = ((field.alias or name, field.annotation) for name, field in annotation.model_fields.items())
        return [p for key, kind in fields if key in value for p in type_problems(kind, value[key], (*path, key))]
    return []


def _union_problems(members: list[Any], value: Any, path: strict_json.Path) -> Problems:
    """A union's: a boolean or number field's own check where it takes only booleans or only numbers (and null), else
    the checks of the models and lists it may hold."""
    if value is None:
        return []
    if members == [bool] or all(m in NUMBERS for m in members):
        return type_problems(members[0], value, path)
    found = [p for m in members if m is not bool and m not in NUMBERS for p in type_problems(m, value, path)]
    return list(dict.fromkeys(found))
