"""/docs: the API reference rendered on the server from the app's own OpenAPI schema (it reads without JavaScript),
with Swagger UI from the pinned copy in static/vendor folded in (the CSP needs no CDN or inline script)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from markupsafe import Markup, escape

from app.web.rendering.render import page, templates
from app.web.site.api_reference import ApiReference, build_reference

router = APIRouter(include_in_schema=False)
# the example requests' host in the cached HTML, replaced by the asking one's (the HTML is ~0.5 MB: 35 ms to render)
BASE_URL_SLOT = "http://gpumatch.base-url.invalid"


@dataclass(frozen=True)
class CachedReference:
    schema: dict[str, Any]  # the key: FastAPI keeps one app.openapi_schema until the routes change and it is reset
    reference: ApiReference
    html: str


def cached_reference(app: FastAPI) -> CachedReference:
    """Built and rendered once per schema object, as FastAPI computes the schema once."""
    schema = app.openapi()
    cached: CachedReference | None = getattr(app.state, "api_reference", None)
    if cached is None or cached.schema is not schema:
        reference = build_reference(schema)
        html = templates.env.get_template("_api_reference.html").render(reference=reference, base_url=BASE_URL_SLOT)
        cached = CachedReference(schema, reference, html)
        app.state.api_reference = cached
    return cached


@router.get("/docs")
def api_docs(request: Request) -> Response:
    cached = cached_reference(request.app)
    base_url = str(escape(str(request.base_url).rstrip("/")))
    context = {
        "title": "JSON API",
        "nav": "api",
        "json_url": "/openapi.json",
        "reference": cached.reference,
        "reference_html": Markup(cached.html.replace(BASE_URL_SLOT, base_url)),
    }
    return page(request, "api_docs.html", context)
