"""Recaps as ../shared/contracts/BETWEEN-SESSIONS-API.md (sections 3 and 5) names them: a game session's story for
the caller, from exactly the entries the caller may read (app/rolls/visibility.py decides), in their language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.between.recap import md

pytestmark = pytest.mark.engines


def uid(t: Table, name: str) -> int:
    members = t.client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]
    return int(next(m["id"] for m in members if m["username"] == name))


def say(t: Table, who: dict[str, str], text: str, **extra: Any) -> int:
    r = t.client.post(f"/api/campaigns/{t.id}/messages", json={"text": text, **extra}, headers=who)
    assert r.status_code == 201, r.text
    return int(r.json()["seq"])


def played_session(t: Table, new_client: Callable[[], TestClient]) -> dict[str, int]:
    nora = signed_in(new_client, "nora")
    assert nora.post(f"/campaigns/{t.id}/sessions/start", data={"title": "Alley"}).status_code == 200
    seqs = {"start": 1}
    seqs["public"] = t.roll(t.player, "3d6").json()["seq"]
    seqs["blind"] = t.roll(t.player, "2d10", visibility="blind").json()["seq"]
    seqs["whisper"] = say(t, t.other, "meet me at the well", visibility="whisper", to=[uid(t, "pia")])
    seqs["ic"] = say(t, t.other, "Halt! Who goes there?", mode="ic", as_character_id=t.otto_char)
    seqs["narrator"] = t.roll(t.narrator, "1d100", visibility="narrator").json()["seq"]
    seqs["self"] = t.roll(t.player, "1d4", visibility="self").json()["seq"]
    seqs["x"] = t.client.post(f"/api/campaigns/{t.id}/safety/x", json={}, headers=t.other).json()["seq"]
    assert nora.post(f"/campaigns/{t.id}/sessions/end").status_code == 200
    seqs["end"] = seqs["x"] + 1
    t.roll(t.player, "1d6")  # after the session: not in its recap
    return seqs


def recap(t: Table, who: dict[str, str], **headers: str) -> dict[str, Any]:
    r = t.client.get(f"/api/campaigns/{t.id}/sessions/1/recap", headers={**who, **headers})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_a_recap_holds_exactly_what_its_reader_may_read(table: Table, new_client: Callable[[], TestClient]) -> None:
    t = table
    s = played_session(t, new_client)
    everything = list(range(1, s["end"] + 1))
    narrator, pia, otto = recap(t, t.narrator), recap(t, t.player), recap(t, t.other)
    assert narrator["session"] == 1 and narrator["title"] == "Alley"
    assert narrator["started_at"].endswith("Z") and narrator["ended_at"].endswith("Z")
    # Hidden from the narrator: a whisper between players, a player's self roll.
    assert narrator["entries"] == [q for q in everything if q not in (s["whisper"], s["self"])]
    # Pia reads her blind roll's request only, the whisper to her and her own self roll; not the narrator's roll.
    assert pia["entries"] == [q for q in everything if q != s["narrator"]]
    assert otto["entries"] == [q for q in everything if q not in (s["blind"], s["narrator"], s["self"])]
    # The narrator's recap and pia's differ by exactly what each may not read.
    for who, mine in ((t.narrator, narrator), (t.player, pia), (t.other, otto)):
        log = {e["seq"]: e for e in t.log(who)}
        hidden = {q for q in everything if log[q]["text"] is None and log[q]["request"] is None}
        assert set(mine["entries"]) == set(everything) - hidden
    blind_result = next(e for e in t.log(t.narrator) if e["seq"] == s["blind"])["text"]
    assert blind_result and md(blind_result) in narrator["markdown"]
    assert md(blind_result) not in pia["markdown"] and "2d10" in pia["markdown"]
    assert "= " not in pia["markdown"].split("2d10", 1)[1].splitlines()[0]  # no total on the blind line
    assert "meet me at the well" in pia["markdown"] and "meet me at the well" not in narrator["markdown"]
    assert "**Otto's hero:** “Halt\\! Who goes there?”" in otto["markdown"]
    assert "X-card" in narrator["markdown"]


def test_markdown_download_language_and_unknown_sessions(table: Table, new_client: Callable[[], TestClient]) -> None:
    t = table
    played_session(t, new_client)
    r = t.client.get(f"/api/campaigns/{t.id}/sessions/1/recap", headers={**t.player, "Accept": "text/markdown"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
    assert r.text == recap(t, t.player)["markdown"]
    md = t.client.get(f"/api/campaigns/{t.id}/sessions/1/recap?format=md", headers=t.player)
    assert md.status_code == 200 and md.text == r.text
    german = recap(t, t.player, **{"Accept-Language": "de"})["markdown"]
    assert german.startswith("# Night Watch — Sitzung 1: Alley")
    assert t.client.get(f"/api/campaigns/{t.id}/sessions/2/recap", headers=t.player).status_code == 404
    assert t.client.get(f"/api/campaigns/{t.id}/sessions/1/recap", headers=t.outsider).status_code == 404
    assert t.client.get(f"/api/campaigns/{t.id}/sessions/0/recap", headers=t.player).status_code == 422


def test_the_recap_page_and_its_download(table: Table, new_client: Callable[[], TestClient]) -> None:
    t = table
    played_session(t, new_client)
    otto = signed_in(new_client, "otto")
    page = otto.get(f"/campaigns/{t.id}/sessions/1/recap")
    assert page.status_code == 200
    assert "Halt! Who goes there?" in page.text and "2d10" not in page.text
    md = otto.get(f"/campaigns/{t.id}/sessions/1/recap.md")
    assert md.status_code == 200 and md.text == recap(t, t.other)["markdown"]
