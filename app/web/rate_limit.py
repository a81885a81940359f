"""Per-client-IP rate limit on /api/* with `limits` (the library under slowapi), only when GPUMATCH_RATE_LIMIT is set.

slowapi's own middleware finds the route handler by walking `app.routes`, which FastAPI >= 0.16x nests
(`_IncludedRouter`), so it silently limits nothing; this pure ASGI middleware calls `limits` directly.
One fixed-window bucket per client IP across every API route; the storage URI (memory://, redis://…,
memcached://…) lets replicas share the counters. Pages, static files and /healthz are never limited.
"""

from __future__ import annotations

import math
import time

import orjson
from fastapi import FastAPI
from limits import RateLimitItem, parse
from limits.aio.strategies import FixedWindowRateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings

LIMITED_PREFIX = "/api/"


def async_storage_uri(uri: str) -> str:
    return uri if uri.startswith("async+") else f"async+{uri}"  # the asyncio storages: no blocking I/O


class ApiRateLimit:
    def __init__(self, app: ASGIApp, rate: str, storage_uri: str) -> None:
        self.app = app
        self.item: RateLimitItem = parse(rate)
        self.limiter = FixedWindowRateLimiter(storage_from_string(async_storage_uri(storage_uri)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(LIMITED_PREFIX):
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown", 0))[0]
        if await self.limiter.hit(self.item, "api", client):
            await self.app(scope, receive, send)
            return
        await self._reject(client, send)

    async def _reject(self, client: str, send: Send) -> None:
        stats = await self.limiter.get_window_stats(self.item, "api", client)
        retry_after_s = max(1, math.ceil(stats.reset_time - time.time()))
        body = orjson.dumps({"detail": f"rate limit exceeded: {self.item}; retry after {retry_after_s} s"})
        headers = [
            (b"content-type", b"application/json"),
            (b"retry-after", str(retry_after_s).encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def install(app: FastAPI, settings: Settings) -> None:
    if not settings.rate_limit:
        return  # no middleware at all: nothing on the hot path
    app.add_middleware(ApiRateLimit, rate=settings.rate_limit, storage_uri=settings.rate_limit_storage_uri)
