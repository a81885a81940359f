"""A JSON response serialised by orjson from already-plain values.

The rank API builds its body with `ranking.plain()` (JSON-ready dicts), so FastAPI's response_model
re-validation and jsonable_encoder walk would only repeat that work; returning this response skips
both while the response_model still documents the schema.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse
from pydantic import TypeAdapter


class OrjsonResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


_PLAIN_DICT = TypeAdapter(dict[str, Any])


class PydanticJsonResponse(JSONResponse):
    """A dict serialised as FastAPI serialises a handler's `-> dict[str, Any]` (pydantic's JSON: infinity as null), so
    a handler that gains a documenting response_model keeps its bytes instead of being re-validated through it."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return _PLAIN_DICT.dump_json(content)
