"""CSRF: every state-changing request outside /api/ needs a matching token (header `X-CSRF-Token`, or the form
field `csrf_token`) and, when the browser sends one, a same-origin Origin. /api/ authenticates with bearer tokens
only, never cookies, so it is exempt."""

from __future__ import annotations

import hmac
import json
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import Headers
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.web import HTMX, REFUSAL, render_text

CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


class CSRFMiddleware:
    def __init__(self, app: ASGIApp, *, trusted_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.trusted_origins = trusted_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in UNSAFE or scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        problem = self._origin_problem(scope, headers)
        expected = scope["fb_session"]["csrf"]
        body: bytes | None = None
        token = headers.get(CSRF_HEADER)
        form = headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
        if problem is None and token is None and form:
            body = await _read_body(receive)
            token = parse_qs(body.decode("latin-1")).get(CSRF_FIELD, [None])[0]
        if problem is None and not (token and hmac.compare_digest(token, expected)):
            problem = i18n.gettext("This form has expired. Reload the page and try again.")
        if problem is not None:
            await _forbidden(scope, send, problem, headers)
            return
        await self.app(scope, replay_body(body, receive) if body is not None else receive, send)

    def _origin_problem(self, scope: Scope, headers: Headers) -> str | None:
        origin = headers.get("origin") or _origin_of(headers.get("referer"))
        if not origin:
            return None
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        if origin == own or origin in self.trusted_origins:
            return None
        return i18n.gettext("This request came from another site and was refused.")


def _origin_of(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


async def _read_body(receive: Receive) -> bytes:
    """The whole body: BodyLimitMiddleware, outside, has bounded its size and its time already."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()  # never a cut-off body taken for the whole one
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app a body a middleware already read, then the rest of the connection."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _forbidden(scope: Scope, send: Send, message: str, headers: Headers) -> None:
    wants_html = "text/html" in headers.get("accept", "") or HTMX.from_headers(headers).request
    if wants_html:
        payload = render_text(REFUSAL, message=message).encode()
        content_type = b"text/html; charset=utf-8"
    else:
        payload = json.dumps({"detail": message}).encode()
        content_type = b"application/json"
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})
