"""Rabbit conflicts through the rules service with scripted dice: set-up, disposition (ruling 7), scripts and
their commitments (rulings 8, 9), every pair of actions meeting (the interaction table, ruling 4), maneuvers,
the end (rulings 5, 6) and the conditions it brings. rabbits.en.md, "Conflicts"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from utils.rabbits_conflict import HAZEL, Conflict, warren
from utils.said import said

from app.errors import BadRequest, Forbidden
from app.errors import Conflict as AppConflict
from app.i18n import render
from app.rolls import chain
from app.rules import commitment
from app.systems import EncounterViewer, get_system

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def english(lines: list[list[object]]) -> list[list[object]]:
    """A stored pool breakdown (language-neutral labels) as English text."""
    return [[render(label, "en"), dice] for label, dice in lines]


@pytest.fixture
def conflict(app: Any) -> Conflict:
    return warren(app, fox=True)


def dispositions(table: Conflict) -> tuple[int, int]:
    teams = table.state()["teams"]
    return teams["a"]["disposition"], teams["b"]["disposition"]


def start_fight(table: Conflict) -> None:
    """A fight, Clover (team A) against Hazel (team B): Clover 3 + Health 4 = 7, Hazel 2 + Health 3 = 5."""
    table.setup("fight")
    table.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    table.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    assert dispositions(table) == (7, 5)
    assert table.state()["phase"] == "script"


def test_disposition_is_the_captains_roll_with_help_and_every_unique_penalty(conflict: Conflict) -> None:
    """Ruling 7: one roll by the captain, +1D per able teammate; Afraid −1 once; an Afraid teammate cannot help
    (ruling 3); at least 1."""
    conflict.rabbit("pia", "Bramble", {**HAZEL, "skills": {"Fighter": 1}})
    with conflict.factory() as db:  # Bramble is Afraid and Tired
        from app.characters.models import Character

        ch = db.get(Character, conflict.ids["Bramble"])
        ch.sheet = {**ch.sheet, "conditions": ["afraid", "tired"]}
        db.commit()
    conflict.setup("fight", a=("Clover", "Bramble"), b=("Hazel",), a_captain=conflict.ids["Clover"])
    with pytest.raises(BadRequest, match="captain"):
        conflict.act("pia", "conflict_disposition", "Bramble", [1], base="health")
    entry = conflict.act("pia", "conflict_disposition", "Clover", [1, 1, 1], base="health")
    # Fighter 3, no help from Afraid Bramble; 0 successes + Health 4 − Afraid 1 − Tired 1 = 2.
    assert entry.body["outcome"]["disposition"] == 2
    assert entry.body["outcome"]["penalties"] == [["Afraid", -1], ["Tired", -1]]
    assert english(entry.body["outcome"]["breakdown"]) == [["Fighter", 3]]
    team = conflict.state()["teams"]["a"]
    assert team["spread"] == {str(conflict.ids["Clover"]): 1, str(conflict.ids["Bramble"]): 1}
    entry = conflict.act("otto", "conflict_disposition", "Hazel", [1, 1], base="health")
    assert entry.body["outcome"]["disposition"] == 3


def test_disposition_minimum_is_one(conflict: Conflict) -> None:
    with conflict.factory() as db:
        from app.characters.models import Character

        ch = db.get(Character, conflict.ids["Hazel"])
        ch.sheet = {
            **ch.sheet,
            "conditions": ["afraid", "tired", "angry"],
            "abilities": {**ch.sheet["abilities"], "will": {"rating": 1, "passes": 0, "fails": 0}},
        }
        db.commit()
    conflict.setup("argument")
    entry = conflict.act("otto", "conflict_disposition", "Hazel", [1, 1], base="will")
    assert entry.body["outcome"]["disposition"] == 1  # 0 + Will 1 − 3 → 1 (ruling 7)


# What each side rolls: Clover all successes (attack/feint Fighter 3, defend/maneuver Nature 4), Hazel one
# success (Fighter 2 / Nature 3). Starting dispositions 7 and 5. The expected result is worked out by hand from
# rabbits.en.md ("Actions", "Action interactions") and ruling 4: (A after, B after, who rolls, pending maneuvers).
PAIRS: dict[tuple[str, str], tuple[int, int, str, list[tuple[str, int]]]] = {
    ("attack", "attack"): (6, 2, "ab", []),
    ("attack", "defend"): (7, 3, "ab", []),
    ("attack", "feint"): (7, 2, "a", []),
    ("attack", "maneuver"): (7, 3, "ab", []),
    ("defend", "attack"): (7, 5, "ab", []),
    ("defend", "defend"): (7, 5, "ab", []),
    ("defend", "feint"): (6, 5, "b", []),
    ("defend", "maneuver"): (7, 5, "ab", []),
    ("feint", "attack"): (6, 5, "b", []),
    ("feint", "defend"): (7, 2, "a", []),
    ("feint", "feint"): (7, 3, "ab", []),
    ("feint", "maneuver"): (7, 2, "ab", [("b", 1)]),
    ("maneuver", "attack"): (7, 5, "ab", [("a", 3)]),
    ("maneuver", "defend"): (7, 5, "ab", [("a", 3)]),
    ("maneuver", "feint"): (6, 5, "ab", [("a", 4)]),
    ("maneuver", "maneuver"): (7, 5, "ab", [("a", 4), ("b", 1)]),
}
POOLS = {"attack": "Fighter", "defend": "Nature", "feint": "Fighter", "maneuver": "Nature"}


def _faces(who: str, action: str) -> list[int]:
    size = {("a", "Fighter"): 3, ("a", "Nature"): 4, ("b", "Fighter"): 2, ("b", "Nature"): 3}[(who, POOLS[action])]
    return [5] * size if who == "a" else [5] + [1] * (size - 1)


@pytest.mark.parametrize(("a_action", "b_action"), sorted(PAIRS), ids=lambda v: v)
def test_every_pair_of_actions_in_a_scripted_volley(conflict: Conflict, a_action: str, b_action: str) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", [a_action, "attack", "attack"], ["Clover"] * 3)
    entry = conflict.script("otto", "Hazel", [b_action, "attack", "attack"], ["Hazel"] * 3)
    assert [o["value"]["action"] for o in entry.body["outcome"]["openings"]] == [a_action, b_action]
    state = conflict.state()
    sides = state["current"]["sides"]
    a_after, b_after, rollers, pending = PAIRS[(a_action, b_action)]
    assert [k for k in "ab" if sides[k]["tests"]] == list(rollers)
    players = (("a", "Clover", "pia"), ("b", "Hazel", "otto"))
    for who, name, player in players:
        if who not in rollers:
            with pytest.raises(BadRequest, match="does not test"):
                conflict.act(player, "conflict_roll", name, [])
    for who, name, player in players:
        if who in rollers:
            conflict.act(player, "conflict_roll", name, _faces(who, sides[who]["action"]))
    assert dispositions(conflict) == (a_after, b_after)
    state = conflict.state()
    assert [(p["team"], p["margin"]) for p in state["pending"]] == pending
    assert state["phase"] == ("maneuver" if pending else "resolve")
    if not pending:
        assert state["index"] == 1 and state["current"]["sides"]["a"]["action"] == "attack"


def test_a_maneuver_buys_effects_that_change_the_next_pools(conflict: Conflict) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["maneuver", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5, 5])  # 4 vs 1: margin 3
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1])
    with pytest.raises(BadRequest, match="cost 6"):  # margin 3: impede 1 + gain position 2 + disarm 3 > 3
        conflict.act("pia", "conflict_maneuver", "Clover", effects=["impede", "gain_position", "disarm"])
    with pytest.raises(BadRequest, match="maneuvering rabbit"):
        conflict.act("otto", "conflict_maneuver", "Hazel", effects=["impede"])
    conflict.act("pia", "conflict_maneuver", "Clover", effects=["impede", "gain_position"])
    sides = conflict.state()["current"]["sides"]
    assert sides["a"]["mods"] == {"impede": 0, "position": 2} and sides["a"]["dice"] == 5
    assert sides["b"]["mods"] == {"impede": -1, "position": 0} and sides["b"]["dice"] == 1
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5, 1, 1])
    assert english(entry.body["outcome"]["breakdown"]) == [["Fighter", 3], ["Gained position", 2]]
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # a failed die, Fox-wise and Fate: it waits; keep
    entry = conflict.act("otto", "conflict_roll", "Hazel", [1])
    assert english(entry.body["outcome"]["breakdown"]) == [["Fighter", 2], ["Impeded", -1]]
    assert dispositions(conflict) == (7, 2)


def test_scripts_are_checked_locked_and_kept_from_the_narrator(conflict: Conflict) -> None:
    conflict.rabbit("pia", "Bramble", HAZEL)
    conflict.setup("fight", a=("Clover", "Bramble"))
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4, 4], base="health")
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    with pytest.raises(BadRequest, match="ruling 8"):
        conflict.script("pia", "Clover", ["attack", "attack", "defend"], ["Clover"] * 3)
    with pytest.raises(BadRequest, match="players of Warren"):
        conflict.script("nora", "Clover", ["attack", "attack", "defend"], ["Clover", "Bramble", "Clover"])
    with pytest.raises(Forbidden):
        conflict.script("otto", "Clover", ["attack", "attack", "defend"], ["Clover", "Bramble", "Clover"])
    saved = conflict.script("pia", "Clover", ["attack", "feint", "defend"], ["Clover", "Bramble", "Clover"], lock=False)
    assert said(saved.body) == "Warren changed its script."
    locked = conflict.script("pia", "Bramble", ["attack", "feint", "defend"], ["Clover", "Bramble", "Clover"])
    text = json.dumps(locked.body) + json.dumps(saved.body)
    assert "feint" not in text and "defend" not in text  # no choice reaches the log before the reveal
    with pytest.raises(BadRequest, match="cannot change"):
        conflict.script("pia", "Clover", ["defend", "defend", "defend"], ["Clover", "Bramble", "Clover"])
    state = conflict.state()
    system = get_system("rabbits")
    narrator = system.kind("conflict").shown(state, EncounterViewer(True, frozenset(conflict.ids.values())))
    otto = system.kind("conflict").shown(state, EncounterViewer(False, frozenset({conflict.ids["Hazel"]})))
    pia = system.kind("conflict").shown(state, EncounterViewer(False, frozenset({conflict.ids["Clover"]})))
    assert narrator["teams"]["a"]["script"] is None and narrator["teams"]["a"]["salts"] is None
    assert otto["teams"]["a"]["script"] is None and otto["teams"]["a"]["salts"] is None
    assert pia["teams"]["a"]["script"][1] == {"action": "feint", "member": conflict.ids["Bramble"]}
    assert narrator["teams"]["a"]["commitments"] == state["teams"]["a"]["commitments"]


def test_the_narrator_sees_and_scripts_only_the_narrators_team(conflict: Conflict) -> None:
    conflict.setup("fight", b=("Fox",), b_narrator=True)
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    conflict.act("nora", "conflict_disposition", "Fox", [1, 1, 1, 1], base="health")
    conflict.script("nora", "Fox", ["maneuver", "attack", "defend"], ["Fox"] * 3)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3, lock=False)
    view = get_system("rabbits").kind("conflict").shown
    state = conflict.state()
    narrator = view(state, EncounterViewer(True, frozenset(conflict.ids.values())))
    assert narrator["teams"]["b"]["script"][0]["action"] == "maneuver"
    assert narrator["teams"]["a"]["script"] is None
    pia = view(state, EncounterViewer(False, frozenset({conflict.ids["Clover"]})))
    assert pia["teams"]["b"]["script"] is None and pia["teams"]["a"]["script"][0]["action"] == "attack"


def test_a_full_conflict_to_its_compromise_with_every_commitment_checked(conflict: Conflict) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 1])  # 2 vs 1: Hazel −1 → 4
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # a failed die, Fox-wise and Fate: it waits; keep
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1, 1])
    assert dispositions(conflict) == (7, 4)
    assert conflict.sheet("Hazel")["abilities"]["nature"]["rating"] == 2  # Nature lost by 1: taxed 1
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # attack vs attack: Hazel −3 → 1
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1])  # Clover −1 → 6
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # Hazel −3 → 0
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    state = conflict.state()
    assert dispositions(conflict) == (6, 0) and state["phase"] == "end"
    assert state["result"]["owed"] == {"a": {"start": 7, "remaining": 6, "ruling": "minor"}}
    with pytest.raises(Forbidden):
        conflict.act("pia", "conflict_end", None, words="Nothing owed", conditions=[])
    with pytest.raises(BadRequest, match="in words"):
        conflict.act("nora", "conflict_end", None, words=" ")
    entry = conflict.act(
        "nora",
        "conflict_end",
        None,
        words="The raiders leave; the warren is tired",
        level="compromise",
        conditions=[f"{conflict.ids['Hazel']}:injured", f"{conflict.ids['Clover']}:tired"],
    )
    assert "ruling 6 says minor; the narrator's call" in said(entry.body)
    assert conflict.sheet("Hazel")["conditions"] == ["injured"]
    assert conflict.sheet("Clover")["conditions"] == ["tired"]
    assert conflict.encounter().status == "over"
    entries = conflict.export()
    result = chain.verify_entries(entries)
    assert result.ok, result.problems
    assert result.commitments_checked == 6


def test_the_winner_owes_by_ruling_6(conflict: Conflict) -> None:
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [1, 1, 1], base="health")  # 4
    conflict.act("otto", "conflict_disposition", "Hazel", [1, 1], base="health")  # 3
    conflict.script("pia", "Clover", ["attack", "defend", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "defend", "defend"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])  # Hazel 3 − 3 = 0
    entry = conflict.act("otto", "conflict_roll", "Hazel", [5, 5])  # Clover 4 − 2 = 2
    assert dispositions(conflict) == (2, 0)
    state = conflict.state()
    # S 4, R 2: not ≥ S, not ≤ max(1, 1), not > S/2 → a compromise.
    assert state["result"]["owed"] == {"a": {"start": 4, "remaining": 2, "ruling": "compromise"}}
    assert len(entry.body["outcome"]["openings"]) == 4  # the unplayed actions are opened for the record
    checked = chain.verify_entries(conflict.export())
    assert checked.ok and checked.commitments_checked == 6, checked.problems


def test_both_at_zero_in_one_action_both_win_and_owe_a_major_compromise(conflict: Conflict) -> None:
    with conflict.factory() as db:
        from app.characters.models import Character

        ch = db.get(Character, conflict.ids["Clover"])
        ch.sheet = {**ch.sheet, "conditions": ["afraid", "tired"]}
        db.commit()
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [1, 1, 1], base="health")  # 4 − 2 = 2
    conflict.act("otto", "conflict_disposition", "Hazel", [1, 1], base="health")  # 3
    conflict.script("pia", "Clover", ["attack", "defend", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "defend", "defend"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])
    conflict.act("otto", "conflict_roll", "Hazel", [5, 5])
    state = conflict.state()
    assert dispositions(conflict) == (0, 0) and state["phase"] == "end"
    assert state["result"]["both"] is True
    assert {k: v["ruling"] for k, v in state["result"]["owed"].items()} == {"a": "major", "b": "major"}
    entry = conflict.act("nora", "conflict_end", None, words="Both get their way, at a price")
    assert "Warren owes major" in said(entry.body) and "Raiders owes major" in said(entry.body)


def test_a_tampered_opening_fails_the_offline_check(conflict: Conflict) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["feint", "defend", "maneuver"], ["Hazel"] * 3)
    entries = conflict.export()
    checked = chain.verify_entries(entries)
    assert checked.ok, checked.problems
    last = entries[-1]
    opened = last["body"]["outcome"]["openings"][1]
    assert commitment.opens(opened["hash"], opened["salt"], opened["value"])
    forged = json.loads(json.dumps(entries))
    forged[-1]["body"]["outcome"]["openings"][1]["value"]["action"] = "attack"
    # A forger who also recomputes the body hash and the chain still cannot match the lock's commitment.
    body = forged[-1]["body"]
    forged[-1]["outcome"] = body["outcome"]
    forged[-1]["body_hash"] = chain.body_hash(forged[-1]["salt"], body)
    forged[-1]["hash"] = chain.entry_hash(forged[-1]["prev_hash"], forged[-1], forged[-1]["body_hash"])
    result = chain.verify_entries(forged)
    assert not result.ok
    assert any("does not open the commitment" in p for p in result.problems), result.problems


def test_weapons_are_a_setting_off_by_default(conflict: Conflict) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    with pytest.raises(BadRequest, match="campaign setting"):
        conflict.act("pia", "conflict_roll", "Clover", [], weapon="Axe")
    conflict.encounter_id = None
    conflict.act("nora", "conflict_settings", None, weapons=True)
    start_fight(conflict)
    assert conflict.state()["weapons"] is True
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1], weapon="Axe")  # +1s
    assert entry.body["outcome"]["successes"] == 2


def test_python_m_app_verify_checks_the_commitments_offline(
    conflict: Conflict, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.verify import main

    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "feint", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    entries = conflict.export()
    head = {"seq": entries[-1]["seq"], "hash": entries[-1]["hash"]}
    good = tmp_path / "export.json"
    good.write_text(json.dumps({"format": chain.FORMAT, "head": head, "entries": entries}))
    assert main([str(good)]) == 0
    assert "2 commitments opened and checked" in capsys.readouterr().out
    # The server (or anyone) swaps the revealed action: the body no longer opens the lock's commitment.
    forged = json.loads(json.dumps(entries))
    forged[-1]["body"]["outcome"]["openings"][0]["value"]["action"] = "maneuver"
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps({"format": chain.FORMAT, "head": head, "entries": forged}))
    assert main([str(bad)]) == 1
    out = capsys.readouterr().out
    assert "does not open the commitment" in out and "BROKEN" in out


def test_the_next_action_reads_the_sheets_after_the_last_one(conflict: Conflict) -> None:
    """A failed Nature roll is taxed like an ordinary test; the next action's pool and chance see the new Nature."""
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "defend", "defend"], ["Hazel"] * 3)
    assert conflict.state()["current"]["sides"]["b"]["dice"] == 3
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 1])
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # a failed die, Fox-wise and Fate: it waits; keep
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1, 1])  # lost by 1: Nature 3 → 2
    assert conflict.sheet("Hazel")["abilities"]["nature"]["rating"] == 2
    side = conflict.state()["current"]["sides"]["b"]
    assert side["dice"] == 2 and side["chance"]["win"] < 50


def test_fate_after_a_conflict_roll_waits_for_the_rollers_choice(conflict: Conflict) -> None:
    """rabbits.en.md, "Rewards": Fate rerolls the 6s after the roll, so a roll with a 6 and Fate in hand waits."""
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [6, 1, 1])
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    state = conflict.state()
    assert state["index"] == 0 and state["current"]["rolls"]["a"]["fate"] is True and dispositions(conflict) == (7, 5)
    with pytest.raises(BadRequest, match="waiting for Fate"):
        conflict.act("otto", "conflict_fate", "Hazel", spend=True)
    entry = conflict.act("pia", "conflict_fate", "Clover", [5], spend=True)  # [6 1 1] + [5]: 2 successes
    assert entry.body["outcome"]["successes"] == 2
    assert entry.body["outcome"]["waiting"] is True  # still a wise reroll to choose (failed dice, Fox-wise)
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # a failed die, Fox-wise and Fate: it waits; keep
    assert dispositions(conflict) == (7, 3) and conflict.state()["index"] == 1
    assert conflict.sheet("Clover")["fate"] == 1
    conflict.act("pia", "conflict_roll", "Clover", [6, 5, 1])
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # kept: 2 successes
    assert dispositions(conflict) == (7, 1) and conflict.sheet("Clover")["fate"] == 1


def test_fate_on_the_disposition_roll_waits_for_the_captain(conflict: Conflict) -> None:
    """A disposition roll showing a 6 while the captain has Fate is not final until the captain spends Fate
    (every 6 rerolled, new 6s again) or keeps the roll; the other team rolls meanwhile."""
    conflict.setup("fight")
    entry = conflict.act("pia", "conflict_disposition", "Clover", [6, 1, 1], base="health")
    assert entry.body["outcome"]["final"] is False and "may spend Fate" in said(entry.body)
    team = conflict.state()["teams"]["a"]
    assert team["start"] is None and team["roll"]["fate"] is True and team["roll"]["total"] == 5
    with pytest.raises(BadRequest, match="has rolled its disposition"):
        conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 5], base="health")
    with pytest.raises(BadRequest, match="waiting for Fate"):
        conflict.act("otto", "conflict_fate", "Hazel", spend=True)
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")  # 2 + Health 3 = 5, no 6
    assert conflict.state()["phase"] == "disposition"  # Warren's is not final yet
    fate_before = conflict.sheet("Clover")["fate"]
    entry = conflict.act("pia", "conflict_fate", "Clover", [6, 4], spend=True)  # the 6 → 6, the new 6 → 4
    assert entry.body["outcome"]["faces"] == [6, 1, 1, 6, 4] and "Fate rerolls the 6s" in said(entry.body)
    state = conflict.state()
    assert state["teams"]["a"]["roll"]["faces"] == [6, 1, 1, 6, 4]
    assert dispositions(conflict) == (7, 5)  # 3 successes + Health 4
    assert state["teams"]["a"]["start"] == 7 and state["phase"] == "script"
    assert conflict.sheet("Clover")["fate"] == fate_before - 1
    with pytest.raises(BadRequest, match="waiting for Fate"):
        conflict.act("pia", "conflict_fate", "Clover", spend=True)


def test_a_kept_disposition_roll_and_a_captain_without_fate(conflict: Conflict) -> None:
    with conflict.factory() as db:
        from app.characters.models import Character

        ch = db.get(Character, conflict.ids["Hazel"])
        ch.sheet = {**ch.sheet, "fate": 0, "persona": 0, "rewards_started": True}
        db.commit()
    conflict.setup("fight")
    conflict.act("otto", "conflict_disposition", "Hazel", [6, 6], base="health")
    assert conflict.state()["teams"]["b"]["start"] == 5  # two 6s, but no Fate: final at once
    conflict.act("pia", "conflict_disposition", "Clover", [6, 1, 1], base="health")
    entry = conflict.act("pia", "conflict_fate", "Clover", spend=False)
    assert entry.body["outcome"]["disposition"] == 5 and conflict.sheet("Clover")["fate"] >= 1
    assert conflict.state()["phase"] == "script"


def test_the_team_spreads_its_disposition_by_hand(conflict: Conflict) -> None:
    """Issue 13, step 2: the automatic spread (the captain takes the remainder) is the default; the team's players
    may set the shares, which must add up to the current disposition; a spread by hand keeps its shape when the
    disposition changes."""
    conflict.rabbit("pia", "Bramble", HAZEL)
    conflict.setup("fight", a=("Clover", "Bramble"))
    clover, bramble = str(conflict.ids["Clover"]), str(conflict.ids["Bramble"])
    with pytest.raises(BadRequest, match="once it is rolled"):
        conflict.act("pia", "conflict_spread", "Bramble", spread_1="1", spread_2="1")
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4, 4], base="health")  # 4 + Health 4 = 8
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    assert conflict.state()["teams"]["a"]["spread"] == {clover: 4, bramble: 4}
    version = conflict.encounter().version
    for shares, words in (
        ({"spread_1": "5", "spread_2": "2"}, "add up to 7; they must add up to the team's disposition, 8"),
        ({"spread_1": "9", "spread_2": "-1"}, "whole number"),
        ({"spread_1": "8"}, "whole number"),
    ):
        with pytest.raises(BadRequest, match=words) as refused:
            conflict.act("pia", "conflict_spread", "Bramble", **shares)
        assert refused.value.field == "spread"
    assert conflict.encounter().version == version  # nothing changed
    with pytest.raises(Forbidden):
        conflict.act("otto", "conflict_spread", "Clover", spread_1="8", spread_2="0")
    with pytest.raises(BadRequest, match="players of Warren"):
        conflict.act("nora", "conflict_spread", "Clover", spread_1="8", spread_2="0")
    entry = conflict.act("pia", "conflict_spread", "Bramble", spread_1="6", spread_2="2")
    assert said(entry.body) == "Warren spreads its disposition: Clover 6, Bramble 2"
    team = conflict.state()["teams"]["a"]
    assert team["spread"] == {clover: 6, bramble: 2} and team["spread_by_hand"] is True
    # Hazel's attack takes 2, off the largest share; Bramble's defence gains 2, to the smallest.
    conflict.script("pia", "Clover", ["attack", "defend", "attack"], ["Clover", "Bramble", "Clover"])
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [1, 1, 1])
    conflict.act("pia", "conflict_fate", "Clover", spend=False)  # a failed die, Fox-wise and Fate: it waits; keep
    conflict.act("otto", "conflict_roll", "Hazel", [5, 5])  # Ob 0: margin 2 → Warren 6
    team = conflict.state()["teams"]["a"]
    assert team["disposition"] == 6 and team["spread"] == {clover: 4, bramble: 2}
    conflict.act("pia", "conflict_roll", "Bramble", [5, 5, 5])  # defend vs attack: versus 3 to 1 → +2, at most 8
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1])
    team = conflict.state()["teams"]["a"]
    assert team["disposition"] == 8 and team["spread"] == {clover: 4, bramble: 4}


def test_the_narrator_spreads_a_narrator_run_team(conflict: Conflict) -> None:
    conflict.rabbit("nora", "Weasel", {"nature": 3, "will": 3, "health": 3, "skills": {"Fighter": 2}})
    conflict.setup("fight", b=("Fox", "Weasel"), b_narrator=True)
    conflict.act("nora", "conflict_disposition", "Fox", [1, 1, 1, 1, 1], base="health")  # 0 + Health 5
    assert conflict.state()["teams"]["b"]["spread"] == {str(conflict.ids["Fox"]): 3, str(conflict.ids["Weasel"]): 2}
    conflict.act("nora", "conflict_spread", "Weasel", spread_1="0", spread_2="5")
    assert conflict.state()["teams"]["b"]["spread"] == {str(conflict.ids["Fox"]): 0, str(conflict.ids["Weasel"]): 5}


def test_the_narrator_calls_a_conflict_off_mid_volley(conflict: Conflict) -> None:
    """Only the narrator, with a reason on the log; no winner, no compromise, nothing on the sheets; the locked
    actions of the volley are opened (every commitment checks), nothing else is."""
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "feint", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 4])
    with pytest.raises(Forbidden):
        conflict.act("pia", "conflict_call_off", None, reason="I am losing")
    with pytest.raises(BadRequest, match="Say why") as refused:
        conflict.act("nora", "conflict_call_off", None, reason="  ")
    assert refused.value.field == "reason"
    sheets = {name: conflict.sheet(name) for name in ("Clover", "Hazel")}
    entry = conflict.act("nora", "conflict_call_off", None, reason="The owl arrives; everyone hides")
    assert said(entry.body) == (
        "The narrator called the conflict off: The owl arrives; everyone hides. Nobody wins and no compromise is owed."
    )
    assert len(entry.body["outcome"]["openings"]) == 4  # actions 2 and 3 of both teams
    state = conflict.state()
    assert state["phase"] == "over" and state["result"]["called_off"] is True and state["result"]["owed"] == {}
    assert conflict.encounter().status == "over"
    assert {name: conflict.sheet(name) for name in ("Clover", "Hazel")} == sheets
    checked = chain.verify_entries(conflict.export())
    assert checked.ok and checked.commitments_checked == 6, checked.problems
    with pytest.raises(AppConflict, match="over"):
        conflict.act("nora", "conflict_call_off", None, reason="again")


def test_calling_off_before_both_lock_opens_only_the_locked_script(conflict: Conflict) -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "feint", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["maneuver", "maneuver", "maneuver"], ["Hazel"] * 3, lock=False)
    entry = conflict.act("nora", "conflict_call_off", None, reason="Rain")
    assert [o["team"] for o in entry.body["outcome"]["openings"]] == ["a", "a", "a"]
    state = conflict.state()
    assert state["teams"]["b"]["script"] is None  # never committed: thrown away, never shown
    assert "maneuver" not in json.dumps(conflict.export())
    checked = chain.verify_entries(conflict.export())
    assert checked.ok and checked.commitments_checked == 3, checked.problems


def test_a_conflict_at_zero_is_not_called_off(conflict: Conflict) -> None:
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [1, 1, 1], base="health")
    conflict.act("otto", "conflict_disposition", "Hazel", [1, 1], base="health")
    conflict.script("pia", "Clover", ["attack", "defend", "defend"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "defend", "defend"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5])
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1, 1])  # versus 3 to 0: Hazel 3 − 3 = 0
    assert conflict.state()["phase"] == "end"
    with pytest.raises(BadRequest, match="record the compromise"):
        conflict.act("nora", "conflict_call_off", None, reason="Too late")


def _attacks(conflict: Conflict, b_action: str = "attack") -> None:
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", [b_action, "attack", "attack"], ["Hazel"] * 3)


def test_deeper_understanding_after_a_conflict_roll(conflict: Conflict) -> None:
    """The ordinary tests' follow-up: 1 Fate and an unused wise reroll one failed die, before the exchange counts."""
    _attacks(conflict)
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1])
    roll = conflict.state()["current"]["rolls"]["a"]
    assert roll["fate"] is True and roll["open"] == ["deeper", "of_course"]  # no 6: no Fate reroll
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    assert dispositions(conflict) == (7, 5)  # waiting for Clover
    with pytest.raises(BadRequest, match="not one of this rabbit's wises"):
        conflict.act("pia", "conflict_fate", "Clover", wise_reroll="deeper", wise="Owl-wise")
    with pytest.raises(BadRequest, match="no 6 to reroll"):
        conflict.act("pia", "conflict_fate", "Clover", spend=True)
    with pytest.raises(BadRequest, match="waiting for Fate"):
        conflict.act("otto", "conflict_fate", "Hazel", wise_reroll="deeper", wise="Fox-wise")
    fate = conflict.sheet("Clover")["fate"]
    entry = conflict.act("pia", "conflict_fate", "Clover", [4], wise_reroll="deeper", wise="fox-wise")
    assert said(entry.body).startswith(
        "Warren: Deeper understanding (Fox-wise, 1 Fate): rerolled a failed die [5 4 1] → 2 successes"
    )
    assert entry.body["outcome"]["waiting"] is False  # the only wise has backed a reroll: nothing is left
    assert dispositions(conflict) == (7, 3) and conflict.sheet("Clover")["fate"] == fate - 1
    assert conflict.state()["index"] == 1


def test_of_course_after_a_conflict_roll_and_each_once_per_roll(conflict: Conflict) -> None:
    conflict.rabbit("pia", "Bramble", {**HAZEL, "skills": {"Fighter": 2}, "wises": ["Owl-wise", "Hawk-wise"]})
    conflict.setup("fight", a=("Bramble",))
    conflict.act("pia", "conflict_disposition", "Bramble", [5, 4], base="health")  # 2 + Health 3 = 5
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    conflict.script("pia", "Bramble", ["attack"] * 3, ["Bramble"] * 3)
    conflict.script("otto", "Hazel", ["attack"] * 3, ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Bramble", [1, 1])
    conflict.act("pia", "conflict_fate", "Bramble", [1, 6], wise_reroll="of_course", wise="Owl-wise")
    roll = conflict.state()["current"]["rolls"]["a"]
    assert roll["faces"] == [1, 6] and roll["open"] == ["fate", "deeper"]  # Of course! is spent; Hawk-wise is left
    assert conflict.sheet("Bramble")["persona"] == 0
    with pytest.raises(BadRequest, match="already been used on this roll"):
        conflict.act("pia", "conflict_fate", "Bramble", wise_reroll="of_course", wise="Hawk-wise")
    with pytest.raises(BadRequest, match="already backed a reroll"):
        conflict.act("pia", "conflict_fate", "Bramble", wise_reroll="deeper", wise="Owl-wise")
    conflict.act("pia", "conflict_fate", "Bramble", [5], spend=True)  # the 6 → 5: [1 6 5]
    conflict.act("pia", "conflict_fate", "Bramble", [4], wise_reroll="deeper", wise="Hawk-wise")  # [4 6 5]
    assert conflict.state()["current"]["rolls"]["a"]["fate"] is False
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    assert dispositions(conflict) == (5, 2)


def test_a_trait_gives_the_opponent_two_dice_in_a_versus_exchange(conflict: Conflict) -> None:
    """rabbits.en.md, "Checks": a trait can work against its rabbit by helping the opponent (+2D to them, 2 checks)
    — in a versus test only, as in the ordinary versus test (pools.plan_pool)."""
    _attacks(conflict, b_action="defend")  # attack against defend: versus
    checks = conflict.sheet("Clover")["checks"]
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 5, 5], trait="Quick", trait_use="aids_opponent")
    assert "gives Raiders +2D with the trait Quick" in said(entry.body)
    side = conflict.state()["current"]["sides"]["b"]
    assert side["mods"]["aided"] == 2 and side["dice"] == 5  # Nature 3 + 2
    assert conflict.sheet("Clover")["checks"] == checks + 2
    entry = conflict.act("otto", "conflict_roll", "Hazel", [5, 5, 5, 5, 1])
    assert english(entry.body["outcome"]["breakdown"]) == [["Nature", 3], ["Opponent's trait works for you", 2]]
    assert dispositions(conflict) == (7, 5)  # 3 to 4: the defence wins, but Hazel is already at the start


def test_a_trait_given_after_the_opponent_rolled_adds_its_dice_now(conflict: Conflict) -> None:
    _attacks(conflict, b_action="defend")
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1, 1])
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 5, 4, 5, 5], trait="Quick", trait_use="aids_opponent")
    assert "Warren gives Raiders +2D with the trait Quick (2 checks): [5 5] → 2 successes" in said(entry.body)
    assert dispositions(conflict) == (7, 4)  # 3 to 2: Raiders −1


def test_a_trait_helps_the_opponent_only_in_a_versus_exchange(conflict: Conflict) -> None:
    _attacks(conflict)  # attack against attack: independent
    with pytest.raises(BadRequest, match="only in a versus test") as refused:
        conflict.act("pia", "conflict_roll", "Clover", [], trait="Quick", trait_use="aids_opponent")
    assert refused.value.field == "trait_use"
