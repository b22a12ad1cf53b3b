"""Log search (issue 14): a text search beside the filters, applied on the server with paging, matched against what
each viewer's rendering shows — a narrator-only entry's words are never findable by a player — and bounded work
per request (SEARCH_WINDOW entries read at most)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.config import Settings
from app.rolls import log as rolllog

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"log_page_size": 3})


def _seqs(html: str) -> list[int]:
    return [int(s) for s in re.findall(r'<li id="entry-(\d+)"', html)]


def _log(html: str) -> str:
    return html[html.index('id="log-entries"') :]


def test_search_finds_words_names_and_notes_with_paging(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    for note in ("the GATE opens", "", "a gate creaks", "", "gatekeeper", "gate again"):  # 1..6
        assert t.roll(t.player, "1d6", note=note, character_id=t.pia_char).status_code == 201
    assert t.roll(t.other, "3d8", character_id=t.otto_char).status_code == 201  # 7
    otto = signed_in(new_client, "otto")
    page = otto.get(f"/campaigns/{t.id}", params={"q": "  Gate "}).text
    assert _seqs(_log(page)) == [3, 5, 6]  # the newest 3 of 1, 3, 5, 6; case-insensitive
    assert 'data-filter-q="Gate"' in page and 'value="Gate"' in page
    more = otto.get(f"/campaigns/{t.id}/log", params={"before": 3, "q": "Gate"})
    assert _seqs(more.text) == [1] and "Show earlier entries" not in more.text
    # The summary in the reader's language, the actor's and the character's names.
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "3d8"}).text)) == [7]
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "otto"}).text)) == [7]
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "Otto's hero"}).text)) == [7]
    # With the other filters.
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "gate", "character": t.otto_char}).text)) == []
    none = otto.get(f"/campaigns/{t.id}", params={"q": "dragon"}).text
    assert _seqs(_log(none)) == [] and "No entry you can see matches." in none


def test_a_search_never_finds_what_the_viewer_cannot_see(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    assert t.roll(t.narrator, "1d20", visibility="narrator", note="the dragon sleeps").status_code == 201  # 1
    assert t.roll(t.player, "7d4", visibility="blind", note="my dragon plan").status_code == 201  # 2
    assert t.roll(t.narrator, "2d6", visibility="self", note="dragon hoard").status_code == 201  # 3
    pia, otto, nora = (signed_in(new_client, n) for n in ("pia", "otto", "nora"))
    for reader in (pia, otto):
        # The words are in the bodies, but only the narrators may read them (pia's blind roll shows her neither
        # the result nor the note).
        assert _seqs(_log(reader.get(f"/campaigns/{t.id}", params={"q": "dragon"}).text)) == []
    assert _seqs(_log(nora.get(f"/campaigns/{t.id}", params={"q": "dragon"}).text)) == [1, 2, 3]
    # The roller of a blind roll finds what she asked for, not what came up or her note (shown to narrators).
    assert _seqs(_log(pia.get(f"/campaigns/{t.id}", params={"q": "7d4"}).text)) == [2]
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "7d4"}).text)) == []
    # A hidden entry shows its actor's name to everyone ("nora rolled in secret"): that much is findable.
    assert _seqs(_log(otto.get(f"/campaigns/{t.id}", params={"q": "nora"}).text)) == [1, 3]
    # The paging fragment applies the same rule.
    r = otto.get(f"/campaigns/{t.id}/log", params={"before": 4, "q": "dragon"})
    assert r.status_code == 200 and _seqs(r.text) == []


def test_a_search_reads_a_bounded_window_and_goes_on_from_where_it_stopped(
    client: TestClient, new_client: Callable[[], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rolllog, "SEARCH_WINDOW", 4)
    monkeypatch.setattr(rolllog, "SEARCH_CHUNK", 3)
    t = Table(client)
    assert t.roll(t.player, "1d6", note="needle").status_code == 201  # 1
    for _ in range(9):  # 2..10
        assert t.roll(t.player, "1d6").status_code == 201
    otto = signed_in(new_client, "otto")
    page = _log(otto.get(f"/campaigns/{t.id}", params={"q": "needle"}).text)
    assert _seqs(page) == [] and "Searched back to #7." in page  # read 10..7 only
    assert "before=7" in page and "q=needle" in page
    more = otto.get(f"/campaigns/{t.id}/log", params={"before": 7, "q": "needle"}).text
    assert _seqs(more) == [] and "Searched back to #3." in more
    last = otto.get(f"/campaigns/{t.id}/log", params={"before": 3, "q": "needle"}).text
    assert _seqs(last) == [1] and "earlier" not in last
