"""Issue 21, items 13 and 14 on 390×844 phones against a real server with scripted dice
(tests/utils/scripted_server.py): the narrator's call for a roll shows only the kinds that fit the ticked
characters; a challenged player gets a toast that leads to the duel, and a finished duel offers the next step;
a tied Rabbits conflict action offers ruling 12's choices; the "Check the log" command is fateboard-verify."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect
from utils.catfight import MIMI, TECKA
from utils.dice_server import scripted_server

from .pages import Tabs, api_invite, api_user, check_page, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]

CLOVER = {"nature": 3, "will": 3, "health": 4, "skills": {"Fighter": 3}, "traits": [{"name": "Quick", "level": 1}]}
HAZEL = {"nature": 3, "will": 4, "health": 3, "skills": {"Fighter": 3}}


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    with scripted_server(tmp_path, "flow.db") as started:
        yield started


def _table(base: str) -> tuple[int, dict[str, dict[str, str]], dict[str, int]]:
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(
        base + "/api/campaigns",
        json={"name": "The Wall", "systems": ["cat", "catfight", "rabbits"]},
        headers=who["nora"],
    )
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, cid, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    ids = {}
    for owner, name, system, sheet in (
        ("pia", "Tecka", "catfight", TECKA),
        ("otto", "Mimi", "catfight", MIMI),
        ("pia", "Clover", "rabbits", CLOVER),
        ("otto", "Hazel", "rabbits", HAZEL),
    ):
        r = httpx2.post(
            f"{base}/api/campaigns/{cid}/characters",
            headers=who[owner],
            json={"name": name, "system": system, "sheet": sheet},
        )
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
    return cid, who, ids


def _act(
    url: str, cid: int, who: dict[str, str], system: str, action: str, character: int | None, /, **params: Any
) -> dict[str, Any]:
    r = httpx2.post(
        f"{url}/api/campaigns/{cid}/actions",
        headers=who,
        json={"system": system, "action": action, "character_id": character, "params": params},
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_the_table_flows_on_phones(browser: Any, scripted: tuple[Any, Path]) -> None:
    server, faces = scripted
    tabs = Tabs(browser, server)
    base = tabs.base
    cid, who, ids = _table(base)
    table = f"/campaigns/{cid}"
    problems: list[str] = []
    nora, otto, pia = tabs.open("nora"), tabs.open("otto"), tabs.open("pia")
    for tab in (nora, otto, pia):
        sign_in(tab, base, tab.name, next=table)

    # 13c: the narrator's call for a roll, on a phone. Nothing ticked: every kind; a rabbit ticked: dice and the
    # Rabbits test only; a rabbit and a cat: dice only (and a chosen kind that no longer fits falls back to dice).
    n = nora.page
    n.goto(f"{base}{table}/narrator")
    call = n.locator("#group-call")
    expect(call.locator("label[data-call-kind]")).to_have_count(3)  # dice, Cat, Rabbits: all offered
    for kind in ("dice", "cat", "rabbits"):
        expect(call.locator(f"label[data-call-kind={kind}]")).to_be_visible()
    expect(call.locator("fieldset[data-call-kind=dice]")).to_be_visible()  # the chosen kind's fields only
    expect(call.locator("fieldset[data-call-kind=cat]")).to_be_hidden()
    call.get_by_label("Clover").check()
    expect(call.locator("label[data-call-kind=cat]")).to_be_hidden()
    expect(call.locator("label[data-call-kind=rabbits]")).to_be_visible()
    call.locator("input[name=call][value='rabbits:test']").check()
    expect(call.locator("fieldset[data-call-kind=rabbits]")).to_be_visible()
    expect(call.locator("fieldset[data-call-kind=dice]")).to_be_hidden()
    problems += check_page(nora, "flow-narrator-call-rabbit", ["#group-call button.primary"])
    call.get_by_label("Tecka").check()
    expect(call.locator("label[data-call-kind=rabbits]")).to_be_hidden()
    expect(call.locator("input[name=call][value='dice:roll']")).to_be_checked()  # the choice fell back to dice
    expect(call.locator("fieldset[data-call-kind=dice]")).to_be_visible()
    expect(call.locator("fieldset[data-call-kind=rabbits]")).to_be_hidden()
    call.get_by_label("Clover").uncheck()
    call.get_by_label("Tecka").uncheck()
    expect(call.locator("label[data-call-kind=cat]")).to_be_visible()

    # 13d: the command under "Check the log" is the console script, with how to get it.
    p = pia.page
    p.goto(base + table)
    p.locator("#log-proof > summary").click()
    expect(p.locator("#log-proof pre.command code").first).to_contain_text("fateboard-verify fateboard-campaign-")
    expect(p.locator("#verify-install")).to_contain_text("fateboard-verify command")
    expect(p.locator("#log-proof pre.command code").last).to_have_text("pip install .")
    problems += check_page(pia, "flow-check-the-log", [])

    # 13b: Otto is on the campaign page; Pia challenges his Mimi: a toast leads him to the duel.
    o = otto.page
    o.goto(base + table)
    wait_live(o)
    entry = _act(base, cid, who["pia"], "catfight", "challenge", ids["Tecka"], opponent_id=ids["Mimi"])
    duel = entry["request"]["encounter_id"]
    expect(o.locator("#toast")).to_contain_text("Tecka challenges Mimi to a duel: open it")
    problems += check_page(otto, "flow-challenge-toast", [])
    o.locator("#toast a").click()
    expect(o).to_have_url(f"{base}{table}/encounters/{duel}")
    # The narrator calls it off: both cats can still fight, so a rematch is offered beside the way back.
    r = httpx2.post(
        f"{base}/api/campaigns/{cid}/actions",
        headers=who["nora"],
        json={
            "system": "catfight",
            "action": "call_off",
            "character_id": None,
            "params": {"encounter_id": duel, "version": 1},
        },
    )
    assert r.status_code == 201, r.text
    expect(o.locator("#catfight-next")).to_be_visible()
    expect(o.locator("#catfight-rematch button")).to_contain_text("Rematch: Mimi against Tecka")
    expect(o.locator(".catfight-recent li").first).to_contain_text("Tecka challenges Mimi to a duel.")
    problems += check_page(otto, "flow-duel-finished", ["#catfight-rematch button", "#catfight-next a.button"])
    o.locator("#catfight-rematch button").click()
    expect(o.locator("#encounter a.big-link", has_text="Open the duel")).to_be_visible()

    # 14: a tied versus action in a Rabbits fight: Clover attacks, Hazel defends, one success each.
    setup = _act(
        base,
        cid,
        who["nora"],
        "rabbits",
        "conflict_setup",
        None,
        conflict="fight",
        a_members=[ids["Clover"]],
        a_goal="Keep the burrow",
        b_members=[ids["Hazel"]],
        b_goal="Take the field",
    )
    conflict = setup["request"]["encounter_id"]
    version = 1

    def step(who_: str, action: str, character: str, rolled: list[int], **params: Any) -> None:
        nonlocal version
        faces.write_text(json.dumps(rolled))
        _act(base, cid, who[who_], "rabbits", action, ids[character], encounter_id=conflict, version=version, **params)
        version += 1

    step("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    step("otto", "conflict_disposition", "Hazel", [5, 4, 1], base="health")
    script = {f"{k}_{n}": v for n in (1, 2, 3) for k, v in (("action", "attack"),)}
    step(
        "pia", "conflict_script", "Clover", [], lock=True, **script, **{f"member_{n}": ids["Clover"] for n in (1, 2, 3)}
    )
    step(
        "otto",
        "conflict_script",
        "Hazel",
        [],
        lock=True,
        action_1="defend",
        action_2="attack",
        action_3="attack",
        **{f"member_{n}": ids["Hazel"] for n in (1, 2, 3)},
    )
    step("pia", "conflict_roll", "Clover", [5, 1, 1])
    step("otto", "conflict_roll", "Hazel", [5, 1, 1])
    p.goto(f"{base}{table}/encounters/{conflict}")
    expect(p.locator("#rc-tie")).to_contain_text("A tie (ruling 12)")
    expect(p.locator("#rc-tie-concede-a")).to_be_visible()
    problems += check_page(pia, "flow-rabbits-tie", ["#rc-tie-concede-a", "#rc-tie-keep-a"])
    expect(p.locator("#rc-tie")).to_contain_text("Waiting for Hazel")
    expect(p.locator("#rc-tie")).not_to_contain_text("Waiting for Clover")  # Pia's own side is a form
    p.locator("#rc-tie-keep-a").click()
    expect(p.locator("#rc-tie-keep-a")).to_have_count(0)
    _act(
        base,
        cid,
        who["otto"],
        "rabbits",
        "conflict_tie",
        ids["Hazel"],
        encounter_id=conflict,
        version=version + 1,
        choice="keep",
    )
    expect(p.locator("#rc-tie-roll")).to_contain_text("Roll the tiebreaker: Health")
    problems += check_page(pia, "flow-rabbits-tiebreak", ["#rc-tie-roll"])
    faces.write_text(json.dumps([5, 5, 1, 1, 5, 1, 1]))  # Health 4 against Health 3: 2 to 1
    p.locator("#rc-tie-roll").click()
    expect(p.locator("#rc-dispo-b")).to_have_text("4")
    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], tabs.csp_violations()
    assert tabs.errors() == [], tabs.errors()
