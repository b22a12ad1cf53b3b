"""The outbound allow-list (contract TABLE-API.md section 5): the server contacts only origins listed in
FATEBOARD_OUTBOUND_ORIGINS — push services and webhooks. A URL a user gives is checked when it is registered
and again right before anything is sent (a name may resolve elsewhere by then); redirects are never followed.

Origins match exactly: scheme, host and port (`localhost` is not `127.0.0.1`). A URL with userinfo is refused.
A host that resolves to a loopback, private, link-local or otherwise non-public address is refused unless that
exact origin is listed with a literal address of that kind (the tests list `http://127.0.0.1:<port>`).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from app.i18n import N_, _

# The public browser push services and Discord's webhook origins (https only).
DEFAULT_ORIGINS = (
    "https://fcm.googleapis.com",
    "https://updates.push.services.mozilla.com",
    "https://web.push.apple.com",
    "https://wns2-par02p.notify.windows.com",
    "https://discord.com",
    "https://discordapp.com",
    "https://canary.discord.com",
    "https://ptb.discord.com",
)

_DEFAULT_PORTS = {"http": 80, "https": 443}

Resolver = Callable[[str, int], Iterable[str]]


class OutboundRefused(ValueError):
    """The URL may not be contacted. `template` (an English msgid) and `values` say why; `reason` is the English
    sentence (logs), `said()` the reader's (pages and the API)."""

    def __init__(self, template: str, **values: str) -> None:
        self.template, self.values = template, values
        self.reason = template.format(**values)
        super().__init__(self.reason)

    def said(self) -> str:
        return _(self.template).format(**self.values)


def _system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)]


def origin_of(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an absolute http(s) URL; raises OutboundRefused for anything else."""
    if len(url) > 2048:
        raise OutboundRefused(N_("the address is too long"))
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise OutboundRefused(N_("the address is not a valid URL")) from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise OutboundRefused(N_("only http and https addresses can be used"))
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise OutboundRefused(N_("an address with a user name or password is refused"))
    host = (parts.hostname or "").lower()
    if not host:
        raise OutboundRefused(N_("the address has no host"))
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def _origin_text(scheme: str, host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" if port == _DEFAULT_PORTS[scheme] else f"{scheme}://{shown}:{port}"


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class OutboundPolicy:
    origins: frozenset[tuple[str, str, int]]
    resolver: Resolver = _system_resolver

    @classmethod
    def parse(cls, setting: str, resolver: Resolver | None = None) -> OutboundPolicy:
        """`setting`: comma-separated origins; empty means the defaults (public push services and Discord)."""
        listed = [item.strip() for item in setting.split(",") if item.strip()] or list(DEFAULT_ORIGINS)
        origins = set()
        for item in listed:
            scheme, host, port = origin_of(item)
            if urlsplit(item).path not in ("", "/"):
                raise ValueError(f"an outbound origin has no path: {item!r}")
            origins.add((scheme, host, port))
        return cls(frozenset(origins), resolver or _system_resolver)

    def check(self, url: str, *, resolve: bool = True) -> str:
        """The URL's origin if it may be contacted; raises OutboundRefused otherwise. With `resolve`, the host's
        addresses are looked up too: a name that leads inside a private range is refused (unless its literal
        address is the listed origin)."""
        scheme, host, port = origin_of(url)
        if (scheme, host, port) not in self.origins:
            raise OutboundRefused(
                N_("{origin} is not on the outbound allow-list"), origin=_origin_text(scheme, host, port)
            )
        literal = _literal(host)
        if literal is not None:
            return _origin_text(scheme, host, port)  # listed exactly, address and all
        if resolve:
            try:
                addresses = [_literal(a.split("%", 1)[0]) for a in self.resolver(host, port)]
            except OSError as exc:
                raise OutboundRefused(N_("{host} could not be resolved"), host=host) from exc
            if not addresses or any(a is None or not _public(a) for a in addresses):
                raise OutboundRefused(N_("{host} resolves to a private or loopback address"), host=host)
        return _origin_text(scheme, host, port)
