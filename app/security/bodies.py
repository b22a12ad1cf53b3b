"""Request bodies: a body larger than its route takes (BODY_LIMITS) is refused with 413 as soon as its
Content-Length or the bytes streamed so far pass the limit, before anything reads or holds it; a body that
trickles in is cut off with 408."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.security.headers import add_security_headers
from app.security.session import SessionCookieMiddleware
from app.web import HTMX, render_text

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RouteBodyLimit:
    """A route whose body may be larger than FATEBOARD_MAX_BODY_BYTES: its method, an anchored regular expression
    over the path (matched ASCII-only: \\d is 0-9), the most it takes, and why."""

    method: str
    path: str
    max_bytes: int
    why: str


# THE table of routes that take more than the default body limit (FATEBOARD_MAX_BODY_BYTES, 1 MiB); the first
# row that matches wins, every other request gets the default. Add a row when a route needs more, say why, and
# add it to docs/LIMITS.md ("Request bodies").
BODY_LIMITS: tuple[RouteBodyLimit, ...] = (
    RouteBodyLimit(
        "POST", r"^/api/campaigns/\d+/handouts$", 21 * MiB, "a handout picture (up to 20 MB) and its fields"
    ),
    RouteBodyLimit("POST", r"^/campaigns/\d+/handouts$", 21 * MiB, "the same upload from the campaign page"),
)

# Nothing reads the body of these (no route takes one; InputGuard and the CSRF check read POST, PUT, PATCH and
# DELETE bodies only), so they pass untouched: a page view, a ping and a stream cost nothing more. uvicorn's flow
# control keeps what it buffers of an unread body to 64 KiB, and drops the rest once the response is sent.
_UNREAD = frozenset({"GET", "HEAD"})


class _Stopped(Exception):
    """Raised into the app from `receive` once the request has been answered (413, 408) or its client has gone
    before the end of the body: whatever the app was doing with the body ends there, and never with a cut-off
    body taken for the whole one."""


class BodyLimitMiddleware:
    """The outermost middleware (inside only Starlette's error layer; the live streams' dispatcher in front of
    the stack serves GETs only). A body larger than its route takes (BODY_LIMITS, else `max_bytes`) is refused
    with 413 as soon as its Content-Length says so (before a byte of it is read: no `100 Continue` either) or
    the bytes streamed so far pass the limit; a body must keep arriving (no pause over `timeout` seconds, and on
    average `min_rate` bytes/s after the first `timeout` seconds), else 408. Either way the response closes
    the connection, so the rest is never read, and the app sees no more of the body: every later `receive`
    raises, and what it still tries to send goes nowhere. /api answers in JSON, the pages with the error page,
    in the reader's language."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        routes: tuple[RouteBodyLimit, ...] = BODY_LIMITS,
        timeout: float = 10.0,
        min_rate: int = 8 * 1024,
        default_locale: str = i18n.DEFAULT,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.routes = tuple((r.method, re.compile(r.path, re.ASCII), r.max_bytes) for r in routes)
        self.timeout = timeout
        self.min_rate = min_rate
        self.default_locale = default_locale
        inner: Any = app  # the session's reader, for the language of a refusal (the account's choice first)
        while inner is not None and not isinstance(inner, SessionCookieMiddleware):
            inner = getattr(inner, "app", None)
        self.sessions: SessionCookieMiddleware | None = inner

    def limit(self, method: str, path: str) -> int:
        for route_method, pattern, max_bytes in self.routes:
            if route_method == method and pattern.fullmatch(path):
                return max_bytes
        return self.max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _UNREAD:
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["method"], scope["path"])
        length: int | None = None
        streamed = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = int(value) if value.isdigit() else None  # the HTTP parser refused anything else already
            elif name == b"transfer-encoding":
                streamed = True
        if length is not None and length > limit:
            await self.answer(scope, send, 413, limit)
            return
        if not length and not streamed:
            await self.app(scope, receive, send)  # no body at all
            return
        body = _GuardedBody(self, scope, receive, send, limit)
        try:
            await self.app(scope, body.receive, body.send)
        except Exception:
            if not body.stopped:
                raise
            # Whatever the app raised after the body was stopped (our _Stopped, or what a layer made of it) is
            # its way out; the response has been sent, or the client is gone.

    async def answer(self, scope: Scope, send: Send, status: int, limit: int) -> None:
        """413 or 408 with `Connection: close`, in the reader's language: JSON on /api, else the error page (its
        message block for HTMX)."""
        headers = Headers(scope=scope)
        if self.sessions is not None:
            self.sessions.open(scope, headers)  # sets the language as every request's: account, Accept-Language
        else:
            i18n.set_locale(i18n.negotiate(headers.get("accept-language"), None, self.default_locale))
        if status == 413:
            message = i18n.gettext("This is too large to send: at most {size} can be sent here at once.").format(
                size=_megabytes(limit)
            )
        else:
            message = i18n.gettext(
                "The data arrived too slowly, so the server stopped waiting. Check your connection and try again."
            )
        if scope["path"].startswith("/api/"):
            payload = json.dumps({"detail": message, "field": None}).encode()
            content_type = b"application/json"
        else:
            htmx = HTMX.from_headers(headers)
            csrf = scope.get("fb_session", {}).get("csrf", "")
            payload = render_text(
                "error.html",
                "message" if htmx.request else None,
                message=message,
                status=status,
                csrf_token=csrf,
                user=None,
                htmx=htmx,
            ).encode()
            content_type = b"text/html; charset=utf-8"
        response: dict[str, Any] = {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
        add_security_headers(MutableHeaders(scope=response))
        await send(response)
        await send({"type": "http.response.body", "body": payload})


def _megabytes(size: int) -> str:
    """1 MiB → "1 MB": a number a person knows (a MiB is a little more than a MB, so the rounding is theirs)."""
    if size >= MiB:
        return f"{size / MiB:.3g} MB"
    return f"{max(1, size // 1024)} KB"


class _GuardedBody:
    """One request's `receive` and `send` while its body arrives: counts the bytes against the limit, keeps the
    deadline, and once it answered (or the client left) stops the app's reading and drops what it sends."""

    __slots__ = (
        "guard",
        "scope",
        "_receive",
        "_send",
        "limit",
        "loop",
        "start",
        "received",
        "complete",
        "started",
        "stopped",
    )

    def __init__(self, guard: BodyLimitMiddleware, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        self.guard, self.scope, self._receive, self._send, self.limit = guard, scope, receive, send, limit
        self.loop = asyncio.get_running_loop()
        self.start = self.loop.time()
        self.received = 0
        self.complete = False  # the last piece has arrived: from then on `receive` is the server's own
        self.started = False  # the app has begun its response (then no 413 can be sent; the connection drops)
        self.stopped = False

    async def receive(self) -> Message:
        if self.complete:
            return await self._receive()
        if self.stopped:
            raise _Stopped()
        guard = self.guard
        # The next piece is due within `timeout`, and by when the average since the start (after a head start
        # of `timeout`) would fall under `min_rate`.
        due = min(self.loop.time() + guard.timeout, self.start + guard.timeout + self.received / guard.min_rate)
        try:
            async with asyncio.timeout_at(due):
                message = await self._receive()
        except TimeoutError:
            await self._stop(408)
            raise _Stopped() from None
        if message["type"] != "http.request":
            self.stopped = True  # the client left in the middle of its body: nobody to answer
            raise _Stopped()
        self.received += len(message.get("body", b""))
        if self.received > self.limit:
            await self._stop(413)
            raise _Stopped()
        if not message.get("more_body", False):
            self.complete = True
        return message

    async def send(self, message: Message) -> None:
        if self.stopped:
            return
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)

    async def _stop(self, status: int) -> None:
        self.stopped = True
        if not self.started:
            await self.guard.answer(self.scope, self._send, status, self.limit)
