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
import socket

import uvicorn
from uvicorn.supervisors import Multiprocess

from app.config import Settings


def listening_socket(config: uvicorn.Config) -> socket.socket:
    sock = config.bind_socket()
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--no-access-log", action="store_true")
    args = parser.parse_args(argv)
    config = uvicorn.Config("app.asgi:app", host=args.host, port=args.port, workers=args.workers, loop="uvloop",
                            http="httptools", proxy_headers=False, timeout_graceful_shutdown=3,
                            log_level=args.log_level, access_log=not args.no_access_log)
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
