"""The campaign page and its fragments: dice box, odds, paging, prompts, corrections."""

from __future__ import annotations

import re

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import csrf_of, signed_in


def _browser(new_client, name: str) -> TestClient:
    return signed_in(new_client, name)


def _hx(b: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(b, "/account"), "HX-Request": "true"}


def test_dice_box_rolls_and_shows_the_result(table: Table, new_client) -> None:
    pia = _browser(new_client, "pia")
    r = pia.post(
        f"/campaigns/{table.id}/roll",
        data={"expression": "2d6+1", "visibility": "public", "idempotency_key": "k1"},
        headers=_hx(pia),
    )
    assert r.status_code == 200 and 'id="dicebox-panel"' in r.text and "#1" in r.text
    key = re.search(r'name="idempotency_key" value="([^"]+)"', r.text).group(1)
    assert key != "k1"  # a fresh key for the next roll
    again = pia.post(
        f"/campaigns/{table.id}/roll", data={"expression": "2d6+1", "idempotency_key": "k1"}, headers=_hx(pia)
    )
    assert "already rolled" in again.text
    assert len(table.log(table.narrator)) == 1


def test_dice_box_error_is_next_to_the_field_and_writes_nothing(table: Table, new_client) -> None:
    pia = _browser(new_client, "pia")
    r = pia.post(f"/campaigns/{table.id}/roll", data={"expression": "3d"}, headers=_hx(pia))
    assert r.status_code == 422
    assert re.search(r'class="error field-error"[^>]*>at column 3', r.text), r.text
    assert 'value="3d"' in r.text  # what they typed is kept
    r = pia.post(
        f"/campaigns/{table.id}/roll",
        data={"expression": "1d6", "character_id": str(table.otto_char)},
        headers=_hx(pia),
    )
    assert r.status_code == 403 and "your own characters" in r.text
    assert table.log(table.narrator) == []


def test_odds_fragment_before_rolling(table: Table, new_client) -> None:
    pia = _browser(new_client, "pia")
    r = pia.get(f"/campaigns/{table.id}/odds", params={"expression": "2d6+1"})
    assert r.status_code == 200 and "3–13" in r.text and "average 8" in r.text
    r = pia.get(f"/campaigns/{table.id}/odds", params={"expression": "2d"})
    assert r.status_code == 200 and "expected" in r.text


def test_log_pages_in_earlier_entries(table: Table, new_client) -> None:
    for _ in range(60):
        table.roll(table.player, "1d4")
    otto = _browser(new_client, "otto")
    page = otto.get(f"/campaigns/{table.id}").text
    shown = [int(s) for s in re.findall(r'id="entry-(\d+)"', page)]
    assert shown == list(range(11, 61)) and 'data-last-seq="60"' in page
    assert f"/campaigns/{table.id}/log?before=11" in page
    older = otto.get(f"/campaigns/{table.id}/log", params={"before": 11}).text
    assert [int(s) for s in re.findall(r'id="entry-(\d+)"', older)] == list(range(1, 11))
    assert "Show earlier entries" not in older


def test_narrator_calls_for_a_roll_and_the_player_answers(table: Table, new_client) -> None:
    nora, pia, otto = (_browser(new_client, n) for n in ("nora", "pia", "otto"))
    r = nora.post(
        f"/campaigns/{table.id}/prompts",
        data={"character_id": str(table.pia_char), "expression": "1d20+2", "note": "spot the trap"},
        headers=_hx(nora),
    )
    assert r.status_code == 200 and "spot the trap" in r.text and "Waiting for the player" in r.text
    bad = nora.post(
        f"/campaigns/{table.id}/prompts",
        data={"character_id": str(table.pia_char), "expression": "1d"},
        headers=_hx(nora),
    )
    assert bad.status_code == 422 and "column" in bad.text
    pia_panel = pia.get(f"/campaigns/{table.id}/panels/prompts").text
    assert "spot the trap" in pia_panel and "1d20+2" in pia_panel
    assert "spot the trap" not in otto.get(f"/campaigns/{table.id}/panels/prompts").text
    prompt_id = re.search(r"/prompts/(\d+)/complete", pia_panel).group(1)
    r = pia.post(f"/campaigns/{table.id}/prompts/{prompt_id}/complete", data={"idempotency_key": "p"}, headers=_hx(pia))
    assert r.status_code == 200 and "Rolled: #1" in r.text
    entry = table.log(table.narrator)[0]
    assert entry["request"]["expression"] == "1d20+2" and entry["character_id"] == table.pia_char


def test_void_and_reveal_from_the_page(table: Table, new_client) -> None:
    table.roll(table.player, "1d6", visibility="blind")
    nora, otto = _browser(new_client, "nora"), _browser(new_client, "otto")
    assert "Correct" in nora.get(f"/campaigns/{table.id}").text
    assert "Correct" not in otto.get(f"/campaigns/{table.id}").text
    r = nora.post(f"/campaigns/{table.id}/entries/1/void", data={"reason": ""}, headers=_hx(nora))
    assert r.status_code == 422 and "Say why" in r.text
    r = nora.post(f"/campaigns/{table.id}/entries/1/reveal", headers={**_hx(nora), "Accept-Language": "da"})
    assert r.status_code == 200 and "Logget som #2." in r.text and "Logged" not in r.text  # in the reader's language
    page = otto.get(f"/campaigns/{table.id}").text
    assert "revealed #1" in page
    r = nora.post(f"/campaigns/{table.id}/entries/1/void", data={"reason": "misclick"}, headers=_hx(nora))
    assert r.status_code == 200
    assert 'class="entry kind-action vis-blind voided' in nora.get(f"/campaigns/{table.id}").text
