"""Turn-based cat fight (catfight.en.md / catfight.de.md, RULINGS.md "Turn-based cat fight")."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedDice
from app.systems.catfight.rules import (
    EVENT_RESULTS,
    MAX_ATTEMPTS,
    TECKA,
    CatfightError,
    CatStatsError,
    IllegalMove,
    RollBudgetError,
    pm_roll,
    regenerate,
    validate_cat,
)
from app.systems.catfight.rules.duel import legal_moves, start_duel, step, to_move
from app.systems.catfight.rules.odds import exact_defend_chance, exact_jump_chance

MIMI = {"name": "Mimi", "attack": 12, "defend": 16, "jump": 14, "sneak": 14, "quickness": 14}
FLASH = {"name": "Flash", "attack": 10, "defend": 10, "jump": 10, "sneak": 10, "quickness": 30}
TWIN = {**TECKA, "name": "Tecka's twin"}


class RandomDice:
    """Seeded simulation dice (never the global random)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, sides: int) -> int:
        return self.rng.randint(1, sides)


class ConstantDice:
    def roll(self, sides: int) -> int:
        return 3


def duel(a: dict[str, Any] = TECKA, b: dict[str, Any] = MIMI, **changes: Any) -> dict[str, Any]:
    """A duel in any phase: start_duel, then set the plain-dict fields (and `health_a` / `health_b`)."""
    state = start_duel(a, b)
    for cat in ("a", "b"):
        if f"health_{cat}" in changes:
            state[cat]["health"] = changes.pop(f"health_{cat}")
    state.update(changes)
    return state


def play(state: dict[str, Any], move: str, faces: list[int]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One step with scripted dice that must all be used."""
    dice = ScriptedDice(faces)
    new, events = step(state, move, dice)
    assert dice.remaining == 0
    return new, events


def faces_of(event: dict[str, Any]) -> list[list[int]]:
    return [roll["faces"] for roll in event["rolls"]]


# --- The plus-minus d6 ("Preliminary", SPECIAL RULES) ---


@pytest.mark.parametrize(("face", "value"), [(1, -1), (2, 2), (3, -3), (4, 4), (5, -5), (6, 6)])
def test_even_faces_add_and_odd_faces_subtract(face: int, value: int) -> None:
    assert pm_roll(ScriptedDice([face]), "plain").value == value


@pytest.mark.parametrize("scene", ["attack", "defend", "flee", "chase"])
@pytest.mark.parametrize(("faces", "value"), [((6, 1), 6), ((6, 4), 6), ((6, 5), 6), ((5, 2), -5), ((5, 6), -5)])
def test_an_unconfirmed_value_simply_counts(scene: str, faces: tuple[int, int], value: int) -> None:
    # The text's own examples: "6 & 1 = 6; 6 & 4 = 6; etc.; the same applies to an unconfirmed 5."
    roll = pm_roll(ScriptedDice(faces), scene)
    assert (roll.faces, roll.value, roll.critical) == (faces, value, None)


@pytest.mark.parametrize(
    ("scene", "face", "critical"),
    [
        ("attack", 6, "critical_hit"),
        ("attack", 5, "critical_goof"),
        ("defend", 6, "lucky_fate"),
        ("defend", 5, "unlucky_cat"),
        ("flee", 6, "escape"),
        ("flee", 5, "stumble"),
        ("chase", 6, "caught"),
        ("chase", 5, "injured"),
    ],
)
def test_a_confirmed_six_or_five_is_the_scenes_critical(scene: str, face: int, critical: str) -> None:
    roll = pm_roll(ScriptedDice([face, face]), scene)
    assert roll.critical == critical
    assert roll.faces == (face, face)
    assert roll.value == (6 if face == 6 else -5)  # a critical carries its first face's value


@pytest.mark.parametrize("face", [1, 2, 3, 4])
def test_low_faces_need_no_confirmation(face: int) -> None:
    roll = pm_roll(ScriptedDice([face]), "attack")
    assert roll.faces == (face,) and roll.critical is None


@pytest.mark.parametrize("face", [5, 6])
def test_plain_scene_never_rolls_a_confirmation(face: int) -> None:
    dice = ScriptedDice([face])
    assert pm_roll(dice, "plain").faces == (face,)
    assert dice.remaining == 0


def test_unknown_scene_and_frozen_result() -> None:
    with pytest.raises(CatfightError) as caught:
        pm_roll(ScriptedDice([2]), "bite")
    assert caught.value.field == "scene"
    with pytest.raises(dataclasses.FrozenInstanceError):
        pm_roll(ScriptedDice([2]), "plain").value = 3  # type: ignore[misc]


# --- Cats (EXAMPLE CAT, ruling 12) ---


def test_tecka_is_the_example_cat_and_valid() -> None:
    assert {k: TECKA[k] for k in ("attack", "defend", "jump", "sneak", "quickness")} == {
        "attack": 16,
        "defend": 12,
        "jump": 15,
        "sneak": 15,
        "quickness": 12,
    }
    assert TECKA["name"] == "Tecka"
    validate_cat(TECKA)
    validate_cat(MIMI)
    validate_cat(FLASH)


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"quickness": 10}, "total", "the five values add up to 68; they must add up to exactly 70"),
        ({"quickness": 14}, "total", "the five values add up to 72; they must add up to exactly 70"),
        ({"attack": 0, "defend": 28}, "attack", "attack is 0; every value must be at least 1"),
        ({"jump": 15.0}, "jump", "jump must be a whole number, not 15.0"),
        ({"sneak": True}, "sneak", "sneak must be a whole number, not True"),
        ({"defend": "12"}, "defend", "defend must be a whole number, not '12'"),
    ],
)
def test_invalid_values_are_explained(change: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(CatStatsError) as caught:
        validate_cat({**TECKA, **change})
    assert (caught.value.field, str(caught.value)) == (field, message)
    assert isinstance(caught.value, ValueError)


def test_a_missing_value_is_named() -> None:
    stats = dict(TECKA)
    del stats["quickness"]
    with pytest.raises(CatStatsError, match="quickness is missing") as caught:
        validate_cat(stats)
    assert caught.value.field == "quickness"


def test_start_duel_copies_the_cats_with_three_health() -> None:
    state = start_duel({**TECKA, "colour": "tabby"}, dict(MIMI.items()))
    assert state["a"] == {**TECKA, "health": 3}
    assert state["b"]["health"] == 3  # absent health defaults to 3
    assert (state["phase"], state["over"], state["winner"], state["escaped"]) == ("begin", False, None, None)
    assert (state["round"], state["pending_attack"], state["outcome"]) == (0, None, None)
    assert start_duel({**TECKA, "health": 1}, MIMI)["a"]["health"] == 1  # a regenerating cat may rejoin


@pytest.mark.parametrize(
    ("cat", "field"),
    [
        ({**TECKA, "health": 0}, "health"),
        ({**TECKA, "health": 4}, "health"),
        ({**TECKA, "name": ""}, "name"),
        ({**TECKA, "attack": 15}, "total"),
    ],
)
def test_start_duel_rejects_unusable_cats(cat: dict[str, Any], field: str) -> None:
    with pytest.raises(CatStatsError) as caught:
        start_duel(TECKA, cat)
    assert caught.value.field == field


# --- Turn order, BEGINNING and SNEAK (rulings 1-3) ---


def test_a_whole_exchange_as_the_text_tells_it() -> None:
    """BEGINNING, SNEAK, ATTACK, DEFEND, HEALTH: Tecka starts, sneaks up, attacks; Mimi's DEFEND fails."""
    state = start_duel(TECKA, MIMI)
    assert (to_move(state), legal_moves(state)) == ("a", {"begin"})
    state, events = play(state, "begin", [4, 2])
    assert events[0]["starter"] == "a" and (to_move(state), legal_moves(state)) == ("a", {"sneak"})
    state, events = play(state, "sneak", [2, 1])  # 15+2=17 against 14-1=13
    assert events[0]["result"] == "sneaked_up" and legal_moves(state) == {"attack", "flee"}
    state, events = play(state, "attack", [4])  # 16+4=20
    assert state["pending_attack"] == 20 and (to_move(state), legal_moves(state)) == ("b", {"defend", "jump"})
    state, events = play(state, "defend", [2])  # 16+2=18 < 20
    assert events[0]["result"] == "hit"
    assert events[0]["damage"] == [{"cat": "b", "points": 1, "health": 2}]
    assert (state["b"]["health"], to_move(state), state["round"]) == (2, "a", 4)  # ruling 4


def test_begin_higher_pips_start_and_ties_roll_again() -> None:
    state, events = play(duel(), "begin", [3, 3, 1, 6])
    assert state["attacker"] == "b" and state["phase"] == "sneak"
    assert faces_of(events[0]) == [[3], [3], [1], [6]]
    assert [roll["attempt"] for roll in events[0]["rolls"]] == [1, 1, 2, 2]
    state, _ = play(duel(), "begin", [5, 2])  # pips, not the ±d6: a 5 beats a 2
    assert state["attacker"] == "a"


def test_sneak_noticed_gives_the_other_cat_the_attack() -> None:
    state, events = play(duel(phase="sneak", attacker="a"), "sneak", [1, 6])  # 14 against 20
    assert events[0]["result"] == "noticed" and to_move(state) == "b" and state["phase"] == "attack"


def test_sneak_tie_rolls_again() -> None:
    state, events = play(duel(TECKA, TWIN, phase="sneak", attacker="b"), "sneak", [4, 4, 6, 5])
    # 19-19 tie; then b's 6 (SNEAK has no confirmation roll) makes 21 against a's 15-5=10
    assert faces_of(events[0]) == [[4], [4], [6], [5]]
    assert events[0]["result"] == "sneaked_up" and state["attacker"] == "b"
    assert events[0]["rolls"][2]["critical"] is None


# --- ATTACK, CRITICAL HIT, CRITICAL GOOF (rulings 5, 6) ---


def test_unconfirmed_six_on_attack_counts_six() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "attack", [6, 4])
    assert state["pending_attack"] == 22 and events[0]["result"] == "rolled" and faces_of(events[0]) == [[6, 4]]


def test_critical_hit_takes_a_point_without_defence_and_attacks_again() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "attack", [6, 6])
    assert events[0]["result"] == "critical_hit" and events[0]["rolls"][0]["critical"] == "critical_hit"
    assert events[0]["damage"] == [{"cat": "b", "points": 1, "health": 2}]
    assert (state["phase"], to_move(state), state["pending_attack"]) == ("attack", "a", None)


def test_critical_goof_passes_the_attack() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "attack", [5, 5])
    assert events[0]["result"] == "critical_goof" and events[0]["damage"] == []
    assert (state["phase"], to_move(state)) == ("attack", "b")
    assert state["a"]["health"] == state["b"]["health"] == 3


# --- DEFEND, LUCKY FATE, UNLUCKY CAT (rulings 4, 7) ---


@pytest.mark.parametrize(("faces", "result"), [([6, 1], "parried"), ([4], "parried"), ([2], "hit")])
def test_defend_wins_ties(faces: list[int], result: str) -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=20), "defend", faces)
    assert events[0]["result"] == result and events[0]["attack_total"] == 20
    assert to_move(state) == "a"  # parried or not, the attacker keeps the upper hand
    assert state["b"]["health"] == (3 if result == "parried" else 2)


def test_lucky_fate_parries_anything_and_takes_the_upper_hand() -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=60), "defend", [6, 6])
    assert events[0]["result"] == "lucky_fate" and to_move(state) == "b" and state["b"]["health"] == 3


def test_unlucky_cat_loses_two_points_even_against_a_weak_attack() -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=1), "defend", [5, 5])
    assert events[0]["result"] == "unlucky_cat"
    assert events[0]["damage"] == [{"cat": "b", "points": 2, "health": 1}]
    assert to_move(state) == "a"


def test_unlucky_cat_at_one_point_stops_at_zero() -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=1, health_b=1), "defend", [5, 5])
    assert state["b"]["health"] == 0 and events[0]["damage"][0]["points"] == 1
    assert (state["over"], state["winner"], state["outcome"]) == (True, "a", "knockout")


# --- JUMP (rulings 3, 8) ---


def test_a_successful_jump_takes_the_upper_hand() -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=30), "jump", [4, 1])  # 18 vs 14
    assert events[0]["result"] == "dodged" and to_move(state) == "b" and state["b"]["health"] == 3
    assert [roll["cat"] for roll in events[0]["rolls"]] == ["b", "a"]


def test_a_failed_jump_is_a_hit_and_jump_has_no_criticals() -> None:
    state, events = play(duel(phase="respond", attacker="a", pending_attack=0), "jump", [6, 6])  # 20 vs 21
    assert events[0]["result"] == "hit" and faces_of(events[0]) == [[6], [6]]
    assert all(roll["critical"] is None for roll in events[0]["rolls"])
    assert (state["b"]["health"], to_move(state)) == (2, "a")


def test_jump_tie_rolls_again() -> None:
    state, events = play(duel(TECKA, TWIN, phase="respond", attacker="b", pending_attack=20), "jump", [2, 2, 1, 4])
    assert faces_of(events[0]) == [[2], [2], [1], [4]] and events[0]["result"] == "hit"
    assert state["a"]["health"] == 2


# --- FLEEING (ruling 9): the fleeing cat rolls first, then the chaser ---


def test_fleeing_by_quickness_escapes_and_ends_the_duel() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "flee", [6, 1, 1])  # 12+6=18 vs 14-1=13
    assert events[0]["result"] == "escaped" and events[0]["critical"] is None
    assert (state["over"], state["escaped"], state["winner"], state["outcome"]) == (True, "a", None, "escape")
    assert (legal_moves(state), to_move(state)) == (set(), None)
    assert events[1] == {"kind": "escape", "result": "escaped", "cat": "a", "round": 1}


def test_caught_by_quickness_gives_the_chaser_the_attack() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "flee", [2, 2])  # 14 vs 16
    assert events[0]["result"] == "caught" and (state["phase"], to_move(state)) == ("attack", "b")
    assert not state["over"]


def test_flee_tie_rolls_again() -> None:
    state, events = play(duel(phase="attack", attacker="a"), "flee", [4, 2, 6, 3, 4, 2, 1])
    # 16-16 tie, 18-18 tie (6 unconfirmed), then 14 against 13
    assert faces_of(events[0]) == [[4], [2], [6, 3], [4], [2], [1]] and events[0]["result"] == "escaped"


def test_fleeing_six_six_escapes_whatever_the_values() -> None:
    state, events = play(duel(TECKA, FLASH, phase="attack", attacker="a"), "flee", [6, 6, 6, 1])  # 18 vs 36
    assert (events[0]["result"], events[0]["critical"], state["escaped"]) == ("escaped", "escape", "a")


def test_chaser_six_six_catches_up_whatever_the_values() -> None:
    state, events = play(duel(FLASH, TECKA, phase="attack", attacker="a"), "flee", [6, 1, 6, 6])  # 36 vs 18
    assert (events[0]["result"], events[0]["critical"], to_move(state)) == ("caught", "caught", "b")


def test_fleeing_five_five_stumbles_loses_a_point_and_is_caught() -> None:
    state, events = play(duel(FLASH, TECKA, phase="attack", attacker="a"), "flee", [5, 5, 2])
    assert (events[0]["result"], events[0]["critical"]) == ("stumbled", "stumble")
    assert events[0]["damage"] == [{"cat": "a", "points": 1, "health": 2}]
    assert (to_move(state), state["escaped"]) == ("b", None)


def test_chaser_five_five_is_injured_and_the_fleeing_cat_escapes() -> None:
    state, events = play(duel(TECKA, FLASH, phase="attack", attacker="a"), "flee", [1, 5, 5])
    assert (events[0]["result"], events[0]["critical"]) == ("chaser_injured", "injured")
    assert events[0]["damage"] == [{"cat": "b", "points": 1, "health": 2}]
    assert (state["escaped"], state["outcome"], state["winner"]) == ("a", "escape", None)


@pytest.mark.parametrize(
    ("faces", "result"),
    [
        ([6, 6, 6, 6], "caught"),  # escape vs caught cancel: 18 against 20
        ([5, 5, 5, 5], "caught"),  # stumble vs injured cancel, nobody loses a point: 7 against 9
        ([6, 6, 5, 5], "escaped"),  # escape vs injured cancel: 18 against 9, the chaser is not hurt
        ([5, 5, 6, 6], "caught"),  # stumble vs caught cancel: 7 against 20, the runner is not hurt
    ],
)
def test_criticals_on_both_sides_cancel(faces: list[int], result: str) -> None:
    state, events = play(duel(phase="attack", attacker="a"), "flee", faces)
    assert (events[0]["result"], events[0]["critical"], events[0]["criticals_cancelled"]) == (result, None, True)
    assert events[0]["damage"] == [] and state["a"]["health"] == state["b"]["health"] == 3


def test_cancelled_criticals_that_tie_roll_again() -> None:
    state, events = play(duel(TECKA, TWIN, phase="attack", attacker="b"), "flee", [6, 6, 6, 6, 2, 4])
    assert events[0]["criticals_cancelled"] and events[0]["result"] == "caught" and to_move(state) == "a"


def test_only_the_cat_about_to_attack_may_flee() -> None:
    for state in (duel(phase="respond", attacker="a", pending_attack=20), duel(phase="sneak", attacker="a"), duel()):
        assert "flee" not in legal_moves(state)
        with pytest.raises(IllegalMove):
            step(state, "flee", ScriptedDice([]))


# --- HEALTH: knock-out (ruling 10) ---


@pytest.mark.parametrize(
    ("state", "move", "faces", "loser"),
    [
        (duel(phase="attack", attacker="a", health_b=1), "attack", [6, 6], "b"),
        (duel(phase="respond", attacker="b", pending_attack=40, health_a=1), "defend", [2], "a"),
        (duel(phase="respond", attacker="a", pending_attack=0, health_b=1), "jump", [1, 2], "b"),
        (duel(FLASH, TECKA, phase="attack", attacker="a", health_a=1), "flee", [5, 5, 2], "a"),
    ],
)
def test_knock_out_at_zero_ends_the_duel(state: dict[str, Any], move: str, faces: list[int], loser: str) -> None:
    new, events = play(state, move, faces)
    winner = "b" if loser == "a" else "a"
    assert new[loser]["health"] == 0 and (new["over"], new["winner"], new["outcome"]) == (True, winner, "knockout")
    assert events[-1] == {"kind": "knockout", "result": "knocked_out", "cat": loser, "winner": winner, "round": 1}
    assert (legal_moves(new), to_move(new), new["escaped"]) == (set(), None, None)
    with pytest.raises(IllegalMove) as caught:
        step(new, "attack", ScriptedDice([4]))
    assert caught.value.legal == set()


def test_a_chaser_injured_to_zero_loses_and_the_fleeing_cat_still_escaped() -> None:
    state, events = play(duel(phase="attack", attacker="a", health_b=1), "flee", [1, 5, 5])
    assert (state["winner"], state["outcome"], state["escaped"], state["b"]["health"]) == ("a", "knockout", "a", 0)
    assert [event["kind"] for event in events] == ["flee", "escape", "knockout"]


# --- step: illegal moves, purity, JSON ---


def test_illegal_moves_raise_with_fields() -> None:
    with pytest.raises(IllegalMove) as caught:
        step(duel(), "attack", ScriptedDice([4]))
    assert (caught.value.move, caught.value.legal, caught.value.field) == ("attack", {"begin"}, "move")
    assert str(caught.value) == "“Attack” is not possible now (possible: Roll who starts)."
    assert (caught.value.template, caught.value.values) == (
        "“{move}” is not possible now (possible: {allowed}).",
        {"move": "Attack", "allowed": "Roll who starts"},
    )
    assert isinstance(caught.value, ValueError)
    with pytest.raises(IllegalMove):
        step(duel(phase="attack", attacker="a"), "defend", ScriptedDice([4]))
    with pytest.raises(IllegalMove):
        step(duel(phase="attack", attacker="a"), "bite", ScriptedDice([4]))


def test_step_never_changes_its_input() -> None:
    state = duel(phase="respond", attacker="a", pending_attack=30)
    before = copy.deepcopy(state)
    new, _ = play(state, "defend", [2])
    assert state == before and new is not state and new["b"] is not state["b"]


def test_state_and_events_round_trip_through_json() -> None:
    state = start_duel(TECKA, MIMI)
    for move, faces in [("begin", [4, 2]), ("sneak", [2, 1]), ("attack", [6, 4]), ("jump", [3, 4])]:
        copied = json.loads(json.dumps(state))
        assert copied == state
        state, events = play(copied, move, faces)
        assert json.loads(json.dumps(events)) == events
    assert state["b"]["health"] == 2


def test_broken_dice_raise_instead_of_hanging() -> None:
    with pytest.raises(RollBudgetError) as caught:
        step(duel(), "begin", ConstantDice())
    assert (caught.value.move, caught.value.attempts) == ("begin", MAX_ATTEMPTS)


# --- REGENERATION (ruling 11) ---


@pytest.mark.parametrize(
    ("health", "elapsed", "expected"),
    [(1, 0, 1), (1, 299.9, 1), (1, 300, 2), (1, 599, 2), (1, 600, 3), (1, 3600, 3), (3, 900, 3), (0, 300, 1)],
)
def test_one_point_per_five_minutes_up_to_three(health: int, elapsed: float, expected: int) -> None:
    assert regenerate(health, 1_000.0, 1_000.0 + elapsed) == expected


def test_regeneration_interval_is_a_setting_and_clocks_going_back_heal_nothing() -> None:
    assert regenerate(1, 0, 120, interval_seconds=60) == 3
    assert regenerate(1, 500, 100) == 1
    with pytest.raises(CatfightError) as caught:
        regenerate(1, 0, 100, interval_seconds=0)
    assert caught.value.field == "interval_seconds"
    with pytest.raises(CatfightError):
        regenerate(4, 0, 100)


# --- exact chances ---


def test_exact_defend_chance_by_hand() -> None:
    assert exact_defend_chance(12, 40) == Fraction(1, 36)  # only a lucky fate parries
    assert exact_defend_chance(66, 1) == Fraction(35, 36)  # only an unlucky cat fails
    assert exact_defend_chance(12, 16) == Fraction(1, 3)  # a 4 ties (and a tie parries), a 6 beats
    assert exact_defend_chance(12, 17) == Fraction(1, 6)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 66), st.integers(1, 66), st.integers(-5, 6))
def test_exact_chances_are_sane(mine: int, theirs: int, shift: int) -> None:
    assert exact_jump_chance(mine, theirs) + exact_jump_chance(theirs, mine) == 1
    assert exact_jump_chance(mine, mine) == Fraction(1, 2)
    assert Fraction(1, 36) <= exact_defend_chance(mine, theirs) <= Fraction(35, 36)
    assert exact_defend_chance(mine, theirs) >= exact_defend_chance(mine, theirs + abs(shift))


@pytest.mark.parametrize(("defend", "attack_value"), [(12, 16), (16, 20), (16, 14), (14, 22)])
def test_exact_defend_chance_matches_simulation(defend: int, attack_value: int) -> None:
    state = duel(
        TECKA,
        {**MIMI, "defend": defend, "sneak": 30 - defend},
        phase="respond",
        attacker="a",
        pending_attack=attack_value,
    )
    dice = RandomDice(random.Random(1234))
    trials = 20_000
    parried = sum(step(state, "defend", dice)[1][0]["result"] in ("parried", "lucky_fate") for _ in range(trials))
    assert abs(parried / trials - float(exact_defend_chance(defend, attack_value))) < 0.02


@pytest.mark.parametrize(("defender_jump", "attacker_jump"), [(14, 15), (20, 15), (10, 15)])
def test_exact_jump_chance_matches_simulation(defender_jump: int, attacker_jump: int) -> None:
    defender = {**MIMI, "jump": defender_jump, "sneak": 28 - defender_jump}
    state = duel(
        {**TECKA, "jump": attacker_jump, "sneak": 30 - attacker_jump},
        defender,
        phase="respond",
        attacker="a",
        pending_attack=20,
    )
    dice = RandomDice(random.Random(1234))
    trials = 20_000
    dodged = sum(step(state, "jump", dice)[1][0]["result"] == "dodged" for _ in range(trials))
    assert abs(dodged / trials - float(exact_jump_chance(defender_jump, attacker_jump))) < 0.02


# --- random legal play always ends ---


@st.composite
def cats(draw: st.DrawFn, name: str) -> dict[str, Any]:
    cuts = sorted(draw(st.lists(st.integers(1, 69), min_size=4, max_size=4, unique=True)))
    values = [b - a for a, b in zip([0, *cuts], [*cuts, 70], strict=True)]
    stats = dict(zip(("attack", "defend", "jump", "sneak", "quickness"), values, strict=True))
    return {"name": name, **stats, "health": draw(st.integers(1, 3))}


MAX_STEPS = 5_000  # far beyond any real duel: at least one attack in 36 is a critical hit


@settings(max_examples=80, deadline=None)
@given(cats("A"), cats("B"), st.integers(0, 2**32), st.booleans())
def test_random_legal_play_ends_with_a_knock_out_or_an_escape(
    a: dict[str, Any], b: dict[str, Any], seed: int, brave: bool
) -> None:
    """Random legal moves; `brave` cats never flee, so those duels must end by knock-out."""
    rng = random.Random(seed)
    dice = RandomDice(rng)
    state = start_duel(a, b)
    for _ in range(MAX_STEPS):
        moves = legal_moves(state)
        if not moves:
            break
        if brave:
            moves.discard("flee")
        assert to_move(state) in ("a", "b")
        healths = (state["a"]["health"], state["b"]["health"])
        state, events = step(state, rng.choice(sorted(moves)), dice)
        assert all(event["result"] in EVENT_RESULTS[event["kind"]] for event in events)
        assert json.loads(json.dumps([state, events])) == [state, events]
        assert 0 <= state["a"]["health"] <= healths[0] and 0 <= state["b"]["health"] <= healths[1]
    assert state["over"] and to_move(state) is None
    knocked_out = [cat for cat in ("a", "b") if state[cat]["health"] == 0]
    assert knocked_out or state["escaped"] is not None
    if brave:
        assert knocked_out and state["escaped"] is None
    if knocked_out:
        assert knocked_out == [("b" if state["winner"] == "a" else "a")]
