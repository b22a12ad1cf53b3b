"""The log people can use (issue 14): faces in every line with dropped dice and criticals marked, named pool
parts, full dates, filters by character, player, session and system (which tell nobody more than the
unfiltered log), and the narrator screen, landing page and dice-box warning around it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient
from utils.prompts import open_prompts
from utils.sheets import CASES
from utils.tables import Table
from utils.web import signed_in

from app.rolls.faces import entry_faces
from app.systems import ROLLER, SYSTEMS


def test_faces_carry_their_marks() -> None:
    """The dice roller's marks (dropped dice, criticals); each system's own marks are tested in its folder
    (tests/systems/<id>/test_<id>_log_faces.py)."""
    dice = {
        "dice": [{"sides": 6, "face": f} for f in (1, 2, 6, 1)],
        "outcome": {"total": 9, "detail": "4d6kh3 [1, 2, 6, 1\u0336] = 9"},
    }
    assert [f["marks"] for f in entry_faces(dice, ROLLER)] == [[], [], [], ["dropped"]]
    d20 = {"dice": [{"sides": 20, "face": 20}, {"sides": 20, "face": 1}], "outcome": {"detail": "2d20 [20, 1] = 21"}}
    assert [f["marks"] for f in entry_faces(d20, ROLLER)] == [["critical"], ["fumble"]]
    assert entry_faces({"summary": "started the session"}, "table") == []


def test_log_lines_show_faces_and_full_dates(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    assert t.roll(t.player, "4d6kh3").status_code == 201
    page = signed_in(new_client, "pia").get(f"/campaigns/{t.id}").text
    line = page[page.index('id="entry-1"') :]
    assert line.count('class="die') >= 4 and "die-dropped" in line
    # The full date on hover/tap, in the reader's format (Babel): "Nov 23, 2026 8:40 AM UTC".
    assert re.search(
        r'<time datetime="[^"]+" title="[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}\s?[AP]M UTC">'
        r"\d{1,2}:\d{2}\s?[AP]M</time>",
        line,
    )


def test_hidden_entries_show_no_faces(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    assert t.roll(t.narrator, "3d6", visibility="narrator").status_code == 201
    page = signed_in(new_client, "pia").get(f"/campaigns/{t.id}").text
    line = page[page.index('id="entry-1"') : page.index("</li>", page.index('id="entry-1"'))]
    assert "nora rolled in secret" in line and 'class="die' not in line


def test_the_log_filters(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    for who, char in ((t.player, t.pia_char), (t.other, t.otto_char), (t.player, None)):
        assert t.roll(who, "1d6", **({"character_id": char} if char else {})).status_code == 201
    nora = signed_in(new_client, "nora")

    def seqs(**query: object) -> list[int]:
        r = nora.get(f"/campaigns/{t.id}", params=query)
        assert r.status_code == 200, r.text
        log = r.text[r.text.index('id="log-entries"') :]
        return [int(s) for s in re.findall(r'<li id="entry-(\d+)"', log)]

    assert seqs() == [1, 2, 3]
    assert seqs(character=t.pia_char) == [1]
    members = client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]
    pia_id = next(m["id"] for m in members if m["username"] == "pia")
    assert seqs(player=pia_id) == [1, 3]
    other = next(sid for sid in SYSTEMS if sid != ROLLER)  # a system the table does not use
    assert seqs(system=ROLLER) == [1, 2, 3] and seqs(system=other) == []
    assert nora.get(f"/campaigns/{t.id}", params={"character": "x"}).status_code == 422
    # The filter form sends every field, the ones left at "all" empty.
    assert seqs(character=t.pia_char, player="", session="", system="") == [1]
    # Paging keeps the filter.
    r = nora.get(f"/campaigns/{t.id}/log", params={"before": 3, "player": pia_id})
    assert r.status_code == 200 and re.findall(r'<li id="entry-(\d+)"', r.text) == ["1"]
    r = nora.get(f"/campaigns/{t.id}/log", params={"before": 3, "player": pia_id, "session": "", "character": ""})
    assert r.status_code == 200 and re.findall(r'<li id="entry-(\d+)"', r.text) == ["1"]


def test_the_narrator_screen_and_a_call_to_several(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    nora, pia = signed_in(new_client, "nora"), signed_in(new_client, "pia")
    page = nora.get(f"/campaigns/{t.id}/narrator")
    assert page.status_code == 200 and "Pia&#39;s hero" in page.text and "Otto&#39;s hero" in page.text
    assert pia.get(f"/campaigns/{t.id}/narrator").status_code == 403
    r = nora.post(
        f"/campaigns/{t.id}/prompts/group",
        data={"character_id": [str(t.pia_char), str(t.otto_char)], "expression": "1d20", "visibility": "public"},
    )
    assert r.status_code == 200 and "Called for" in r.text
    assert r.text.count("data-prompt-id") == 2
    # Refused as a whole: a bad expression creates no prompt at all.
    r = nora.post(f"/campaigns/{t.id}/prompts/group", data={"character_id": [str(t.pia_char)], "expression": "2d"})
    assert r.status_code == 422 and r.text.count("data-prompt-id") == 2
    r = nora.post(f"/campaigns/{t.id}/prompts/group", data={"expression": "1d6"})
    assert r.status_code == 422 and "tick one character or more" in r.text
    assert pia.post(f"/campaigns/{t.id}/prompts/group", data={"character_id": [str(t.pia_char)]}).status_code == 403


def _group_cases() -> dict[str, tuple[dict[str, Any], str, dict[str, Any]]]:
    """Every registered system whose group call is the roll its sheet case calls for (tests/systems/<id>/
    sheet_case.py): its new sheet, the action and the locked params."""
    found = {}
    for sid, system in SYSTEMS.items():
        case = CASES.get(sid)
        if sid != ROLLER and case is not None and any(g.action == case[1] for g in system.group_calls):
            found[sid] = case
    return found


def test_the_narrator_screen_calls_any_systems_roll_for_several(
    app: Any, client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    group = _group_cases()
    assert len(group) >= 2, "two systems at least, for the mixed tick list"
    t = Table(client, systems=(ROLLER, *group))
    made: dict[str, list[int]] = {}
    for system, (sheet, _action, _locked) in group.items():
        for who, name in ((t.player, f"{system} one"), (t.other, f"{system} two")):
            made.setdefault(system, []).append(t.character(who, name, system, sheet))
    nora = signed_in(new_client, "nora")
    page = nora.get(f"/campaigns/{t.id}/narrator").text
    for sid in (ROLLER, *group):
        for call in SYSTEMS[sid].group_calls:
            assert f'name="call" value="{sid}:{call.action}"' in page
    for system, (_sheet, action, params) in group.items():
        data: dict[str, object] = {
            "character_id": [str(c) for c in made[system]],
            "call": f"{system}:{action}",
            "visibility": "public",
            "note": "all of you",
            **{f"locked.{system}.{k}": v for k, v in params.items()},
            # another system's fields in the same form are ignored
            "locked.other.trait": "x",
            "expression": "1d6",
        }
        r = nora.post(f"/campaigns/{t.id}/prompts/group", data=data)
        assert r.status_code == 200, r.text
        assert f"Called for: {system} one, {system} two" in r.text
        prompts = [p for p in open_prompts(app, t.id) if p["system"] == system]
        assert sorted(p["character_id"] for p in prompts) == sorted(made[system])
        for p in prompts:
            assert p["action"] == action and p["note"] == "all of you"
            assert {k: str(v) for k, v in p["locked"].items()} == params
        # Each player sees it on their sheet, values locked, ready to answer.
        sheet = signed_in(new_client, "pia").get(f"/campaigns/{t.id}/characters/{made[system][0]}").text
        assert f'id="prompt-{prompts[0]["id"]}"' in sheet
    # A mixed tick list is refused as a whole: nothing is made.
    before = len(open_prompts(app, t.id))
    first, second = list(group)[:2]
    _sheet, action, params = group[first]
    r = nora.post(
        f"/campaigns/{t.id}/prompts/group",
        data={
            "character_id": [str(made[first][0]), str(made[second][0])],
            "call": f"{first}:{action}",
            **{f"locked.{first}.{k}": v for k, v in params.items()},
        },
    )
    assert r.status_code == 422 and f"Not a {SYSTEMS[first].name} character: {second} one." in r.text
    r = nora.post(
        f"/campaigns/{t.id}/prompts/group",
        data={"character_id": [str(made[first][0])], "call": f"{first}:no_such_roll"},
    )
    assert r.status_code == 422 and '<p class="error" role="alert">' in r.text
    assert len(open_prompts(app, t.id)) == before
    # The tick list is a live panel of its own (it sits outside #screen-live).
    assert re.search(
        r'<fieldset id="group-call-who" data-live="characters" data-live-url="[^"]+/panels/call_who">', page
    )


def test_first_contact(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    landing = new_client().get("/", follow_redirects=False)
    assert landing.status_code == 200 and "role-playing" in landing.text
    assert 'href="/signup"' in landing.text and 'href="/signin"' in landing.text
    assert "http://" not in landing.text.replace("http://testserver", "") and "https://" not in landing.text
    t = Table(client)
    assert t.roll(t.player, "6d6>=7").status_code == 201  # allowed, but the dice box warns before rolling
    pia = signed_in(new_client, "pia")
    assert "can never succeed" in pia.get(f"/campaigns/{t.id}/odds", params={"expression": "6d6>=7"}).text
    assert "can never succeed" not in pia.get(f"/campaigns/{t.id}/odds", params={"expression": "6d6>=6"}).text
    r = pia.post(f"/campaigns/{t.id}/roll", data={"expression": "2d"})
    assert r.status_code == 422 and r.text.count('class="error') == 1
    assert "load" not in re.search(r'hx-trigger="([^"]*)"', r.text[r.text.index('id="expression"') :]).group(1)
