"""The one shape every error answers in JSON: `{"detail": [{"field": ..., "message": ...}, ...]}`.

A 422 names each bad field; every other error (404, 405, 401, 403, 413, 429, 503) is one entry whose `field` says
what the client would change: the `path` (or the path parameter: `gpu_id`) that names nothing, the `method`, the
`authorization`, the `body` that is too large, the `request` to send later or from this site. Before, those said
`{"detail": "string"}`, so a client parsed two shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

# What a client changes after an error without a field of its own, by status.
FIELD_BY_STATUS = {401: "authorization", 404: "path", 405: "method", 413: "body"}
NOT_A_FIELD = "request"


def error_entries(status_code: int, detail: Any) -> list[dict[str, str]]:
    """An exception's detail as the list of {field, message}: a list already in that shape as it is."""
    if isinstance(detail, list) and all(isinstance(e, dict) and {"field", "message"} <= set(e) for e in detail):
        return detail
    return [{"field": FIELD_BY_STATUS.get(status_code, NOT_A_FIELD), "message": str(detail)}]


def error_body(status_code: int, detail: Any) -> dict[str, list[dict[str, str]]]:
    return {"detail": error_entries(status_code, detail)}


def field_entries(errors: Mapping[str, str]) -> list[dict[str, str]]:
    """Errors by field ({field: message}) as the list of {field, message} a 422 sends, in their order."""
    return [{"field": field, "message": message} for field, message in errors.items()]


def field_errors_body(errors: Mapping[str, str]) -> dict[str, list[dict[str, str]]]:
    """The body of a 422 naming each field of `errors`."""
    return {"detail": field_entries(errors)}


def error_bytes(status_code: int, message: str) -> bytes:
    """The JSON of one error, for the pure ASGI middlewares (body cap, rate limit, busy slots)."""
    return orjson.dumps(error_body(status_code, message))


ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "required": ["detail"],
    "properties": {
        "detail": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/ValidationError"},
            "description": "one entry per bad field (a 422), else one entry naming what to change",
        }
    },
    "description": "Every error's body: one {field, message} per bad field (422), or one entry naming what to "
    "change (404: path or the path parameter, 405: method, 401: authorization, 413: body, 415: content-type or "
    "content-encoding, 403/429/503: request; 500, an unexpected failure: request, with no trace)",
}
