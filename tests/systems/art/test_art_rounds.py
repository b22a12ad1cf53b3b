"""Combat rounds: initiative, waiting, multi-action, free actions (art-engine.md ch. 5).

Rulings: RULINGS.md, ART Engine 11 and 13 (initiative ties), 14 (simplified initiative),
15 (waiting), 16 (multi-action).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    ArtRuleError,
    FreeAttempt,
    Initiative,
    Level,
    free_action_attempt,
    initiative_order,
    multi_action_fame,
    round_order,
    simplified_initiative,
    wait,
    wait_targets,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level
results = st.sampled_from([level for level in Level if level <= AW])
ratings = st.sampled_from(list(Level))


# --- Initiative (rulings 11, 13) ----------------------------------------------------------------


def test_initiative_worked_example() -> None:
    """ch. 5, "Initiative": Jen Super, Bill Poor, Sam Pathetic; foes Poor, the Boss Super."""
    order = initiative_order([("Jen", SP), ("Bill", PR), ("Sam", PT)], [("foes", PR), ("Boss", SP)])
    assert order == Initiative(
        bonus=("Jen", "Boss"),
        first=("Jen", "Boss", "Bill", "foes"),
        later=("Jen", "Boss", "Bill", "foes", "Sam"),
    )


def test_initiative_ties_go_to_players_and_keep_given_order() -> None:
    """ch. 5, "Initiative": ties between foes and players go to the player; ruling 13: tied adventurers
    come in the order the server settled (ruling 11), tied foes in the narrator's order."""
    order = initiative_order([("Ann", GD), ("Bea", GD)], [("orc", GD), ("goblin", GD), ("troll", GT)])
    assert order.later == ("troll", "Ann", "Bea", "orc", "goblin")
    swapped = initiative_order([("Bea", GD), ("Ann", GD)], [("goblin", GD), ("orc", GD)])
    assert swapped.later == ("Bea", "Ann", "goblin", "orc")


def test_extreme_foe_gets_the_bonus_round_before_awesome_players() -> None:
    """Ruling 13: a foe with Extreme Alertness counts as "Awesome or Super" and acts before Awesome."""
    order = initiative_order([("Ann", AW)], [("dragon", EX)])
    assert order.bonus == ("dragon", "Ann")
    assert order.later == order.first == ("dragon", "Ann")


def test_pathetic_and_catastrophic_lose_their_first_turn_only() -> None:
    order = initiative_order([("Ann", CT), ("Bea", FB)], [("rat", PT)])
    assert order.first == ("Bea",)
    assert order.later == ("Bea", "rat", "Ann")
    assert order.bonus == ()


def test_a_foe_group_is_one_entry() -> None:
    order = initiative_order([("Ann", PS)], [("bandits", PS)])
    assert order.later == ("Ann", "bandits")


@pytest.mark.parametrize(
    ("players", "foes"),
    [
        ([("Ann", GD), ("Ann", PR)], []),
        ([("Ann", GD)], [("Ann", PR)]),
        ([], [("orc", GD), ("orc", GD)]),
    ],
)
def test_initiative_refuses_duplicate_names(players: list[tuple[str, Level]], foes: list[tuple[str, Level]]) -> None:
    with pytest.raises(ArtRuleError):
        initiative_order(players, foes)


def test_initiative_an_extreme_player_still_goes_before_an_extreme_foe() -> None:
    """Extreme is never rolled, and is not refused: on the same level players go first."""
    assert initiative_order([("Ann", EX)], [("dragon", EX)]).later == ("Ann", "dragon")


names = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), unique=True, max_size=10)


@st.composite
def encounters(draw: st.DrawFn) -> tuple[list[tuple[str, Level]], list[tuple[str, Level]]]:
    everyone = draw(names)
    split = draw(st.integers(min_value=0, max_value=len(everyone)))
    players = [(name, draw(results)) for name in everyone[:split]]
    foes = [(name, draw(ratings)) for name in everyone[split:]]
    return players, foes


@given(encounters(), st.data())
@settings(max_examples=300)
def test_round_order_never_skips_or_repeats_a_living_unstaggered_character(
    encounter: tuple[list[tuple[str, Level]], list[tuple[str, Level]]], data: st.DataObject
) -> None:
    """Every round after the bonus round: each character not out (defeated or staggered) acts exactly
    once; the first round leaves out only those on Pathetic or Catastrophic."""
    players, foes = encounter
    initiative = initiative_order(players, foes)
    everyone = [name for name, _ in (*players, *foes)]
    out = set(data.draw(st.lists(st.sampled_from(everyone), unique=True)) if everyone else [])
    level = dict((*players, *foes))
    for number in (1, 2, 3):
        order = round_order(initiative, number, out=out)
        assert len(order) == len(set(order))
        expected = {name for name in everyone if name not in out}
        if number == 1:
            expected = {name for name in expected if level[name] > PT}
        assert set(order) == expected
        assert [level[name] for name in order] == sorted((level[name] for name in order), reverse=True)
    bonus = round_order(initiative, 0, out=out)
    assert set(bonus) == {name for name in everyone if name not in out and level[name] >= SP}


def test_round_order_rounds_of_the_worked_example() -> None:
    """ch. 5, "Initiative": the bonus round, the first round, the second round; a staggered character
    (ch. 3, "Staggering") loses its turn."""
    initiative = initiative_order([("Jen", SP), ("Bill", PR), ("Sam", PT)], [("foes", PR), ("Boss", SP)])
    assert round_order(initiative, 0) == ("Jen", "Boss")
    assert round_order(initiative, 1) == ("Jen", "Boss", "Bill", "foes")
    assert round_order(initiative, 2) == ("Jen", "Boss", "Bill", "foes", "Sam")
    assert round_order(initiative, 2, out={"Boss"}) == ("Jen", "Bill", "foes", "Sam")


def test_round_order_refuses_negative_rounds_and_unknown_names() -> None:
    initiative = initiative_order([("Jen", SP)], [])
    with pytest.raises(ArtRuleError):
        round_order(initiative, -1)
    with pytest.raises(ArtRuleError):
        round_order(initiative, 1, out={"Zed"})


# --- Simplified Initiative (ruling 14) ----------------------------------------------------------


def test_simplified_starts_with_the_highest_and_goes_clockwise() -> None:
    """ch. 5, "Simplified Initiative": the foes act when the order reaches the narrator."""
    seats = [("Ann", PR), ("Bea", GT), ("Cid", PS), ("Dan", FB)]
    assert simplified_initiative(seats, GD) == ("Bea", "Cid", "Dan", None, "Ann")


def test_simplified_highest_in_the_first_seat_puts_foes_last() -> None:
    assert simplified_initiative([("Ann", SP), ("Bea", PR)], GD) == ("Ann", "Bea", None)


def test_simplified_foes_first_when_every_player_rolls_lower() -> None:
    """Ruling 14: then the players follow from the highest roller, clockwise."""
    seats = [("Ann", PR), ("Bea", PS), ("Cid", IN)]
    assert simplified_initiative(seats, GD) == (None, "Bea", "Cid", "Ann")


def test_simplified_a_player_tied_with_the_foes_keeps_them_from_going_first() -> None:
    """Ruling 14: "the players all roll lower" is strict; ties go to the player."""
    seats = [("Ann", PR), ("Bea", GD), ("Cid", IN)]
    assert simplified_initiative(seats, GD) == ("Bea", "Cid", None, "Ann")


def test_simplified_tie_for_highest_goes_to_the_first_seat_from_the_narrators_left() -> None:
    """Ruling 14: the seats decide, replacing ruling 11's tie roll."""
    seats = [("Ann", PR), ("Bea", GT), ("Cid", GT)]
    assert simplified_initiative(seats, PS) == ("Bea", "Cid", None, "Ann")


def test_simplified_refuses_duplicates() -> None:
    with pytest.raises(ArtRuleError):
        simplified_initiative([("Ann", PR), ("Ann", GD)], PS)


def test_simplified_without_players_the_foes_act_alone() -> None:
    """ "The players all roll lower" holds when there are none."""
    assert simplified_initiative([], PS) == (None,)


@given(st.lists(results, min_size=1, max_size=6), ratings)
def test_simplified_everyone_acts_once(rolled: list[Level], foes: Level) -> None:
    seats = [(f"p{index}", level) for index, level in enumerate(rolled)]
    order = simplified_initiative(seats, foes)
    assert sorted(order, key=str) == sorted([*(name for name, _ in seats), None], key=str)
    first_player = next(name for name in order if name is not None)
    assert dict(seats)[first_player] == max(rolled)


# --- Waiting (ruling 15) ------------------------------------------------------------------------


def test_waiting_worked_example_first_round() -> None:
    """ch. 5, "Waiting": Abe (Great), Ben (Passable), Cindy (Inferior)."""
    order, waited = ("Abe", "Ben", "Cindy"), {"Abe"}
    assert wait_targets(order, set()) == ("Ben", "Cindy")
    order = wait(order, set(), "Cindy")  # Abe goes after Cindy
    assert order == ("Ben", "Cindy", "Abe")
    assert wait_targets(order, waited) == ("Cindy",)  # Ben cannot wait until after Abe
    with pytest.raises(ArtRuleError):
        wait(order, waited, "Abe")
    order = wait(order, waited, "Cindy")
    waited.add("Ben")
    assert order == ("Cindy", "Ben", "Abe")
    assert wait_targets(order, waited) == ()  # Cindy cannot wait: everyone else is waiting
    order = order[1:]  # Cindy acts
    assert wait_targets(order, waited) == ()  # Ben already waited once this round
    assert order == ("Ben", "Abe")  # Ben acts next, Abe goes last


def test_waiting_worked_example_next_round() -> None:
    """ch. 5, "Waiting": Abe waits to go after Ben; Ben cannot wait past Abe; Cindy goes last."""
    order = wait(("Abe", "Ben", "Cindy"), set(), "Ben")
    assert order == ("Ben", "Abe", "Cindy")
    assert wait_targets(order, {"Abe"}) == ()
    assert wait_targets(order[1:], {"Abe"}) == ()


def test_wait_refuses_an_unknown_or_earlier_character() -> None:
    with pytest.raises(ArtRuleError):
        wait(("Abe", "Ben"), set(), "Zed")
    with pytest.raises(ArtRuleError):
        wait(("Abe", "Ben"), set(), "Abe")
    with pytest.raises(ArtRuleError):
        wait(("Abe", "Ben"), {"Abe"}, "Ben")  # ruling 15: no waiting twice in a round


def test_wait_targets_refuses_an_empty_or_repeating_order() -> None:
    with pytest.raises(ArtRuleError):
        wait_targets((), set())
    with pytest.raises(ArtRuleError):
        wait_targets(("Abe", "Abe"), set())


def test_the_last_character_cannot_wait() -> None:
    assert wait_targets(("Cindy",), set()) == ()


@given(st.integers(min_value=1, max_value=7), st.data())
@settings(max_examples=200)
def test_waiting_never_skips_or_repeats_anyone(size: int, data: st.DataObject) -> None:
    """Whatever the characters choose, everyone acts exactly once and nobody waits twice."""
    order: tuple[str, ...] = tuple(f"c{index}" for index in range(size))
    waited: set[str] = set()
    acted: list[str] = []
    while order:
        targets = wait_targets(order, waited)
        if targets and data.draw(st.booleans()):
            mover = order[0]
            order = wait(order, waited, data.draw(st.sampled_from(targets)))
            waited.add(mover)
            assert order.count(mover) == 1
        else:
            acted.append(order[0])
            order = order[1:]
    assert sorted(acted) == sorted(f"c{index}" for index in range(size))


# --- Multi-Action (ruling 16), free actions -----------------------------------------------------


@pytest.mark.parametrize(("turns", "fame"), [(1, 0), (2, 1), (3, 3)])
def test_multi_action_fame(turns: int, fame: int) -> None:
    """ch. 5, "Multi-Action": 1 Fame for a second turn, 2 more for a third."""
    assert multi_action_fame(turns) == fame


@pytest.mark.parametrize("turns", [0, 4, -1])
def test_multi_action_refuses_a_fourth_turn(turns: int) -> None:
    """Ruling 16: at most three turns in a row."""
    with pytest.raises(ArtRuleError):
        multi_action_fame(turns)


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (AW, FreeAttempt(done=True, turn_ends=False)),
        (IN, FreeAttempt(done=True, turn_ends=False)),  # Inferior against Inferior: a success
        (FB, FreeAttempt(done=True, turn_ends=True)),
        (PT, FreeAttempt(done=False, turn_ends=True)),
        (CT, FreeAttempt(done=False, turn_ends=True)),
    ],
)
def test_free_action_attempt(result: Level, expected: FreeAttempt) -> None:
    """ch. 5, "Automatically Successful Actions", "Standing Up", "Drawing a Weapon"."""
    assert free_action_attempt(result) == expected


def test_free_action_attempt_extreme_is_a_success() -> None:
    assert free_action_attempt(EX) == FreeAttempt(done=True, turn_ends=False)
