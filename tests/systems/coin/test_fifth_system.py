"""The proof of issue 23: a fifth rule system is one folder and one registry line (docs/ARCHITECTURE.md, "Adding a
rule system"). Coins (tests/systems/coin/folder/coin/, a coin flip) was written from that list alone: its rules/,
glue, templates/ and static/ in one folder, its leak cases beside this test. The fixture puts the folder where
app/systems/coin would be (on the app.systems package's path) and adds the registry line (app.systems.register,
what a line in MODULES does); nothing else in the app changes. Then every page and route of a system is walked
with it: creation, sheet, action, odds, the system page, the campaign and narrator pages (its group call), the log
line's marks, its stylesheet, the API and the leak test — and (issue 38) an encounter kind with teams, whose team
talk needs no core change."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.dice import scripted
from utils.prompts import open_prompts
from utils.tables import Table
from utils.web import signed_in

import app.systems
from app.rolls.faces import entry_faces, entry_marks
from app.systems import FOLDERS, MODULES, SYSTEMS, RuleSystem, register, unregister

FOLDER = Path(__file__).resolve().parent / "folder"
TESTS = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def coin() -> Iterator[RuleSystem]:
    app.systems.__path__.append(str(FOLDER))  # the folder, where app/systems/coin would be
    system = register("app.systems.coin")  # the registry line
    try:
        yield system
    finally:
        unregister("coin")
        app.systems.__path__.remove(str(FOLDER))
        for name in [m for m in sys.modules if m == "app.systems.coin" or m.startswith("app.systems.coin.")]:
            del sys.modules[name]


def test_the_registry_line_is_the_only_core_change(coin: RuleSystem) -> None:
    """Registering is what one more line in MODULES does; the folder is found from the package itself."""
    assert "app.systems.coin" not in MODULES  # a throwaway: registered by this test only
    assert SYSTEMS["coin"] is coin and FOLDERS["coin"] == FOLDER / "coin"
    rules = FOLDER / "coin" / "rules"
    paths = sorted(rules.rglob("*.py"))
    assert paths, f"no rules in {rules}"
    for path in paths:  # its rules import nothing of the app but the shared rules
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert all(not m.startswith("app.") or m.startswith("app.rules.") for m in names), (path, names)


def _campaign(client: TestClient, new_client: Callable[[], TestClient]) -> tuple[Table, TestClient, TestClient]:
    t = Table(client, systems=("coin",))
    nora, pia = signed_in(new_client, "nora"), signed_in(new_client, "pia")
    return t, nora, pia


def test_every_page_and_route_works_with_the_fifth_system(
    coin: RuleSystem, client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t, nora, pia = _campaign(client, new_client)
    base = f"/campaigns/{t.id}"
    # The new campaign form offers it; the campaign page links its stylesheet, served from its static/.
    assert 'value="coin"' in nora.get("/campaigns").text
    page = nora.get(base)
    assert page.status_code == 200 and 'href="/static/systems/coin/coin.css"' in page.text
    css = client.get("/static/systems/coin/coin.css")
    assert css.status_code == 200 and ".coin-number" in css.text and css.headers["content-type"].startswith("text/css")
    # A campaign without it does not link it.
    other = Table(client, suffix="2")
    assert "coin.css" not in signed_in(new_client, "nora2").get(f"/campaigns/{other.id}").text
    # Creation page and form (its own create.html), then the sheet (its own sheet.html).
    assert pia.get(f"{base}/characters/new/coin").status_code == 200
    r = pia.post(f"{base}/characters/new/coin", data={"name": "Penny"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    sheet_url = r.headers["location"]
    sheet = pia.get(sheet_url)
    assert sheet.status_code == 200 and "coin-luck" in sheet.text and "/act/flip" in sheet.text
    assert "coin.css" in sheet.text
    # The odds before flipping: exact (3 coins, 2 heads: 1/2).
    odds = pia.get(f"{sheet_url}/odds/flip", params={"coins": "3", "needed": "2"})
    assert odds.status_code == 200 and "50" in odds.text
    # The action through the sheet's form: the rules service rolls, logs and changes the sheet.
    with scripted([2, 2, 1]):
        r = pia.post(f"{sheet_url}/act/flip", data={"coins": "3", "needed": "2"}, headers={"HX-Request": "true"})
    assert r.status_code == 200, r.text
    entry = t.log(t.narrator)[-1]
    assert entry["system"] == "coin" and entry["outcome"]["heads"] == 2
    assert re.search(r'class="coin-number">1<', pia.get(sheet_url).text)  # a success adds luck
    # The log line's faces and marks come from its declared die marks: heads are successes.
    body = {"dice": entry["dice"], "outcome": entry["outcome"]}
    assert [f["marks"] for f in entry_faces(body, "coin")] == [["success"], ["success"], []]
    assert entry_marks(body, "coin") == []
    log_page = nora.get(f"{base}/log", params={"before": entry["seq"] + 1})
    assert log_page.status_code == 200 and "Penny" in log_page.text
    # Bad input: a 4xx in words, nothing written.
    before = len(t.log(t.narrator))
    r = pia.post(f"{sheet_url}/act/flip", data={"coins": "99"}, headers={"HX-Request": "true"})
    assert r.status_code == 422 and len(t.log(t.narrator)) == before
    # The system page (generic when it has no campaign.html) and the help page list it.
    assert nora.get(f"{base}/systems/coin").status_code == 404  # it has no campaign.html: "no page of its own"
    assert "Coins" in nora.get("/help").text


def test_the_narrator_screen_calls_the_fifth_systems_roll_for_several(
    coin: RuleSystem, app: Any, client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t, nora, pia = _campaign(client, new_client)
    base = f"/campaigns/{t.id}"
    ids = [t.character(t.player, "Penny", system="coin"), t.character(t.other, "Nick", system="coin")]
    screen = nora.get(f"{base}/narrator")
    assert screen.status_code == 200
    assert 'value="coin:flip"' in screen.text and 'name="locked.coin.coins"' in screen.text
    assert re.search(r'<fieldset class="group-kind" data-call-kind="coin">', screen.text)
    r = nora.post(
        f"{base}/prompts/group",
        data={"call": "coin:flip", "character_id": [str(i) for i in ids], "locked.coin.coins": "4"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    found = [p for p in open_prompts(app, t.id) if p["system"] == "coin"]
    assert sorted(p["character_id"] for p in found) == sorted(ids)
    assert [(p["action"], p["locked"]) for p in found] == [("flip", {"coins": "4"})] * 2  # as the form sent it
    # The player sees the prompt on the coin sheet.
    assert f'id="prompt-{found[0]["id"]}"' in pia.get(f"{base}/characters/{ids[0]}").text


def test_an_encounter_kind_with_teams_gets_team_talk_without_a_core_change(
    coin: RuleSystem, client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    """Coins' toss-up (toss.py) declares its kind with teams (app/systems/kinds.py) and nothing else: the composer
    offers the team, team talk is read by exactly the team's players, the encounter page shows the team's talk, and
    the team's name is the one the kind declared."""
    t, nora, pia = _campaign(client, new_client)
    penny, nick = t.character(t.player, "Penny", system="coin"), t.character(t.other, "Nick", system="coin")
    r = client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=t.narrator,
        json={"system": "coin", "action": "toss", "params": {"heads": [penny], "tails": [nick]}},
    )
    assert r.status_code == 201, r.text
    eid = r.json()["request"]["encounter_id"]
    assert coin.kind("toss").teams is not None
    # The composer on the campaign page offers Pia her team in the toss-up.
    assert f'value="team:{eid}"' in pia.get(f"/campaigns/{t.id}").text
    url = f"/api/campaigns/{t.id}/messages"
    r = client.post(url, json={"text": "call heads", "visibility": "team", "encounter_id": eid}, headers=t.player)
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["team"] == {"encounter_id": eid, "key": "heads", "name": "Heads"}
    # The narrator runs no team here: refused, nothing written.
    r = client.post(url, json={"text": "x", "visibility": "team", "encounter_id": eid}, headers=t.narrator)
    assert r.status_code == 422 and r.json()["field"] == "encounter_id"
    for who, reads in ((t.player, True), (t.other, False), (t.narrator, False)):
        entry = t.log(who)[-1]
        assert entry["visibility"] == "team" and (entry["outcome"] is not None) == reads
        assert ("call heads" in str(entry)) == reads
    # The encounter page (its own template) shows the team's talk to the team, only that a team talked to others.
    page = f"/campaigns/{t.id}/encounters/{eid}"
    mine = pia.get(page)
    assert mine.status_code == 200 and 'id="team-talk"' in mine.text and "call heads" in mine.text
    theirs = signed_in(new_client, "otto").get(page)
    assert theirs.status_code == 200 and 'id="team-talk"' in theirs.text and "call heads" not in theirs.text
    assert "call heads" not in nora.get(page).text
    # The toss decided, the team is gone with the encounter: no more team talk there.
    r = client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=t.narrator,
        json={"system": "coin", "action": "decide", "params": {"encounter_id": eid, "version": 1}},
    )
    assert r.status_code == 201, r.text
    assert f'value="team:{eid}"' not in pia.get(f"/campaigns/{t.id}").text


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _leak_module() -> ModuleType:
    """The leak test, loaded again now that Coins is registered: its cases come from every registered system. Its
    machinery (utils/leak_world.py, which gathers the cases when imported) is loaded afresh for it alone, so the
    copy the rest of the run imported, without Coins, stays as it was."""
    shared = sys.modules.get("utils.leak_world")
    try:
        _load("utils.leak_world", TESTS / "utils" / "leak_world.py")
        return _load("leak_test_with_coin", TESTS / "security" / "test_hidden_results.py")
    finally:
        if shared is not None:
            sys.modules["utils.leak_world"] = shared
        else:
            del sys.modules["utils.leak_world"]


@pytest.mark.parametrize("visibility", ("blind", "narrator"))
def test_the_leak_test_covers_the_fifth_system(
    coin: RuleSystem, visibility: str, database_url: str, tmp_path: Path
) -> None:
    leak: Any = _leak_module()
    case = next(c for c in leak.CASES if c.system == "coin")
    worlds: list[Any] = []
    try:
        leak.test_a_hidden_result_reaches_no_one_who_may_not_see_it(case, visibility, database_url, tmp_path, worlds)
    finally:
        for world in worlds:
            world.close()
