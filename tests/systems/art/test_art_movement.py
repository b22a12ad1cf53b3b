"""Movement in combat rounds: range, movement rolls, escaping, rough terrain, sneaking, stopping foes
(art-engine.md ch. 5 "Movement" to "Chases").

Rulings: RULINGS.md, ART Engine 8 (adding), 17 (encounter range), 18 (movement table), 19
(escaping foes), 20 (sneaking), 21 (stopping foes).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    ArtRuleError,
    Band,
    Level,
    Movement,
    Sneak,
    add_difficulties,
    bands_moved,
    encounter_range,
    escape_cost,
    foe_movement,
    movement,
    sneak,
    stop_foe,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level


# --- Encounter Range (ruling 17) ----------------------------------------------------------------


def test_encounter_range_worked_example() -> None:
    """ch. 5, "Encounter Range": "If the highest Initiative is Great, the encounter would start at 7 bands"."""
    assert encounter_range(GT) == 7


def test_encounter_range_catastrophic_is_the_same_band() -> None:
    """Ruling 17."""
    assert encounter_range(CT) == 0


def test_encounter_range_counts_every_column() -> None:
    assert [encounter_range(level) for level in Level if level <= AW] == list(range(10))


# --- Movement Roll (ruling 18) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "bands", "free_bands"),
    [
        (CT, 0, 0),
        (PT, 1, 0),
        (FB, 1, 0),
        (IN, 1, 0),
        (PR, 1, 1),
        (PS, 2, 1),
        (GD, 3, 1),
        (GT, 4, 1),
        (SP, 4, 2),
        (AW, 5, 2),
        (EX, 5, 2),  # ruling 18: Extreme (a foe's rating) reads the Awesome row
    ],
)
def test_movement_table(result: Level, bands: int, free_bands: int) -> None:
    """ch. 5, "Movement Roll"."""
    assert movement(result) == Movement(bands=bands, free_bands=free_bands)


def test_movement_examples() -> None:
    """ch. 5, "Movement Roll": Poor moves 1 band as a free action, then attack; Inferior moves 1 band
    but takes no other action; "Movement Rates": Awesome moves 2 bands as a free action."""
    assert movement(PR).free_bands == 1
    assert (movement(IN).bands, movement(IN).free_bands) == (1, 0)
    assert movement(AW).free_bands == 2


@pytest.mark.parametrize(("agility", "bands"), [(IN, 1), (PS, 2), (CT, 0), (SP, 4), (EX, 5)])
def test_foe_movement(agility: Level, bands: int) -> None:
    """ch. 5, "Foe Movement"; the chase example: thugs with Inferior Agility move 1 band."""
    assert foe_movement(agility) == bands


# --- Escaping Foes (ruling 19), Rough Terrain ---------------------------------------------------


@pytest.mark.parametrize(
    ("foes", "friends", "cost"),
    [(2, 1, 2), (1, 1, 1), (0, 0, 1), (1, 0, 2), (3, 5, 1)],
)
def test_escape_cost(foes: int, friends: int, cost: int) -> None:
    """ch. 5, "Escaping Foes": more foes than friends (not counting you) costs 2."""
    assert escape_cost(foes, friends) == cost


@pytest.mark.parametrize(("foes", "friends"), [(-1, 0), (0, -1)])
def test_escape_cost_refuses_negative_counts(foes: int, friends: int) -> None:
    with pytest.raises(ArtRuleError):
        escape_cost(foes, friends)


def test_escaping_foes_worked_example() -> None:
    """ch. 5, "Escaping Foes": one friend, two foes, Inferior Agility (1 band): the escape is blocked."""
    route = [Band(foes=2, friends=1), Band()]
    assert bands_moved(movement(IN).bands, route) == 0


def test_escape_costs_its_cost_in_one_go() -> None:
    """Ruling 19: a band costing 2 cannot be left with 1 movement, and the cost applies to every enemy
    band along the way."""
    route = [Band(), Band(foes=1), Band(), Band()]
    assert bands_moved(2, route) == 1
    assert bands_moved(3, route) == 2
    assert bands_moved(4, route) == 3


def test_rough_terrain_ends_the_movement() -> None:
    """ch. 5, "Rough Terrain": movement ends on entering a band with rough terrain."""
    route = [Band(), Band(), Band(rough=True), Band()]
    assert bands_moved(5, route) == 2


def test_starting_in_rough_terrain_does_not_stop_you() -> None:
    assert bands_moved(2, [Band(rough=True), Band(), Band()]) == 2


def test_bands_moved_is_at_most_the_route() -> None:
    assert bands_moved(5, [Band(), Band()]) == 1
    assert bands_moved(5, [Band()]) == 0
    assert bands_moved(0, [Band(), Band()]) == 0


def test_bands_moved_refuses_empty_routes_and_negative_allowance() -> None:
    with pytest.raises(ArtRuleError):
        bands_moved(2, [])
    with pytest.raises(ArtRuleError):
        bands_moved(-1, [Band()])


def test_band_refuses_negative_counts() -> None:
    with pytest.raises(ArtRuleError):
        Band(foes=-1)


band_strategy = st.builds(
    Band,
    foes=st.integers(min_value=0, max_value=4),
    friends=st.integers(min_value=0, max_value=4),
    rough=st.booleans(),
)


@given(st.integers(min_value=0, max_value=6), st.lists(band_strategy, min_size=1, max_size=10))
@settings(max_examples=300)
def test_movement_never_passes_rough_terrain(allowance: int, route: list[Band]) -> None:
    moved = bands_moved(allowance, route)
    assert 0 <= moved <= len(route) - 1
    # no rough band is passed through: every band entered before the last one is clear
    assert not any(band.rough for band in route[1:moved])
    # and what it cost is within the allowance
    assert sum(escape_cost(band.foes, band.friends) for band in route[:moved]) <= allowance


@given(st.integers(min_value=0, max_value=6), st.lists(band_strategy, min_size=1, max_size=10))
def test_movement_goes_as_far_as_the_allowance_lets_it(allowance: int, route: list[Band]) -> None:
    moved = bands_moved(allowance, route)
    if moved < len(route) - 1 and not (moved and route[moved].rough):
        spent = sum(escape_cost(band.foes, band.friends) for band in route[:moved])
        assert spent + escape_cost(route[moved].foes, route[moved].friends) > allowance


# --- Sneaking (ruling 20) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "difficulty", "expected"),
    [
        (PR, PS, Sneak(spotted=True, free_action=False)),
        (PS, PS, Sneak(spotted=False, free_action=False)),
        (AW, GT, Sneak(spotted=False, free_action=True)),
        (AW, EX, Sneak(spotted=True, free_action=False)),  # ruling 20 with ruling 4
    ],
)
def test_sneak(result: Level, difficulty: Level, expected: Sneak) -> None:
    """ch. 5, "Sneaking"."""
    assert sneak(result, difficulty) == expected


def test_sneak_against_the_combined_alertness_of_the_foes() -> None:
    """ch. 5, "Sneaking": the difficulty is the foes' Alertness added (ch. 3 "Adding Difficulties")."""
    difficulty = add_difficulties([PR, PR, PS])  # PR+PR -> PS, PS+PS -> GD
    assert difficulty == GD
    assert sneak(PS, difficulty).spotted is True
    assert sneak(GD, difficulty).spotted is False


# --- Stopping Foe Movement (ruling 21) ----------------------------------------------------------


def test_stop_foe_single_roll() -> None:
    """ch. 5, "Stopping Foe Movement": Agility versus the foe's Agility."""
    assert stop_foe([PS], PS) is True
    assert stop_foe([PR], PS) is False


def test_stop_foe_single_catastrophic_against_catastrophic_succeeds() -> None:
    """One roll is a plain roll: Catastrophic against Catastrophic is a success (ruling 4)."""
    assert stop_foe([CT], CT) is True


def test_stop_foe_compounds_several_rolls() -> None:
    """Ruling 21: Poor + Poor compound to Passable, enough against a Passable foe."""
    assert stop_foe([PR, PR], PS) is True
    assert stop_foe([PR, FB], PS) is False  # two ranks apart: they do not combine


def test_stop_foe_catastrophic_ends_a_compound_effort_in_disaster() -> None:
    """Ruling 21: any Catastrophic roll among several ends the attempt in disaster."""
    assert stop_foe([AW, CT], CT) is False


def test_stop_foe_compounded_results_are_capped_at_awesome() -> None:
    """Ruling 8: compounded results cap at Awesome, so an Extreme foe still cannot be stopped."""
    assert stop_foe([AW, AW], AW) is True
    assert stop_foe([AW, AW, AW], EX) is False


def test_stop_foe_refuses_no_rolls() -> None:
    with pytest.raises(ArtRuleError):
        stop_foe([], PS)


# --- Chases (ch. 5): the worked example is movement -------------------------------------------


def test_chase_example_first_round() -> None:
    """ch. 5, "Chases": you roll Inferior and move 1 band; the thugs (Inferior Agility) move 1."""
    assert bands_moved(movement(IN).bands, [Band(foes=0), Band(), Band()]) == 1
    assert foe_movement(IN) == 1
