"""Oversized request bodies (issue 21, point 1): `--clients` (4) clients at once each send a `--mb` (100) MB body
to `POST /api/campaigns` without a token, first with a Content-Length ("plain"), then chunked, while one client
pings `GET /api/ping` back to back. Per mode: what the bodies were answered with, the time from a request's
first byte to its answer's first byte and how much of the body had been sent by then, the server's RSS growth
over its warmed idle RSS (sampled every 20 ms, and VmHWM), and the ping's latency while the bodies arrive.

    .venv/bin/python bench/bodies.py                                    # this checkout
    .venv/bin/python bench/bodies.py --server-root /tmp/fateboard-main  # another source tree (e.g. main)
    .venv/bin/python bench/bodies.py --layer                            # the middleware's own cost per request

Targets: every body answered 413, RSS growth ≤ 64 MiB, ping p99 ≤ 100 ms. Each client keeps sending new bodies
for `--duration` seconds (at least one each), so the ping has a window to be measured in even when the 413s
come back in milliseconds (`--pause` 0.1 s between one client's bodies: four bodies in flight, not a flood of
connections). 127.0.0.1 only; every wait is bounded (`--timeout` per body).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from common import (  # noqa: E402
    HOST,
    RawHTTP,
    cleanup,
    latency_summary_ms,
    launch,
    server_arguments,
    stop_server,
    summary_line,
    verdict,
)

TARGET_RSS_MIB = 64.0
TARGET_PING_P99_MS = 100.0
PIECE = 256 * 1024
PATH = "/api/campaigns"
SNDBUF = 256 * 1024


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (from /proc: steadier than wall clock on a shared machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_of(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0])
    return out


async def one_body(port: int, size: int, chunked: bool, timeout: float) -> dict[str, Any]:
    """Send one body as fast as the server takes it while reading; stop sending when the answer comes. Plain
    sockets (not asyncio streams, whose reader forgets an answer already received once a write fails): a server
    that answers early and closes resets the connection, and the answer is still there to read."""
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    # A send buffer of a network's size: loopback's autotuned one lets a client push ~8 MB into the kernel
    # before the server has read any, which measures the kernel, and costs this shared machine's CPU.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF)
    sock.setblocking(False)
    await loop.sock_connect(sock, (HOST, port))
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    head = f"POST {PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    piece = b"[" + b"1," * (PIECE // 2 - 1) + b"1"  # JSON-ish bytes; never parsed as a whole anyway
    sent = 0
    answered_at: float | None = None
    sent_when_answered = 0
    t0 = time.perf_counter()

    async def send_all() -> None:
        nonlocal sent
        try:
            await loop.sock_sendall(sock, head.encode())
            while sent < size:
                part = piece[: min(PIECE, size - sent)]
                await loop.sock_sendall(sock, (b"%x\r\n" % len(part) + part + b"\r\n") if chunked else part)
                sent += len(part)
            if chunked:
                await loop.sock_sendall(sock, b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed: the answer is read below

    async def read_answer() -> int:
        nonlocal answered_at, sent_when_answered
        data = await loop.sock_recv(sock, 65536)
        answered_at = time.perf_counter()
        sent_when_answered = sent
        while b"\r\n" not in data:
            more = await loop.sock_recv(sock, 65536)
            if not more:
                break
            data += more
        return int(data.split(b" ", 2)[1])

    sender = asyncio.ensure_future(send_all())
    status = 0
    error = ""
    try:
        status = await asyncio.wait_for(read_answer(), timeout)
    except (OSError, ValueError, IndexError) as exc:
        error = type(exc).__name__
    except TimeoutError:
        error = "timeout"
    finally:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
        sock.close()
    end = answered_at or time.perf_counter()
    return {
        "status": status,
        "error": error,
        "seconds": end - t0,
        "sent_mb": sent_when_answered / 1e6,
        "sent_fraction": sent_when_answered / size,
    }


async def run_mode(port: int, pid: int, args: Any, chunked: bool) -> dict[str, Any]:
    size = int(args.mb * 1_000_000)
    idle = status_of(pid)["VmRSS"]
    peak = idle
    pings: list[float] = []
    bodies: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, status_of(pid)["VmRSS"])
            await asyncio.sleep(0.02)

    async def ping() -> None:
        client = RawHTTP(HOST, port)
        raw = client.build("GET", "/api/ping")
        while not done.is_set():
            t = time.perf_counter()
            status, _ = await asyncio.wait_for(client.send(raw), args.timeout)
            if status == 200:
                pings.append(time.perf_counter() - t)
            await asyncio.sleep(0.005)  # a steady prober, not a second load
        await client.close()

    async def attacker() -> None:
        stop = time.perf_counter() + args.duration
        while True:
            bodies.append(await one_body(port, size, chunked, args.timeout))
            if time.perf_counter() >= stop:
                return
            await asyncio.sleep(args.pause)

    tasks = [asyncio.ensure_future(sample()), asyncio.ensure_future(ping())]
    await asyncio.sleep(0.5)  # the ping's quiet baseline starts the window
    started, cpu = time.perf_counter(), cpu_seconds(pid)
    await asyncio.gather(*(attacker() for _ in range(args.clients)))
    window = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu
    done.set()
    await asyncio.gather(*tasks)
    after = status_of(pid)
    statuses: dict[str, int] = {}
    for b in bodies:
        key = str(b["status"] or b["error"])
        statuses[key] = statuses.get(key, 0) + 1
    seconds = sorted(b["seconds"] for b in bodies)
    return {
        "bodies": len(bodies),
        "statuses": statuses,
        "window_s": round(window, 2),
        "server_cpu_s": round(cpu, 2),
        "server_cpu_ms_per_body": round(cpu * 1000 / max(1, len(bodies)), 2),
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "idle_rss_mib": round(idle / 1024, 1),
        "peak_rss_mib": round(peak / 1024, 1),
        "rss_growth_mib": round((peak - idle) / 1024, 1),
        "hwm_mib": round(after["VmHWM"] / 1024, 1),
        "rss_after_mib": round(after["VmRSS"] / 1024, 1),
        "answer_ms": latency_summary_ms(seconds),
        "sent_when_answered_mb_max": round(max(b["sent_mb"] for b in bodies), 1),
        "sent_when_answered_fraction_max": round(max(b["sent_fraction"] for b in bodies), 3),
        "ping_ms": latency_summary_ms(pings),
        "pings": len(pings),
    }


async def warm(port: int) -> None:
    """The server's allocator and code paths warmed: pings and small refused bodies, like the run's own."""
    client = RawHTTP(HOST, port)
    for _ in range(200):
        await client.send(client.build("GET", "/api/ping"))
    for _ in range(20):
        await client.send(client.build("POST", PATH, body=b'{"name": "x"}'))
    await client.close()


def layer_cost(n: int = 200_000) -> dict[str, float]:
    """The middleware's own CPU per request, in-process against a bare stand-in app (µs): a GET (a page view,
    a ping) and a small POST body. Steadier than any figure through a server on a shared machine."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from app.security import BodyLimitMiddleware

    async def bare(scope: Any, receive: Any, send: Any) -> None:
        if scope["method"] == "POST":
            await receive()
        await send({"type": "http.response.start"})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b'{"a": 1}', "more_body": False}

    async def send(message: Any) -> None:
        pass

    guard = BodyLimitMiddleware(bare, max_bytes=1024 * 1024)
    headers = [(b"host", b"x"), (b"accept", b"*/*"), (b"authorization", b"Bearer x")]
    scopes = {
        "get": {"type": "http", "method": "GET", "path": "/api/ping", "headers": headers},
        "post": {
            "type": "http",
            "method": "POST",
            "path": "/api/campaigns/1/actions",
            "headers": [*headers, (b"content-type", b"application/json"), (b"content-length", b"8")],
        },
    }

    async def per_call(app: Any, scope: dict[str, Any]) -> float:
        started = time.process_time()
        for _ in range(n):
            await app(scope, receive, send)
        return (time.process_time() - started) / n * 1e6

    async def run() -> dict[str, float]:
        out = {}
        for name, scope in scopes.items():
            base = min([await per_call(bare, scope) for _ in range(3)])
            with_guard = min([await per_call(guard, scope) for _ in range(3)])
            out[f"{name}_extra_us"] = round(with_guard - base, 2)
        return out

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    server_arguments(parser)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds each client keeps sending bodies")
    parser.add_argument("--pause", type=float, default=0.1, help="seconds a client waits between its bodies")
    parser.add_argument("--timeout", type=float, default=300.0, help="the longest wait for one body's answer")
    parser.add_argument("--modes", default="plain,chunked")
    parser.add_argument("--layer", action="store_true", help="only the middleware's own CPU per GET and per POST")
    args = parser.parse_args()
    if args.layer:
        summary_line({"bench": "bodies-layer", **layer_cost()})
        return
    info, tmp, _url, backend, server = launch(args, "fb-bodies-")
    results: dict[str, Any] = {}
    ok = False
    try:
        asyncio.run(warm(server.port))
        for mode in args.modes.split(","):
            results[mode] = asyncio.run(run_mode(server.port, server.pid, args, chunked=mode == "chunked"))
            print(f"{mode}: {results[mode]}", file=sys.stderr)
        ok = True
    finally:
        stop_server(server)
        cleanup(tmp, keep=args.keep_workdir or not ok)
    met = {}
    for mode, r in results.items():
        refused = r["statuses"].get("413", 0)
        met[f"{mode}_all_413"] = verdict(
            f"{mode}: bodies answered 413 (of {r['bodies']})", refused, r["bodies"], higher_is_better=True
        )
        met[f"{mode}_rss"] = verdict(
            f"{mode}: server RSS growth MiB", r["rss_growth_mib"], TARGET_RSS_MIB, higher_is_better=False
        )
        met[f"{mode}_ping"] = verdict(
            f"{mode}: ping p99 ms meanwhile", r["ping_ms"]["p99"], TARGET_PING_P99_MS, higher_is_better=False
        )
    summary_line(
        {
            "bench": "bodies",
            "machine": info,
            "backend": backend,
            "server_root": args.server_root or ".",
            "clients": args.clients,
            "mb": args.mb,
            "duration_s": args.duration,
            **results,
            "met": met,
        }
    )


if __name__ == "__main__":
    main()
