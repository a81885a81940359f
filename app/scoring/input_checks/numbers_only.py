"""JSON's true and false are not numbers: pydantic's lax mode reads them as 1 and 0, so `"input_len": true`
ranked a one-token prompt. Strict mode would refuse the strings a query string carries, so only booleans go."""

from __future__ import annotations

import types
from functools import cache
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationInfo, field_validator


def _numeric(annotation: Any) -> bool:
    """int or float, or a union holding one (a bool field is not numeric)."""
    if annotation in (int, float):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_numeric(arg) for arg in get_args(annotation))
    return False


@cache
def _numeric_field(model: type[BaseModel], name: str) -> bool:
    return _numeric(model.model_fields[name].annotation)


class NumbersNotBooleans(BaseModel):
    """A base for request models: a boolean where a number belongs is a field error."""

    @field_validator("*", mode="before")
    @classmethod
    def _not_a_boolean(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name and _numeric_field(cls, info.field_name):
            raise ValueError("must be a number, not true or false")
        return value
