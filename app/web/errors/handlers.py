"""Errors: JSON for the API and `.json` twins, a readable page for browsers; never a bare 500 page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.scoring.input_checks.messages import FieldError, error_location, error_message
from app.scoring.specs import CatalogSnapshot
from app.service.named_ids import query_name_errors
from app.web.deps import get_snapshot
from app.web.errors.body_ids import body_id_errors
from app.web.errors.error_shape import ERROR_SCHEMA, error_body, error_entries, field_entries
from app.web.errors.near_miss import body_model, nearest_field
from app.web.middleware.head_requests import methods_with_head
from app.web.rendering.render import templates


def wants_json(request: Request) -> bool:
    path = request.url.path
    accept = request.headers.get("accept", "").lower()
    # POST /share's JSON body; media types are case-insensitive (RFC 9110 8.3.1), as share's own reading is
    sent_json = request.headers.get("content-type", "").lower().startswith("application/json")
    return (
        path.startswith("/api/")
        or path.endswith((".json", ".csv"))  # a twin's errors are data too, never the HTML error page
        or (("application/json" in accept or sent_json) and "text/html" not in accept)
    )


LOCATION_KINDS = ("body", "query", "path", "header", "cookie")
# FastAPI hands a JSON route the raw bytes when the Content-Type is not JSON (`curl -d` sends a form's type), and
# pydantic's complaint about them ("should be a valid dictionary") hides that the JSON was never read.
NOT_SENT_AS_JSON = "not read as JSON: send it with Content-Type: application/json"
# Compressed bodies are not decoded: gzip's bytes read as "byte 1 is not utf-8 text".
NOT_DECODED = "not decoded: send the JSON uncompressed, without Content-Encoding"


def unsupported_media(request: Request, errors: list[dict[str, Any]]) -> dict[str, str] | None:
    """A 415's {field, message} where a JSON route's body was not read for its Content-Type or Content-Encoding (as
    the admin CSV upload answers a JSON body); None where the body was read as JSON."""
    body_errors = [e for e in errors if tuple(e.get("loc", ()))[:1] == ("body",)]
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if body_errors and encoding != "identity":
        return {"field": "content-encoding", "message": f"{encoding} is {NOT_DECODED}"}
    if any(len(e.get("loc", ())) == 1 and isinstance(e.get("input"), bytes) for e in body_errors):
        media = request.headers.get("content-type", "").partition(";")[0].strip()
        return {"field": "content-type", "message": f"expects application/json, not {media}: {NOT_SENT_AS_JSON}"}
    return None


def field_errors(errors: list[dict[str, Any]], body: type[BaseModel] | None = None) -> list[dict[str, str]]:
    """Pydantic errors as {field, message}, each once; the location drops its kind ('body', 'query', …) for
    readability. A body that is not JSON, or not sent as JSON, is field `body`, with the parser's complaint; a key
    the `body` model lacks names the field it nearly spells."""
    readable: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()  # a 5,000-offer batch's errors: a list scan per error was quadratic
    for error in errors:
        loc = list(error.get("loc", ()))
        kind = str(loc.pop(0)) if loc and loc[0] in LOCATION_KINDS else None
        if kind == "body" and not loc and isinstance(error.get("input"), bytes):
            item = {"field": "body", "message": NOT_SENT_AS_JSON}
        elif error.get("type") == "json_invalid":
            where = f" at character {loc[0]}" if loc and isinstance(loc[0], int) else ""
            reason = (error.get("ctx") or {}).get("error") or "JSON decode error"
            item = {"field": "body", "message": f"not valid JSON: {reason}{where}"}
        else:
            located = {**error, "loc": tuple(loc)}
            name = ".".join(error_location(located)) or ("body" if kind == "body" else "request")
            message = error_message(located) if "msg" in error else "invalid"
            if body and kind == "body" and loc and error.get("type") == "extra_forbidden":
                near = nearest_field(body, loc)
                message += f" (did you mean {near}?)" if near else ""
            item = {"field": name, "message": message}
        if (item["field"], item["message"]) not in seen:
            seen.add((item["field"], item["message"]))
            readable.append(item)
    return readable


def unprocessable(exc: FieldError) -> HTTPException:
    """A 422 naming every field the exception found (the API's answer to a service's field error)."""
    return HTTPException(status_code=422, detail=field_entries(exc.errors))


def field_error_response(request: Request, errors: Mapping[str, str]) -> Response:
    """A 422 naming each field: JSON to the API and JSON clients, the error page ("field: message") to a browser."""
    messages = [f"{field}: {message}" for field, message in errors.items()]
    return _json_or_page(request, 422, {"detail": field_entries(errors)}, "Invalid input", messages)


def refused_response(request: Request, status_code: int, message: str) -> Response:
    """A refusal naming no field (403): one {field: request} entry to JSON clients, the error page to a browser."""
    return _json_or_page(request, status_code, error_body(status_code, message), "Error", [message])


def _json_or_page(
    request: Request,
    status_code: int,
    body: Any,
    title: str,
    messages: list[str],
    headers: Mapping[str, str] | None = None,
) -> Response:
    """`body` as JSON to the API and JSON clients (wants_json), the error page of `messages` to a browser; either
    way `Vary: Accept` where the Accept header chose between them (_by_accept)."""
    if wants_json(request):
        return _by_accept(request, JSONResponse(body, status_code=status_code, headers=headers))
    return _error_page(request, status_code, title, messages, headers)


def _by_accept(request: Request, response: Response) -> Response:
    """`Vary: Accept` where the Accept header chose JSON or the page (not the API's paths, nor a .json/.csv twin):
    a 404 is cacheable by default (RFC 9111 4.2.2), and a shared cache must not hand a browser's page to a script."""
    path = request.url.path
    if not (path.startswith("/api/") or path.endswith((".json", ".csv"))):
        response.headers.add_vary_header("Accept")
    return response


def _error_page(
    request: Request, status_code: int, title: str, messages: list[str], headers: Mapping[str, str] | None = None
) -> Response:
    context = {"title": title, "status_code": status_code, "messages": messages}
    page = templates.TemplateResponse(request, "error.html", context, status_code=status_code, headers=headers)
    return _by_accept(request, page)


def _http_detail(request: Request, exc: StarletteHTTPException) -> list[dict[str, str]]:
    """The exception's detail as {field, message} entries; Starlette's bare 404 and 405 say what was asked."""
    detail: Any = exc.detail
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"nothing at {request.url.path}"
    elif exc.status_code == 405 and detail == "Method Not Allowed":
        allowed = methods_with_head((exc.headers or {}).get("Allow", ""))
        detail = f"{request.method} is not allowed at {request.url.path}" + (f"; it takes {allowed}" if allowed else "")
    return error_entries(exc.status_code, detail)


PAGE_TITLES = {404: "Not found", 405: "Method not allowed", 413: "Request too large", 429: "Too many requests"}


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    entries = _http_detail(request, exc)
    title = PAGE_TITLES.get(exc.status_code, "Error")
    messages = [e["message"] for e in entries]
    return _json_or_page(request, exc.status_code, {"detail": entries}, title, messages, exc.headers)  # a 405's Allow


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    unread = unsupported_media(request, list(exc.errors()))
    if unread is not None:
        return JSONResponse({"detail": [unread]}, status_code=415)
    model = body_model(request)
    errors = field_errors(list(exc.errors()), model)
    snapshot = await _snapshot_or_none(request)
    found = {e["field"]: e for e in body_id_errors(model, exc.body, snapshot, errors)}
    if model is None and snapshot is not None:  # a catalog list's query: `?gpu=H100 SXM`
        wrong = {e["field"] for e in errors}
        found |= {e["field"]: e for e in field_entries(query_name_errors(request.query_params, snapshot, wrong))}
    # a name typed as an id (`"model": "Llama 3.1 70B"`) is said again in catalog terms, in its shape error's place
    errors = [found.pop(e["field"], e) for e in errors] + list(found.values())
    messages = [f"{e['field']}: {e['message']}" for e in errors]
    return _json_or_page(request, 422, jsonable_encoder({"detail": errors}), "Invalid input", messages)


async def _snapshot_or_none(request: Request) -> CatalogSnapshot | None:
    """The catalog, to name a refused body's unknown ids too; None where the database does not answer (the shape's
    errors are still the answer)."""
    try:
        return await get_snapshot(request)
    except SQLAlchemyError:
        return None


# A database that does not answer (down, or SQLite's "database is locked" past its timeout) is the server's
# trouble and passes: a 503 to retry, in the one error shape, not a bare text 500. Other database errors stay 500s.
DATABASE_RETRY_AFTER_S = 5


async def database_unavailable(request: Request, exc: OperationalError) -> Response:
    message = f"the database did not answer ({type(exc).__name__}); retry in a moment"  # never its URL
    headers = {"Retry-After": str(DATABASE_RETRY_AFTER_S)}
    return _json_or_page(request, 503, error_body(503, message), "Error", [message], headers)


SERVER_ERROR_MESSAGE = "something went wrong on our side answering this; retry it, or report the link you opened"


async def server_error(request: Request, exc: Exception) -> Response:
    """An unexpected failure: a page that links home, or the one JSON error shape; no trace in either (it goes to the
    server's log: Starlette re-raises after this answers). It was Starlette's bare text "Internal Server Error"."""
    return _json_or_page(request, 500, error_body(500, SERVER_ERROR_MESSAGE), "Server error", [SERVER_ERROR_MESSAGE])


def install(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(OperationalError, database_unavailable)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, server_error)
    document_field_errors(app)


# The OpenAPI schema must describe the 422 body this module really sends, not FastAPI's default.
FIELD_ERROR_SCHEMA = {
    "title": "ValidationError",
    "type": "object",
    "required": ["field", "message"],
    "properties": {
        "field": {
            "type": "string",
            "description": "what to change: the field's dotted path in the body or the query (workload.input_len), "
            "or path, method, authorization, body, content-type, request where no field is at fault",
            "examples": ["input_len"],
        },
        "message": {
            "type": "string",
            "description": "why, in words, with the nearest known id or key where one was mistyped",
            "examples": ["must be at least 1 token"],
        },
    },
}

# FastAPI documents its own 422 body (HTTPValidationError: loc, msg, type); this app answers Error's shape.
INVALID_INPUT = {
    "description": "invalid input: one {field, message} entry per bad field",
    "content": {
        "application/json": {
            "schema": {"$ref": "#/components/schemas/Error"},
            "example": {"detail": [{"field": "input_len", "message": "must be at least 1 token"}]},
        }
    },
}


# Every operation may answer another client error (404, 405, 413, 429, …), in the same shape as its 422.
OTHER_ERRORS = {
    "description": "any other client error, as one {field, message} entry: 404 (path or path parameter), 405 "
    "(method), 401 (authorization), 413 (body), 415 (content-type or content-encoding: a body not sent as "
    "uncompressed JSON), 403 and 429 (request); a 503 (a heavy route busy, or the database not answering) alike",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


# An /api route without parameters still refuses a query key it does not take (or one given twice), as a 422.
UNKNOWN_QUERY_KEY = {
    "description": "a query parameter the route does not take: one {field, message} entry naming it",
    "content": {
        "application/json": {
            "schema": {"$ref": "#/components/schemas/Error"},
            "example": {
                "detail": [
                    {
                        "field": "x",
                        "message": "not a query parameter of GET /api/v1/offers/{offer_id}/history; it takes no query "
                        "parameters",
                    }
                ]
            },
        }
    },
}


def _fastapi_default(response: dict[str, Any] | None) -> bool:
    schema = ((response or {}).get("content") or {}).get("application/json", {}).get("schema", {})
    return bool(schema.get("$ref", "").endswith("/HTTPValidationError"))


def document_field_errors(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        schema = generate()  # FastAPI's, cached: the changes below are made once and kept
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components["ValidationError"] = FIELD_ERROR_SCHEMA
        components["Error"] = ERROR_SCHEMA
        components.pop("HTTPValidationError", None)
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                responses.setdefault("4XX", OTHER_ERRORS)
                if _fastapi_default(responses.get("422")):
                    responses["422"] = INVALID_INPUT
                elif path.startswith("/api/") and "422" not in responses:
                    responses["422"] = UNKNOWN_QUERY_KEY
                    responses["4XX"] = responses.pop("4XX")  # listed after it, as on the other routes
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
