"""Bounded concurrency for the heavy routes (GPUMATCH_MAX_CONCURRENT_RANKINGS, default 2 x CPU cores).

Ranking and page rendering are CPU-bound sync work on the threadpool. Without a bound, a burst of
heavy requests queues there without end and every other request (liveness included) waits behind
it. This pure ASGI middleware counts heavy requests in flight, in the event loop (one thread, so a
plain integer is enough), and answers 503 with Retry-After at once when every slot is taken (pages an HTML
notice that retries itself, the API and the twins JSON: busy_page.py).
Cheap routes (/healthz, /readyz, static files, catalog lists) never take a slot.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.middleware.busy_page import is_html_page, send_busy

RETRY_AFTER_S = 1  # a ranking takes well under a second (docs/PERFORMANCE.md): try again soon
# The pages that rank, estimate or plan, and their twins (`/` has `/rank.json`); tests/test_edge.py checks
# that every route of those modules is here, so a new page cannot slip past the bound.
HEAVY_PAGES = ("/", "/compare", "/plan", "/precision", "/own", "/mix", "/disagg")
HEAVY_EXACT = frozenset(HEAVY_PAGES) | {
    f"{'/rank' if page == '/' else page}{suffix}" for page in HEAVY_PAGES for suffix in (".json", ".csv")
}
HEAVY_PREFIXES = (
    "/api/v1/rank/",
    "/api/v1/estimate/",
    "/api/v1/plan/",
    "/api/v1/precision",
    "/api/v1/own",
    "/api/v1/mix",
    "/api/v1/disagg",
    "/s/",
)


def is_heavy(path: str) -> bool:
    return path in HEAVY_EXACT or path.startswith(HEAVY_PREFIXES)


async def drain(receive: Receive) -> None:
    """Read the (small, already size-capped) request body before refusing, so the connection stays
    usable for the client's next request instead of being reset with its body unread."""
    try:
        while True:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body", False):
                return
    except HTTPException:  # the body passed GPUMATCH_MAX_BODY_BYTES while draining: refuse anyway
        return


class RankingSlots:
    def __init__(self, app: ASGIApp, slots: int) -> None:
        self.app = app
        self.slots = slots
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_heavy(scope["path"]):
            await self.app(scope, receive, send)
            return
        if self.in_flight >= self.slots:
            await drain(receive)
            detail = f"busy: {self.slots} rankings already running (GPUMATCH_MAX_CONCURRENT_RANKINGS); retry shortly"
            await send_busy(send, scope, is_html_page(scope, HEAVY_PAGES), detail, RETRY_AFTER_S)
            return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
