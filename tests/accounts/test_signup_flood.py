"""A sign-up flood against a real uvicorn with production argon2 (64 MiB a hash): the server's peak memory
stays bounded because at most FATEBOARD_ARGON2_CONCURRENCY hashes run at once (docs/LIMITS.md)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest
from utils.server import start_server, stop_server

SIGNUPS = 60
AT_ONCE = 20
# Measured on the 2-core dev/CI machine (docs/LIMITS.md): 84 MiB idle, 221 MiB peak with the default 2 hashes
# at once; 1,098 MiB with the gate opened to 20. The bound leaves ~130 MiB for noise, less than 2 more hashes.
PEAK_RSS_BOUND_MIB = 350


def _rss_mib(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


@pytest.mark.server
@pytest.mark.slow
def test_memory_stays_bounded_under_a_sign_up_flood(tmp_path: Path) -> None:
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to read the server's memory")
    server = start_server(f"sqlite:///{tmp_path / 'flood.db'}", tmp_path)  # production argon2 in the server
    pid = server.process.pid
    idle = _rss_mib(pid, "VmRSS")
    pings: list[float] = []
    stop = threading.Event()

    def ping() -> None:
        with httpx2.Client(timeout=30) as c:
            while not stop.is_set():
                started = time.monotonic()
                c.get(server.url + "/api/ping")
                pings.append(time.monotonic() - started)
                time.sleep(0.1)

    def sign_up(i: int) -> int:
        with httpx2.Client(timeout=30) as c:
            for _attempt in range(20):  # a busy server says when to come back (503 + Retry-After)
                r = c.post(server.url + "/api/users", json={"username": f"flood{i}", "password": "correct horse"})
                if r.status_code != 503:
                    return r.status_code
                time.sleep(float(r.headers["retry-after"]))
            return 503

    pinger = threading.Thread(target=ping)
    pinger.start()
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(AT_ONCE) as pool:
            statuses = Counter(pool.map(sign_up, range(SIGNUPS)))
        took = time.monotonic() - started
        peak = _rss_mib(pid, "VmHWM")
    finally:
        stop.set()
        pinger.join()
        stop_server(server)
    print(
        f"\nsign-up flood: {SIGNUPS} sign-ups, {AT_ONCE} at once, {took:.1f} s; RSS idle {idle:.0f} MiB, "
        f"peak {peak:.0f} MiB; ping max {max(pings) * 1000:.0f} ms, "
        f"median {sorted(pings)[len(pings) // 2] * 1000:.0f} ms"
    )
    assert statuses == {201: SIGNUPS}, statuses
    assert peak < PEAK_RSS_BOUND_MIB, f"peak RSS {peak:.0f} MiB"
