"""Request body cap (GPUMATCH_MAX_BODY_BYTES): a pure ASGI middleware that answers 413 before any
parsing or authentication reads the body.

Two checks, because a client may lie or stream: a declared Content-Length above the cap is refused
before one byte is read, and the bytes actually received are counted, so a chunked body is cut off
as soon as it passes the cap (the app never holds more than the cap plus one chunk).
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.errors.error_shape import error_bytes


class BodyTooLarge(HTTPException):
    """Raised into the app's receive() when a streamed body passes the cap: an HTTPException, so a
    body parser that wraps other errors as 400 lets it through and the error handler answers 413."""

    def __init__(self, detail: str) -> None:
        super().__init__(status_code=413, detail=detail)


async def send_json(send: Send, status: int, detail: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = error_bytes(status, detail)  # {"detail": [{"field", "message"}]}, as every error
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


def declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return -1  # malformed: refused like an oversized one
    return None


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _detail(self) -> str:
        return f"request body larger than {self.max_bytes} bytes (GPUMATCH_MAX_BODY_BYTES)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = declared_length(scope)
        if length is not None and (length < 0 or length > self.max_bytes):
            # The body stays unread, so the connection cannot carry another request: close it.
            await send_json(send, 413, self._detail(), [(b"connection", b"close")])
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self._detail())
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await send_json(send, 413, self._detail(), [(b"connection", b"close")])
