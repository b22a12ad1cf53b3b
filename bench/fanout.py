"""Live fan-out: N open streams on GET /api/campaigns/{id}/events (spread over a narrator and several
players), then K actions posted about 100 ms apart; for every (action, stream) pair, the time from sending
the POST to the entry's arrival on that stream (matched by the SSE `id:` = seq).

    .venv/bin/python bench/fanout.py                       # 200 streams, 50 actions, SQLite, one worker

Streams and poster share one asyncio event loop in this process (httpx2 streaming by default); the
server runs in another process. Client-side parsing of N copies of each entry is part of the measured
time (use --client raw to see how much of it the client adds). A measurement, not a test: it exits 0 and
prints MET / MISSED per target and a JSON summary as its last line.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

import httpx2  # noqa: E402
from common import (  # noqa: E402
    HOST,
    ROLL,
    Table,
    cleanup,
    latency_summary_ms,
    launch,
    make_table,
    stop_server,
    summary_line,
    verdict,
    verify_log,
)

TARGET_P99_MS = 250.0


@dataclass
class Stream:
    index: int
    user: int
    status: int | None = None
    arrivals: list[tuple[int, float]] = field(default_factory=list)  # (seq from id:, perf_counter)
    data: list[str] = field(default_factory=list)
    error: str | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)


def _handle_lines(stream: Stream, lines: list[str], state: dict[str, object]) -> None:
    """SSE parsing shared by both clients; the arrival time is taken when the `id:` line is read."""
    for line in lines:
        if line.startswith("id: "):
            state["id"], state["t"] = int(line[4:]), time.perf_counter()
        elif line.startswith("event: "):
            state["event"] = line[7:]
        elif line.startswith("data: "):
            state["data"] = line[6:]
        elif line == "":
            if state.get("event") == "entry" and state.get("id") is not None:
                stream.arrivals.append((state["id"], state["t"]))  # type: ignore[arg-type]
                stream.data.append(state.get("data", ""))  # type: ignore[arg-type]
            state.clear()


async def httpx_stream(
    client: httpx2.AsyncClient, path: str, headers: dict[str, str], stream: Stream, want: int, stop: asyncio.Event
) -> None:
    try:
        async with client.stream("GET", path, headers=headers) as response:
            stream.status = response.status_code
            if response.status_code != 200:
                stream.error = f"HTTP {response.status_code}"
                stream.ready.set()
                return
            state: dict[str, object] = {}
            async for line in response.aiter_lines():
                stream.ready.set()
                _handle_lines(stream, [line], state)
                if len(stream.arrivals) >= want or stop.is_set():
                    return
    except Exception as exc:  # noqa: BLE001 - reported per stream
        stream.error = f"{type(exc).__name__}: {exc}"[:200]
        stream.ready.set()


async def raw_stream(
    port: int, path: str, headers: dict[str, str], stream: Stream, want: int, stop: asyncio.Event
) -> None:
    """The same stream on a bare asyncio connection (chunked transfer decoded by hand): minimal client CPU."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        head = [f"GET {path} HTTP/1.1", f"Host: {HOST}:{port}", "Accept: text/event-stream"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        status_head = await reader.readuntil(b"\r\n\r\n")
        stream.status = int(status_head.split(b" ", 2)[1])
        if stream.status != 200:
            stream.error = f"HTTP {stream.status}"
            stream.ready.set()
            return
        chunked = b"transfer-encoding: chunked" in status_head.lower()
        buf, state = "", {}
        while len(stream.arrivals) < want and not stop.is_set():
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    break
                chunk = (await reader.readexactly(size + 2))[:-2]
            else:
                chunk = await reader.read(65536)
                if not chunk:
                    break
            stream.ready.set()
            buf += chunk.decode()
            *lines, buf = buf.split("\n")
            _handle_lines(stream, lines, state)
    except Exception as exc:  # noqa: BLE001
        stream.error = f"{type(exc).__name__}: {exc}"[:200]
        stream.ready.set()
    finally:
        if writer is not None:
            writer.close()


async def run(server_url: str, port: int, table: Table, args: argparse.Namespace) -> dict[str, object]:
    people = table.everyone
    path = f"/api/campaigns/{table.campaign_id}/events"
    streams = [Stream(i, i % len(people)) for i in range(args.streams)]
    stop = asyncio.Event()
    limits = httpx2.Limits(max_connections=args.streams + 10, max_keepalive_connections=args.streams + 10)
    timeout = httpx2.Timeout(30.0, connect=30.0, pool=60.0)
    async with (
        httpx2.AsyncClient(base_url=server_url, limits=limits, timeout=timeout) as client,
        httpx2.AsyncClient(base_url=server_url, timeout=30.0) as poster,
    ):
        if args.client == "raw":
            tasks = [
                asyncio.create_task(raw_stream(port, path, people[s.user], s, args.actions, stop)) for s in streams
            ]
        else:
            tasks = [
                asyncio.create_task(httpx_stream(client, path, people[s.user], s, args.actions, stop)) for s in streams
            ]
        t_connect = time.perf_counter()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in streams)), args.connect_timeout)
        connected = sum(1 for s in streams if s.status == 200 and s.error is None)
        connect_seconds = time.perf_counter() - t_connect
        print(f"{connected}/{args.streams} streams open in {connect_seconds:.2f} s", file=sys.stderr)
        await asyncio.sleep(0.5)  # let the server settle after the connection burst

        # The client's own garbage collector would add pauses to the measured latency: freeze the setup's
        # objects and hold collection for the (bounded) measured window.
        gc.collect()
        gc.freeze()
        gc.disable()
        sent: dict[int, float] = {}
        post_latency: list[float] = []
        post_errors: list[str] = []
        start = time.perf_counter()
        for k in range(args.actions):
            await asyncio.sleep(max(0.0, start + k * args.spacing - time.perf_counter()))
            who = people[k % len(people)]
            t0 = time.perf_counter()
            try:
                r = await poster.post(f"/api/campaigns/{table.campaign_id}/actions", json=ROLL, headers=who)
            except httpx2.HTTPError as exc:
                post_errors.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            if r.status_code != 201:
                post_errors.append(f"HTTP {r.status_code}: {r.text[:100]}")
                continue
            post_latency.append(time.perf_counter() - t0)
            sent[r.json()["seq"]] = t0
        posting_seconds = time.perf_counter() - start

        # Wait (bounded) for every stream to have every entry, then stop the rest.
        deadline = time.perf_counter() + args.drain_timeout
        while time.perf_counter() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        gc.enable()
        stop.set()
        for t in tasks:
            if not t.done():
                t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    expected = sorted(sent)
    latencies: list[float] = []
    per_action: dict[int, list[float]] = {seq: [] for seq in expected}
    exact, missing, duplicates, out_of_order, extra, data_mismatch = 0, 0, 0, 0, 0, 0
    for s in streams:
        seqs = [seq for seq, _ in s.arrivals]
        if seqs == expected:
            exact += 1
        got = set(seqs)
        missing += len(set(expected) - got)
        duplicates += len(seqs) - len(got)
        extra += len(got - set(expected))
        out_of_order += int(seqs != sorted(seqs))
        for (seq, t), raw in zip(s.arrivals, s.data, strict=True):
            try:
                if json.loads(raw).get("seq") != seq:
                    data_mismatch += 1
            except ValueError:
                data_mismatch += 1
            if seq in sent:
                latencies.append(t - sent[seq])
                per_action[seq].append(t - sent[seq])
    if args.per_action:
        print("seq  first_ms  median_ms  last_ms  (arrival after the POST was sent)", file=sys.stderr)
        for seq, v in per_action.items():
            v.sort()
            if v:
                print(f"{seq:>3} {v[0] * 1000:9.1f} {v[len(v) // 2] * 1000:10.1f} {v[-1] * 1000:8.1f}", file=sys.stderr)
    first_arrival = [min(v) for v in per_action.values() if v]
    last_arrival = [max(v) for v in per_action.values() if v]
    errors = [s.error for s in streams if s.error]
    return {
        "streams": args.streams,
        "streams_connected": connected,
        "connect_seconds": round(connect_seconds, 2),
        "users": len(people),
        "actions_sent": args.actions,
        "actions_ok": len(sent),
        "post_errors": post_errors[:3],
        "posting_seconds": round(posting_seconds, 2),
        "pairs_expected": len(sent) * args.streams,
        "pairs_received": len(latencies),
        "arrival_ms": latency_summary_ms(latencies),
        "first_stream_ms": latency_summary_ms(first_arrival),
        "last_stream_ms": latency_summary_ms(last_arrival),
        "post_ms": latency_summary_ms(post_latency),
        "streams_exact_in_order": exact,
        "missing": missing,
        "duplicates": duplicates,
        "extra": extra,
        "streams_out_of_order": out_of_order,
        "data_seq_mismatch": data_mismatch,
        "stream_errors": len(errors),
        "stream_error_samples": errors[:3],
        "all_exactly_once_in_order": exact == args.streams and len(sent) == args.actions and data_mismatch == 0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=200, help="open SSE streams (default 200)")
    parser.add_argument("--actions", type=int, default=50, help="actions to post (default 50)")
    parser.add_argument("--spacing", type=float, default=0.1, help="seconds between actions (default 0.1)")
    parser.add_argument("--players", type=int, default=7, help="players besides the narrator (default 7)")
    parser.add_argument(
        "--client",
        choices=("httpx", "raw"),
        default="httpx",
        help="httpx2 streaming (default) or bare asyncio connections (less client CPU)",
    )
    parser.add_argument(
        "--database-url",
        default="",
        help="default: a temp SQLite file; a PostgreSQL URL on 127.0.0.1 is WIPED (schema public)",
    )
    parser.add_argument("--per-action", action="store_true", help="print first/median/last arrival per action")
    parser.add_argument("--connect-timeout", type=float, default=60.0)
    parser.add_argument(
        "--drain-timeout", type=float, default=20.0, help="seconds to wait after the last POST for late entries"
    )
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default 1)")
    parser.add_argument("--server-wrapper", default="", help="prefix for the uvicorn command (profiling)")
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
    if args.streams < 1 or args.actions < 1 or not 0 <= args.spacing <= 5:
        parser.error("streams and actions must be positive, spacing between 0 and 5 s")

    info, tmp, database_url, backend, server = launch(args, "fateboard-bench-fanout-")
    try:
        table = make_table(server.url, args.players)
        result = asyncio.run(run(server.url, server.port, table, args))
        check = verify_log(server.url, table, int(result["actions_ok"]))  # type: ignore[arg-type]
    finally:
        stop_server(server, sig=2 if args.server_wrapper else 15, wait=60 if args.server_wrapper else 10)

    arr = result["arrival_ms"]
    print()
    print(
        f"backend {backend}, {result['streams_connected']}/{args.streams} streams over {result['users']} users, "
        f"{result['actions_ok']}/{args.actions} actions every {args.spacing:g} s, client={args.client}, "
        f"{info['nproc']} cores, python {info['python']}, "
        + (f"server tree {args.server_root}" if args.server_root else f"commit {info['commit']}")
    )
    print(
        f"arrival latency over {result['pairs_received']}/{result['pairs_expected']} (action, stream) pairs: "
        f"p50 {arr['p50']} ms, p95 {arr['p95']} ms, p99 {arr['p99']} ms, max {arr['max']} ms"
    )  # type: ignore[index]
    first, last, post = result["first_stream_ms"], result["last_stream_ms"], result["post_ms"]
    print(
        f"per action: first stream p50 {first['p50']} ms, last stream p50 {last['p50']} ms / "  # type: ignore[index]
        f"max {last['max']} ms; POST p50 {post['p50']} ms"
    )  # type: ignore[index]
    print(
        f"delivery: {result['streams_exact_in_order']}/{args.streams} streams got every entry exactly once in "
        f"order (missing {result['missing']}, duplicates {result['duplicates']}, extra {result['extra']}, "
        f"out of order {result['streams_out_of_order']}, stream errors {result['stream_errors']})"
    )
    print(
        f"log check: verify ok={check['ok']} count={check['count']} last_seq={check['last_seq']} "
        f"(gapless chain: {check['gapless_chain']}); POSTs answered 201: {check['expected']} -> "
        f"{'PASS' if check['passed'] else 'FAIL'}"
    )
    scope = "" if backend == "sqlite" else " (targets are set for SQLite; shown for comparison)"
    print(f"targets{scope}:")
    met_p99 = verdict(
        f"arrival p99 ms at {args.streams} streams",
        arr["p99"],
        TARGET_P99_MS,  # type: ignore[index]
        higher_is_better=False,
    )
    met_all = bool(result["all_exactly_once_in_order"])
    print(f"TARGET every stream gets every entry exactly once, in order: {'MET' if met_all else 'MISSED'}")
    summary_line(
        {
            "bench": "fanout",
            "backend": backend,
            "client": args.client,
            "spacing": args.spacing,
            "workers": args.workers,
            "server_root": args.server_root or None,
            "server_env": args.server_env,
            "machine": info,
            **result,
            "log_check": check,
            "targets": {
                "arrival_p99_ms<=250": "MET" if met_p99 else "MISSED",
                "exactly_once_in_order": "MET" if met_all else "MISSED",
            },
        }
    )
    clean = check["passed"] and bool(result["all_exactly_once_in_order"])
    cleanup(tmp, keep=args.keep_workdir or not clean)
    return 0


if __name__ == "__main__":
    sys.exit(main())
