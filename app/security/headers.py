"""Every response's security headers (CSP without inline script, no framing, no sniffing; HSTS over https) and
the compression that may not reach a page (BREACH)."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.security.session import Transport

PLAIN = Transport()  # no base URL, no forced flag, no HSTS: the scheme of each request decides

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def add_security_headers(headers: MutableHeaders) -> None:
    """Every response's security headers (unless the response set its own): the middleware below, and the live
    streams, which are served outside it (app/live/routes.py)."""
    headers.setdefault("content-security-policy", CSP)
    headers.setdefault("x-content-type-options", "nosniff")
    headers.setdefault("x-frame-options", "DENY")
    headers.setdefault("referrer-policy", "same-origin")
    headers.setdefault("permissions-policy", "camera=(), microphone=(), geolocation=()")


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, *, transport: Transport = PLAIN) -> None:
        self.app = app
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        hsts = self.transport.hsts(scope)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                add_security_headers(headers)
                if hsts:
                    headers.setdefault("strict-transport-security", hsts)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class CompressMiddleware:
    """gzip for static files and the JSON API (not Server-Sent Events, which GZipMiddleware leaves alone).

    HTML pages are not compressed on purpose: they carry the session's CSRF token next to text other people
    typed (names, notes), and compressing such a page over TLS lets an attacker who can inject text and watch
    response sizes guess the token byte by byte (BREACH). Static files hold no secret; /api/ authenticates
    with bearer tokens a cross-site page cannot send."""

    PREFIXES = ("/static/", "/api/")

    def __init__(self, app: ASGIApp, minimum_size: int = 500) -> None:
        from starlette.middleware.gzip import GZipMiddleware

        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size, compresslevel=6)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.PREFIXES):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
