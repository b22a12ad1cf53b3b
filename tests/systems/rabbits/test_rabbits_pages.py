"""Rabbits pages and the JSON API: creation errors next to the field, the sheet, the roll dialog's odds,
a prompt answered on the sheet, permissions, the campaign page's settings, and the demo."""

from __future__ import annotations

import re

from utils.rabbits import NEW_RABBIT
from utils.tables import Table
from utils.web import form_post

from app.systems import SYSTEMS


def _table(client) -> Table:
    return Table(client, systems=("rabbits",))


def _rabbit(t: Table, who: dict[str, str], name: str = "Clover", **sheet: object) -> int:
    return t.character(who, name, "rabbits", sheet or NEW_RABBIT)


def _act(t: Table, who: dict[str, str], action: str, character_id: int | None, **params: object):
    return t.client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=who,
        json={"system": "rabbits", "action": action, "character_id": character_id, "params": params},
    )


def test_the_api_runs_a_test_and_refuses_another_players_rabbit(client) -> None:
    t = _table(client)
    clover = _rabbit(t, t.player)
    r = _act(t, t.player, "test", clover, skill="Scout", ob=1)
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["pool"] == 3
    r = _act(t, t.other, "test", clover, skill="Scout", ob=1)
    assert r.status_code == 403
    seq = client.get(f"/api/campaigns/{t.id}", headers=t.player).json()
    sheet = next(c["sheet"] for c in seq["characters"] if c["id"] == clover)
    r = _act(t, t.other, "fate", clover, entry_seq=sheet["last_test"]["seq"])
    assert r.status_code == 403
    # Another player sees the ratings, not the rewards or the last roll.
    other_view = next(
        c["sheet"]
        for c in client.get(f"/api/campaigns/{t.id}", headers=t.other).json()["characters"]
        if c["id"] == clover
    )
    assert "fate" not in other_view and "last_test" not in other_view and "skills" in other_view


def test_bad_input_in_the_roll_is_a_422_naming_the_field(client) -> None:
    t = _table(client)
    clover = _rabbit(t, t.player)
    r = _act(t, t.player, "test", clover, skill="Juggler", ob=1)
    assert r.status_code == 422 and r.json()["field"] == "skill"
    r = _act(t, t.player, "test", clover, skill="Scout", ob=1, persona=2)
    assert r.status_code == 422 and r.json()["field"] == "persona"
    r = _act(t, t.player, "settings", None, turn="players")
    assert r.status_code == 403


def _signed_in(client, new_client, t: Table, username: str):
    from utils.web import csrf_of as _csrf

    browser = new_client()
    token = _csrf(browser, "/signin")
    r = browser.post(
        "/signin", data={"username": username, "password": "correct horse", "csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return browser


def test_the_creation_form_shows_the_error_next_to_the_field_and_writes_nothing(client, new_client) -> None:
    t = _table(client)
    pia = _signed_in(client, new_client, t, "pia")
    page = pia.get(f"/campaigns/{t.id}/characters/new/rabbits")
    assert page.status_code == 200 and "skill.Weather Watcher" in page.text
    r = form_post(
        pia,
        f"/campaigns/{t.id}/characters/new/rabbits",
        {"name": "Clover", "nature": "9", "skill.Scout": "3"},
        htmx=False,
    )
    assert r.status_code == 422
    assert re.search(
        r'id="ab-nature"[^>]*>\s*<p class="error field-error" role="alert">Nature must be from 1 to 7', r.text
    ), r.text[:3000]
    assert 'value="3"' in r.text  # what was typed is kept
    before = client.get(f"/api/campaigns/{t.id}", headers=t.player).json()["characters"]
    assert not any(c["name"] == "Clover" for c in before)
    r = form_post(
        pia,
        f"/campaigns/{t.id}/characters/new/rabbits",
        {
            "name": "Clover",
            "nature": "4",
            "skill.Scout": "3",
            "wise_1": "Fox-wise",
            "trait_1": "Quick",
            "trait_level_1": "2",
            "belief": "Watch the edges",
        },
        htmx=False,
    )
    assert r.status_code == 303
    sheet_url = r.headers["location"]
    sheet = pia.get(sheet_url)
    assert sheet.status_code == 200
    assert "Fox-wise" in sheet.text and "Roll the test" in sheet.text and "Watch the edges" in sheet.text


def test_the_sheet_rolls_shows_odds_and_offers_fate(client, new_client) -> None:
    t = _table(client)
    clover = _rabbit(t, t.player)
    pia = _signed_in(client, new_client, t, "pia")
    base = f"/campaigns/{t.id}/characters/{clover}"
    odds = pia.get(f"{base}/odds/test", params={"skill": "Scout", "ob": "2", "wise": "Fox-wise"})
    assert "4D vs Ob 2: 68.8% to pass" in odds.text and "with Fate" in odds.text and "Wise +1" in odds.text
    odds = pia.get(f"{base}/odds/test", params={"skill": "Scout", "ob": "2", "persona": "3"})
    assert "takes 3 Persona" in odds.text
    r = form_post(pia, f"{base}/act/test", {"skill": "Scout", "ob": "2", "idempotency_key": "k1"})
    assert r.status_code == 200 and 'id="sheet"' in r.text and "Latest roll" in r.text
    r = form_post(pia, f"{base}/act/test", {"skill": "Scout", "ob": "99", "idempotency_key": "k2"})
    assert r.status_code == 422 and "field-error" in r.text
    # Another player's browser: no dialog, no odds.
    otto = _signed_in(client, new_client, t, "otto")
    assert "Roll the test" not in otto.get(base).text
    assert otto.get(f"{base}/odds/test", params={"skill": "Scout", "ob": "2"}).status_code == 404


def test_a_prompt_locks_skill_and_ob_and_is_answered_on_the_sheet(client, new_client) -> None:
    t = _table(client)
    clover = _rabbit(t, t.player)
    r = client.post(
        f"/api/campaigns/{t.id}/prompts",
        headers=t.narrator,
        json={
            "character_id": clover,
            "system": "rabbits",
            "action": "test",
            "locked": {"skill": "Scout", "ob": 3},
            "note": "spot the fox",
        },
    )
    assert r.status_code == 201, r.text
    prompt_id = r.json()["id"]
    pia = _signed_in(client, new_client, t, "pia")
    page = pia.get(f"/campaigns/{t.id}/characters/{clover}")
    assert f'id="prompt-{prompt_id}"' in page.text and "spot the fox" in page.text
    r = form_post(
        pia,
        f"/campaigns/{t.id}/characters/{clover}/act/test",
        {"prompt_id": str(prompt_id), "skill": "will", "ob": "0", "idempotency_key": "p1"},
    )
    assert r.status_code == 200, r.text
    entry = t.log(t.narrator)[-1]
    assert entry["request"]["skill"] == "Scout" and entry["request"]["ob"] == 3


def test_the_narrator_sets_turn_and_starting_rewards_on_the_campaign_page(client, new_client) -> None:
    t = _table(client)
    nora = _signed_in(client, new_client, t, "nora")
    page = nora.get(f"/campaigns/{t.id}/systems/rabbits")
    assert page.status_code == 200 and "Starting Fate" in page.text
    r = form_post(
        nora,
        f"/campaigns/{t.id}/systems/rabbits/act/settings",
        {"turn": "players", "starting_fate": "3", "starting_persona": "1", "idempotency_key": "s1"},
    )
    assert r.status_code == 200 and "players&#39; turn" in r.text
    r = form_post(
        nora,
        f"/campaigns/{t.id}/systems/rabbits/act/settings",
        {"turn": "dawn", "starting_fate": "3", "starting_persona": "1", "idempotency_key": "s2"},
    )
    assert r.status_code == 422 and "field-error" in r.text
    pia = _signed_in(client, new_client, t, "pia")
    assert "Starting Fate" not in pia.get(f"/campaigns/{t.id}/systems/rabbits").text


def test_help_lists_the_rabbits_rulings() -> None:
    assert any("Ruling 3" in r for r in SYSTEMS["rabbits"].rulings)
