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
- BodyLimitMiddleware (the outermost): a request body larger than its route takes (BODY_LIMITS) is refused
  with 413 as soon as its Content-Length or the bytes streamed so far pass the limit, before anything reads or
  holds it; a body that trickles in is cut off with 408.
- Transport: the session cookie's `Secure` flag and HSTS follow from an https FATEBOARD_BASE_URL or the
  request's scheme (which only TLS or a trusted proxy makes https), unless FATEBOARD_COOKIE_SECURE says.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import ClientDisconnect, HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n
from app.web import HTMX, REFUSAL, render_text

COOKIE = "fb_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

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


@dataclass(frozen=True, slots=True)
class Transport:
    """Whether a request reached us over https, which decides the session cookie's `Secure` flag and HSTS.

    `forced` (FATEBOARD_COOKIE_SECURE, when set) decides alone. Otherwise an https FATEBOARD_BASE_URL says the
    site is served over https (a TLS proxy in front, trusted or not), and so does the request's own scheme,
    which is https only when uvicorn holds the TLS itself or a proxy in FATEBOARD_TRUSTED_PROXIES said
    X-Forwarded-Proto: https (ProxyHeadersMiddleware, outside, ignores the header from anyone else)."""

    https_base_url: bool = False
    forced: bool | None = None
    hsts_seconds: int = 0

    @classmethod
    def of(cls, base_url: str, forced: bool | None, hsts_seconds: int) -> Transport:
        return cls(base_url.strip().lower().startswith("https://"), forced, hsts_seconds)

    def https(self, scope: Scope) -> bool:
        if self.forced is not None:
            return self.forced
        return self.https_base_url or scope.get("scheme") == "https"

    def hsts(self, scope: Scope) -> str | None:
        """The Strict-Transport-Security value for this request's response, or None (never over plain http:
        RFC 6797 8.1 has browsers ignore it there, and a site on http must not claim https)."""
        return f"max-age={self.hsts_seconds}" if self.hsts_seconds and self.https(scope) else None


class SessionCookieMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        secret_key: str,
        max_age: int,
        transport: Transport = Transport(),
        default_locale: str = i18n.DEFAULT,
    ) -> None:
        self.app = app
        self.default_locale = default_locale
        self.serializer = URLSafeTimedSerializer(secret_key, salt="fateboard.session")
        self.max_age = max_age
        self.transport = transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.open(scope, Headers(scope=scope))

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and scope.get("fb_session_dirty"):
                headers = MutableHeaders(scope=message)
                headers.append("set-cookie", self._cookie(scope["fb_session"], self.transport.https(scope)))
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
        i18n.set_locale(
            i18n.negotiate(headers.get("accept-language"), scope["fb_session"].get("locale"), self.default_locale)
        )

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

    def _cookie(self, data: dict[str, Any], secure: bool) -> str:
        value = self.serializer.dumps(data)
        cookie = f"{COOKIE}={value}; Path=/; Max-Age={self.max_age}; HttpOnly; SameSite=Lax"
        return cookie + ("; Secure" if secure else "")


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


def add_security_headers(headers: MutableHeaders) -> None:
    """Every response's security headers (unless the response set its own): the middleware below, and the live
    streams, which are served outside it (app/live/routes.py)."""
    headers.setdefault("content-security-policy", CSP)
    headers.setdefault("x-content-type-options", "nosniff")
    headers.setdefault("x-frame-options", "DENY")
    headers.setdefault("referrer-policy", "same-origin")
    headers.setdefault("permissions-policy", "camera=(), microphone=(), geolocation=()")


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, *, transport: Transport = Transport()) -> None:
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


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(value: str) -> tuple[Network, ...]:
    """ "10.0.0.5, 172.16.0.0/12" → networks; a typo stops the start-up instead of trusting nobody quietly."""
    networks = []
    for item in value.split(","):
        if item.strip():
            try:
                networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError as exc:
                raise ValueError(
                    f"FATEBOARD_TRUSTED_PROXIES: {item.strip()!r} is not an IP address or network"
                ) from exc
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


# --------------------------------------------------------------------------------------------- request bodies

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
