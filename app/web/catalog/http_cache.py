"""Conditional GETs for the catalog API (GET /api/v1/gpus, /offers, /models, …): an ETag from the catalog version
(the `catalog_version` a ranking reports) and the app's version (a release may change the body), `Cache-Control:
public, no-cache` (a cache keeps the body but asks each time, so an import or an admin edit shows at once), and a
304 without a body when If-None-Match names the tag.

The tag is read before the handler queries the database: a body can be newer than its tag (the snapshot rechecks
the database every few seconds, app.catalog.snapshot), which costs a client one more full answer, never an older
body kept under a newer tag. Rankings carry no tag: each depends on its question as well as the catalog, is
computed per request, and a POST is not stored by HTTP caches.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from app import __version__

CATALOG_CACHE_CONTROL = "public, no-cache"
JSON = "application/json"


def catalog_etag(request: Request) -> str:
    """A weak tag (GZip may re-encode the body): the catalog's version and the app's."""
    version = request.app.state.snapshots.get().version  # may recheck the database: called on the threadpool
    return f'W/"{version}+{__version__}"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """If-None-Match's weak comparison (RFC 9110 §13.1.2): `*`, or any listed tag equal but for W/."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    opaque = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == opaque for tag in if_none_match.split(","))


class CatalogJsonRoute(APIRoute):
    """A catalog route whose JSON 200s carry the ETag and Cache-Control, and become a 304 when the client has the
    tag. The catalog pages' `.json` twins (the API's bytes) are tagged too; their HTML is not (it varies with
    HX-Request and the page's templates)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handle_conditionally(request: Request) -> Response:
            etag = await run_in_threadpool(catalog_etag, request)
            response = await handle(request)
            if response.status_code != 200 or not response.headers.get("content-type", "").startswith(JSON):
                return response
            headers = {"ETag": etag, "Cache-Control": CATALOG_CACHE_CONTROL}
            if etag_matches(request.headers.get("if-none-match"), etag):
                return Response(status_code=304, headers=headers)
            response.headers.update(headers)
            return response

        return handle_conditionally
