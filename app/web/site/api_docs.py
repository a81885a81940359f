"""/docs: the API reference rendered on the server from the app's own OpenAPI schema (it reads without JavaScript),
with Swagger UI from the pinned copy in static/vendor folded in (the CSP needs no CDN or inline script)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from markupsafe import Markup, escape

from app.web.rendering.render import page, templates
from app.web.site.api_reference import ApiReference, build_reference

logger = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)
# One build at a time: a /docs asked during the start-up warm-up waits for it instead of building a second copy.
_BUILD_LOCK = threading.Lock()
# the example requests' host in the cached HTML, replaced by the asking one's (the HTML is ~0.5 MB: 35 ms to render)
BASE_URL_SLOT = "http://gpumatch.base-url.invalid"


@dataclass(frozen=True)
class CachedReference:
    schema: dict[str, Any]  # the key: FastAPI keeps one app.openapi_schema until the routes change and it is reset
    reference: ApiReference
    html: str


def cached_reference(app: FastAPI) -> CachedReference:
    """Built and rendered once per schema object, as FastAPI computes the schema once."""
    with _BUILD_LOCK:
        schema = app.openapi()
        cached: CachedReference | None = getattr(app.state, "api_reference", None)
        if cached is None or cached.schema is not schema:
            reference = build_reference(schema)
            template = templates.env.get_template("_api_reference.html")
            cached = CachedReference(schema, reference, template.render(reference=reference, base_url=BASE_URL_SLOT))
            app.state.api_reference = cached
        return cached


def warm_reference(app: FastAPI) -> threading.Thread:
    """Build the reference (and the OpenAPI schema under it, ~1 s) on a thread of its own at start-up, so the first
    /docs or /openapi.json finds it made; start-up, /healthz and the pages do not wait for it."""

    def build() -> None:
        try:
            cached_reference(app)
        except Exception:  # a schema that does not build: /docs says so when asked, the server runs on
            logger.exception("API reference not built at start-up")

    thread = threading.Thread(target=build, name="api-reference-warm-up", daemon=True)
    thread.start()
    return thread


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
