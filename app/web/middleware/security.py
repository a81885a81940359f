"""Security headers on every response (a pure ASGI middleware: cheap on the hot path)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.site.assets import content_security_policy


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", content_security_policy().encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + self.headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
