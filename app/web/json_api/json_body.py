"""JSON bodies read strictly (app.scoring.input_checks.strict_json): a repeated key or a NaN is a 422 naming its path,
e.g. `workload.model: given more than once ...`, through the app's RequestValidationError handler like any field error.

Routers whose routes take a JSON body set `route_class=StrictJsonRoute`. FastAPI still decides whether a body is
JSON (its Content-Type) and still answers malformed JSON itself; only the parse is swapped. Its body reader turns
any error but json.JSONDecodeError and HTTPException into a bare 400, so a refusal leaves it as an HTTPException
and the route raises it as a RequestValidationError once out of FastAPI's hands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from app.scoring.input_checks import strict_json
from app.web.json_api.json_types import type_problems
from app.web.json_api.other_errors import other_errors


class _RefusedBody(HTTPException):
    """The parse's errors in pydantic's shape, carried past FastAPI's body reader."""

    def __init__(self, errors: list[dict[str, Any]], body: Any = None) -> None:
        super().__init__(status_code=422)
        self.errors, self.body = errors, body


def _field_error(path: strict_json.Path, message: str) -> dict[str, Any]:
    if not path:  # text json.loads cannot read: `json_invalid` at the body, as FastAPI reports malformed JSON
        return {
            "type": "json_invalid",
            "loc": ("body",),
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": message},
        }
    return {"type": "value_error", "loc": ("body", *path), "msg": message, "input": None}


def media_type(request: Request) -> str:
    """The body's media type without its parameters, in lower case as media types compare (RFC 9110 8.3.1):
    `Application/JSON; charset=utf-8` -> `application/json`; '' where no Content-Type is sent."""
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


async def strict_json_body(request: Request) -> Any:
    """The body read strictly, for a route that reads its body itself (POST /share takes a form too); a refusal is
    a RequestValidationError at its path, as on the routes below; text that is not JSON at all (empty, truncated) is
    `json_invalid` at its character, as FastAPI reports it on those routes."""
    try:
        return strict_json.loads(await request.body())
    except json.JSONDecodeError as exc:
        invalid = {"type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error", "input": {}}
        raise RequestValidationError([{**invalid, "ctx": {"error": exc.msg}}]) from None
    except strict_json.UnreadableJson as exc:
        raise RequestValidationError([_field_error(*problem) for problem in exc.problems]) from None


class StrictJsonRequest(Request):
    body_model: Any = None  # the route's body model: its booleans take only true and false, its numbers only numbers

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = strict_json.loads(await self.body())
            except strict_json.UnreadableJson as exc:
                raise _RefusedBody([_field_error(*problem) for problem in exc.problems]) from None
            if problems := type_problems(self.body_model, self._json):
                others = other_errors(self.body_model, self._json, [path for path, _ in problems])
                raise _RefusedBody([_field_error(*problem) for problem in problems] + others, self._json)
        return self._json


class StrictJsonRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()
        params = self.dependant.body_params
        body_model = params[0].field_info.annotation if len(params) == 1 else None  # one body, not embedded

        async def handle_strictly(request: Request) -> Response:
            strict = StrictJsonRequest(request.scope, request.receive)
            strict.body_model = body_model
            try:
                return await handle(strict)
            except _RefusedBody as refused:
                raise RequestValidationError(refused.errors, body=refused.body) from None

        return handle_strictly
