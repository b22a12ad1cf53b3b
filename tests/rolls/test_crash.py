"""Crash recovery: kill -9 the server in the middle of concurrent rolls, restart it on the same database, retry
what was never acknowledged with the same Idempotency-Key. Every roll is then in the log exactly once (the key is
also the roll's note, so the log says which roll each entry is), seq has no gap, and the chain verifies."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import httpx2
import pytest
from utils.server import PG_URL, LiveServer, reset_postgres, start_server, stop_server

pytestmark = [pytest.mark.server, pytest.mark.engines]

PLAYERS = 4  # each with its own API token; two clients per player
CLIENTS = 8
KILLS = 3
ACKS_BEFORE_KILL = 12  # per cycle: the kill lands while the clients are busy, not before they start


def _token(base: str, name: str) -> dict[str, str]:
    r = httpx2.post(base + "/api/users", json={"username": name, "password": "correct horse"})
    assert r.status_code == 201, r.text
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": "correct horse"})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _table(base: str) -> tuple[int, list[dict[str, str]]]:
    """A campaign narrated by the first of PLAYERS users, the others seated by invite; their tokens."""
    who = [_token(base, f"player{i}") for i in range(PLAYERS)]
    r = httpx2.post(base + "/api/campaigns", json={"name": "Crash", "systems": []}, headers=who[0])
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    for player in who[1:]:
        code = httpx2.post(f"{base}/api/campaigns/{campaign_id}/invites", json={}, headers=who[0]).json()["code"]
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=player).status_code == 200
    return campaign_id, who


def _roll(client: httpx2.Client, base: str, campaign_id: int, who: dict[str, str], key: str) -> httpx2.Response:
    return client.post(
        f"{base}/api/campaigns/{campaign_id}/actions",
        headers={**who, "Idempotency-Key": key},
        json={"system": "dice", "action": "roll", "params": {"expression": "3d6"}, "note": key},
    )


class Load:
    """CLIENTS threads rolling as fast as the server answers, each roll with a key of its own, until the server
    dies under them: each client's last roll is the unacknowledged one."""

    def __init__(self, base: str, campaign_id: int, who: list[dict[str, str]], cycle: int) -> None:
        self.acked: dict[str, int] = {}  # key -> seq
        self.unacked: list[str] = []
        self.owner: dict[str, dict[str, str]] = {}  # key -> the token it was sent with
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._threads = [
            threading.Thread(
                target=self._client, args=(base, campaign_id, who[n % len(who)], f"c{cycle}-t{n}"), daemon=True
            )
            for n in range(CLIENTS)
        ]
        for thread in self._threads:
            thread.start()

    def _client(self, base: str, campaign_id: int, who: dict[str, str], prefix: str) -> None:
        with httpx2.Client(timeout=20) as client:
            for n in range(10_000):  # bounded; the kill ends it long before
                key = f"{prefix}-{n}"
                with self._lock:
                    self.owner[key] = who
                try:
                    r = _roll(client, base, campaign_id, who, key)
                except httpx2.TransportError:
                    with self._lock:
                        self.unacked.append(key)
                    return
                with self._lock:
                    if r.status_code == 201:
                        self.acked[key] = r.json()["seq"]
                    else:
                        self.problems.append(f"{key}: {r.status_code} {r.text}")
                        return

    def join(self) -> None:
        for thread in self._threads:
            thread.join(30)
            assert not thread.is_alive(), "a client hung after the kill"


def _log(base: str, campaign_id: int, who: dict[str, str]) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    for _page in range(100):
        after = entries[-1]["seq"] if entries else 0
        r = httpx2.get(f"{base}/api/campaigns/{campaign_id}/log", params={"after": after, "limit": 500}, headers=who)
        assert r.status_code == 200, r.text
        page = r.json()["entries"]
        if not page:
            return entries
        entries.extend(page)
    raise AssertionError("the log did not end")


def test_kill_9_mid_load_loses_and_doubles_nothing(database_url: str, tmp_path: Path) -> None:
    started = time.monotonic()
    if database_url == PG_URL:
        reset_postgres(PG_URL)
    server: LiveServer = start_server(database_url, tmp_path)
    try:
        campaign_id, who = _table(server.url)
        acked: dict[str, int] = {}  # every roll the server answered 201, before or after a restart
        retried: dict[str, int] = {}
        for cycle in range(KILLS):
            load = Load(server.url, campaign_id, who, cycle)
            deadline = time.monotonic() + 60
            while len(load.acked) < ACKS_BEFORE_KILL and time.monotonic() < deadline and not load.problems:
                time.sleep(0.01)
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=10)
            load.join()
            assert load.problems == []
            assert len(load.acked) >= ACKS_BEFORE_KILL
            assert len(load.unacked) == CLIENTS
            acked.update(load.acked)

            server = start_server(database_url, tmp_path)  # same database, a new process
            with httpx2.Client(timeout=20) as client:
                for key in load.unacked:
                    r = _roll(client, server.url, campaign_id, load.owner[key], key)
                    assert r.status_code == 201, r.text
                    retried[key] = r.json()["seq"]
                # The last rolls acknowledged before the kill, sent again: the same rolls, not new ones.
                for key in list(load.acked)[-CLIENTS:]:
                    r = _roll(client, server.url, campaign_id, load.owner[key], key)
                    assert r.status_code == 201, r.text
                    assert (r.json()["seq"], r.json()["replayed"]) == (load.acked[key], True)

        entries = _log(server.url, campaign_id, who[0])
        seqs = [e["seq"] for e in entries]
        assert seqs == list(range(1, len(entries) + 1)), "seq has a gap or a repeat"
        notes = Counter(e["note"] for e in entries)
        assert {key for key, count in notes.items() if count > 1} == set(), "a roll was logged twice"
        assert set(notes) == set(acked) | set(retried), "the log holds exactly the acknowledged and retried rolls"
        by_seq = {e["seq"]: e["note"] for e in entries}
        assert all(by_seq[seq] == key for key, seq in {**acked, **retried}.items())
        r = httpx2.get(f"{server.url}/api/campaigns/{campaign_id}/verify", headers=who[0])
        assert r.status_code == 200 and r.json()["ok"] is True and r.json()["count"] == len(entries), r.text
    finally:
        stop_server(server)
    assert time.monotonic() - started < 900  # a hang bound, not a timing (174 s seen on a loaded box)
