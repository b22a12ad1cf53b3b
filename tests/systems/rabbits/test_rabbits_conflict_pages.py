"""Rabbit conflict pages and the API: set-up errors next to the field with nothing written, a refused step shown
above the conflict, the odds on the roll form, and the API's refusals (docs/RABBITS-CONFLICTS.md)."""

from __future__ import annotations

import html

from utils.tables import Table
from utils.web import csrf_of, form_post

HAZEL = {"nature": 3, "will": 3, "health": 3, "skills": {"Fighter": 2}}
CLOVER = {"nature": 4, "will": 3, "health": 4, "skills": {"Fighter": 3, "Scout": 3}}


def _rabbit(t: Table, who: dict[str, str], name: str, sheet: dict[str, object]) -> int:
    return t.character(who, name, "rabbits", sheet)


def _act(t: Table, who: dict[str, str], action: str, character_id: int | None, **params: object):
    return t.client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=who,
        json={"system": "rabbits", "action": action, "character_id": character_id, "params": params},
    )


def _signed_in(new_client, username: str):
    browser = new_client()
    token = csrf_of(browser, "/signin")
    r = browser.post(
        "/signin", data={"username": username, "password": "correct horse", "csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return browser


def test_a_set_up_without_a_goal_is_refused_next_to_the_field(client, new_client) -> None:
    t = Table(client, systems=("rabbits",))
    clover, hazel = _rabbit(t, t.player, "Clover", CLOVER), _rabbit(t, t.other, "Hazel", HAZEL)
    nora = _signed_in(new_client, "nora")
    before = len(t.log(t.narrator))
    r = form_post(
        nora,
        f"/campaigns/{t.id}/systems/rabbits/act/conflict_setup",
        {"conflict": "fight", "a_members": str(clover), "b_members": str(hazel), "a_goal": "Keep it"},
    )
    assert r.status_code == 422
    assert "Team B: write down its goal" in html.unescape(r.text)
    assert 'id="cs-b-goal"' in r.text and len(t.log(t.narrator)) == before
    r = form_post(
        nora,
        f"/campaigns/{t.id}/systems/rabbits/act/conflict_setup",
        {"conflict": "fight", "a_members": str(clover), "b_members": str(clover), "a_goal": "x", "b_goal": "y"},
    )
    assert r.status_code == 422 and "one team only" in r.text
    pia = _signed_in(new_client, "pia")
    r = form_post(
        pia,
        f"/campaigns/{t.id}/systems/rabbits/act/conflict_setup",
        {"conflict": "fight", "a_members": str(clover), "b_members": str(hazel), "a_goal": "x", "b_goal": "y"},
    )
    assert r.status_code == 403


def test_a_conflict_page_refuses_a_step_out_of_turn_and_shows_the_odds(client, new_client) -> None:
    t = Table(client, systems=("rabbits",))
    clover, hazel = _rabbit(t, t.player, "Clover", CLOVER), _rabbit(t, t.other, "Hazel", HAZEL)
    r = _act(
        t,
        t.narrator,
        "conflict_setup",
        None,
        conflict="fight",
        a_members=[clover],
        b_members=[hazel],
        a_goal="Keep the burrow",
        b_goal="Take the field",
    )
    assert r.status_code == 201, r.text
    eid = r.json()["request"]["encounter_id"]
    pia = _signed_in(new_client, "pia")
    page = pia.get(f"/campaigns/{t.id}/encounters/{eid}")
    assert page.status_code == 200 and "rc-roll-dispo-a" in page.text and "rc-roll-dispo-b" not in page.text
    r = form_post(
        pia,
        f"/campaigns/{t.id}/encounters/{eid}/act/conflict_script",
        {"character_id": str(clover), "version": "1", "action_1": "attack", "action_2": "attack", "action_3": "attack"},
    )
    assert r.status_code == 422 and "not the time to script" in html.unescape(r.text)
    # The API: another player cannot roll Clover's disposition; a stale version is "already resolved".
    r = _act(t, t.other, "conflict_disposition", clover, encounter_id=eid, version=1, base="health")
    assert r.status_code == 403
    r = _act(t, t.player, "conflict_disposition", clover, encounter_id=eid, version=1, base="will")
    assert r.status_code == 422 and r.json()["field"] == "base"
    assert _act(t, t.player, "conflict_disposition", clover, encounter_id=eid, version=1).status_code == 201
    assert _act(t, t.other, "conflict_disposition", hazel, encounter_id=eid, version=1).status_code == 409
    odds = pia.get(
        f"/campaigns/{t.id}/characters/{clover}/odds/conflict_roll",
        params={"encounter_id": eid, "version": 1, "skill": "Fighter", "ob": 0, "helpers": []},
    )
    assert odds.status_code == 200 and "3D vs Ob 0: 100.0% to pass" in odds.text
    odds = pia.get(
        f"/campaigns/{t.id}/characters/{clover}/odds/conflict_roll",
        params={"encounter_id": eid, "version": 1, "skill": "Fighter", "against": 2, "mods": -1},
    )
    assert odds.status_code == 200 and "2D vs 2D: win 31.2%" in odds.text
