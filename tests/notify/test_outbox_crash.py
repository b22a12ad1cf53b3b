"""kill -9 the server while pushes are on their way: every delivery that was due is sent after the restart (at
least once; the ones in flight at the kill may arrive twice, under the same tag, so a device shows one)."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import httpx2
import pytest
from utils.push_service import Receiver
from utils.server import PG_URL, reset_postgres, start_server, stop_server

pytestmark = [pytest.mark.server, pytest.mark.engines]

PROMPTS = 24


def _token(base: str, name: str) -> dict[str, str]:
    assert httpx2.post(base + "/api/users", json={"username": name, "password": "correct horse"}).status_code == 201
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": "correct horse"})
    return {"Authorization": f"Bearer {r.json()['token']}"}


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_kill_9_mid_send_loses_no_due_push(tmp_path: Path, backend: str) -> None:
    if backend == "postgres":
        if not PG_URL:
            pytest.skip("PostgreSQL run: set TEST_DATABASE_URL to run it")
        reset_postgres(PG_URL)
        database_url = PG_URL
    else:
        database_url = f"sqlite:///{tmp_path / 'crash.db'}"
    receiver = Receiver()
    receiver.delay["/push/pia"] = 0.3  # slow enough that several are in flight when the server dies
    env = {
        "FATEBOARD_OUTBOUND_ORIGINS": receiver.origin,
        "FATEBOARD_OUTBOX_LEASE_SECONDS": "2",
        "FATEBOARD_SECRET_KEY_FILE": str(tmp_path / "key"),
    }
    server = start_server(database_url, tmp_path, extra_env=env)
    try:
        base = server.url
        nora, pia = _token(base, "nora"), _token(base, "pia")
        cid = httpx2.post(base + "/api/campaigns", json={"name": "Crash", "systems": ["dice"]}, headers=nora).json()[
            "id"
        ]
        code = httpx2.post(f"{base}/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=pia).status_code == 200
        hero = httpx2.post(
            f"{base}/api/campaigns/{cid}/characters", json={"name": "Wren", "system": "dice"}, headers=pia
        ).json()["id"]
        browser = receiver.browser("pia")
        assert (
            httpx2.post(base + "/api/push/subscriptions", json=browser.subscription(), headers=pia).status_code == 201
        )
        tags = set()
        for n in range(PROMPTS):
            r = httpx2.post(
                f"{base}/api/campaigns/{cid}/prompts", json={"character_id": hero, "note": f"call {n}"}, headers=nora
            )
            assert r.status_code == 201, r.text
            tags.add(f"prompt-{r.json()['id']}")
        receiver.wait(3, "/push/pia", timeout=20)
        os.kill(server.process.pid, signal.SIGKILL)  # acknowledged prompts, pushes half sent
        server.process.wait(timeout=10)
        before = len(receiver.received)
        assert before < PROMPTS, "the kill came too late to test anything"
        server = start_server(database_url, tmp_path, extra_env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and {p["tag"] for p in receiver.pushes("pia")} != tags:
            time.sleep(0.1)
        arrived = Counter(p["tag"] for p in receiver.pushes("pia"))
        assert set(arrived) == tags  # none lost
        assert sum(arrived.values()) - len(tags) <= 32  # duplicates only for what was in flight (same tag)
    finally:
        stop_server(server)
        receiver.close()
