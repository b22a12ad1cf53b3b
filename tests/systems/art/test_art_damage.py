"""Damage, Health, healing, falls and sanity (art-engine.md ch. 2 "Health", ch. 3, ch. 6 "Increasing Health")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.systems.art.rules import (
    FALLING_SURFACES,
    HEALTH_RANKS,
    ArtRuleError,
    Level,
    count,
    falling_damage,
    fame_after_defeat,
    first_aid,
    first_aid_cost,
    health_increase_cost,
    health_rank,
    health_track,
    inflicted_damage,
    interpret,
    is_defeated,
    is_staggered,
    mark_damage,
    natural_healing,
    outcome_label,
    player_damage,
    record_damage,
    sanity_check,
    sustained_damage,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level
OPEN = (False, False, False, False)


# --- Health tables ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stamina", "track"),
    [
        (2, (IN, IN, IN, IN)), (3, (IN, IN, IN, PR)), (4, (IN, IN, PR, PR)), (5, (IN, PR, PR, PR)),
        (6, (IN, IN, PR, PS)), (7, (IN, PR, PR, PS)), (8, (IN, PR, PS, PS)), (9, (IN, PR, PS, GD)),
        (10, (PR, PR, PS, GD)), (11, (PR, PS, PS, GD)), (12, (PR, PS, GD, GD)),
    ],
)  # fmt: skip
def test_health_table(stamina: int, track: tuple[Level, ...]) -> None:
    """ch. 2, "Health": the Health table, including the 7 Stamina track drawn above it (IN PR PR PS)."""
    assert health_track(stamina) == track
    assert health_rank(track) == stamina


@pytest.mark.parametrize(
    ("rank", "track", "cost"),
    [
        (13, (PR, PS, GD, GT), 12), (14, (PS, PS, GD, GT), 15), (15, (PS, GD, GD, GT), 20),
        (16, (PS, GD, GT, GT), 25), (17, (PS, GD, GT, SP), 30), (18, (GD, GD, GT, SP), 35),
        (19, (GD, GT, GT, SP), 40), (20, (GD, GT, SP, SP), None),
    ],
)  # fmt: skip
def test_increasing_health_table_above_12(rank: int, track: tuple[Level, ...], cost: int | None) -> None:
    """ch. 6, "Increasing Health"."""
    assert health_track(rank) == track
    if cost is None:
        with pytest.raises(ArtRuleError):
            health_increase_cost(rank)
    else:
        assert health_increase_cost(rank) == cost


def test_increasing_health_costs_2_to_12() -> None:
    assert [health_increase_cost(rank) for rank in range(2, 13)] == [1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 9]


def test_health_tracks_rise_left_to_right_and_grow_with_rank() -> None:
    tracks = [HEALTH_RANKS[rank][0] for rank in range(2, 21)]
    assert all(list(track) == sorted(track) for track in tracks)
    assert [sum(track) for track in tracks] == sorted(sum(track) for track in tracks)


@pytest.mark.parametrize("stamina", [1, 21, 0])
def test_health_outside_the_table_is_refused(stamina: int) -> None:
    with pytest.raises(ArtRuleError) as raised:
        health_track(stamina)
    assert raised.value.field == "stamina"
    with pytest.raises(ArtRuleError):
        health_rank((IN, IN, IN, GD))


# --- player damage (ruling 9) -------------------------------------------------------------------


def test_player_damage_table() -> None:
    """ch. 3, "Player Damage"; ruling 9: 8 or more is Extreme."""
    assert [player_damage(failures) for failures in range(1, 10)] == [IN, PR, PS, GD, GT, SP, AW, EX, EX]


def test_player_damage_examples() -> None:
    """ch. 3, "Taking Damage": Feeble against Poor Attack is Poor damage; with +1 damage, Passable."""
    assert player_damage(-count(PR, FB)) is PR
    assert player_damage(-count(PR, FB), 1) is PS
    assert count(PS, GD) > 0  # Good against Passable: no damage at all
    assert player_damage(-count(PS, IN)) is PR  # ch. 5: Inferior versus Passable, Poor damage
    assert player_damage(-count(GD, IN)) is PS  # ch. 5, Parrying: Inferior against Good, Passable
    assert player_damage(-count(GD, PR)) is PR  # ch. 5: adventurer's Good attack, Poor Defense


def test_player_damage_needs_a_failure() -> None:
    with pytest.raises(ArtRuleError) as raised:
        player_damage(0, 2)
    assert raised.value.field == "failures"
    with pytest.raises(ArtRuleError):
        player_damage(1, -1)


def test_inflicted_damage_is_the_column_rolled() -> None:
    """ch. 3, "Inflicting Damage"; Critical Hits adds +2 (ch. 6), at most Extreme."""
    assert inflicted_damage(GT) is GT
    assert inflicted_damage(PR, 2) is GD
    assert inflicted_damage(AW, 2) is EX


# --- recording damage (ruling 10) ---------------------------------------------------------------


def test_recording_damage_example() -> None:
    """ch. 3, "Recording Damage": Health IN/PR/PS/GD takes Poor, Poor, Inferior, then Great."""
    track = (IN, PR, PS, GD)
    first = record_damage(track, OPEN, PR)
    assert first.checked == (False, True, False, False) and first.marked == (1,)
    second = record_damage(track, first.checked, PR)  # Poor is taken: the next lowest box, IN
    assert second.checked == (True, True, False, False)
    third = record_damage(track, second.checked, IN)  # below PS and GD: ignored
    assert third.checked == second.checked and third.shrugged_off
    fourth = record_damage(track, third.checked, GT)  # one over GD: GD and PS
    assert fourth.checked == (True, True, True, True) and fourth.marked == (2, 3)
    assert fourth.staggered and fourth.defeated


def test_foe_marked_great_is_staggered() -> None:
    """ch. 5, "Player Attacking Foe": Health PR/PS/GD/GT hit for Great; GT is marked, staggered."""
    record = record_damage((PR, PS, GD, GT), OPEN, GT)
    assert record.checked == (False, False, False, True)
    assert record.staggered and not record.defeated


def test_foe_killed_with_a_single_blow() -> None:
    """ch. 5: Health IN/IN/PR/PS hit for Super, 3 over PS: PS and three other boxes."""
    record = record_damage((IN, IN, PR, PS), OPEN, SP)
    assert record.defeated and record.marked == (0, 1, 2, 3)


def test_first_aid_example_track_shrugs_off_and_excess_from_the_lowest() -> None:
    track = (IN, PR, PS, PS)
    assert mark_damage(track, OPEN, PS) == (False, False, False, True)  # the rightmost equal box
    assert mark_damage(track, (False, False, True, True), GD) == (True, True, True, True)
    assert mark_damage(track, (False, False, False, True), GD) == (True, False, True, True)


def test_extreme_checks_every_box() -> None:
    """Ruling 9."""
    record = record_damage((GD, GT, SP, SP), OPEN, EX)
    assert record.checked == (True,) * 4 and record.defeated and record.staggered


def test_mismatched_or_unsorted_tracks_are_refused() -> None:
    with pytest.raises(ArtRuleError) as raised:
        mark_damage((IN, PR), (False,), PR)
    assert raised.value.field == "checked"
    with pytest.raises(ArtRuleError) as raised:
        mark_damage((PR, IN), (False, False), PR)
    assert raised.value.field == "track"


tracks = st.lists(st.sampled_from([IN, PR, PS, GD, GT, SP]), min_size=1, max_size=6).map(lambda b: tuple(sorted(b)))


@settings(max_examples=300, deadline=None)
@given(track=tracks, data=st.data(), damage=st.sampled_from(list(Level)))
def test_recording_damage_properties(track: tuple[Level, ...], data: st.DataObject, damage: Level) -> None:
    checked = tuple(data.draw(st.lists(st.booleans(), min_size=len(track), max_size=len(track))))
    after = mark_damage(track, checked, damage)
    marked = [index for index in range(len(track)) if after[index] and not checked[index]]
    open_values = [track[index] for index in range(len(track)) if not checked[index]]
    assert all(after[index] for index in range(len(track)) if checked[index])  # never unchecks
    assert all(track[index] <= damage for index in marked)  # never checks a box above the damage
    if not open_values or damage < min(open_values):
        assert marked == []  # shrugged off
    elif damage is EX:
        assert all(after)
    elif damage in open_values:
        assert len(marked) == 1 and track[marked[0]] == damage
    elif damage < max(open_values):
        assert len(marked) == 1 and track[marked[0]] == max(v for v in open_values if v < damage)
    else:
        assert len(marked) == min(len(open_values), 1 + damage - max(open_values))
    assert is_staggered(checked, after) == (after[-1] and not checked[-1])
    assert is_defeated(after) == all(after)


@settings(max_examples=100, deadline=None)
@given(track=tracks, data=st.data())
def test_more_damage_never_checks_fewer_boxes(track: tuple[Level, ...], data: st.DataObject) -> None:
    checked = tuple(data.draw(st.lists(st.booleans(), min_size=len(track), max_size=len(track))))
    marks = [sum(mark_damage(track, checked, damage)) for damage in Level]
    assert marks == sorted(marks)


def test_defeat_costs_a_point_of_fame() -> None:
    """ch. 3, "Defeat": -1 Fame, down to a minimum of zero."""
    assert fame_after_defeat(3) == 2
    assert fame_after_defeat(0) == 0


# --- healing ------------------------------------------------------------------------------------


def test_first_aid_costs() -> None:
    """ch. 3, "First Aid": Inferior 1, Poor 2, Great 5."""
    assert [first_aid_cost(level) for level in (IN, PR, PS, GD, GT)] == [1, 2, 3, 4, 5]


def test_first_aid_example() -> None:
    """Companion with IN/PR/PS/PS, all checked: 1 Fame heals IN, then 3 heals a PS; IN and PS open."""
    track, checked = (IN, PR, PS, PS), (True, True, True, True)
    checked, cost = first_aid(track, checked, 0)
    assert (checked, cost) == ((False, True, True, True), 1)
    assert not is_defeated(checked)
    checked, cost = first_aid(track, checked, 2)
    assert cost == 3
    assert [box for box, mark in zip(track, checked) if not mark] == [IN, PS]
    with pytest.raises(ArtRuleError) as raised:
        first_aid(track, checked, 0)
    assert raised.value.field == "box"


def test_natural_healing_example() -> None:
    """ch. 3, "Natural Healing": Poor and Passable checked; Inferior heals nothing, Good erases Passable."""
    track, checked = (IN, PR, PS, GD), (False, True, True, False)
    assert natural_healing(track, checked, IN) == checked
    assert natural_healing(track, checked, GD) == (False, True, False, False)


def test_med_kit_example() -> None:
    """ch. 3, "Med-Kits": Inferior and Poor checked; Pathetic fails, Great heals the Poor box."""
    track, checked = (IN, PR, PS, GD), (True, True, False, False)
    assert natural_healing(track, checked, PT) == checked
    assert natural_healing(track, checked, GT) == (True, False, False, False)


def test_healing_a_chosen_box() -> None:
    track, checked = (IN, PR, PS, GD), (True, True, False, False)
    assert natural_healing(track, checked, GT, box=0) == (False, True, False, False)
    with pytest.raises(ArtRuleError):
        natural_healing(track, checked, IN, box=1)


# --- special damage -----------------------------------------------------------------------------


def test_sustained_damage_example() -> None:
    """ch. 3, "Sustained Damage": Poor against Good, 2 failures, 2 rounds: Inferior then Poor."""
    assert sustained_damage(-count(GD, PR)) == (IN, PR)
    assert sustained_damage(0) == ()
    assert sustained_damage(9)[-3:] == (AW, EX, EX)


@pytest.mark.parametrize(
    ("feet", "surface", "damage", "where"),
    [
        (30, 2, GT, "30 feet onto rocks: Passable + 2 = Great"),
        (10, 1, PR, "a short drop onto a stone floor: Inferior + 1 = Poor"),
        (50, -3, PR, "a dizzying plunge into deep snow: Great - 3 = Poor"),
        (80, 0, EX, "a deadly dive"),
        (200, 0, EX, "beyond the table"),
        (45, 0, GD, "each full 10 feet"),
        (10, -3, CT, "snow breaks a short drop"),
    ],
)
def test_falling_damage_examples(feet: int, surface: int, damage: Level, where: str) -> None:
    """ch. 3, "Falling Damage"."""
    assert falling_damage(feet, surface) is damage, where


def test_falling_damage_edges() -> None:
    assert falling_damage(9) is None
    assert falling_damage(40, breakfall=2) is PR  # ch. 6, Breakfall: one column per rank
    assert sorted(FALLING_SURFACES) == list(range(-3, 4))


@pytest.mark.parametrize(
    ("feet", "surface", "breakfall", "field"), [(-1, 0, 0, "feet"), (10, 4, 0, "surface"), (10, 0, 3, "breakfall")]
)
def test_falling_damage_refuses_bad_input(feet: int, surface: int, breakfall: int, field: str) -> None:
    with pytest.raises(ArtRuleError) as raised:
        falling_damage(feet, surface, breakfall=breakfall)
    assert raised.value.field == field


def test_sanity_check_table() -> None:
    """ch. 3, "Insanity": from 2 successes down to 8 failures; beyond the ends, the last line."""
    assert sanity_check(2)[0] == "2s"
    assert sanity_check(5) == sanity_check(2)
    assert sanity_check(-2) == ("2f", "You are paralyzed with fear for 1 round.")
    assert sanity_check(-9) == sanity_check(-8)
    assert sanity_check(-8)[1].startswith("Your character goes completely insane")


def test_interpreting_successes_and_failures() -> None:
    """ch. 3, "Interpreting Successes & Failures"."""
    assert interpret(3)[0] == "3s" and interpret(3)[1].startswith("Solid success")
    assert interpret(-5)[1].startswith("Complete disaster")
    assert interpret(-9) == interpret(-5) and interpret(7) == interpret(5)
    assert [outcome_label(n) for n in (1, 2, -1, -2)] == ["1s", "2s", "1f", "2f"]
    with pytest.raises(ArtRuleError):
        outcome_label(0)
