"""Values in the JSON API's query strings read as the pages read theirs. Numbers (`?limit=`) as form_numbers reads
them: `1e2` is 100, as `input_len=1e3` is 1000 on a page and 1e3 is 1000 in a JSON body. An empty value (`?provider=`,
`?limit=`, as a form's untouched field submits it) is the parameter left out, as on the pages: no filter, the
default."""

from __future__ import annotations

from pydantic import BeforeValidator
from pydantic_core import PydanticUseDefault

from app.service.query.form_numbers import as_typed_number


def _blank_is_unset(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        raise PydanticUseDefault  # the parameter's default, as if left out
    return value


def _as_typed(value: object) -> object:
    value = _blank_is_unset(value)
    return as_typed_number(value.strip()) if isinstance(value, str) else value


AS_TYPED = BeforeValidator(_as_typed)  # Annotated metadata of a numeric query parameter
BLANK_IS_UNSET = BeforeValidator(_blank_is_unset)  # Annotated metadata of any other query parameter
