"""Brokers: the in-process one, and Redis carrying an entry from one server process to another's stream."""

from __future__ import annotations

import asyncio
import os
import threading

import httpx2
import pytest

from app.live.broker import InProcessBroker
from app.live.redis_broker import decode, encode
from conftest import LiveServer, start_server, stop_server

REDIS_URL = os.environ.get("TEST_REDIS_URL", "")


def test_message_encoding_round_trips() -> None:
    assert decode(encode(7, "entry", 42)) == (7, "entry", 42)
    assert decode(encode(7, "prompts", None)) == (7, "prompts", None)


def test_in_process_broker_delivers_from_other_threads() -> None:
    got: list[tuple[int, str, int | None]] = []

    async def scenario() -> None:
        broker = InProcessBroker()
        await broker.start(lambda *m: got.append(m))
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
            with httpx2.Client(timeout=15) as client, \
                    client.stream("GET", f"{two.url}/api/campaigns/{cid}/events", headers=headers) as response:
                ready.set()
                for line in response.iter_lines():
                    if line.startswith("id: "):
                        received.append(line[4:])
                        return

        reader = threading.Thread(target=listen)
        reader.start()
        assert ready.wait(10)
        r = httpx2.post(f"{one.url}/api/campaigns/{cid}/actions", headers=headers,
                        json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}})
        assert r.status_code == 201
        reader.join(15)
        assert received == ["1"]
    finally:
        stop_server(one)
        stop_server(two)
