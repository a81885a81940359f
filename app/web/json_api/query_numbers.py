"""Numbers in the JSON API's query strings (`?limit=`) read as the pages read theirs (form_numbers): `1e2` is 100,
as `input_len=1e3` is 1000 on a page and 1e3 is 1000 in a JSON body; empty, as not given (each such parameter is
optional)."""

from __future__ import annotations

from pydantic import BeforeValidator

from app.service.query.form_numbers import as_typed_number


def _as_typed(value: object) -> object:
    if isinstance(value, str) and not value.strip():
        return None  # `?limit=`, as a form's untouched field submits it: not given, as on the pages
    return as_typed_number(value.strip()) if isinstance(value, str) else value


AS_TYPED = BeforeValidator(_as_typed)  # Annotated metadata of a numeric query parameter
