"""Several worker processes behind one port: `python -m app.serve --workers 2 --port 8000`.

uvicorn's own `--workers` shares a listening socket created without IPPROTO_TCP, so asyncio's event loop
never sets TCP_NODELAY on the connections it accepts and every response waits ~40 ms for a delayed ACK
(docs/PERFORMANCE.md). Here the listening socket gets TCP_NODELAY itself, which Linux hands down to every
accepted connection whatever the loop; uvloop and httptools are asked for by name. Run it with PostgreSQL and
the Redis broker (FATEBOARD_DATABASE_URL, FATEBOARD_BROKER=redis): each process has its own hub, and the
broker feeds every one of them. `make run-multi` does that.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import socket

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.supervisors import Multiprocess

from app.config import Settings

MAX_HEAD_BYTES = 64 * 1024


@functools.cache
def head_timeout() -> float:
    """FATEBOARD_BODY_TIMEOUT_SECONDS, the longest a request may pause, for its head too (read once per process:
    uvicorn's workers import this module afresh)."""
    return Settings().body_timeout_seconds


class FateboardHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the two bounds it lacks (h11's `h11_max_incomplete_event_size` has no
    httptools counterpart): a request head — the URL and the headers — of at most MAX_HEAD_BYTES (431 past it;
    httptools would otherwise gather a 200 MB header line in memory), and a deadline for it: a connection that
    has not finished a request's head `head_timeout()` seconds after it opened (or after that request's first
    byte) is closed, with 408 if it had begun one (uvicorn times out idle connections only between requests).
    And a connection whose request body was not read to its end is closed once the answer has gone out (a GET
    with a trickled body would otherwise hold it as long as the trickle lasts).
    Bodies are BodyLimitMiddleware's (app/security/bodies.py). `make run` and `python -m app.serve` use it; with
    uvicorn's CLI: `--http app.serve:FateboardHttpProtocol`. docs/LIMITS.md ("Request heads")."""

    _head_open = False  # between a request's first byte and the end of its headers
    _head_bytes = 0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        continuing = self._head_open
        super().data_received(data)
        # A piece that began inside a head and ended inside it was all head. (One in which a head began may
        # also hold the end of the previous body: not counted, and no bigger than one read.)
        if continuing and self._head_open and not self.transport.is_closing():
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self.logger.warning("Request head over %d bytes refused.", MAX_HEAD_BYTES)
                self._answer_and_close(
                    b"431 Request Header Fields Too Large",
                    f"The request's address and headers are too large ({MAX_HEAD_BYTES // 1024} KB at most).",
                )

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_open = True
        self._head_bytes = 0
        self._arm_head_timer()

    def on_headers_complete(self) -> None:
        self._head_open = False
        self._disarm_head_timer()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        # A body the app never read (a GET's: nothing reads those) and that has not ended: uvicorn would keep
        # reading and dropping it for as long as it trickles in. Hang up instead; the answer has gone out.
        if self.cycle is not None and self.cycle.more_body and not self.transport.is_closing():
            self.transport.close()
        super().on_response_complete()

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(head_timeout(), self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self._head_open and (self.cycle is None or self.cycle.response_complete):
            self._answer_and_close(b"408 Request Timeout", "The request's headers arrived too slowly.")
        else:
            self.transport.close()  # never said a word (or a response is still going out): just hang up

    def _answer_and_close(self, status: bytes, message: str) -> None:
        body = message.encode()
        self.transport.write(
            b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
        )
        self.transport.close()


def listening_socket(config: uvicorn.Config) -> socket.socket:
    sock = config.bind_socket()
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m app.serve", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--no-access-log", action="store_true")
    args = parser.parse_args(argv)
    config = uvicorn.Config(
        "app.asgi:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        loop="uvloop",
        http=FateboardHttpProtocol,
        proxy_headers=False,
        timeout_graceful_shutdown=3,
        log_level=args.log_level,
        access_log=not args.no_access_log,
    )
    # Every worker signs session cookies with the same key: make sure the key file exists before they start
    # (each would otherwise race to create its own, and a cookie from one would fail on the other).
    Settings().resolved_secret_key()
    sock = listening_socket(config)
    if args.workers > 1:
        Multiprocess(config, sockets=[sock]).run()
    else:
        uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
