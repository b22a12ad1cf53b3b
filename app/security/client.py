"""The client's address: from X-Forwarded-For / X-Forwarded-Proto only when the socket's peer is one of
FATEBOARD_TRUSTED_PROXIES (otherwise the headers are ignored; so uvicorn runs with --no-proxy-headers), and the key
the throttle counts a client under."""

from __future__ import annotations

import ipaddress

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

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
