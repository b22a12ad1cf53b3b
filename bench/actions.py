"""Throughput and latency of POST /api/campaigns/{id}/actions against a real uvicorn (one worker), with
GET /api/ping measured in the same run as the trivial baseline, then a check of the log (gapless seq,
intact chain, one entry per successful action).

    .venv/bin/python bench/actions.py                      # SQLite in a temp dir, 32 clients, 10 s per phase
    .venv/bin/python bench/actions.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

The load generator runs in this process and the server in another; on a 2-core machine they compete for
the cores (the summary reports how much CPU each used). A measurement, not a test: it exits 0 whether or
not the targets are met, and prints MET / MISSED per target and a JSON summary as its last line.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2  # noqa: E402
import uvloop  # noqa: E402
from common import (  # noqa: E402
    HOST,
    ROLL,
    LeanHTTP,
    RawHTTP,
    Server,
    Table,
    cat_test,
    cleanup,
    latency_summary_ms,
    launch,
    make_table,
    stop_server,
    summary_line,
    verdict,
    verify_log,
)

# Issue 16, target 1 (one process, SQLite): >= 1,000 actions/s at 32 clients, p50 <= 1.5 ms at 1 client,
# >= 40 % of the ping throughput, p99 <= 50 ms at 32 and <= 100 ms at 64 clients, no errors, the log intact,
# and a Cat test of fate (a sheet change) within 1.5x of the dice action.
TARGET_RPS = 1000.0
TARGET_P50_1_MS = 1.5
TARGET_RATIO = 0.4
TARGET_P99_MS = 50.0
TARGET_P99_64_MS = 100.0
TARGET_CAT_SLOWDOWN = 1.5
REQUEST_TIMEOUT = 30.0

Sender = Callable[[int], Awaitable[int]]  # worker index -> HTTP status


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float = 0.0

    @property
    def ok(self) -> int:
        return len(self.latencies)

    @property
    def elapsed(self) -> float:
        return max(self.finished - self.started, 1e-9)

    def report(self) -> dict[str, object]:
        return {
            "requests_ok": self.ok,
            "errors": self.errors,
            "seconds": round(self.elapsed, 2),
            "rps": round(self.ok / self.elapsed, 1),
            "latency_ms": latency_summary_ms(self.latencies),
            "server_cpu_pct": round(100 * self.server_cpu / self.elapsed, 1),
            "loadgen_cpu_pct": round(100 * self.client_cpu / self.elapsed, 1),
            # CPU per successful request (ms), from /proc/<pid>/stat (server) and this process (load generator)
            "server_cpu_ms_per_req": round(1000 * self.server_cpu / self.ok, 3) if self.ok else None,
            "loadgen_cpu_ms_per_req": round(1000 * self.client_cpu / self.ok, 3) if self.ok else None,
            "error_samples": self.error_samples[:3],
        }


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its live children (uvicorn --workers), from /proc (0 if unavailable)."""

    def own(p: int | str) -> tuple[int, float]:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK")

    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid, cpu = own(entry.name)
        except (OSError, IndexError, ValueError):
            continue
        if int(entry.name) == pid or ppid == pid:
            total += cpu
    return total


async def run_phase(
    name: str,
    send: Sender,
    *,
    concurrency: int,
    duration: float,
    max_requests: int | None,
    expect: int,
    server_pid: int,
    hard_limit: float,
) -> Phase:
    phase = Phase(name)
    issued = 0
    deadline = time.perf_counter() + (duration if max_requests is None else hard_limit)
    # Senders that bound each request themselves (LeanHTTP: one timer per request) skip asyncio.wait_for, which
    # wraps every request in a new Task: ~10 µs of client CPU per request (bench/clientcpu.py).
    if getattr(getattr(send, "__self__", None), "own_timeout", False):
        bounded: Sender = send
    else:

        async def bounded(index: int) -> int:
            return await asyncio.wait_for(send(index), REQUEST_TIMEOUT)

    async def worker(index: int) -> None:
        nonlocal issued
        while time.perf_counter() < deadline and (max_requests is None or issued < max_requests):
            issued += 1
            t0 = time.perf_counter()
            try:
                status = await bounded(index)
            except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
                phase.errors += 1
                if len(phase.error_samples) < 3:
                    phase.error_samples.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            if status == expect:
                phase.latencies.append(time.perf_counter() - t0)
            else:
                phase.errors += 1
                if len(phase.error_samples) < 3:
                    phase.error_samples.append(f"HTTP {status}")

    gc.collect()
    gc.freeze()
    gc.disable()  # no client-side collector pauses inside the (bounded) measured phase
    cpu0, srv0 = time.process_time(), process_cpu_seconds(server_pid)
    phase.started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    phase.finished = time.perf_counter()
    gc.enable()
    phase.client_cpu = time.process_time() - cpu0
    phase.server_cpu = process_cpu_seconds(server_pid) - srv0
    return phase


class RawSenders:
    """One raw keep-alive connection per worker; requests prebuilt as bytes (lowest client CPU). The connection is
    a bare asyncio.Protocol (`LeanHTTP`, the default) or, with `streams=True`, the earlier asyncio-streams client
    (`RawHTTP`), kept to measure the difference (`--client streams`)."""

    def __init__(self, server: Server, table: Table, concurrency: int, *, streams: bool = False) -> None:
        self.conns: list[LeanHTTP | RawHTTP] = [
            RawHTTP(HOST, server.port) if streams else LeanHTTP(HOST, server.port, timeout=REQUEST_TIMEOUT)
            for _ in range(concurrency)
        ]
        self.own_timeout = not streams  # run_phase need not wrap each request in asyncio.wait_for
        body = json.dumps(ROLL).encode()
        path = f"/api/campaigns/{table.campaign_id}/actions"
        people = table.everyone
        self.action_req = [self.conns[i].build("POST", path, people[i % len(people)], body) for i in range(concurrency)]
        self.ping_req = [c.build("GET", "/api/ping") for c in self.conns]
        # Each player tests their own cat's fate (the narrator's connections act for player 1's cat).
        self.cat_req = (
            [
                self.conns[i].build(
                    "POST",
                    path,
                    people[i % len(people)],
                    json.dumps(cat_test(table.cats[max(0, i % len(people) - 1)])).encode(),
                )
                for i in range(concurrency)
            ]
            if table.cats
            else []
        )

    async def cat(self, i: int) -> int:
        return await self._send(i, self.cat_req[i])

    async def _send(self, i: int, raw: bytes) -> int:
        conn = self.conns[i]
        try:
            status, _ = await conn.send(raw)
        except BaseException:
            await conn.close()  # a half-read response must not poison the next request
            raise
        return status

    async def action(self, i: int) -> int:
        return await self._send(i, self.action_req[i])

    async def ping(self, i: int) -> int:
        return await self._send(i, self.ping_req[i])

    async def close(self) -> None:
        for c in self.conns:
            await c.close()


class HttpxSenders:
    """httpx2.AsyncClient, as a real API client would use it (more client CPU per request)."""

    def __init__(self, server: Server, table: Table, concurrency: int) -> None:
        limits = httpx2.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
        self.client = httpx2.AsyncClient(base_url=server.url, limits=limits, timeout=REQUEST_TIMEOUT)
        self.path = f"/api/campaigns/{table.campaign_id}/actions"
        self.people = table.everyone
        self.body = json.dumps(ROLL).encode()
        # As with the raw client: each player tests their own cat (the narrator acts for player 1's cat).
        self.cat_body = (
            [json.dumps(cat_test(table.cats[max(0, i % len(self.people) - 1)])).encode() for i in range(concurrency)]
            if table.cats
            else []
        )

    async def _post(self, i: int, body: bytes) -> int:
        headers = {**self.people[i % len(self.people)], "Content-Type": "application/json"}
        return (await self.client.post(self.path, content=body, headers=headers)).status_code

    async def action(self, i: int) -> int:
        return await self._post(i, self.body)

    async def ping(self, i: int) -> int:
        return (await self.client.get("/api/ping")).status_code

    async def cat(self, i: int) -> int:
        return await self._post(i, self.cat_body[i])

    async def close(self) -> None:
        await self.client.aclose()


def senders_for(server: Server, table: Table, concurrency: int, client: str) -> RawSenders | HttpxSenders:
    if client == "httpx":
        return HttpxSenders(server, table, concurrency)
    return RawSenders(server, table, concurrency, streams=client == "streams")


async def measure(server: Server, table: Table, args: argparse.Namespace) -> dict[str, Phase]:
    senders = senders_for(server, table, args.concurrency, args.client)
    common = {"concurrency": args.concurrency, "server_pid": server.pid, "hard_limit": args.max_seconds}
    phases: dict[str, Phase] = {}
    try:
        if args.warmup > 0:
            print(f"warm-up: {args.warmup:g} s ping, {args.warmup:g} s actions", file=sys.stderr)
            phases["warmup_ping"] = await run_phase(
                "warmup_ping", senders.ping, duration=args.warmup, max_requests=None, expect=200, **common
            )
            phases["warmup_actions"] = await run_phase(
                "warmup_actions", senders.action, duration=args.warmup, max_requests=None, expect=201, **common
            )
        if not args.skip_ping:
            print(f"ping: {args.concurrency} clients", file=sys.stderr)
            phases["ping"] = await run_phase(
                "ping", senders.ping, duration=args.duration, max_requests=args.requests, expect=200, **common
            )
        print(f"actions: {args.concurrency} clients", file=sys.stderr)
        phases["actions"] = await run_phase(
            "actions", senders.action, duration=args.duration, max_requests=args.requests, expect=201, **common
        )
        if not args.only_main:
            print(f"cat test of fate: {args.concurrency} clients", file=sys.stderr)
            phases["cat"] = await run_phase(
                "cat", senders.cat, duration=args.duration, max_requests=args.requests, expect=201, **common
            )
    finally:
        await senders.close()
    if not args.only_main:
        for clients in (1, 64):
            extra = senders_for(server, table, clients, args.client)
            try:
                print(f"actions: {clients} client(s)", file=sys.stderr)
                phases[f"actions_{clients}"] = await run_phase(
                    f"actions_{clients}",
                    extra.action,
                    duration=args.duration / 2,
                    max_requests=args.requests,
                    expect=201,
                    **{**common, "concurrency": clients},
                )
            finally:
                await extra.close()
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per measured phase (default 10)")
    parser.add_argument(
        "--requests", type=int, default=None, help="a fixed number of requests per measured phase instead of --duration"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per endpoint (default 2)")
    parser.add_argument("--players", type=int, default=4, help="players besides the narrator (default 4)")
    parser.add_argument(
        "--client",
        choices=("raw", "streams", "httpx"),
        default="raw",
        help="raw: a bare asyncio.Protocol HTTP/1.1 client (default, least client CPU); streams: the earlier "
        "raw client on asyncio streams; httpx: httpx2.AsyncClient",
    )
    parser.add_argument(
        "--database-url",
        default="",
        help="default: a temp SQLite file; a PostgreSQL URL on 127.0.0.1 is WIPED (schema public)",
    )
    parser.add_argument("--skip-ping", action="store_true", help="do not measure the /api/ping baseline")
    parser.add_argument(
        "--only-main",
        action="store_true",
        help="only ping and actions at --concurrency (no Cat, 1-client and 64-client phases)",
    )
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default 1)")
    parser.add_argument(
        "--granian", action="store_true", help="serve with granian instead of uvicorn (pip install granian first)"
    )
    parser.add_argument(
        "--server-wrapper",
        default="",
        help='prefix for the uvicorn command, e.g. "py-spy record -o prof.svg --" (profiling)',
    )
    parser.add_argument("--max-seconds", type=float, default=300.0, help="hard cap on a --requests phase")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra environment for the server process (repeatable), e.g. FATEBOARD_BROKER=redis",
    )
    parser.add_argument(
        "--keep-workdir",
        action="store_true",
        help="keep the temp dir (SQLite file, server log); kept anyway when the run went wrong",
    )
    parser.add_argument(
        "--server-root",
        default="",
        help="run the app from another source tree (an experimental copy); default: this one",
    )
    args = parser.parse_args()
    if args.concurrency < 1 or args.duration <= 0 or (args.requests is not None and args.requests < 1):
        parser.error("concurrency, duration and requests must be positive")
    args.duration = min(args.duration, args.max_seconds)

    info, tmp, database_url, backend, server = launch(args, "fateboard-bench-actions-")
    try:
        table = make_table(server.url, args.players, cats=True)
        phases = uvloop.run(measure(server, table, args))  # the load generator on uvloop: a third of the client CPU
        total_ok = sum(p.ok for name, p in phases.items() if name != "ping" and name != "warmup_ping")
        check = verify_log(server.url, table, total_ok)
    finally:
        stop_server(server, sig=2 if args.server_wrapper else 15, wait=60 if args.server_wrapper else 10)

    actions, ping = phases["actions"], phases.get("ping")
    act = actions.report()
    base = ping.report() if ping else None
    ratio = round(act["rps"] / base["rps"], 3) if base and base["rps"] else None  # type: ignore[operator]

    print()
    print(
        f"backend {backend}, {args.workers} worker(s), {args.concurrency} clients, client={args.client}, "
        f"{info['nproc']} cores, python {info['python']}, "
        + (f"server tree {args.server_root}" if args.server_root else f"commit {info['commit']}")
    )
    print(
        f"{'endpoint':<10}{'ok':>8}{'err':>6}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}"
        f"{'srv cpu':>9}{'gen cpu':>9}"
    )
    extra = {name: phases[name].report() for name in ("cat", "actions_1", "actions_64") if name in phases}
    for label, rep in (("ping", base), ("actions", act), *extra.items()):
        if rep is None:
            continue
        lat = {k: "-" if v is None else v for k, v in rep["latency_ms"].items()}  # type: ignore[union-attr]
        print(
            f"{label:<10}{rep['requests_ok']:>8}{rep['errors']:>6}{rep['rps']:>9}{lat['p50']:>9}{lat['p95']:>9}"
            f"{lat['p99']:>9}{lat['max']:>9}{rep['server_cpu_pct']:>8}%{rep['loadgen_cpu_pct']:>8}%"
        )
    if ratio is not None:
        print(f"actions/ping throughput ratio: {ratio}")
    print(
        f"log check: verify ok={check['ok']} count={check['count']} last_seq={check['last_seq']} "
        f"(gapless chain: {check['gapless_chain']}); successful actions seen by the client: {check['expected']} "
        f"-> {'PASS' if check['passed'] else 'FAIL'} {check['problems'] or ''}"
    )
    scope = "" if backend == "sqlite" else " (targets are set for SQLite; shown for comparison)"
    print(f"targets{scope}:")
    targets: dict[str, str] = {}

    def target(key: str, name: str, value: Any, limit: float, higher: bool) -> None:
        targets[key] = "MET" if verdict(name, value, limit, higher_is_better=higher) else "MISSED"

    target("actions_per_s>=1000", f"actions/s at {args.concurrency} clients", act["rps"], TARGET_RPS, True)
    target(
        "p99_ms<=50", f"actions p99 ms at {args.concurrency} clients", act["latency_ms"]["p99"], TARGET_P99_MS, False
    )
    if ratio is not None:
        target("ratio_to_ping>=0.4", "actions/ping throughput ratio", ratio, TARGET_RATIO, True)
    if "actions_1" in extra:
        target(
            "p50_ms_1_client<=1.5",
            "actions p50 ms at 1 client",
            extra["actions_1"]["latency_ms"]["p50"],
            TARGET_P50_1_MS,
            False,
        )
    if "actions_64" in extra:
        target(
            "p99_ms_64_clients<=100",
            "actions p99 ms at 64 clients",
            extra["actions_64"]["latency_ms"]["p99"],
            TARGET_P99_64_MS,
            False,
        )
    cat_slowdown = None
    if "cat" in extra and extra["cat"]["rps"]:
        cat_slowdown = round(act["rps"] / extra["cat"]["rps"], 3)
        target(
            "cat_within_1.5x", "dice actions/s / Cat test-of-fate actions/s", cat_slowdown, TARGET_CAT_SLOWDOWN, False
        )
    errors = act["errors"] + sum(rep["errors"] for rep in extra.values())
    target("errors==0", "action errors (every phase)", errors, 0, False)
    target("log_intact", "log intact (1 = verify ok, count = successes = last_seq)", int(check["passed"]), 1, True)
    summary_line(
        {
            "bench": "actions",
            "backend": backend,
            "concurrency": args.concurrency,
            "client": args.client,
            "workers": args.workers,
            "server_root": args.server_root or None,
            "server_env": args.server_env,
            "duration": args.duration,
            "requests": args.requests,
            "machine": info,
            "actions": act,
            "ping": base,
            "ratio_actions_to_ping": ratio,
            "phases": extra,
            "dice_over_cat": cat_slowdown,
            "log_check": check,
            "targets": targets,
        }
    )
    cleanup(tmp, keep=args.keep_workdir or not (check["passed"] and errors == 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
