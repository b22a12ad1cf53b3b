"""The signed session cookie: a signed, HttpOnly, SameSite=Lax cookie holding the login-session id and the
per-session CSRF token (anonymous visitors get a CSRF token too: the sign-in form needs one), and Transport: the
cookie's `Secure` flag and HSTS follow from an https FATEBOARD_BASE_URL or the request's scheme."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n

COOKIE = "fb_session"


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
