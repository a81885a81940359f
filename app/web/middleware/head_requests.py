"""HEAD on every GET route, as HTTP asks (RFC 9110 §9.3.2) and uptime checks send: FastAPI's routes answer only the
methods they declare, so `HEAD /healthz` was a 405. A pure ASGI middleware, outermost: the app sees a GET (the same
status, headers and Content-Length) and the client gets no body. A 405's Allow then names HEAD beside GET.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def methods_with_head(allow: str) -> str:
    """An Allow value with HEAD wherever it allows GET: `GET` -> `GET, HEAD`."""
    methods = [m.strip() for m in allow.split(",") if m.strip()]
    return ", ".join([*methods, "HEAD"] if "GET" in methods and "HEAD" not in methods else methods)


def allow_with_head(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """A 405's headers, its Allow with HEAD wherever it allows GET."""
    return [
        (name, methods_with_head(value.decode("latin-1")).encode() if name.lower() == b"allow" else value)
        for name, value in headers
    ]


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"

        async def send_head(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                message = {**message, "headers": allow_with_head(list(message.get("headers", [])))}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"} if head else scope, receive, send_head)
