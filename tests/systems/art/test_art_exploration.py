"""Exploration phases: time taken, time limits, scales, the phase track (art-engine.md ch. 4).

Rulings: RULINGS.md, ART Engine 12 (time in phases), 29 (the cliff example's slip), 30 (time
limits), 31 (the phase track's squares), 32 (scales stop at decades).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.systems.art.rules as art
from app.systems.art.rules import (
    PHASE_SCALES,
    TRACK_SQUARES,
    ArtRuleError,
    Level,
    TimedAction,
    advance_token,
    next_turn_marker,
    phase_time,
    phases,
    raise_scale,
    shadow,
    timed_action,
    tracking_difficulty,
)

CT, PT, FB, IN, PR, PS, GD, GT, SP, AW, EX = Level
results = st.sampled_from([level for level in Level if level <= AW])
levels = st.sampled_from(list(Level))
squares = st.integers(min_value=0, max_value=TRACK_SQUARES - 1)


# --- How Long Did It Take? (ruling 12) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "difficulty", "expected", "where"),
    [
        (PT, CT, 8, "How Long Did It Take?: trip to town, Catastrophic roll, Pathetic: 8 hours"),
        (IN, PS, 2, "How Long Did It Take?: the car engine, Passable, Inferior (2 failures): 2 hours"),
        (GT, PR, 2, "How Long Did It Take?: library research, Poor, Great: 2 phases"),
        (PT, PR, 3, "Rolling Again: the safe, Poor, Pathetic: 3 hours"),
        (GD, PR, 3, "Rolling Again: the safe again, Poor, Good: another 3 days"),
        (FB, PS, 3, "Rolling Again: the lock, Passable, Feeble (3 failures): 3 phases"),
        (IN, PS, 2, "Rolling Again: the lock again, Inferior (2 failures): 2 phases"),
        (SP, IN, 1, "Rolling Again: the broken pick, Inferior Strength, Super: 1 phase"),
        (PR, PS, 1, "Rolling Again: the lock a third time, Poor (1 failure): 1 phase"),
        (FB, PS, 3, "Rolling Again: the lock at hours, Feeble: 3 more hours"),
        (FB, PS, 3, "Phase Track, Influencing: Rick climbs, Passable, Feeble: 3 phases"),
        (GT, PS, 2, "Phase Track, Influencing: Shari climbs, Passable, Great: 2 phases"),
    ],
)
def test_timed_action_worked_examples(result: Level, difficulty: Level, expected: int, where: str) -> None:
    """ch. 4, "How Long Did It Take?", "Rolling Again", "Influencing Another Character's Action"."""
    action = timed_action(result, difficulty)
    assert action.phases == expected == phases(result, difficulty), where
    assert action.spent == expected
    assert action.aborted is False
    assert action.succeeded is (art.count(difficulty, result) > 0)


def test_cliff_example_passable_takes_four_phases_not_five() -> None:
    """ch. 4, "Influencing Another Character's Action": Shari pulls Rick up on a Passable roll.

    The text says "another 5 phases"; ruling 29: Passable is 4 columns under Awesome, so 4.
    """
    assert timed_action(PS, PS) == TimedAction(phases=4, succeeded=True, again=False, aborted=False, spent=4)


def test_pit_example_failure_means_phases_of_failures() -> None:
    """ch. 4, "Rolling Again": climbing out of the pit, Inferior, "climbs for 3 phases".

    The text gives no difficulty; 3 phases of an Inferior roll means 3 failures: a Good difficulty.
    """
    assert timed_action(IN, GD) == TimedAction(phases=3, succeeded=False, again=False, aborted=False, spent=3)


def test_awesome_success_takes_less_than_a_phase_and_may_act_again() -> None:
    """ch. 4, "How Long Did It Take?": on an Awesome roll the player may act again on the same phase."""
    assert timed_action(AW, PS) == TimedAction(phases=0, succeeded=True, again=True, aborted=False, spent=0)


def test_awesome_against_extreme_fails_and_does_not_act_again() -> None:
    """Ruling 4: an Extreme difficulty always fails, so Awesome is one failure, not an Awesome success."""
    assert timed_action(AW, EX) == TimedAction(phases=1, succeeded=False, again=False, aborted=False, spent=1)


def test_catastrophic_difficulty_still_takes_time() -> None:
    """ch. 4: "If there is no chance of failure then the difficulty is Catastrophic, but you must still roll"."""
    action = timed_action(CT, CT)
    assert action.succeeded is True and action.phases == 9


# --- Setting Time Limits (ruling 30) ------------------------------------------------------------


def test_time_limit_exceeded_aborts_neither_success_nor_failure() -> None:
    """ch. 4, "Setting Time Limits"; ruling 30: the aborted action takes the limit's phases."""
    assert timed_action(PR, CT, limit=3) == TimedAction(phases=5, succeeded=None, again=False, aborted=True, spent=3)


def test_time_limit_aborts_a_failure_too() -> None:
    """A failure that would take longer than the limit is aborted as well: neither success nor failure."""
    action = timed_action(PT, GD, limit=2)  # 5 failures
    assert (action.aborted, action.succeeded, action.spent, action.phases) == (True, None, 2, 5)


def test_time_limit_met_exactly_is_not_aborted() -> None:
    action = timed_action(GT, PS, limit=2)
    assert (action.aborted, action.succeeded, action.spent) == (False, True, 2)


def test_time_limit_zero_allows_only_awesome() -> None:
    assert timed_action(AW, PS, limit=0).again is True
    assert timed_action(SP, PS, limit=0).aborted is True


def test_negative_time_limit_is_refused() -> None:
    with pytest.raises(ArtRuleError) as raised:
        timed_action(GD, PS, limit=-1)
    assert raised.value.field == "limit"


def test_timed_action_reads_an_extreme_result_as_above_awesome() -> None:
    """Extreme is never rolled, but it is not refused (the contract names no such refusal): it counts
    one column above Awesome (ruling 5), so it takes less than a phase, as Awesome does."""
    assert timed_action(EX, PS) == TimedAction(phases=0, succeeded=True, again=True, aborted=False, spent=0)


@given(results, levels, st.one_of(st.none(), st.integers(min_value=0, max_value=12)))
@settings(max_examples=300)
def test_timed_action_is_consistent(result: Level, difficulty: Level, limit: int | None) -> None:
    action = timed_action(result, difficulty, limit=limit)
    assert action.phases == phases(result, difficulty)
    if action.aborted:
        assert limit is not None and action.phases > limit
        assert action.succeeded is None and action.again is False and action.spent == limit
    else:
        assert action.spent == action.phases
        assert action.succeeded is (art.count(difficulty, result) > 0)
        assert action.again is (action.succeeded and result is AW)


# --- Time Scale of Phases, Rolling Again (ruling 32) --------------------------------------------


def test_phase_scales_are_the_table_in_order() -> None:
    """ch. 4, "Time Scale of Phases"."""
    assert list(PHASE_SCALES.items()) == [
        ("minutes", (5, "minutes")),
        ("hours", (1, "hours")),
        ("days", (1, "days")),
        ("weeks", (1, "weeks")),
        ("months", (1, "months")),
        ("years", (1, "years")),
        ("decades", (10, "years")),
    ]


def test_lock_example_scale_goes_minutes_hours_days() -> None:
    """ch. 4, "Rolling Again": the lock; the narrator raises the scale to hours, then days."""
    assert raise_scale("minutes") == "hours"
    assert raise_scale("hours") == "days"


def test_safe_example_raises_hours_to_days() -> None:
    """ch. 4, "Rolling Again": the safe; no penalty for failure, the scale goes to days."""
    assert raise_scale("hours") == "days"


@pytest.mark.parametrize("scale", ["decades", "centuries", "Minutes", ""])
def test_raise_scale_refuses_decades_and_unknown_scales(scale: str) -> None:
    """Ruling 32: scale increases stop at decades."""
    with pytest.raises(ArtRuleError) as raised:
        raise_scale(scale)
    assert raised.value.field == "scale"


def test_every_scale_but_decades_raises_to_the_next() -> None:
    names = list(PHASE_SCALES)
    assert [raise_scale(name) for name in names[:-1]] == names[1:]


@pytest.mark.parametrize(
    ("scale", "count", "expected"),
    [
        ("minutes", 3, (15, "minutes")),  # the lock: 3 phases (15 minutes)
        ("minutes", 2, (10, "minutes")),  # the lock: 2 phases (another 10 minutes)
        ("hours", 3, (3, "hours")),  # the safe: 3 hours
        ("days", 3, (3, "days")),
        ("decades", 2, (20, "years")),
    ],
)
def test_phase_time_in_game_time(scale: str, count: int, expected: tuple[int, str]) -> None:
    """ch. 4, "Time Scale of Phases" with the lock example's own conversions."""
    assert phase_time(scale, count) == expected


def test_phase_time_refuses_unknown_scale_and_negative_phases() -> None:
    with pytest.raises(ArtRuleError):
        phase_time("fortnights", 1)
    with pytest.raises(ArtRuleError):
        phase_time("hours", -1)


# --- Phase Track (ruling 31) --------------------------------------------------------------------


def test_track_has_ten_squares() -> None:
    assert TRACK_SQUARES == 10


@pytest.mark.parametrize(
    ("square", "count", "expected"),
    [(0, 3, 3), (0, 2, 2), (2, 4, 6), (8, 3, 1), (9, 1, 0), (4, 10, 4), (4, 0, 4), (0, 25, 5)],
)
def test_advance_token_moves_right_and_wraps(square: int, count: int, expected: int) -> None:
    """ch. 4, "Phase Track"; ruling 31: ten phases come back to the same square."""
    assert advance_token(square, count) == expected


@pytest.mark.parametrize(("square", "count"), [(-1, 1), (10, 1), (0, -1)])
def test_advance_token_refuses_off_track_squares_and_negative_phases(square: int, count: int) -> None:
    with pytest.raises(ArtRuleError):
        advance_token(square, count)


@given(squares, st.integers(min_value=0, max_value=500))
def test_advance_token_stays_on_the_track(square: int, count: int) -> None:
    assert 0 <= advance_token(square, count) <= 9


def test_cliff_example_on_the_phase_track() -> None:
    """ch. 4, "Phase Track" with "Influencing Another Character's Action": Rick (Feeble, 3 phases) and
    Shari (Great, 2 phases) start on square 0. The marker goes to Shari's square first; her Passable
    pull (4 phases, ruling 29) puts her on 6, so the marker then reaches Rick's square 3."""
    rick, shari = advance_token(0, 3), advance_token(0, 2)
    marker = next_turn_marker([rick, shari], 0)
    assert marker == 2 == shari
    shari = advance_token(shari, phases(PS, PS))
    assert shari == 6
    assert next_turn_marker([rick, shari], marker) == 3


@pytest.mark.parametrize(
    ("tokens", "marker", "expected"),
    [
        ([3, 5], 0, 3),
        ([3, 5], 3, 5),
        ([3, 5], 5, 3),  # wraps around
        ([1, 9], 9, 1),
        ([0, 0], 0, 0),  # every token on the marker: a full lap
        ([4], 4, 4),
        ([4, 7], 4, 7),  # the marker's own square is not reached while another token waits
        ([2, 2, 8], 8, 2),
    ],
)
def test_next_turn_marker(tokens: list[int], marker: int, expected: int) -> None:
    """ch. 4, "Phase Track": the next square on the right holding a token, wrapping around."""
    assert next_turn_marker(tokens, marker) == expected


def test_next_turn_marker_takes_any_iterable() -> None:
    assert next_turn_marker(iter((6, 1)), 2) == 6


def test_next_turn_marker_refuses_no_tokens_and_off_track_squares() -> None:
    with pytest.raises(ArtRuleError) as raised:
        next_turn_marker([], 0)
    assert raised.value.field == "squares"
    with pytest.raises(ArtRuleError):
        next_turn_marker([10], 0)
    with pytest.raises(ArtRuleError):
        next_turn_marker([1], 10)


@given(st.lists(squares, min_size=1, max_size=8), squares)
def test_next_turn_marker_is_the_nearest_token_to_the_right(tokens: list[int], marker: int) -> None:
    moved = next_turn_marker(tokens, marker)
    assert moved in tokens
    distance = (moved - marker) % TRACK_SQUARES or TRACK_SQUARES
    assert all(((square - marker) % TRACK_SQUARES or TRACK_SQUARES) >= distance for square in tokens)


# --- Tracking and Shadowing (ch. 4; not in the contract) ----------------------------------------


@pytest.mark.parametrize(
    ("successes", "options", "expected"),
    [
        (1, {}, GT),  # Super -1 per success
        (3, {}, PS),
        (2, {"continuous": True}, GT),
        (2, {"faster": True}, SP),
        (2, {"slow": True}, PS),
        (9, {}, CT),  # never below Catastrophic
        (1, {"continuous": True, "faster": True}, EX),  # never above Extreme
    ],
)
def test_tracking_difficulty(successes: int, options: dict[str, bool], expected: Level) -> None:
    """ch. 4, "Tracking": Super -1 per Alertness success; +1 continuous, +2 faster, -1 slow."""
    assert tracking_difficulty(successes, **options) == expected


def test_tracking_difficulty_needs_a_successful_alertness_roll() -> None:
    with pytest.raises(ArtRuleError):
        tracking_difficulty(0)


@pytest.mark.parametrize(
    ("result", "difficulty", "expected"),
    [
        (GT, PS, ("following", 3)),  # one phase per success
        (PR, PS, ("lost", 0)),  # one failure: you lose your target
        (IN, PS, ("spotted", 0)),  # two or more: the target spots you
        (CT, PS, ("spotted", 0)),
    ],
)
def test_shadow_avoid_detection_roll(result: Level, difficulty: Level, expected: tuple[str, int]) -> None:
    """ch. 4, "Shadowing": the second roll, against the target's Alertness."""
    outcome = shadow(result, difficulty)
    assert (outcome.outcome, outcome.phases) == expected
