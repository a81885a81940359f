"""What a refused heavy request gets while every ranking slot is taken: browsers a small HTML page that retries
itself (a meta refresh, no script), htmx swaps a notice that asks again after a second, API clients and the
pages' .json/.csv twins the JSON detail. All keep the 503 and Retry-After."""

from __future__ import annotations

import re
from html import escape

from starlette.types import Scope, Send

from app.web.middleware.body_limit import send_json

BUSY_TEXT = "Busy: every ranking slot is taken. Retrying in a moment…"
# a page's htmx target is the id of its workbench (#workbench, #planbench, …); anything else is not echoed
TARGET_ID = re.compile(r"[A-Za-z][\w-]{0,63}")


def _header(scope: Scope, name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name), "")


def is_html_page(scope: Scope, pages: tuple[str, ...]) -> bool:
    """A GET of a page (not its .json/.csv twin, not the API): its client reads HTML."""
    path = scope["path"]
    if scope.get("method", "GET") not in ("GET", "HEAD"):
        return False
    return path in pages or (path.startswith("/s/") and not path.endswith((".json", ".csv")))


def _own_url(scope: Scope) -> str:
    query = scope.get("query_string", b"").decode("latin-1")
    return scope["path"] + (f"?{query}" if query else "")


def busy_html(scope: Scope, retry_after_s: int) -> bytes:
    """The full page (a plain navigation), or the htmx fragment that takes the swapped element's place and
    requests the same URL again after `retry_after_s`."""
    target = _header(scope, b"hx-target")
    if _header(scope, b"hx-request") == "true" and TARGET_ID.fullmatch(target):
        url = escape(_own_url(scope), quote=True)
        return (
            f'<div id="{target}" class="busy" role="status" hx-get="{url}" hx-trigger="load delay:{retry_after_s}s" '
            f'hx-target="this" hx-swap="outerHTML"><p>{BUSY_TEXT}</p></div>'
        ).encode()
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{retry_after_s}"><title>Busy, retrying</title></head>'
        f'<body><p role="status">{BUSY_TEXT}</p><p><a href="{escape(_own_url(scope), quote=True)}">Retry now</a></p>'
        "</body></html>"
    ).encode()


async def send_busy(send: Send, scope: Scope, html: bool, detail: str, retry_after_s: int) -> None:
    retry = [(b"retry-after", str(retry_after_s).encode())]
    if not html:
        await send_json(send, 503, detail, retry)
        return
    body = busy_html(scope, retry_after_s)
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"vary", b"HX-Request"),
        (b"cache-control", b"no-store"),
        *retry,
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else body})
