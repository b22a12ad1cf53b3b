"""CPU per request without sockets: drive the ASGI app in this process (lifespan, middleware, thread pool and
all) with N concurrent callers, and report CPU milliseconds per action and per ping. To see where the time
goes, sample it with py-spy (`pip install py-spy` into the venv; not a project dependency) once it prints
its pid: `py-spy record -p PID -d 5 --gil -f raw -o /tmp/actions.folded`.

    .venv/bin/python bench/inproc.py --actions 2000 --concurrency 32

Investigation only (not part of `make bench`): a quiet way to compare changes on a busy machine, since CPU
time per request moves far less with the neighbours' load than throughput does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import NEW_CAT, cat_test  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.models import Base  # noqa: E402

ROLL = json.dumps(
    {"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}, "visibility": "public"}
).encode()


ROUTED = False  # --routed


async def call(app: Any, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (k.lower().encode(), v.encode())
            for k, v in {
                **headers,
                "host": "127.0.0.1",
                "content-length": str(len(body)),
                "content-type": "application/json",
            }.items()
        ]
        + ([(b"content-type", b"application/json")] if ROUTED and method == "POST" else []),
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    status, chunks = 0, []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def setup(app: Any, players: int) -> tuple[int, list[dict[str, str]], list[bytes]]:
    """A campaign (dice and Cat) with a narrator and `players` players, each with a cat; returns the campaign,
    the narrator's and players' auth headers, and one Cat test-of-fate body per header (the narrator tests
    player 1's cat)."""

    async def post(path: str, data: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
        status, body = await call(app, "POST", path, headers or {}, json.dumps(data).encode())
        assert status in (200, 201), (path, status, body)
        return json.loads(body)

    tokens = []
    for i in range(players + 1):
        name = f"user{i}"
        await post("/api/users", {"username": name, "password": "correct horse battery"})
        token = (await post("/api/tokens", {"username": name, "password": "correct horse battery"}))["token"]
        tokens.append({"authorization": f"Bearer {token}"})
    cid = (await post("/api/campaigns", {"name": "Bench", "systems": ["dice", "cat"]}, tokens[0]))["id"]
    cats = []
    for i, who in enumerate(tokens[1:], start=1):
        code = (await post(f"/api/campaigns/{cid}/invites", {}, tokens[0]))["code"]
        await post(f"/api/invites/{code}/accept", {}, who)
        cats.append(
            (
                await post(
                    f"/api/campaigns/{cid}/characters", {"name": f"Smoke {i}", "system": "cat", "sheet": NEW_CAT}, who
                )
            )["id"]
        )
    bodies = [json.dumps(cat_test(cats[max(0, i - 1)])).encode() for i in range(len(tokens))]
    return cid, tokens, bodies


async def load(
    app: Any,
    n: int,
    concurrency: int,
    method: str,
    path: str,
    tokens: list[dict[str, str]],
    body: bytes | list[bytes] = b"",
) -> tuple[float, float, int]:
    """`body` is one body for every caller, or one per token (caller i sends token i's)."""
    left = n
    errors = 0

    async def worker(i: int) -> None:
        nonlocal left, errors
        headers = tokens[i % len(tokens)]
        sent = body[i % len(tokens)] if isinstance(body, list) else body
        while left > 0:
            left -= 1
            status, _ = await call(app, method, path, headers, sent)
            if status >= 400:
                errors += 1

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return time.process_time() - cpu, time.perf_counter() - wall, errors


async def main_async(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="fb-inproc-"))
    settings = Settings(
        database_url=args.database_url or f"sqlite:///{tmp / 'bench.db'}",
        secret_key="x",
        secret_key_file=tmp / "key",
        signup_max_per_hour=100_000,
    )
    app = create_app(settings)
    Base.metadata.create_all(app.state.engine)
    async with app.router.lifespan_context(app):
        cid, tokens, cat_bodies = await setup(app, args.players)
        path = f"/api/campaigns/{cid}/actions"
        await load(app, 200, args.concurrency, "POST", path, tokens, ROLL)
        await load(app, 200, args.concurrency, "GET", "/api/ping", tokens)
        cpu, wall, err = await load(app, args.pings, args.concurrency, "GET", "/api/ping", tokens)
        print(f"ping:   {1000 * cpu / args.pings:.3f} ms CPU each, {args.pings / wall:.0f}/s, {err} errors")
        print(f"pid {os.getpid()}: actions start", flush=True)
        cpu, wall, err = await load(app, args.actions, args.concurrency, "POST", path, tokens, ROLL)
        print(
            f"action: {1000 * cpu / args.actions:.3f} ms CPU each, {args.actions / wall:.0f}/s, {err} errors "
            f"({args.concurrency} callers)"
        )
        if args.cat:
            await load(app, 200, args.concurrency, "POST", path, tokens, cat_bodies)
            print(f"pid {os.getpid()}: cat actions start", flush=True)
            cat_cpu, wall, err = await load(app, args.actions, args.concurrency, "POST", path, tokens, cat_bodies)
            print(
                f"cat:    {1000 * cat_cpu / args.actions:.3f} ms CPU each, {args.actions / wall:.0f}/s, {err} errors "
                f"({args.concurrency} callers); {cat_cpu / cpu:.2f}x the dice action's CPU"
            )
        status, body = await call(app, "GET", f"/api/campaigns/{cid}/verify", tokens[0])
        result = json.loads(body)
        print(f"verify: ok={result['ok']} count={result['count']} head_seq={result['head_seq']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--pings", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--cat", action="store_true", help="also a Cat test of fate per caller (a sheet change)")
    parser.add_argument(
        "--routed",
        action="store_true",
        help="send every POST's Content-Type twice, so the action route's FastAPI handler serves it "
        "(app/api/action.py, ActionRoute): the plain path against FastAPI's own machinery, for the same route",
    )
    args = parser.parse_args()
    global ROUTED
    ROUTED = args.routed
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
