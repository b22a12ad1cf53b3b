"""Several processes (issue 16, target 2): PostgreSQL + the Redis broker, the same load against one worker and
then against two behind one port (app/serve.py: TCP_NODELAY on the shared socket), actions spread over
several campaigns, and SSE streams on every campaign that must each get every entry once, in order, whichever
process they landed on.

    .venv/bin/python bench/multiproc.py                       # needs PostgreSQL and Redis on 127.0.0.1
    .venv/bin/python bench/multiproc.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/bench

The database must be a throwaway one on this machine (its public schema is dropped). Prints MET / MISSED and
a JSON line; exits 0 either way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from actions import RawSenders, run_phase  # noqa: E402
from common import (  # noqa: E402
    Table,
    cleanup,
    machine,
    make_table,
    prepare_database,
    start_server,
    stop_server,
    summary_line,
    verdict,
    verify_log,
    warn_if_busy,
    workdir,
)
from fanout import Stream, raw_stream  # noqa: E402

TARGET_SPEEDUP = 1.6
PG_BENCH = "postgresql+psycopg://postgres@127.0.0.1:5432/test_perf_bench"


class Spread(RawSenders):
    """One connection per client; client i acts in campaign i % campaigns."""

    def __init__(self, server: Any, tables: list[Table], concurrency: int) -> None:
        super().__init__(server, tables[0], concurrency)
        body = json.dumps({"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}}).encode()
        self.action_req = []
        for i in range(concurrency):
            table = tables[i % len(tables)]
            who = table.everyone[(i // len(tables)) % len(table.everyone)]
            self.action_req.append(
                self.conns[i].build("POST", f"/api/campaigns/{table.campaign_id}/actions", who, body)
            )


async def load(server: Any, tables: list[Table], args: argparse.Namespace) -> dict[str, Any]:
    streams: list[tuple[Table, Stream]] = []
    tasks = []
    for table in tables:
        for s in range(args.streams_per_campaign):
            stream = Stream(len(streams), s % len(table.everyone))
            streams.append((table, stream))
            tasks.append(
                asyncio.create_task(
                    raw_stream(
                        server.port,
                        f"/api/campaigns/{table.campaign_id}/events?after=0",
                        table.everyone[stream.user],
                        stream,
                        10**9,
                        asyncio.Event(),
                    )
                )
            )
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for _t, s in streams)), 60)
    senders = Spread(server, tables, args.concurrency)
    common = {
        "concurrency": args.concurrency,
        "server_pid": server.pid,
        "hard_limit": 300.0,
        "max_requests": None,
        "expect": 201,
    }
    try:
        await run_phase("warmup", senders.action, duration=args.warmup, **common)
        phase = await run_phase("actions", senders.action, duration=args.duration, **common)
    finally:
        await senders.close()
    # Drain: every stream should reach its campaign's last seq (bounded wait).
    deadline = time.monotonic() + args.drain_timeout
    last: dict[int, int] = {}
    import httpx2

    with httpx2.Client(base_url=server.url, timeout=30) as client:
        for table in tables:
            last[table.campaign_id] = client.get(f"/api/campaigns/{table.campaign_id}", headers=table.narrator).json()[
                "last_seq"
            ]
    while time.monotonic() < deadline:
        if all(len(s.arrivals) >= last[t.campaign_id] for t, s in streams):
            break
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    exact = sum(1 for t, s in streams if [seq for seq, _ in s.arrivals] == list(range(1, last[t.campaign_id] + 1)))
    report = phase.report()
    report["streams"] = len(streams)
    report["streams_exact"] = exact
    report["stream_errors"] = [s.error for _t, s in streams if s.error][:3]
    report["entries"] = sum(last.values())
    report["checks"] = [verify_log(server.url, t, last[t.campaign_id])["gapless_chain"] for t in tables]
    return report


def reachable(database_url: str, redis_url: str) -> str | None:
    """None when PostgreSQL (the database is created if missing) and Redis answer; else why not."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    try:
        engine = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :d"), {"d": url.database}).first() is None:
                conn.execute(text(f'CREATE DATABASE "{url.database}"'))
        engine.dispose()
    except Exception as exc:  # noqa: BLE001 - reported, the benchmark is skipped
        return f"PostgreSQL at {url.host}: {type(exc).__name__}"
    try:
        import redis

        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001
        return f"Redis at {redis_url}: {type(exc).__name__}"
    return None


def one_run(workers: int, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    database_url = prepare_database(args.database_url, tmp)
    env = {"FATEBOARD_BROKER": "redis", "FATEBOARD_REDIS_URL": args.redis_url}
    server = start_server(database_url, tmp, workers=workers, extra_env=env, keepalive=2.0)
    print(f"{workers} worker(s): server pid {server.pid} on {server.url}", file=sys.stderr)
    try:
        tables = [make_table(server.url, args.players, f"Table {i}", prefix=f"t{i}-") for i in range(args.campaigns)]
        return asyncio.run(load(server, tables, args))
    finally:
        stop_server(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=PG_BENCH, help="a THROWAWAY PostgreSQL database on 127.0.0.1")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/1")
    parser.add_argument("--campaigns", type=int, default=4)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--streams-per-campaign", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--drain-timeout", type=float, default=30.0)
    parser.add_argument("--keep-workdir", action="store_true")
    args = parser.parse_args()
    if not args.redis_url.startswith(("redis://127.0.0.1", "redis://localhost")):
        parser.error("Redis must be on this machine")
    info = machine()
    warn_if_busy(info)
    tmp = workdir("fateboard-bench-multi-")
    problem = reachable(args.database_url, args.redis_url)
    if problem:
        print(f"TARGET several processes: SKIPPED ({problem})")
        summary_line({"bench": "multiproc", "machine": info, "skipped": problem})
        cleanup(tmp, keep=False)
        return 0
    runs = {w: one_run(w, args, tmp) for w in (1, 2)}
    print()
    print(
        f"PostgreSQL + Redis, {args.campaigns} campaigns, {args.concurrency} clients, "
        f"{args.streams_per_campaign} streams per campaign, {info['nproc']} cores"
    )
    print(
        f"{'workers':<9}{'actions/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}{'streams exact':>15}{'server cpu':>12}"
    )
    for w, r in runs.items():
        print(
            f"{w:<9}{r['rps']:>10}{r['latency_ms']['p50']:>9}{r['latency_ms']['p99']:>9}{r['errors']:>8}"
            f"{r['streams_exact']:>8}/{r['streams']:<6}{r['server_cpu_pct']:>11}%"
        )
    speedup = round(runs[2]["rps"] / runs[1]["rps"], 3) if runs[1]["rps"] else None
    targets = {
        "speedup>=1.6": verdict("actions/s with 2 workers / with 1", speedup, TARGET_SPEEDUP, higher_is_better=True),
        "streams_exact": verdict(
            "streams that got every entry once, in order (missing)",
            sum(r["streams"] - r["streams_exact"] for r in runs.values()),
            0,
            higher_is_better=False,
        ),
        "errors==0": verdict("action errors", sum(r["errors"] for r in runs.values()), 0, higher_is_better=False),
        "log_intact": verdict(
            "campaigns whose log verifies gapless (missing)",
            sum(not ok for r in runs.values() for ok in r["checks"]),
            0,
            higher_is_better=False,
        ),
    }
    summary_line(
        {
            "bench": "multiproc",
            "machine": info,
            "campaigns": args.campaigns,
            "concurrency": args.concurrency,
            "runs": {str(w): r for w, r in runs.items()},
            "speedup": speedup,
            "targets": {k: "MET" if v else "MISSED" for k, v in targets.items()},
        }
    )
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
