"""Memory per idle stream, and where it goes: open N API streams (`GET /api/campaigns/{id}/events`; with `--page`
the page stream `GET /campaigns/{id}/stream`, signed in with a session cookie) on the ASGI
app in this process (lifespan, middleware, hub and all; no sockets), wait until each has sent its first chunk,
and compare tracemalloc snapshots taken before and after (after a gc), grouped by source line.

    .venv/bin/python bench/streammem.py --streams 400
    .venv/bin/python bench/streammem.py --streams 400 --page     # the page stream, with signed-in browsers

Investigation only (not part of `make bench`, which measures the server's RSS with real sockets in
bench/tables.py): this shows what the app keeps per stream; the transport's buffers and the allocator's
growth come on top in a real server.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from inproc import setup  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.models import Base  # noqa: E402


async def open_stream(
    app: Any, path: str, headers: dict[str, str], started: asyncio.Event, stop: asyncio.Event
) -> None:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in {**headers, "host": "127.0.0.1"}.items()],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        await stop.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        elif message["type"] == "http.response.body" and message.get("body"):
            started.set()

    await app(scope, receive, send)


def browser_cookies(app: Any, users: int) -> list[dict[str, str]]:
    """A signed-in browser's session cookie for user0..user{users-1}, signed by the app's own
    SessionCookieMiddleware (found in its middleware stack)."""
    from sqlalchemy import select

    from app.accounts.models import User
    from app.accounts.service import start_login_session
    from app.security import COOKIE, SessionCookieMiddleware, new_session_data

    inner = app.middleware_stack
    while not isinstance(inner, SessionCookieMiddleware):
        inner = inner.app
    sids = []
    with app.state.sessionmaker() as db:
        for i in range(users):
            sids.append(start_login_session(db, db.scalar(select(User).where(User.username == f"user{i}"))))
        db.commit()
    return [{"cookie": f"{COOKIE}={inner.serializer.dumps(new_session_data(sid))}"} for sid in sids]


def report(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, n: int, top: int) -> None:
    stats = after.compare_to(before, "lineno")
    total = sum(s.size_diff for s in stats)
    print(f"{n} idle streams: {total / 1024:.0f} KiB allocated by Python, {total / n / 1024:.1f} KiB per stream")
    root = str(Path(__file__).resolve().parent.parent)
    groups: dict[str, int] = {}
    for s in stats:
        name = s.traceback[0].filename.replace(root + "/", "")
        if "site-packages/" in name:
            name = name.split("site-packages/")[-1].split("/")[0]
        elif "/lib/python3" in name:
            name = "stdlib " + name.split("/lib/python3")[-1].split("/", 2)[-1].split("/")[0]
        else:
            name = "/".join(name.split("/")[:2])
        groups[name] = groups.get(name, 0) + s.size_diff
    print("  by package:")
    for name, size in sorted(groups.items(), key=lambda g: -g[1])[:12]:
        print(f"  {size / n / 1024:8.1f} KiB/stream  {name}")
    print("  by line:")
    for s in stats[:top]:
        frame = s.traceback[0]
        where = frame.filename.replace(root + "/", "").split("site-packages/")[-1]
        print(f"  {s.size_diff / n:8.0f} B/stream  {s.count_diff / n:6.1f} blocks  {where}:{frame.lineno}")


async def main_async(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="fb-streammem-"))
    settings = Settings(
        database_url=f"sqlite:///{tmp / 'bench.db'}",
        secret_key="x",
        secret_key_file=tmp / "key",
        signup_max_per_hour=100_000,
        sse_keepalive_seconds=3600,
    )
    app = create_app(settings)
    Base.metadata.create_all(app.state.engine)
    async with app.router.lifespan_context(app):
        cid, tokens, _bodies = await setup(app, args.players)
        path = f"/api/campaigns/{cid}/events"
        if args.page:
            path, tokens = f"/campaigns/{cid}/stream", browser_cookies(app, len(tokens))
        stop = asyncio.Event()
        # Warm up (first-use caches, compiled statements), then measure.
        warm = [asyncio.Event() for _ in range(20)]
        tasks = [
            asyncio.create_task(open_stream(app, path, tokens[i % len(tokens)], e, stop)) for i, e in enumerate(warm)
        ]
        await asyncio.gather(*(e.wait() for e in warm))
        gc.collect()
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        events = [asyncio.Event() for _ in range(args.streams)]
        tasks += [
            asyncio.create_task(open_stream(app, path, tokens[i % len(tokens)], e, stop)) for i, e in enumerate(events)
        ]
        await asyncio.gather(*(e.wait() for e in events))
        await asyncio.sleep(0.5)
        gc.collect()
        after = tracemalloc.take_snapshot()
        report(before, after, args.streams, args.top)
        print(f"pid {os.getpid()}")
        stop.set()
        await asyncio.wait(tasks, timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--page", action="store_true", help="the page stream (session cookie) instead of the API's")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
