"""Brokers: the in-process one, Redis carrying an entry from one server process to another's stream, and Redis
going away and coming back without costing an action or an entry."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest
from utils.server import PG_URL, LiveServer, _free_port, reset_postgres, start_server, stop_server

from app.live.broker import Broker, InProcessBroker
from app.live.redis_broker import RedisBroker, backoff_delays, decode, encode

# Redis's channels are shared by every database: one xdist worker runs these (--dist loadgroup).
pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("redis")]

REDIS_URL = os.environ.get("TEST_REDIS_URL", "")


def test_message_encoding_round_trips() -> None:
    assert decode(encode(7, "entry", 42)) == (7, "entry", 42)
    assert decode(encode(7, "prompts", None)) == (7, "prompts", None)


def test_in_process_broker_delivers_from_other_threads() -> None:
    got: list[tuple[int, str, int | None]] = []

    async def scenario() -> None:
        broker = InProcessBroker()
        await broker.start(lambda *m: got.append(m), lambda: None)
        thread = threading.Thread(target=broker.publish, args=(3, "entry", 9))
        thread.start()
        thread.join()
        for _ in range(50):
            if got:
                break
            await asyncio.sleep(0.01)
        await broker.stop()

    asyncio.run(scenario())
    assert got == [(3, "entry", 9)]


def test_a_failed_publish_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(InProcessBroker):
        def send(self, campaign_id: int, event: str, seq: int | None) -> None:
            raise RuntimeError("the broker is on fire")

    with caplog.at_level(logging.WARNING, logger="app.live.broker"):
        Broken().publish(3, "entry", 9)
    assert "could not publish entry 9 of campaign 3" in caplog.text
    assert "the broker is on fire" in caplog.text


def test_publishing_to_a_redis_that_is_not_there_returns_quickly(caplog: pytest.LogCaptureFixture) -> None:
    broker: Broker = RedisBroker(f"redis://127.0.0.1:{_free_port()}/7")  # nothing listens there
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="app.live.broker"):
        broker.publish(3, "entry", 9)
    assert time.monotonic() - started < 2
    assert "could not publish entry 9 of campaign 3" in caplog.text


def test_the_listener_backs_off_up_to_five_seconds() -> None:
    assert list(itertools.islice(backoff_delays(), 8)) == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0])


@pytest.mark.redis
def test_redis_fans_out_across_two_server_processes(live_server: LiveServer, tmp_path) -> None:
    if not REDIS_URL:
        pytest.skip("Redis run: set TEST_REDIS_URL to run it")
    if live_server.database_url.startswith("sqlite"):
        pytest.skip("cross-process fan-out is for PostgreSQL deployments; runs in the PostgreSQL pass")
    stop_server(live_server)
    env = {"FATEBOARD_BROKER": "redis", "FATEBOARD_REDIS_URL": REDIS_URL}
    one = start_server(live_server.database_url, tmp_path, extra_env=env)
    two = start_server(live_server.database_url, tmp_path, extra_env=env)
    try:
        httpx2.post(one.url + "/api/users", json={"username": "nora", "password": "correct horse"})
        token = httpx2.post(one.url + "/api/tokens", json={"username": "nora", "password": "correct horse"}).json()
        headers = {"Authorization": f"Bearer {token['token']}"}
        cid = httpx2.post(one.url + "/api/campaigns", json={"name": "Two processes"}, headers=headers).json()["id"]
        received: list[str] = []
        ready = threading.Event()

        def listen() -> None:
            with (
                httpx2.Client(timeout=15) as client,
                client.stream("GET", f"{two.url}/api/campaigns/{cid}/events", headers=headers) as response,
            ):
                ready.set()
                for line in response.iter_lines():
                    if line.startswith("id: "):
                        received.append(line[4:])
                        return

        reader = threading.Thread(target=listen)
        reader.start()
        assert ready.wait(10)
        r = httpx2.post(
            f"{one.url}/api/campaigns/{cid}/actions",
            headers=headers,
            json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}},
        )
        assert r.status_code == 201
        reader.join(15)
        assert received == ["1"]
    finally:
        stop_server(one)
        stop_server(two)


class RedisServer:
    """A redis-server of this test's own on a free loopback port, to stop and start (the shared one stays up)."""

    def __init__(self, workdir: Path) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            probe = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True)
            if probe.stdout.strip() == "PONG":
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
            self.process = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    if not REDIS_URL:
        pytest.skip("Redis run: set TEST_REDIS_URL to run it")
    if not shutil.which("redis-server") or not shutil.which("redis-cli"):
        pytest.skip("Redis outage run: needs redis-server and redis-cli on PATH to start a Redis of its own")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


class StreamReader:
    """Reads one campaign's event stream in a thread and records the seq of every entry, in arrival order."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.seqs: list[int] = []
        self.ready = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(url, headers), daemon=True)
        self.thread.start()

    def _read(self, url: str, headers: dict[str, str]) -> None:
        # Keepalives come every second (start_server), so `done` is checked at least that often.
        with httpx2.Client(timeout=10) as client, client.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200
            self.ready.set()
            for line in response.iter_lines():
                if line.startswith("id: "):
                    self.seqs.append(int(line[4:]))
                if self.done.is_set():
                    return

    def close(self) -> None:
        self.done.set()
        self.thread.join(10)


def _wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


@pytest.mark.redis
@pytest.mark.server
def test_actions_survive_a_redis_outage_and_streams_catch_up(
    own_redis: RedisServer, database_url: str, tmp_path: Path
) -> None:
    if database_url == PG_URL:
        reset_postgres(PG_URL)
    env = {"FATEBOARD_BROKER": "redis", "FATEBOARD_REDIS_URL": own_redis.url}
    one = start_server(database_url, tmp_path, extra_env=env)
    two = start_server(database_url, tmp_path, extra_env=env)
    reader: StreamReader | None = None
    try:
        httpx2.post(one.url + "/api/users", json={"username": "nora", "password": "correct horse"})
        token = httpx2.post(one.url + "/api/tokens", json={"username": "nora", "password": "correct horse"}).json()
        headers = {"Authorization": f"Bearer {token['token']}"}
        cid = httpx2.post(one.url + "/api/campaigns", json={"name": "Outage"}, headers=headers).json()["id"]

        def roll(server: LiveServer) -> int:
            started = time.monotonic()
            r = httpx2.post(
                f"{server.url}/api/campaigns/{cid}/actions",
                headers=headers,
                timeout=10,
                json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}},
            )
            assert r.status_code == 201, r.text
            assert time.monotonic() - started < 5, "an unreachable broker must not hold the answer back"
            return r.json()["seq"]

        reader = StreamReader(f"{two.url}/api/campaigns/{cid}/events", headers)
        assert reader.ready.wait(10)
        assert roll(one) == 1
        assert _wait_for(lambda: reader.seqs == [1], 10), reader.seqs

        own_redis.stop()
        assert [roll(one), roll(two)] == [2, 3]  # committed and answered although nobody could be told
        log = httpx2.get(f"{one.url}/api/campaigns/{cid}/log", headers=headers).json()["entries"]
        assert [e["seq"] for e in log] == [1, 2, 3]
        time.sleep(1)
        assert reader.seqs == [1]  # nothing can reach the stream while Redis is away...

        own_redis.start()  # ...until the listener is back: it resyncs, and the stream reads 2 and 3
        assert _wait_for(lambda: len(reader.seqs) >= 3, 15), reader.seqs
        assert [roll(one), roll(one)] == [4, 5]  # and messages flow again, from a publisher that reconnected
        assert _wait_for(lambda: len(reader.seqs) >= 5, 10), reader.seqs
        time.sleep(1)  # room for a duplicate to show up
        assert reader.seqs == [1, 2, 3, 4, 5]
    finally:
        if reader is not None:
            reader.close()
        stop_server(one)
        stop_server(two)
