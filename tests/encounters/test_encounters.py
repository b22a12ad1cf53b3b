"""The general encounter: created by an action, advanced one logged step at a time, versioned so that of two
racing taps one wins and the other hears "already resolved". Exercised with a tiny test-only system."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.flip_duel import FLIP_DUEL
from utils.web import api_token

from app import systems

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


@pytest.fixture
def coin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(systems.SYSTEMS, "flipduel", FLIP_DUEL)


def _duel(client: TestClient) -> dict[str, Any]:
    nora, pia, otto = (api_token(client, n) for n in ("nora", "pia", "otto"))
    cid = client.post("/api/campaigns", json={"name": "Coins", "systems": ["flipduel"]}, headers=nora).json()["id"]
    for who in (pia, otto):
        code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
        client.post(f"/api/invites/{code}/accept", headers=who)
    a = client.post(f"/api/campaigns/{cid}/characters", json={"name": "Ace", "system": "flipduel"}, headers=pia).json()[
        "id"
    ]
    b = client.post(f"/api/campaigns/{cid}/characters", json={"name": "Bo", "system": "flipduel"}, headers=otto).json()[
        "id"
    ]
    return {"cid": cid, "nora": nora, "pia": pia, "otto": otto, "a": a, "b": b}


def _act(client: TestClient, d: dict[str, Any], who: str, action: str, character: int, **params: Any):
    return client.post(
        f"/api/campaigns/{d['cid']}/actions",
        headers=d[who],
        json={"system": "flipduel", "action": action, "character_id": character, "params": params},
    )


def _encounter(client: TestClient, d: dict[str, Any]):
    from app.encounters.models import Encounter

    with client.app.state.sessionmaker() as db:
        return db.query(Encounter).one()


def test_an_encounter_is_created_and_advanced_by_logged_steps(client: TestClient, coin: None) -> None:
    d = _duel(client)
    r = _act(client, d, "pia", "challenge", d["a"], opponent_id=d["b"])
    assert r.status_code == 201, r.text
    enc = _encounter(client, d)
    assert r.json()["request"]["encounter_id"] == enc.id and enc.version == 1 and enc.status == "active"
    assert enc.participants[1]["character_id"] == d["b"]
    assert _act(client, d, "otto", "flip", d["b"], encounter_id=enc.id, version=1).status_code == 422  # not b's turn
    assert _act(client, d, "otto", "flip", d["a"], encounter_id=enc.id, version=1).status_code == 403  # not his cat
    assert _act(client, d, "pia", "flip", d["a"], encounter_id=enc.id, version=1).status_code == 201
    stale = _act(client, d, "pia", "flip", d["a"], encounter_id=enc.id, version=1)
    assert stale.status_code == 409 and "Already resolved" in stale.json()["detail"]
    for version, who, char in ((2, "otto", d["b"]), (3, "pia", d["a"]), (4, "otto", d["b"])):
        assert _act(client, d, who, "flip", char, encounter_id=enc.id, version=version).status_code == 201
    enc = _encounter(client, d)
    assert enc.status == "over" and enc.state["flips"] == 4 and enc.version == 5
    over = _act(client, d, "pia", "flip", d["a"], encounter_id=enc.id, version=5)
    assert over.status_code == 409 and "over" in over.json()["detail"]
    log = client.get(f"/api/campaigns/{d['cid']}/log", headers=d["nora"]).json()["entries"]
    assert [e["action"] for e in log] == ["challenge", "flip", "flip", "flip", "flip"]
    assert all(e["request"]["encounter_id"] == enc.id for e in log)


def test_two_racing_taps_make_one_step(client: TestClient, coin: None) -> None:
    d = _duel(client)
    _act(client, d, "pia", "challenge", d["a"], opponent_id=d["b"])
    enc = _encounter(client, d)
    with ThreadPoolExecutor(max_workers=6) as pool:
        codes = list(
            pool.map(
                lambda _i: _act(client, d, "pia", "flip", d["a"], encounter_id=enc.id, version=1).status_code, range(6)
            )
        )
    assert sorted(codes) == [201, 409, 409, 409, 409, 409]
    assert _encounter(client, d).version == 2


def test_encounters_belong_to_their_campaign(client: TestClient, coin: None) -> None:
    d = _duel(client)
    _act(client, d, "pia", "challenge", d["a"], opponent_id=d["b"])
    enc = _encounter(client, d)
    olga = api_token(client, "olga")
    cid2 = client.post("/api/campaigns", json={"name": "Else", "systems": ["flipduel"]}, headers=olga).json()["id"]
    c2 = client.post(
        f"/api/campaigns/{cid2}/characters", json={"name": "Cy", "system": "flipduel"}, headers=olga
    ).json()["id"]
    r = client.post(
        f"/api/campaigns/{cid2}/actions",
        headers=olga,
        json={
            "system": "flipduel",
            "action": "flip",
            "character_id": c2,
            "params": {"encounter_id": enc.id, "version": 1},
        },
    )
    assert r.status_code == 404


def test_every_screen_takes_an_encounters_state_through_its_systems_filter(
    client: TestClient, new_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`visible_state` is the one place: the kind's `view` decides per viewer (the tally of heads
    is the narrator's here), and the page and its live fragment show what it returned."""
    import dataclasses

    from utils.web import signed_in

    from app.systems import EncounterViewer

    seen: list[EncounterViewer] = []

    def secret_tally(state: Any, viewer: EncounterViewer) -> dict[str, Any]:
        seen.append(viewer)
        return state.stored() if viewer.is_narrator else {"turn": state.turn, "flips": state.flips}

    kind = dataclasses.replace(FLIP_DUEL.encounters["coin-duel"], view=secret_tally)
    monkeypatch.setitem(systems.SYSTEMS, "flipduel", dataclasses.replace(FLIP_DUEL, encounters={"coin-duel": kind}))
    d = _duel(client)
    assert _act(client, d, "pia", "challenge", d["a"], opponent_id=d["b"]).status_code == 201
    enc = _encounter(client, d)
    base = f"/campaigns/{d['cid']}/encounters/{enc.id}"
    for name, shows_tally in (("nora", True), ("pia", False), ("otto", False)):
        browser = signed_in(new_client, name)
        for path in (base, base + "/view"):
            page = browser.get(path)
            assert page.status_code == 200 and "<dt>flips</dt>" in page.text, (name, path)
            assert ("<dt>heads</dt>" in page.text) is shows_tally, (name, path)
    assert [v.is_narrator for v in seen[::2]] == [True, False, False]
    assert seen[2].controls == {d["a"]} and seen[4].controls == {d["b"]}


def test_no_encounter_template_reads_the_stored_state() -> None:
    """Templates get `state` from the filter; `encounter.state` would show what the filter took out."""
    from pathlib import Path

    pages = [*Path("templates").rglob("*.html"), *Path("app/systems").glob("*/templates/**/*.html")]
    offenders = [p for p in pages if "encounter.state" in p.read_text()]
    assert offenders == []
