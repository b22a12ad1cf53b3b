"""Cross-cutting security as plain ASGI middleware, so streaming responses (SSE) pass through untouched.

- SessionCookieMiddleware: a signed, HttpOnly, SameSite=Lax cookie holding the login-session id and the
  per-session CSRF token. Anonymous visitors get a CSRF token too (the sign-in form needs one).
- CSRFMiddleware: every state-changing request outside /api/ needs a matching token (header
  `X-CSRF-Token`, or the form field `csrf_token`) and, when the browser sends one, a same-origin Origin.
  /api/ authenticates with bearer tokens only, never cookies, so it is exempt.
- SecurityHeadersMiddleware: CSP without inline script, no framing, no sniffing.
- ProxyHeadersMiddleware: the client's address (and scheme) from X-Forwarded-For / X-Forwarded-Proto, but
  only when the socket's peer is one of FATEBOARD_TRUSTED_PROXIES; otherwise the headers are ignored.
  (So uvicorn runs with --no-proxy-headers: its own handling trusts 127.0.0.1 by default.)
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.web import HTMX

COOKIE = "fb_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
MAX_FORM_BYTES = 1_000_000

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def new_session_data(sid: str | None = None, locale: str | None = None) -> dict[str, Any]:
    return {"sid": sid, "csrf": secrets.token_urlsafe(24), "locale": locale}


def set_session(scope: Scope, data: dict[str, Any]) -> None:
    """Replace the browser's session (sign-in rotates both the id and the CSRF token)."""
    scope["fb_session"] = data
    scope["fb_session_dirty"] = True


class SessionCookieMiddleware:
    def __init__(self, app: ASGIApp, *, secret_key: str, max_age: int, secure: bool,
                 default_locale: str = i18n.DEFAULT) -> None:
        self.app = app
        self.default_locale = default_locale
        self.serializer = URLSafeTimedSerializer(secret_key, salt="fateboard.session")
        self.max_age = max_age
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.open(scope, Headers(scope=scope))

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and scope.get("fb_session_dirty"):
                headers = MutableHeaders(scope=message)
                headers.append("set-cookie", self._cookie(scope["fb_session"]))
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def open(self, scope: Scope, headers: Headers) -> dict[str, Any] | None:
        """The request's session (`scope["fb_session"]`, a new one if the cookie is missing or forged) and its
        language; returns what the signed cookie held, or None. The live streams' dispatcher
        (app/live/routes.py) opens their sessions with this too."""
        data = self._load(headers)
        scope["fb_session"] = data or new_session_data()
        scope["fb_session_dirty"] = data is None
        # Set here, in the request's own context, so the threadpool running sync routes inherits it.
        i18n.set_locale(i18n.negotiate(headers.get("accept-language"), scope["fb_session"].get("locale"),
                                       self.default_locale))

        if scope["path"].startswith("/api/"):
            # The JSON API authenticates with bearer tokens only: no cookie to read or to set.
            scope["fb_session_dirty"] = False
        return data

    def _load(self, headers: Headers) -> dict[str, Any] | None:
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE and value:
                try:
                    data = self.serializer.loads(value, max_age=self.max_age)
                except BadSignature:
                    return None
                if isinstance(data, dict) and isinstance(data.get("csrf"), str):
                    return data
        return None

    def _cookie(self, data: dict[str, Any]) -> str:
        value = self.serializer.dumps(data)
        cookie = f"{COOKIE}={value}; Path=/; Max-Age={self.max_age}; HttpOnly; SameSite=Lax"
        return cookie + ("; Secure" if self.secure else "")


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
        if problem is None and token is None:
            if headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
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
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > MAX_FORM_BYTES or not message.get("more_body", False):
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
        payload = f'<p class="error" role="alert">{message}</p>'.encode()
        content_type = b"text/html; charset=utf-8"
    else:
        payload = json.dumps({"detail": message}).encode()
        content_type = b"application/json"
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


def add_security_headers(headers: MutableHeaders) -> None:
    """Every response's security headers (unless the response set its own): the middleware below, and the live
    streams, which are served outside it (app/live/routes.py)."""
    headers.setdefault("content-security-policy", CSP)
    headers.setdefault("x-content-type-options", "nosniff")
    headers.setdefault("x-frame-options", "DENY")
    headers.setdefault("referrer-policy", "same-origin")
    headers.setdefault("permissions-policy", "camera=(), microphone=(), geolocation=()")


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_security_headers(MutableHeaders(scope=message))
            await send(message)

        await self.app(scope, receive, send_with_headers)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(value: str) -> tuple[Network, ...]:
    """"10.0.0.5, 172.16.0.0/12" → networks; a typo stops the start-up instead of trusting nobody quietly."""
    networks = []
    for item in value.split(","):
        if item.strip():
            try:
                networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError as exc:
                raise ValueError(f"FATEBOARD_TRUSTED_PROXIES: {item.strip()!r} is not an IP address or network") from exc
    return tuple(networks)


class ProxyHeadersMiddleware:
    def __init__(self, app: ASGIApp, *, trusted: tuple[Network, ...]) -> None:
        self.app = app
        self.trusted = trusted

    def _is_trusted(self, host: str) -> bool:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if self.trusted and scope["type"] in ("http", "websocket") and client and self._is_trusted(client[0]):
            headers = Headers(scope=scope)
            scope = dict(scope)
            scope["client"] = (self._client(client[0], ",".join(headers.getlist("x-forwarded-for"))), 0)
            proto = headers.get("x-forwarded-proto", "").split(",")[-1].strip().lower()
            if proto in ("http", "https"):
                scope["scheme"] = proto if scope["type"] == "http" else proto.replace("http", "ws")
        await self.app(scope, receive, send)

    def _client(self, peer: str, forwarded: str) -> str:
        """The right-most hop that is not a trusted proxy: each proxy appends the address it saw, so
        everything to the left of the first untrusted hop may be made up by the client."""
        client = peer
        for hop in reversed([h.strip() for h in forwarded.split(",") if h.strip()]):
            try:
                client = str(ipaddress.ip_address(hop))
            except ValueError:
                break  # garbage: keep the last proxy's view
            if not self._is_trusted(client):
                break
        return client


def client_address(conn: HTTPConnection) -> str:
    """The key the throttle counts a client under: IPv4 as is, IPv6 by its /64 (one host usually has the
    whole /64 to pick addresses from)."""
    host = conn.client.host if conn.client else ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


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
