"""A narrator's roll-call note reaches the entries answering it (issue 21, item 13): in the hashed body, on the
log line, found by the log search — and hidden with the entry when the entry is hidden."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.rolls import chain

NOTE = "Everyone: perception check"


def _prompt(t: Table, character_id: int, visibility: str = "public") -> int:
    r = t.client.post(
        f"/api/campaigns/{t.id}/prompts",
        headers=t.narrator,
        json={"character_id": character_id, "locked": {"expression": "1d20"}, "note": NOTE, "visibility": visibility},
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _seqs(page: str) -> list[int]:
    return [int(s) for s in re.findall(r'<li id="entry-(\d+)"', page[page.index('id="log-entries"') :])]


def test_the_roll_calls_note_is_in_each_answer(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    first = t.roll(t.player, "1d6", prompt_id=_prompt(t, t.pia_char))
    second = t.roll(t.other, "1d6", prompt_id=_prompt(t, t.otto_char), note="I squint")
    assert first.status_code == second.status_code == 201
    assert first.json()["note"] == NOTE
    assert second.json()["note"] == f"{NOTE} — I squint"  # the player's own note after the narrator's
    export = t.client.get(f"/api/campaigns/{t.id}/export", headers=t.player).json()
    assert [e["body"]["note"] for e in export["entries"]] == [NOTE, f"{NOTE} — I squint"]
    assert chain.verify_entries(export["entries"], head=export["head"]).ok  # in the hashed body
    otto = signed_in(new_client, "otto")
    page = html.unescape(otto.get(f"/campaigns/{t.id}").text)
    assert page.count(f"“{NOTE}") == 2  # on both log lines
    found = otto.get(f"/campaigns/{t.id}", params={"q": "perception"}).text
    assert _seqs(found) == [1, 2]


def test_a_hidden_answers_note_stays_hidden(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    assert t.roll(t.player, "1d6", prompt_id=_prompt(t, t.pia_char, "narrator")).status_code == 201
    assert t.roll(t.other, "1d6", prompt_id=_prompt(t, t.otto_char, "blind")).status_code == 201
    pia, otto, nora = (signed_in(new_client, n) for n in ("pia", "otto", "nora"))
    # The narrator reads both notes and finds both; the players find only what they may read.
    assert sorted(_seqs(nora.get(f"/campaigns/{t.id}", params={"q": "perception"}).text)) == [1, 2]
    assert _seqs(pia.get(f"/campaigns/{t.id}", params={"q": "perception"}).text) == [1]  # her own, shown to her
    assert _seqs(otto.get(f"/campaigns/{t.id}", params={"q": "perception"}).text) == []  # his own is blind
    log = otto.get(f"/campaigns/{t.id}").text
    assert NOTE not in html.unescape(log[log.index('id="log-entries"') :])
    api = t.client.get(f"/api/campaigns/{t.id}/log", headers=t.other).json()
    assert all(e.get("note") is None for e in api["entries"])
