"""The live stream against a real uvicorn: live entries, per-role redaction, and catch-up after a drop."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import httpx2
import pytest
from utils.server import LiveServer

pytestmark = pytest.mark.server


def _token(base: str, name: str) -> dict[str, str]:
    httpx2.post(base + "/api/users", json={"username": name, "password": "correct horse"})
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": "correct horse"})
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _events(lines: Iterator[str]) -> Iterator[tuple[str | None, str | None, str]]:
    event_id, event, data = None, None, []
    for line in lines:
        if line == "":
            if event is not None:
                yield event_id, event, "\n".join(data)
            event_id, event, data = None, None, []
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])


def _collect(base: str, path: str, headers: dict[str, str], want: int, out: list, ready: threading.Event) -> None:
    with httpx2.Client(timeout=20) as client, client.stream("GET", base + path, headers=headers) as response:
        assert response.status_code == 200
        ready.set()
        for event_id, event, data in _events(response.iter_lines()):
            if event == "entry":
                out.append((int(event_id), json.loads(data)))
                if len(out) >= want:
                    return


def test_stream_delivers_live_redacted_and_resumes(live_server: LiveServer) -> None:
    base = live_server.url
    nora, pia, otto = (_token(base, n) for n in ("nora", "pia", "otto"))
    cid = httpx2.post(base + "/api/campaigns", json={"name": "Live", "systems": []}, headers=nora).json()["id"]
    for who in (pia, otto):
        code = httpx2.post(f"{base}/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
        httpx2.post(f"{base}/api/invites/{code}/accept", headers=who)

    def roll(who: dict[str, str], visibility: str = "public") -> int:
        r = httpx2.post(
            f"{base}/api/campaigns/{cid}/actions",
            headers=who,
            json={"system": "dice", "action": "roll", "params": {"expression": "1d20"}, "visibility": visibility},
        )
        assert r.status_code == 201, r.text
        return r.json()["seq"]

    seen_by_otto: list = []
    ready = threading.Event()
    reader = threading.Thread(
        target=_collect, args=(base, f"/api/campaigns/{cid}/events", otto, 3, seen_by_otto, ready)
    )
    reader.start()
    assert ready.wait(10)
    roll(pia)
    roll(pia, "blind")
    roll(nora, "narrator")
    reader.join(20)
    assert [seq for seq, _ in seen_by_otto] == [1, 2, 3]
    assert seen_by_otto[0][1]["outcome"] is not None
    assert all(e["outcome"] is None and e["dice"] is None for _, e in seen_by_otto[1:])

    # A dropped client reconnects with Last-Event-ID and gets exactly what it missed, in order, then live ones.
    for _ in range(4):
        roll(pia)
    resumed: list = []
    ready = threading.Event()
    reader = threading.Thread(
        target=_collect, args=(base, f"/api/campaigns/{cid}/events", {**otto, "Last-Event-ID": "3"}, 5, resumed, ready)
    )
    reader.start()
    assert ready.wait(10)
    roll(pia)
    reader.join(20)
    assert [seq for seq, _ in resumed] == [4, 5, 6, 7, 8]

    # The narrator's stream shows the blind roll's result; ?after= works like Last-Event-ID.
    narrator_view: list = []
    ready = threading.Event()
    _collect(base, f"/api/campaigns/{cid}/events?after=1", nora, 1, narrator_view, ready)
    assert narrator_view[0][0] == 2 and narrator_view[0][1]["outcome"] is not None


def test_stream_refuses_outsiders_and_anonymous(live_server: LiveServer) -> None:
    base = live_server.url
    nora, olga = _token(base, "nora"), _token(base, "olga")
    cid = httpx2.post(base + "/api/campaigns", json={"name": "Closed"}, headers=nora).json()["id"]
    assert httpx2.get(f"{base}/api/campaigns/{cid}/events", headers=olga).status_code == 404
    assert httpx2.get(f"{base}/api/campaigns/{cid}/events").status_code == 401
    page = httpx2.get(f"{base}/campaigns/{cid}/stream", follow_redirects=False)
    assert page.status_code == 303 and "/signin" in page.headers["location"]


def test_a_removed_members_stream_ends(live_server: LiveServer) -> None:
    base = live_server.url
    nora, pia = _token(base, "nora"), _token(base, "pia")
    cid = httpx2.post(base + "/api/campaigns", json={"name": "Leaving"}, headers=nora).json()["id"]
    code = httpx2.post(f"{base}/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    httpx2.post(f"{base}/api/invites/{code}/accept", headers=pia)
    done = threading.Event()

    def listen() -> None:
        with (
            httpx2.Client(timeout=20) as client,
            client.stream("GET", f"{base}/api/campaigns/{cid}/events", headers=pia) as response,
        ):
            for _line in response.iter_lines():
                pass
        done.set()

    reader = threading.Thread(target=listen, daemon=True)
    reader.start()
    from sqlalchemy import create_engine, delete

    from app.campaigns.models import Membership

    engine = create_engine(live_server.database_url)
    with engine.begin() as conn:
        conn.execute(delete(Membership).where(Membership.campaign_id == cid, Membership.role == "player"))
    engine.dispose()
    assert done.wait(10), "the stream should end within a keepalive interval"
