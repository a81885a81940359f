"""Per-client-IP rate limits with `limits` (the library under slowapi), in one pure ASGI middleware.

slowapi's own middleware finds the route handler by walking `app.routes`, which FastAPI >= 0.16x nests
(`_IncludedRouter`), so it silently limits nothing; this middleware calls `limits` directly.

Two buckets per client IP:
- "api" (GPUMATCH_RATE_LIMIT, off when unset): every /api/* route and every page's `.json`/`.csv` twin
  (rank, compare, plan, precision, own, disagg, mix, a saved link's, the catalog's), which do the API's work
  and so share its count;
- "share" (GPUMATCH_SHARE_RATE_LIMIT, default 30/minute): POST /share, a database write each.
The storage URI (memory://, redis://…, memcached://…) lets replicas share the counters. Pages,
static files and /healthz are never limited. The client IP is `scope["client"]`, which only the
proxy-headers middleware (trusted proxies only, app/web/edge.py) may rewrite from X-Forwarded-For.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from html import escape

from fastapi import FastAPI, Request
from limits import RateLimitItem, parse
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.web.errors.error_shape import error_bytes
from app.web.errors.handlers import wants_json

LIMITED_PREFIX = "/api/"
# The pages' machine-readable twins (/rank.json, /s/{slug}.csv, /gpus/H100-SXM.json…): the API's work, so the
# API's bucket. Static files are never limited.
TWIN_SUFFIXES = (".json", ".csv")
STATIC_PREFIX = "/static/"
SHARE_PATH = "/share"


def is_twin(path: str) -> bool:
    return path.endswith(TWIN_SUFFIXES) and not path.startswith(STATIC_PREFIX)


def async_storage_uri(uri: str) -> str:
    return uri if uri.startswith("async+") else f"async+{uri}"  # the asyncio storages: no blocking I/O


def bucket_for(scope: Scope, api_limited: bool) -> str | None:
    path = scope["path"]
    if path == SHARE_PATH and scope.get("method") == "POST":
        return "share"
    if api_limited and (path.startswith(LIMITED_PREFIX) or is_twin(path)):
        return "api"
    return None


@dataclass(frozen=True, kw_only=True)
class Rates:
    api: RateLimitItem | None
    share: RateLimitItem | None


class ApiRateLimit:
    def __init__(self, app: ASGIApp, rate: str | None, storage_uri: str, share_rate: str | None = None) -> None:
        self.app = app
        self.rates = Rates(api=parse(rate) if rate else None, share=parse(share_rate) if share_rate else None)
        self.item: RateLimitItem | None = self.rates.api
        self.limiter = FixedWindowRateLimiter(storage_from_string(async_storage_uri(storage_uri)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        bucket = bucket_for(scope, self.rates.api is not None) if scope["type"] == "http" else None
        item = getattr(self.rates, bucket) if bucket else None
        if bucket is None or item is None:
            await self.app(scope, receive, send)
            return
        client = client_key(scope)
        if await self.limiter.hit(item, bucket, client):
            await self.app(scope, receive, send)
            return
        await self._reject(item, bucket, client, scope, send)

    async def _reject(self, item: RateLimitItem, bucket: str, client: str, scope: Scope, send: Send) -> None:
        stats = await self.limiter.get_window_stats(item, bucket, client)
        retry_after_s = max(1, math.ceil(stats.reset_time - time.time()))
        message = f"rate limit exceeded: {item}; retry after {retry_after_s} s"
        page = bucket == "share" and not wants_json(Request(scope))  # the results page's Save button
        body = refused_page(message) if page else error_bytes(429, message)
        headers = [
            (b"content-type", b"text/html; charset=utf-8" if page else b"application/json"),
            (b"retry-after", str(retry_after_s).encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def refused_page(message: str) -> bytes:
    """A browser's refused form post: the reason as a page, not raw JSON (a pure ASGI middleware has no templates)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many requests</title></head>'
        f'<body><h1>Too many requests</h1><p>{escape(message)}</p><p><a href="/">Back to gpumatch</a></p>'
        "</body></html>"
    ).encode()


def client_key(scope: Scope) -> str:
    return str((scope.get("client") or ("unknown", 0))[0])


def install(app: FastAPI, settings: Settings) -> None:
    if not settings.rate_limit and not settings.share_rate_limit:
        return  # no middleware at all: nothing on the hot path
    app.add_middleware(
        ApiRateLimit,
        rate=settings.rate_limit,
        storage_uri=settings.rate_limit_storage_uri,
        share_rate=settings.share_rate_limit or None,
    )
