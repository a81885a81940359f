"""POST /share's request: a JSON body or the results page's form (its Save button), read into one model, and how
the OpenAPI document describes both."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.web.errors.error_shape import field_entries
from app.web.json_api.json_body import media_type, strict_json_body


class ShareRequest(BaseModel):
    """What POST /share saves: a results page's path and its query string."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(max_length=32, description="the page: / or /compare")
    query: str = Field(
        max_length=4000,
        description="its query string, e.g. model=llama-3.1-8b&input_len=2000, as a rank API's share_url gives it "
        "(its sort, show and page follow the link, not saved with the question)",
    )


class ShareCreated(BaseModel):
    slug: str = Field(description="the saved link's id: /s/{slug}")
    url: str = Field(
        description="the saved link, /s/{slug}, then the query's sort, show or page if it gave one (?sort=-tok_s); "
        "/s/{slug}.json and .csv are its data"
    )


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _sent_json(request: Request) -> bool:
    return media_type(request) == "application/json"


async def _form_fields(request: Request) -> dict[str, Any]:
    data: dict[str, Any] = {}
    repeated: list[str] = []
    for key, value in (await request.form()).multi_items():
        repeated += [key] if key in data else []
        data[key] = value
    if repeated:  # a form's last value would win silently
        message = "given more than once; send it once"
        raise RequestValidationError(
            [
                {"type": "value_error", "loc": ("body", k), "msg": message, "input": None}
                for k in dict.fromkeys(repeated)
            ]
        )
    return data


async def share_request(request: Request) -> ShareRequest:
    """POST /share's fields from a JSON body or a form (the results page's Save button posts a form); a missing or
    bad one, or a field given twice, is a 422 naming it."""
    media = media_type(request)
    if media and not _sent_json(request) and media not in FORM_TYPES:  # text/plain read as a form: "path required"
        message = f"expects application/json or a form, not {media}: send {{path, query}} as JSON or form fields"
        raise HTTPException(status_code=415, detail=field_entries({"content-type": message}))
    data = await strict_json_body(request) if _sent_json(request) else await _form_fields(request)
    try:
        return ShareRequest.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None


SHARE_BODY = {
    "required": True,
    "content": {
        media: {"schema": ShareRequest.model_json_schema()}
        for media in ("application/json", "application/x-www-form-urlencoded")
    },
}


SHARE_RESPONSES: dict[int | str, dict[str, Any]] = {
    201: {
        "description": "saved: {slug, url}; Location is the link",
        "headers": {"Location": {"description": "the saved link, /s/{slug}", "schema": {"type": "string"}}},
    },
    303: {"description": "a form posted by a browser (no JSON asked for): redirected to /s/{slug}"},
    422: {
        "description": "a missing or bad field, or a question that does not read (each field named)",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    },
}
