"""/docs: Swagger UI served from the pinned copy in static/vendor, so the CSP needs no CDN or inline script."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.rendering.render import page

router = APIRouter(include_in_schema=False)


@router.get("/docs")
def api_docs(request: Request) -> Response:
    return page(request, "api_docs.html", {"title": "JSON API", "nav": "api", "json_url": "/openapi.json"})
