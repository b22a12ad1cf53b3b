"""More than two teams (issue 13: "two or more teams"; rabbits.en.md, step 10: "continue until every team on one
side is at 0"): two sides (A, C, E against B, D, F), each front two opposing teams resolved as a two-team
exchange, a front ending when one of its teams is at 0, a team without an opponent facing the opposing team with
the most disposition, the end when a whole side is at 0, and ruling 6 for each winning team."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from utils.rabbits_conflict import HAZEL, Conflict, warren
from utils.said import said
from utils.web import form_post, signed_in

from app.errors import BadRequest, Forbidden
from app.rolls import chain
from app.systems import EncounterViewer, get_system


@pytest.fixture
def conflict(app: Any) -> Conflict:
    table = warren(app, fox=True)
    table.rabbit("pia", "Bramble", {**HAZEL, "skills": {"Fighter": 6}})
    return table


def _setup(conflict: Conflict, **teams: Any) -> None:
    extra: dict[str, Any] = {}
    for key, (name, members, narrator) in teams.items():
        extra.update(
            {
                f"{key}_name": name,
                f"{key}_goal": f"{name} wins",
                f"{key}_narrator": narrator,
                f"{key}_members": [conflict.ids[m] for m in members],
            }
        )
    conflict.setup("fight", **extra)


def test_two_fronts_until_a_whole_side_is_at_0(conflict: Conflict) -> None:
    _setup(conflict, c=("Brambles", ("Bramble",), False), d=("Foxes", ("Fox",), True))
    state = conflict.state()
    assert state["fronts"] == [["a", "b"], ["c", "d"]] and list(state["teams"]) == ["a", "b", "c", "d"]
    assert said(conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health").body)
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")  # 5
    conflict.act("pia", "conflict_disposition", "Bramble", [1, 1, 1, 1, 1, 1], base="health")  # 3
    assert conflict.state()["phase"] == "disposition"
    conflict.act("nora", "conflict_disposition", "Fox", [1, 1, 1, 1], base="health")  # 5
    assert conflict.state()["phase"] == "script"
    conflict.script("pia", "Clover", ["attack"] * 3, ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack"] * 3, ["Hazel"] * 3)
    conflict.script("pia", "Bramble", ["attack"] * 3, ["Bramble"] * 3)
    entry = conflict.script("nora", "Fox", ["attack"] * 3, ["Fox"] * 3)
    assert sorted(o["team"] for o in entry.body["outcome"]["openings"]) == ["a", "b", "c", "d"]
    current = conflict.state()["current"]
    assert current["teams"] == ["a", "b"] and current["more"][0]["teams"] == ["c", "d"]
    conflict.act("pia", "conflict_roll", "Bramble", [5] * 6)  # Foxes 5 − 6 → 0
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # Raiders 5 − 3 → 2
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    assert conflict.state()["index"] == 0  # the second front has not finished its exchange
    entry = conflict.act("nora", "conflict_roll", "Fox", [1, 1, 1, 1])
    state = conflict.state()
    assert state["teams"]["d"]["disposition"] == 0 and state["phase"] == "resolve" and state["index"] == 1
    assert state["fronts"] == [["a", "b"]] and "more" not in state["current"]
    assert "Foxes is at 0 and out of the conflict." in said(entry.body)
    # The front's unplayed actions (both its teams') are opened at once: every commitment will check.
    assert sorted((o["team"], o["index"]) for o in entry.body["outcome"]["openings"]) == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("c", 2),
        ("d", 1),
        ("d", 2),
    ]
    with pytest.raises(BadRequest, match="no opponent this volley"):
        conflict.act("pia", "conflict_roll", "Bramble", [5] * 6)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # Raiders 2 − 3 → 0: the whole side is at 0
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    state = conflict.state()
    assert state["phase"] == "end"
    assert state["result"]["winner"] == "a" and state["result"]["winners"] == ["a", "c"]
    assert state["result"]["owed"] == {
        "a": {"start": 7, "remaining": 7, "ruling": "none"},
        "c": {"start": 3, "remaining": 3, "ruling": "none"},
    }
    entry = conflict.act(
        "nora", "conflict_end", None, words="The field is ours", conditions=[f"{conflict.ids['Fox']}:injured"]
    )
    assert "Warren owes none" in said(entry.body) and "Brambles owes none" in said(entry.body)
    assert conflict.sheet("Fox")["conditions"] == ["injured"]
    checked = chain.verify_entries(conflict.export())
    assert checked.ok and checked.commitments_checked == 12, checked.problems


def test_a_team_without_an_opponent_faces_the_opposing_team_with_the_most_disposition(conflict: Conflict) -> None:
    _setup(conflict, c=("Brambles", ("Bramble",), False))  # A and C against B alone
    assert conflict.state()["fronts"] == [["a", "b"]]
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    conflict.act("pia", "conflict_disposition", "Bramble", [1] * 6, base="health")
    entry = conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    state = conflict.state()
    assert state["fronts"] == [["a", "b"], ["c", "b"]]
    assert said(entry.body).endswith("; Brambles now faces Raiders.")
    conflict.script("pia", "Clover", ["attack"] * 3, ["Clover"] * 3)
    conflict.script("pia", "Bramble", ["attack"] * 3, ["Bramble"] * 3)
    conflict.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    # Raiders meet both with the same action and roll it in each exchange.
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1, 1], front=1)
    with pytest.raises(BadRequest, match="has been rolled"):
        conflict.act("otto", "conflict_roll", "Hazel", [], front=1)
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1, 1])  # the other exchange
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # versus 3 to 0: Raiders 5 − 3 → 2
    conflict.act("pia", "conflict_roll", "Bramble", [5, 5, 1, 1, 1, 1])  # versus 2 to 0: Raiders 2 − 2 → 0
    state = conflict.state()
    assert state["phase"] == "end" and state["result"]["winners"] == ["a", "c"]
    checked = chain.verify_entries(conflict.export())
    assert checked.ok and checked.commitments_checked == 9, checked.problems


def test_a_third_teams_script_is_its_own(conflict: Conflict) -> None:
    _setup(conflict, c=("Brambles", ("Bramble",), False), d=("Foxes", ("Fox",), True))
    for who, name, faces in (
        ("pia", "Clover", [5, 5, 4]),
        ("otto", "Hazel", [5, 4]),
        ("pia", "Bramble", [1] * 6),
        ("nora", "Fox", [1] * 4),
    ):
        conflict.act(who, "conflict_disposition", name, faces, base="health")
    conflict.script("nora", "Fox", ["maneuver", "attack", "defend"], ["Fox"] * 3)
    conflict.script("pia", "Bramble", ["feint", "attack", "defend"], ["Bramble"] * 3)
    view = get_system("rabbits").kind("conflict").shown
    state = conflict.state()
    otto = view(state, EncounterViewer(False, frozenset({conflict.ids["Hazel"]})))
    nora = view(state, EncounterViewer(True, frozenset(conflict.ids.values())))
    pia = view(state, EncounterViewer(False, frozenset({conflict.ids["Clover"], conflict.ids["Bramble"]})))
    assert otto["teams"]["c"]["script"] is None and otto["teams"]["d"]["script"] is None
    assert nora["teams"]["c"]["script"] is None and nora["teams"]["d"]["script"][0]["action"] == "maneuver"
    assert pia["teams"]["c"]["script"][0]["action"] == "feint" and pia["teams"]["d"]["script"] is None
    assert "feint" not in json.dumps([e["body"] for e in conflict.export()])


def test_the_set_up_checks_every_team(conflict: Conflict) -> None:
    with pytest.raises(BadRequest, match="one team only") as refused:
        _setup(conflict, c=("Brambles", ("Clover",), False))
    assert refused.value.field == "c_members"
    with pytest.raises(BadRequest, match="Team D: choose its rabbits") as refused:
        conflict.setup("fight", d_goal="Something")
    assert refused.value.field == "d_members"


def test_the_pages_show_every_team_and_front(conflict: Conflict, new_client: Any) -> None:
    nora = signed_in(new_client, "nora")
    system = nora.get(f"/campaigns/{conflict.campaign_id}/systems/rabbits").text
    assert 'id="cs-d-goal"' in system and 'name="f_members"' in system
    r = form_post(
        nora,
        f"/campaigns/{conflict.campaign_id}/systems/rabbits/act/conflict_setup",
        {
            "conflict": "fight",
            "a_name": "Warren",
            "a_goal": "Keep it",
            "a_members": str(conflict.ids["Clover"]),
            "b_name": "Raiders",
            "b_goal": "Take it",
            "b_members": str(conflict.ids["Hazel"]),
            "c_name": "Brambles",
            "c_goal": "Help",
            "c_members": str(conflict.ids["Bramble"]),
            "d_name": "Foxes",
            "d_goal": "Eat",
            "d_members": str(conflict.ids["Fox"]),
            "d_narrator": "true",
        },
    )
    assert r.status_code == 200, r.text[:500]
    conflict.encounter_id = int(r.text.split('id="open-conflict" href="')[1].split('"')[0].rsplit("/", 1)[1])
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    text = html.unescape(nora.get(url).text)
    assert "<h1>Fight: Warren &amp; Brambles vs Raiders &amp; Foxes</h1>" in nora.get(url).text
    for key in "abcd":
        assert f'id="rc-team-{key}"' in text
    assert "faces Foxes" in text and 'id="rc-dispo-form-d"' in text and 'id="rc-dispo-form-c"' not in text
    for who, name, faces in (
        ("pia", "Clover", [5, 5, 4]),
        ("otto", "Hazel", [5, 4]),
        ("pia", "Bramble", [1] * 6),
        ("nora", "Fox", [1] * 4),
    ):
        conflict.act(who, "conflict_disposition", name, faces, base="health")
    pia = signed_in(new_client, "pia")
    text = pia.get(url).text
    assert 'id="rc-script-a"' in text and 'id="rc-script-c"' in text and 'id="rc-script-b"' not in text
    assert 'id="rc-pair"' not in text and 'id="rc-pair"' in nora.get(url).text
    r = form_post(
        nora, f"{url}/act/conflict_pair", {"version": str(conflict.encounter().version), "team": "a", "opponent": "c"}
    )
    assert r.status_code == 422 and 'id="rc-pair-error"' in r.text and 'id="conflict-error"' not in r.text
    conflict.script("pia", "Clover", ["attack"] * 3, ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack"] * 3, ["Hazel"] * 3)
    conflict.script("pia", "Bramble", ["attack"] * 3, ["Bramble"] * 3)
    conflict.script("nora", "Fox", ["attack"] * 3, ["Fox"] * 3)
    text = pia.get(url).text
    assert 'id="rc-front-0"' in text and 'id="rc-front-1"' in text
    assert 'id="rc-roll-a"' in text and 'id="rc-roll-c-1"' in text and 'name="front" value="1"' in text
    r = form_post(
        pia,
        f"{url}/act/conflict_roll",
        {
            "character_id": str(conflict.ids["Bramble"]),
            "front": "1",
            "version": str(conflict.encounter().version),
            "skill": "Fighter",
        },
    )
    assert r.status_code == 200, r.text[:500]
    assert "c" in conflict.state()["current"]["more"][0]["rolls"]


def test_the_narrator_pairs_the_teams_before_the_volley_is_locked(conflict: Conflict) -> None:
    _setup(conflict, c=("Brambles", ("Bramble",), False), d=("Foxes", ("Fox",), True))
    for who, name, faces in (
        ("pia", "Clover", [5, 5, 4]),
        ("otto", "Hazel", [5, 4]),
        ("pia", "Bramble", [1] * 6),
        ("nora", "Fox", [1] * 4),
    ):
        conflict.act(who, "conflict_disposition", name, faces, base="health")
    with pytest.raises(Forbidden):
        conflict.act("pia", "conflict_pair", None, team="a", opponent="d")
    with pytest.raises(BadRequest, match="opposing team") as refused:
        conflict.act("nora", "conflict_pair", None, team="a", opponent="c")
    assert refused.value.field == "opponent"
    entry = conflict.act("nora", "conflict_pair", None, team="a", opponent="d")
    assert said(entry.body).startswith("Warren now faces Foxes (the narrator's call).")
    # Raiders and Brambles, left alone, meet each other (the opposing team with the most disposition).
    assert conflict.state()["fronts"] == [["a", "d"], ["c", "b"]]
    conflict.script("pia", "Clover", ["attack"] * 3, ["Clover"] * 3)
    with pytest.raises(BadRequest, match="before any team locks"):
        conflict.act("nora", "conflict_pair", None, team="a", opponent="b")
