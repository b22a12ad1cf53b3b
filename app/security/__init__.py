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

The middleware lives in one module each: session.py, csrf.py, headers.py, client.py, bodies.py; their public names
are imported from here.
"""

from app.security.bodies import BODY_LIMITS, BodyLimitMiddleware, MiB, RouteBodyLimit
from app.security.client import Network, ProxyHeadersMiddleware, client_address, parse_networks
from app.security.csrf import CSRF_FIELD, CSRF_HEADER, UNSAFE, CSRFMiddleware, replay_body
from app.security.headers import CSP, CompressMiddleware, SecurityHeadersMiddleware, add_security_headers
from app.security.session import COOKIE, SessionCookieMiddleware, Transport, new_session_data, set_session

__all__ = [
    "BODY_LIMITS",
    "COOKIE",
    "CSP",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "UNSAFE",
    "BodyLimitMiddleware",
    "CSRFMiddleware",
    "CompressMiddleware",
    "MiB",
    "Network",
    "ProxyHeadersMiddleware",
    "RouteBodyLimit",
    "SecurityHeadersMiddleware",
    "SessionCookieMiddleware",
    "Transport",
    "add_security_headers",
    "client_address",
    "new_session_data",
    "parse_networks",
    "replay_body",
    "set_session",
]
