"""Request heads are bounded too (docs/LIMITS.md "Request heads"): httptools, uvicorn's fast parser, gathers a URL
or a header of any size in memory (a 200 MB header line took a server from 86 to 391 MiB), and uvicorn closes an
idle connection only between requests. `python -m app.serve` (what `make run` and `make run-multi` start) runs
app.serve.FateboardHttpProtocol: a head over 64 KiB is answered 431 as it passes the bound, a head not finished
within FATEBOARD_BODY_TIMEOUT_SECONDS 408, and a connection that says nothing is closed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from app.serve import MAX_HEAD_BYTES

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 1.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, int]]:
    """(port, pid) of `python -m app.serve --workers 1`, the launcher `make run` uses."""
    tmp = tmp_path_factory.mktemp("heads")
    env = {
        **os.environ,
        "FATEBOARD_DATABASE_URL": f"sqlite:///{tmp / 'heads.db'}",
        "FATEBOARD_SECRET_KEY": "test",
        "FATEBOARD_SECRET_KEY_FILE": str(tmp / "key"),
        "FATEBOARD_BODY_TIMEOUT_SECONDS": str(TIMEOUT),
    }
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    port = _free_port()
    with open(tmp / "server.log", "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "1",
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/api/ping", timeout=1).status_code == 200:
                    break
            except httpx2.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp / "server.log").read_text()) from None
                time.sleep(0.1)
        yield port, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _send_head(port: int, start: bytes, filler: bytes, total: int) -> tuple[bytes, int]:
    """`start`, then `filler` up to `total` bytes unless the server answers first; (the answer, bytes sent)."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        sock.sendall(start)
        sent = 0
        try:
            while sent < total:
                sock.settimeout(0.0)
                try:
                    answer = sock.recv(4096)
                    return answer, sent
                except BlockingIOError:
                    pass
                sock.settimeout(15)
                sock.sendall(filler)
                sent += len(filler)
        except OSError:
            pass
        sock.settimeout(15)
        try:
            return sock.recv(4096), sent
        except OSError:
            return b"", sent


@pytest.mark.server
@pytest.mark.parametrize("where", ["header", "url"])
def test_a_huge_head_is_431_before_it_is_sent(served: tuple[int, int], where: str) -> None:
    port, pid = served
    idle = _rss_mib(pid)
    start = b"GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: " if where == "header" else b"GET /api/ping?q="
    answer, sent = _send_head(port, start, b"a" * 16384, 100 * 1024 * 1024)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert b"connection: close" in answer and b"64 KB at most" in answer
    assert sent < 16 * 1024 * 1024  # of 100 MB
    assert _rss_mib(pid) - idle < 32


@pytest.mark.server
def test_a_head_just_within_the_bound_is_served(served: tuple[int, int]) -> None:
    port, _ = served
    r = httpx2.get(f"http://127.0.0.1:{port}/api/ping", headers={"X-Pad": "a" * (MAX_HEAD_BYTES - 1024)}, timeout=10)
    assert r.status_code == 200


@pytest.mark.server
def test_a_slow_head_is_408_and_a_silent_connection_is_closed(served: tuple[int, int]) -> None:
    port, _ = served
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as slow,
        socket.create_connection(("127.0.0.1", port), timeout=10) as silent,
    ):
        slow.sendall(b"GET /api/ping HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        started = time.monotonic()
        assert slow.recv(4096).startswith(b"HTTP/1.1 408 ")
        assert silent.recv(4096) == b""  # closed without a word, as it said none
        assert time.monotonic() - started < TIMEOUT + 5


@pytest.mark.server
def test_keep_alive_requests_and_a_stream_outlive_the_head_deadline(served: tuple[int, int]) -> None:
    """The deadline is for the head only: a connection that asks again after a pause, and a response that takes
    longer than the deadline, are not cut."""
    port, _ = served
    with httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as c:
        assert c.get("/api/ping").status_code == 200
        time.sleep(TIMEOUT + 0.5)  # under uvicorn's 5 s keep-alive
        assert c.get("/api/ping").status_code == 200


@pytest.mark.server
def test_an_unread_body_that_trickles_on_does_not_hold_the_connection(served: tuple[int, int]) -> None:
    """Nothing reads a GET's body, so its answer goes out at once; the connection then closes rather than
    drop a trickle for as long as it lasts (uvicorn's keep-alive timer restarts with every byte)."""
    port, _ = served
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /api/ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n")
        answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200 ")
        sock.settimeout(0.2)
        closed = False
        for _ in range(30):  # a byte every 0.2 s, 6 s in all: longer than any timer that might close it
            try:
                sock.sendall(b"1\r\na\r\n")
                if sock.recv(4096) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:
                closed = True
                break
        assert closed
