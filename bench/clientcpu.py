"""Client CPU per request of the benchmarks' load generators, against a stand-in server that answers every request
at once with a fixed response (so only the client's own work differs between runs).

    .venv/bin/python bench/clientcpu.py --requests 20000 --concurrency 32

Not a target: issue 27 asks that our load generator spend no more client CPU per request than the peer's raw
asyncio driver (shared/peers/pyvtt_peer.py). The stand-in runs in its own process on 127.0.0.1; this process's
CPU (time.process_time) over the requests is the client's. Prints one JSON line per client and a summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parent))

from actions import RawSenders, run_phase  # noqa: E402
from common import HOST, Server, Table, free_port, summary_line  # noqa: E402

BODY = json.dumps({"seq": 1, "summary": "2d6+1 = 8", "dice": [3, 4], "total": 8}).encode() * 6  # ~ an entry's size
ANSWER = (
    b"HTTP/1.1 201 Created\r\ndate: Sat, 28 Nov 2026 12:00:00 GMT\r\nserver: uvicorn\r\ncontent-length: "
    + str(len(BODY)).encode()
    + b"\r\ncontent-type: application/json\r\n\r\n"
    + BODY
)


class Answer(asyncio.Protocol):
    """Answers each complete request head (and its Content-Length body) with ANSWER."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.buf = b""

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15 :].split(b"\r\n", 1)[0]) if at >= 0 else 0
            if len(self.buf) < end + 4 + length:
                return
            self.buf = self.buf[end + 4 + length :]
            self.transport.write(ANSWER)


def serve(port: int) -> None:
    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Answer, HOST, port)
        async with server:
            await asyncio.sleep(600)  # bounded: the parent ends it long before

    asyncio.run(main())


class Senders:
    """The benchmark's own senders (bench/actions.py RawSenders) on a stand-in server and table."""

    def __init__(self, kind: str, port: int, concurrency: int) -> None:
        server = Server(f"http://{HOST}:{port}", port, "", None, Path(), Path())  # type: ignore[arg-type]
        self.inner = RawSenders(
            server, Table(1, {"Authorization": "Bearer " + "x" * 43}), concurrency, streams=kind == "streams"
        )
        self.own_timeout = self.inner.own_timeout

    async def action(self, i: int) -> int:
        return await self.inner.action(i)


async def drive(kind: str, port: int, pid: int, requests: int, concurrency: int) -> dict[str, object]:
    senders = Senders(kind, port, concurrency)
    common = {"concurrency": concurrency, "server_pid": pid, "hard_limit": 120.0, "expect": 201}
    await run_phase("warm", senders.action, duration=1, max_requests=concurrency * 10, **common)  # type: ignore[arg-type]
    phase = await run_phase("measured", senders.action, duration=1, max_requests=requests, **common)  # type: ignore[arg-type]
    await senders.inner.close()
    report = phase.report()
    return {
        "client": kind,
        "requests": phase.ok,
        "errors": phase.errors,
        "cpu_us_per_req": round(1e6 * phase.client_cpu / max(phase.ok, 1), 1),
        "stand_in_cpu_us_per_req": round(1e6 * phase.server_cpu / max(phase.ok, 1), 1),
        "rps": report["rps"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per client; the best is kept")
    args = parser.parse_args()
    port = free_port()
    stub = multiprocessing.Process(target=serve, args=(port,), daemon=True)
    stub.start()
    time.sleep(0.5)
    best: dict[str, dict[str, object]] = {}
    try:
        for _ in range(args.rounds):
            for kind in ("streams", "lean", "lean+uvloop"):
                coro = drive(kind.split("+")[0], port, stub.pid or 0, args.requests, args.concurrency)
                if kind.endswith("uvloop"):
                    import uvloop

                    result = uvloop.run(coro)
                else:
                    result = asyncio.run(coro)
                result["client"] = kind
                print(json.dumps(result))
                if kind not in best or result["cpu_us_per_req"] < best[kind]["cpu_us_per_req"]:  # type: ignore[operator]
                    best[kind] = result
    finally:
        stub.terminate()
        stub.join(5)
    summary_line({"bench": "clientcpu", "concurrency": args.concurrency, "best": best})
    return 0


if __name__ == "__main__":
    sys.exit(main())
