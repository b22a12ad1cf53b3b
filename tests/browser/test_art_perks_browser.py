"""Kicker perks and grapples in an ART combat on phones (390x844) against a real server with scripted dice: Combat
Tactics' +2 shown under the track and in the chance on the attack button, joining a grapple, and the choice of who
is hit on a Fate tie. Screenshots: test-artifacts/screenshots/art-perks-*.png."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect
from utils.art import FOE, balanced
from utils.art_fight import face
from utils.dice_server import scripted_server

from app.systems.art import rules as art

from .pages import TAP, Tabs, api_invite, api_user, page_problems, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]

SWORD = {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"}
TRACK = ("art-track-wrap", "art-range-track", "art-band", "art-token", "art-feature")


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[tuple[Any, Path, Path]]:
    with scripted_server(tmp_path, "perks.db") as (server, faces):
        yield server, faces, tmp_path / "perks.db"


def test_perks_and_grapples_on_phones(browser: Any, scripted: tuple[Any, Path, Path]) -> None:
    server, faces, db = scripted
    tabs = Tabs(browser, server)
    base = tabs.base
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    campaign_id = httpx2.post(
        base + "/api/campaigns", json={"name": "Mill", "systems": ["art"]}, headers=who["nora"]
    ).json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    api = f"{base}/api/campaigns/{campaign_id}"
    ids: dict[str, int] = {}

    def act(owner: str, action: str, character: int | None, values: list[int] | None = None, **params: Any) -> Any:
        faces.write_text(json.dumps(values or []))
        r = httpx2.post(
            f"{api}/actions",
            headers=who[owner],
            json={"system": "art", "action": action, "character_id": character, "params": params},
        )
        assert r.status_code == 201, r.text
        return r.json()

    for name, owner in (("Maren", "pia"), ("Tom", "otto")):
        fields = {k: v for k, v in balanced(name).items() if k != "name"}
        ids[name] = httpx2.post(
            f"{api}/characters", headers=who[owner], json={"name": name, "system": "art", "sheet": fields}
        ).json()["id"]
        act(owner, "add_item", ids[name], **SWORD)
    ids["Goblin"] = httpx2.post(
        f"{api}/characters",
        headers=who["nora"],
        json={"name": "Goblin", "system": "art", "kind": "npc", "sheet": dict(FOE)},
    ).json()["id"]
    with sqlite3.connect(db) as con:  # Maren has Combat Tactics (perks are bought between adventures)
        con.execute(
            "UPDATE characters SET sheet = json_set(sheet, '$.perks', json('{\"Combat Tactics\": 1}'), "
            "'$.attributes.INT', 6) WHERE id = ?",
            (ids["Maren"],),
        )
    act(
        "nora",
        "combat_setup",
        None,
        adventurers=[ids["Maren"], ids["Tom"]],
        foes=[ids["Goblin"]],
        bands=6,
        adventurer_band=1,
        foe_band=1,
    )
    with sqlite3.connect(db) as con:
        enc = con.execute("SELECT max(id) FROM encounters").fetchone()[0]
    version = [1]

    def step(owner: str, action: str, character: int, values: list[int] | None = None, **params: Any) -> None:
        act(owner, action, character, values, encounter_id=enc, version=version[0], **params)
        version[0] += 1

    step("pia", "combat_initiative", ids["Maren"], [face(7, "GD")])
    step("otto", "combat_initiative", ids["Tom"], [face(7, "PR")])
    pia, otto = tabs.open("pia"), tabs.open("otto")
    for tab in (pia, otto):
        sign_in(tab, base, tab.name, next=f"/campaigns/{campaign_id}/encounters/{enc}")
    problems: list[str] = []

    def check(tab: Any, name: str) -> None:
        page = tab.page
        screenshot(page, f"art-perks-{name}-390")
        page.evaluate("() => document.querySelectorAll('[style=\"\"]').forEach(e => e.removeAttribute('style'))")
        problems.extend(page_problems(page, f"art-perks-{name}", 390, overflow_ok=TRACK))  # overflow, axe-core
        for i in range(page.locator("#encounter button").count()):
            box = page.locator("#encounter button").nth(i).bounding_box()
            if box and box["height"] < TAP:
                problems.append(f"{name}: button {i} is {box['height']:.0f}px tall")

    # Maren's attack misses with kicker 0 (face 40 ... any miss with a 0): Combat Tactics, +2 next round
    step("pia", "combat_attack", ids["Maren"], [face_with(4, "IN", 0)], target=ids["Goblin"])
    step("pia", "combat_end_turn", ids["Maren"])
    step("otto", "combat_end_turn", ids["Tom"])
    step("nora", "combat_end_turn", ids["Goblin"])
    pia.page.reload()
    expect(pia.page.locator("#combat-perks")).to_contain_text("+2 Attack (Combat Tactics, all attacks in round 2)")
    expect(pia.page.locator("#combat-attack-panel .odds")).to_contain_text("+2")
    check(pia, "bonus")
    # Maren grapples the Goblin; Tom's phone offers joining; Tom attacks from outside, a Fate tie: he chooses
    step("pia", "combat_maneuver", ids["Maren"], [100], target=ids["Goblin"], maneuver="grapple")
    step("pia", "combat_end_turn", ids["Maren"])
    otto.page.reload()
    otto.page.locator("#combat-more > summary").click()
    expect(otto.page.locator(f"#combat-grapple-join-{ids['Goblin']}")).to_be_visible()
    check(otto, "join")
    with sqlite3.connect(db) as con:
        fate = con.execute(
            "SELECT json_extract(sheet, '$.attributes.FAT') FROM characters WHERE id = ?", (ids["Maren"],)
        ).fetchone()[0]
    step(
        "otto",
        "combat_attack",
        ids["Tom"],
        [face(art.effective_row(art.trait_total(fate, [], 0)), "PR")],
        target=ids["Goblin"],
    )
    otto.page.reload()
    expect(otto.page.locator(f"#combat-grapple-hit-{ids['Maren']}")).to_be_visible()
    check(otto, "tie")
    faces.write_text(json.dumps([face(4, "GD")]))
    otto.page.locator(f"#combat-grapple-hit-{ids['Goblin']}").click()
    expect(otto.page.locator(f"#combat-grapple-hit-{ids['Goblin']}")).to_have_count(0)
    expect(otto.page.locator("#combat-pending")).to_have_count(0)
    assert not problems, problems
    assert not tabs.errors(), tabs.errors()


def face_with(row: int, level: str, kicker: int) -> int:
    return next(f for f in range(1, 101) if f % 10 == kicker and art.DEFAULT_TABLE.read(row, f).name == level)
