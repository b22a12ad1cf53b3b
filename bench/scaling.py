"""Beyond one box (issue 27 §3): where PostgreSQL's write limit sits, and how actions/s grow with processes.

Two parts, each bounded in time, loopback only, one JSON line at the end (docs/SCALING.md reads them):

1. `sql` — the database alone. The log append exactly as the app issues it (lock the campaign's head with
   `UPDATE campaigns … RETURNING`, INSERT the entry, UPDATE the head's hash, COMMIT), from `--connections`
   connections at once (asyncio psycopg, so the client is not the limit), in three shapes:
   every connection on ONE campaign (the head row lock serialises them), each connection on its own campaigns
   (many campaigns in parallel), and ONE campaign with batches of 16 appends per COMMIT (the app's group
   commit). Reports appends/s and the PostgreSQL backends' CPU per append (from /proc).
2. `app` — the real server (`python -m app.serve`, PostgreSQL + Redis) pinned with `taskset` to `--cpus` for
   each `--workers` count, 32 clients acting over `--campaigns` campaigns: actions/s, p99, the server's and the
   database backends' CPU per action. On a 2-core machine 4 and 8 processes share two cores: what they show is
   the cost of more processes on one database (connections, locks), not their speed; docs/SCALING.md
   extrapolates from the CPU per action instead.

    .venv/bin/python bench/scaling.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/<throwaway>
    .venv/bin/python bench/scaling.py --only sql --seconds 5       # the database part alone, quickly
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from actions import run_phase  # noqa: E402
from common import (  # noqa: E402
    cleanup,
    machine,
    make_table,
    prepare_database,
    start_server,
    stop_server,
    summary_line,
    warn_if_busy,
    workdir,
)
from multiproc import Spread, reachable  # noqa: E402
from night import tree_cpu_seconds  # noqa: E402

PG_BENCH = "postgresql+psycopg://postgres@127.0.0.1:5432/fb_night_bench_scale"
HEX = "0" * 64


def backend_cpu_seconds(database: str) -> dict[int, float]:
    """CPU seconds of every PostgreSQL backend serving `database` (process title "postgres: USER DB …")."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if title.startswith("postgres: ") and f" {database} " in title:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(entry.name)] = sum(int(x) for x in fields[11:13]) / tick
    return out


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


# ------------------------------------------------------------------------------------------------ the database


def seed_campaigns(database_url: str, count: int) -> list[int]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    from app.accounts import service as accounts
    from app.campaigns import service as campaign_service
    from app.db import make_engine, make_sessionmaker

    accounts.password_hasher = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as db:
            user = accounts.create_user(db, "scaler", "correct horse battery")
            ids = []
            for i in range(count):
                ids.append(campaign_service.create_campaign(db, user, name=f"Scale {i}", systems=["dice"]).id)
                db.flush()
            db.commit()
            return ids
    finally:
        engine.dispose()


LOCK = "UPDATE campaigns SET last_seq = last_seq + 1 WHERE id = %s RETURNING last_seq, head_hash"
INSERT = (
    "INSERT INTO log_entries (campaign_id, seq, created_at, actor_id, actor_name, kind, system, action, visibility,"
    " body, salt, body_hash, prev_hash, hash) VALUES (%s, %s, %s, NULL, 'scaler', 'action', 'dice', 'roll', 'public',"
    " %s, %s, %s, %s, %s)"
)
HEAD = "UPDATE campaigns SET head_hash = %s WHERE id = %s"
BODY = json.dumps({"request": {"expression": "2d6+1"}, "result": {"total": 8, "dice": [3, 4]}})


async def sql_phase(dsn: str, campaigns: list[int], connections: int, seconds: float, batch: int) -> dict[str, Any]:
    """`connections` connections appending for `seconds`: connection i appends to campaigns[i % len(campaigns)],
    `batch` appends per transaction."""
    import psycopg

    conns = [await psycopg.AsyncConnection.connect(dsn) for _ in range(connections)]
    done = 0
    waits: list[float] = []
    database = dsn.rsplit("/", 1)[1]
    stop_at = 0.0

    async def worker(i: int) -> None:
        nonlocal done
        conn = conns[i]
        campaign = campaigns[i % len(campaigns)]
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            async with conn.transaction():
                for _ in range(batch):
                    cur = await conn.execute(LOCK, (campaign,))
                    seq, prev = await cur.fetchone()  # type: ignore[misc]
                    digest = hashlib.sha256(f"{campaign}:{seq}:{prev}".encode()).hexdigest()
                    await conn.execute(
                        INSERT,
                        (campaign, seq, dt.datetime.now(dt.UTC).replace(tzinfo=None), BODY, "s", HEX, prev, digest),
                    )
                    await conn.execute(HEAD, (digest, campaign))
            done += batch
            waits.append(time.perf_counter() - t0)

    before = backend_cpu_seconds(database)
    started = time.perf_counter()
    stop_at = started + seconds
    await asyncio.gather(*(worker(i) for i in range(connections)))
    elapsed = time.perf_counter() - started
    pg_cpu = cpu_between(before, backend_cpu_seconds(database))
    for c in conns:
        await c.close()
    waits.sort()
    return {
        "connections": connections,
        "campaigns": len(campaigns),
        "batch": batch,
        "appends": done,
        "appends_per_s": round(done / elapsed, 1),
        "commit_p50_ms": round(1000 * waits[len(waits) // 2], 2) if waits else None,
        "commit_p99_ms": round(1000 * waits[int(len(waits) * 0.99)], 2) if waits else None,
        "pg_cpu_s": round(pg_cpu, 2),
        "pg_cpu_ms_per_append": round(1000 * pg_cpu / max(1, done), 3),
    }


def sql_part(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    url = prepare_database(args.database_url, tmp)
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=Path(__file__).resolve().parent.parent,
        env={**os.environ, "FATEBOARD_DATABASE_URL": url},
        check=True,
        capture_output=True,
        timeout=120,
    )
    campaigns = seed_campaigns(url, args.connections)
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    out = {}
    shapes = {
        "one_campaign": (campaigns[:1], 1),
        "many_campaigns": (campaigns, 1),
        "one_campaign_batch16": (campaigns[:1], 16),
        "many_campaigns_batch16": (campaigns, 16),
    }
    for name, (cids, batch) in shapes.items():
        out[name] = asyncio.run(sql_phase(dsn, cids, args.connections, args.seconds, batch))
        r = out[name]
        print(
            f"sql {name:<24} {r['appends_per_s']:>8}/s  commit p50 {r['commit_p50_ms']} ms p99 {r['commit_p99_ms']} ms"
            f"  PostgreSQL CPU {r['pg_cpu_ms_per_append']} ms per append",
            flush=True,
        )
    return out


# ------------------------------------------------------------------------------------------------ the app


async def app_load(server: Any, tables: list[Any], args: argparse.Namespace, database: str) -> dict[str, Any]:
    senders = Spread(server, tables, args.concurrency)
    common = {
        "concurrency": args.concurrency,
        "server_pid": server.pid,
        "hard_limit": 120.0,
        "max_requests": None,
        "expect": 201,
    }
    try:
        await run_phase("warmup", senders.action, duration=2.0, **common)
        pg_before, app_before = backend_cpu_seconds(database), tree_cpu_seconds(server.pid)
        phase = await run_phase("actions", senders.action, duration=args.seconds, **common)
        pg_cpu = cpu_between(pg_before, backend_cpu_seconds(database))
        app_cpu = tree_cpu_seconds(server.pid) - app_before
    finally:
        await senders.close()
    report = phase.report()
    ok = max(1, phase.ok)
    report["app_cpu_ms_per_action"] = round(1000 * app_cpu / ok, 2)
    report["pg_cpu_ms_per_action"] = round(1000 * pg_cpu / ok, 2)
    return report


def app_part(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    out = {}
    database = args.database_url.rsplit("/", 1)[1]
    for spec in args.runs:
        workers, cpus, campaigns = spec.split(":")
        url = prepare_database(args.database_url, tmp)
        env = {"FATEBOARD_BROKER": "redis", "FATEBOARD_REDIS_URL": args.redis_url}
        server = start_server(
            url, tmp, workers=int(workers), extra_env=env, keepalive=2.0, wrapper=f"taskset -c {cpus}"
        )
        try:
            tables = [make_table(server.url, 1, f"Table {i}", prefix=f"s{i}-") for i in range(int(campaigns))]
            report = asyncio.run(app_load(server, tables, args, database))
        finally:
            stop_server(server)
        load = round(os.getloadavg()[0], 2)
        name = f"{workers} workers on CPUs {cpus}, {campaigns} campaigns"
        out[name] = {"workers": int(workers), "cpus": cpus, "campaigns": int(campaigns), "loadavg_1m": load, **report}
        print(
            f"app {name:<40} {report['rps']:>8}/s  p99 {report['latency_ms']['p99']} ms  errors {report['errors']}  "
            f"server CPU {report['app_cpu_ms_per_action']} ms + PostgreSQL {report['pg_cpu_ms_per_action']} ms per "
            f"action (load {load})",
            flush=True,
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=PG_BENCH, help="a THROWAWAY PostgreSQL database on 127.0.0.1")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--only", choices=("sql", "app"), default=None)
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per measurement")
    parser.add_argument("--connections", type=int, default=16, help="connections in the sql part")
    parser.add_argument("--concurrency", type=int, default=32, help="clients in the app part")
    parser.add_argument(
        "--runs",
        nargs="*",
        default=["1:0:32", "2:0-1:32", "4:0-1:32", "8:0-1:32", "2:0-1:1"],
        help="app runs as WORKERS:CPUS:CAMPAIGNS (default: 1, 2, 4, 8 workers over 32 campaigns; 2 on one campaign)",
    )
    parser.add_argument("--keep-workdir", action="store_true")
    args = parser.parse_args()
    if not args.database_url.startswith("postgresql"):
        parser.error("PostgreSQL only: this is about its write limit")
    info = machine()
    warn_if_busy(info)
    tmp = workdir("fateboard-bench-scaling-")
    problem = reachable(args.database_url, args.redis_url)
    if problem:
        print(f"scaling: SKIPPED ({problem})")
        summary_line({"bench": "scaling", "machine": info, "skipped": problem})
        cleanup(tmp, keep=False)
        return 0
    result: dict[str, Any] = {"bench": "scaling", "machine": info}
    if args.only in (None, "sql"):
        result["sql"] = sql_part(args, tmp)
    if args.only in (None, "app"):
        result["app"] = app_part(args, tmp)
    result["loadavg_1m_after"] = round(os.getloadavg()[0], 2)
    summary_line(result)
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
