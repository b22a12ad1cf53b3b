"""Catch-up through the JSON API exactly as ../shared/contracts/BETWEEN-SESSIONS-API.md (sections 1 and 5) names it:
the read mark, unread counts (a hidden line counts once, one's own never), what waits for me."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.flip_duel import FLIP_DUEL
from utils.tables import Table
from utils.web import api_token

from app import systems

pytestmark = pytest.mark.engines


def unread(table: Table, who: dict[str, str]) -> dict[str, Any]:
    r = table.client.get(f"/api/campaigns/{table.id}/unread", headers=who)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def read(table: Table, who: dict[str, str], seq: Any, key: str | None = None) -> Any:
    headers = {**who, **({"Idempotency-Key": key} if key else {})}
    return table.client.post(f"/api/campaigns/{table.id}/read", json={"seq": seq}, headers=headers)


def say(table: Table, who: dict[str, str], text: str, **extra: Any) -> int:
    r = table.client.post(f"/api/campaigns/{table.id}/messages", json={"text": text, **extra}, headers=who)
    assert r.status_code == 201, r.text
    seq: int = r.json()["seq"]
    return seq


def test_a_new_member_starts_at_the_head_and_others_lines_count(table: Table) -> None:
    assert unread(table, table.player) == {"last_read_seq": 0, "unread": 0, "first_unread_seq": None}
    first = say(table, table.narrator, "Welcome.")
    say(table, table.player, "Hi!")  # the player's own: never counted
    third = say(table, table.other, "Hello.")
    assert unread(table, table.player) == {"last_read_seq": 0, "unread": 2, "first_unread_seq": first}
    assert unread(table, table.narrator) == {"last_read_seq": 0, "unread": 2, "first_unread_seq": 2}
    # A member who joins later starts at the log's head.
    late = table.client.post("/api/users", json={"username": "lena", "password": "correct horse battery"}).status_code
    assert late == 201
    token = table.client.post("/api/tokens", json={"username": "lena", "password": "correct horse battery"}).json()
    lena = {"Authorization": f"Bearer {token['token']}"}
    code = table.client.post(f"/api/campaigns/{table.id}/invites", json={}, headers=table.narrator).json()["code"]
    assert table.client.post(f"/api/invites/{code}/accept", headers=lena).status_code == 200
    assert unread(table, lena) == {"last_read_seq": third, "unread": 0, "first_unread_seq": None}


def test_a_hidden_entry_counts_as_one_line_and_the_mark_never_moves_back(table: Table) -> None:
    seen = table.roll(table.other, "1d6", visibility="self")  # otto alone reads it: one stub line for pia
    assert seen.status_code == 201
    whisper = say(table, table.narrator, "psst", visibility="whisper", to=[table_user(table, "otto")])
    assert unread(table, table.player) == {"last_read_seq": 0, "unread": 2, "first_unread_seq": 1}
    r = read(table, table.player, 1)
    assert r.status_code == 200
    assert r.json() == {"last_read_seq": 1, "unread": 1, "first_unread_seq": whisper}
    back = read(table, table.player, 0)
    assert back.status_code == 200
    assert back.json() == {"last_read_seq": 1, "unread": 1, "first_unread_seq": whisper}
    assert read(table, table.player, whisper).json() == {"last_read_seq": 2, "unread": 0, "first_unread_seq": None}
    # Posting does not move the mark; one's own line is not unread.
    mine = say(table, table.player, "me again")
    assert unread(table, table.player) == {"last_read_seq": 2, "unread": 0, "first_unread_seq": None}
    assert mine == 3


def table_user(table: Table, name: str) -> int:
    members = table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    return int(next(m["id"] for m in members if m["username"] == name))


def test_a_seq_past_the_head_is_a_422_that_changes_nothing(table: Table) -> None:
    say(table, table.narrator, "one")
    r = read(table, table.player, 2)
    assert r.status_code == 422
    assert r.json()["field"] == "seq" and r.json()["detail"]
    for bad in (-1, "1", 1.5, None, True):
        assert read(table, table.player, bad).status_code == 422
    assert unread(table, table.player)["last_read_seq"] == 0
    assert table.client.post(f"/api/campaigns/{table.id}/read", json={}, headers=table.player).status_code == 422


def test_read_is_idempotent_with_a_key(table: Table) -> None:
    say(table, table.narrator, "one")
    say(table, table.narrator, "two")
    first = read(table, table.player, 1, key="k-1")
    assert first.status_code == 200 and "replayed" not in first.json()
    read(table, table.player, 2)
    again = read(table, table.player, 1, key="k-1")
    assert again.status_code == 200
    assert again.json() == {**first.json(), "replayed": True}
    other = read(table, table.player, 2, key="k-1")
    assert other.status_code == 422 and other.json()["field"] == "idempotency_key"


def test_outsiders_and_strangers(table: Table) -> None:
    assert table.client.get(f"/api/campaigns/{table.id}/unread", headers=table.outsider).status_code == 404
    assert table.client.get(f"/api/campaigns/{table.id}/unread").status_code == 401
    assert read(table, table.outsider, 0).status_code == 404
    assert table.client.get("/api/me/waiting").status_code == 401


def test_waiting_lists_roll_calls_to_my_characters_and_they_go_when_answered(table: Table) -> None:
    r = table.client.post(
        f"/api/campaigns/{table.id}/prompts",
        json={"character_id": table.pia_char, "locked": {"expression": "1d20"}, "note": "Climb!"},
        headers=table.narrator,
    )
    assert r.status_code == 201
    prompt = r.json()["id"]
    say(table, table.narrator, "The wall is high.")
    mine = table.client.get("/api/me/waiting", headers=table.player)
    assert mine.status_code == 200
    (campaign,) = mine.json()["campaigns"]
    assert campaign["id"] == table.id and campaign["name"] == "Night Watch" and campaign["unread"] == 1
    (wait,) = campaign["waiting"]
    assert wait["kind"] == "prompt"
    assert "Pia's hero" in wait["text"] and "Climb!" in wait["text"]
    assert wait["url"] == f"/campaigns/{table.id}#prompt-{prompt}"  # the dice roller's calls: the table's panel
    assert wait["since"].endswith("Z")
    # Otto and the narrator (who plays no called character) wait for nothing.
    for who in (table.other, table.narrator):
        assert table.client.get("/api/me/waiting", headers=who).json()["campaigns"][0]["waiting"] == []
    answered = table.roll(table.player, "1d20", character_id=table.pia_char, prompt_id=prompt)
    assert answered.status_code == 201, answered.text
    assert table.client.get("/api/me/waiting", headers=table.player).json()["campaigns"][0]["waiting"] == []


def _turn(state: Any, participants: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """The coin duel's `awaited`: whose flip it is."""
    if state.flips >= 4:
        return {}
    side = next(p for p in participants if p["side"] == state.turn)
    return {side["character_id"]: f"flip-{state.flips}"}


def test_waiting_lists_each_systems_waits_with_the_systems_word(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = replace(FLIP_DUEL.encounters["coin-duel"], awaited=_turn)
    monkeypatch.setitem(systems.SYSTEMS, "flipduel", replace(FLIP_DUEL, encounters={"coin-duel": kind}))
    nora, pia, otto = (api_token(client, n) for n in ("nora", "pia", "otto"))
    cid = client.post("/api/campaigns", json={"name": "Coins", "systems": ["flipduel"]}, headers=nora).json()["id"]
    for who in (pia, otto):
        code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
        client.post(f"/api/invites/{code}/accept", headers=who)
    ace = client.post(
        f"/api/campaigns/{cid}/characters", json={"name": "Ace", "system": "flipduel"}, headers=pia
    ).json()
    bo = client.post(f"/api/campaigns/{cid}/characters", json={"name": "Bo", "system": "flipduel"}, headers=otto).json()

    def act(who: dict[str, str], action: str, character: int, **params: Any) -> Any:
        body = {"system": "flipduel", "action": action, "character_id": character, "params": params}
        r = client.post(f"/api/campaigns/{cid}/actions", headers=who, json=body)
        assert r.status_code == 201, r.text
        return r.json()

    encounter = act(pia, "challenge", ace["id"], opponent_id=bo["id"])["request"]["encounter_id"]

    def waits(who: dict[str, str]) -> list[dict[str, Any]]:
        r = client.get("/api/me/waiting", headers=who)
        assert r.status_code == 200
        (campaign,) = r.json()["campaigns"]
        found: list[dict[str, Any]] = campaign["waiting"]
        return found

    (wait,) = waits(pia)
    assert wait["kind"] == "flip" and wait["url"] == f"/campaigns/{cid}/encounters/{encounter}"
    assert "Ace" in wait["text"]
    assert waits(otto) == [] and waits(nora) == []
    act(pia, "flip", ace["id"], encounter_id=encounter, version=1)
    assert waits(pia) == []  # answered: gone
    assert [w["kind"] for w in waits(otto)] == ["flip"]


def test_a_member_coming_back_gets_the_page_from_the_first_unread_line(table: Table, new_client: Any) -> None:
    from utils.web import signed_in

    pia = signed_in(new_client, "pia")
    say(table, table.narrator, "before")
    pia.get(f"/campaigns/{table.id}")  # she reads #1
    for n in range(60):
        assert table.roll(table.other, "1d4").status_code == 201, n
    page = pia.get(f"/campaigns/{table.id}").text
    shown = [int(s) for s in re.findall(r'id="entry-(\d+)"', page)]
    assert shown[0] <= 2 and shown[-1] == 61  # more than the page size of 50: from her first unread line on
    assert 'data-first-unread="2"' in page
    assert unread(table, table.player) == {"last_read_seq": 61, "unread": 0, "first_unread_seq": None}
    again = pia.get(f"/campaigns/{table.id}").text
    assert len(re.findall(r'id="entry-(\d+)"', again)) == 50 and "data-first-unread" not in again
