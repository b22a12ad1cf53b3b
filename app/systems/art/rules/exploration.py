"""Exploration phases: how long an action takes, time limits, time scales, the phase track, tracking
and shadowing.

art-engine.md, ch. 4 "Time Scale of Phases", "How Long Did It Take?", "Rolling Again", "Setting Time
Limits", "Phase Track", "Influencing Another Character's Action", "Shadowing", "Tracking";
RULINGS.md, ART Engine rulings 4, 12, 29, 30, 31, 32. The contract is ART-COMBAT.md, chapter 4.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level, count, phases

# ch. 4, "Time Scale of Phases": scale -> what one phase represents (amount, unit), shortest first.
PHASE_SCALES: dict[str, tuple[int, str]] = {
    "minutes": (5, "minutes"),
    "hours": (1, "hours"),
    "days": (1, "days"),
    "weeks": (1, "weeks"),
    "months": (1, "months"),
    "years": (1, "years"),
    "decades": (10, "years"),
}

TRACK_SQUARES = 10  # ch. 4, "Phase Track": "a row of ten squares"; numbered 0..9 (ruling 31)


@dataclass(frozen=True)
class TimedAction:
    """An action resolved in phases. `succeeded` is None when the time limit aborted it; `spent` is
    the phases the character is busy; `again` means another action on the same phase (Awesome)."""

    phases: int
    succeeded: bool | None
    again: bool
    aborted: bool
    spent: int


def timed_action(result: Level, difficulty: Level, *, limit: int | None = None) -> TimedAction:
    """How long an action takes, and whether a time limit cuts it short (ch. 4, "How Long Did It
    Take?", "Setting Time Limits"; rulings 12, 29, 30).

    An aborted action is neither a success nor a failure and keeps the character busy for the limit.
    """
    result = Level(result)
    if limit is not None and limit < 0:
        raise ArtRuleError("limit", N_("a time limit is 0 phases or more, not {limit}"), limit=limit)
    taken = phases(result, difficulty)
    if limit is not None and taken > limit:
        return TimedAction(phases=taken, succeeded=None, again=False, aborted=True, spent=limit)
    succeeded = count(difficulty, result) > 0
    return TimedAction(
        phases=taken,
        succeeded=succeeded,
        again=succeeded and result >= Level.AW,
        aborted=False,
        spent=taken,
    )


def raise_scale(scale: str) -> str:
    """The next longer time scale, after a failed attempt with no penalty (ch. 4, "Rolling Again").

    Ruling 32: there is nothing past decades; the narrator ends the attempts instead.
    """
    scales = list(PHASE_SCALES)
    if scale not in PHASE_SCALES:
        raise ArtRuleError(
            "scale", N_("{scale!r} is not a time scale ({scales})"), scale=scale, scales=", ".join(scales)
        )
    position = scales.index(scale)
    if position == len(scales) - 1:
        raise ArtRuleError("scale", N_("decades is the longest scale; it cannot be increased"))
    return scales[position + 1]


def phase_time(scale: str, phase_count: int) -> tuple[int, str]:
    """Game time for a number of phases on a scale: 3 phases of minutes is (15, "minutes") (ch. 4,
    "Time Scale of Phases", as the lock example of "Rolling Again" counts it)."""
    if scale not in PHASE_SCALES:
        raise ArtRuleError(
            "scale",
            N_("{scale!r} is not a time scale ({phase_scales})"),
            scale=scale,
            phase_scales=", ".join(PHASE_SCALES),
        )
    if phase_count < 0:
        raise ArtRuleError("phases", N_("phases cannot be negative ({phase_count})"), phase_count=phase_count)
    amount, unit = PHASE_SCALES[scale]
    return amount * phase_count, unit


def _square(field: str, square: int) -> int:
    if not 0 <= square < TRACK_SQUARES:
        raise ArtRuleError(
            field,
            N_("the phase track's squares are 0 to {track_squares}, not {square}"),
            track_squares=TRACK_SQUARES - 1,
            square=square,
        )
    return square


def advance_token(square: int, phases: int) -> int:
    """A token's square after an action of `phases` phases: one square right per phase, wrapping
    (ch. 4, "Phase Track"; ruling 31: ten phases come back to the same square)."""
    _square("square", square)
    if phases < 0:
        raise ArtRuleError("phases", N_("an action cannot take {phases} phases"), phases=phases)
    return (square + phases) % TRACK_SQUARES


def next_turn_marker(squares: Iterable[int], marker: int) -> int:
    """Where the turn marker goes once every action on its phase is resolved: the nearest square
    strictly to the right holding a token, wrapping around; its own square only after a full lap,
    when every token is on it (ch. 4, "Phase Track")."""
    occupied = {_square("squares", square) for square in squares}
    _square("marker", marker)
    if not occupied:
        raise ArtRuleError("squares", N_("the phase track has no tokens on it"))
    for step in range(1, TRACK_SQUARES + 1):
        square = (marker + step) % TRACK_SQUARES
        if square in occupied:
            return square
    raise AssertionError("unreachable: a full lap comes back to an occupied square")


TRACKING_BASE = Level.SP  # ch. 4, "Tracking": "The difficulty is Super -1 for each success"


def tracking_difficulty(successes: int, *, continuous: bool = False, faster: bool = False, slow: bool = False) -> Level:
    """The Stamina (on foot) or Strength (mounted) roll to catch up with a tracked target (ch. 4,
    "Tracking"): Super, one column lower per Alertness success; +1 if the target moves without rest,
    +2 if it moves by a faster method, -1 if it moves slowly; kept within Catastrophic..Extreme."""
    if successes < 1:
        raise ArtRuleError("successes", N_("only a successful Alertness roll finds the tracks"))
    shift = -successes + int(continuous) + 2 * int(faster) - int(slow)
    return Level(min(max(int(TRACKING_BASE) + shift, Level.CT), Level.EX))


@dataclass(frozen=True)
class Shadow:
    """The second shadowing roll: "following" for `phases` phases, "lost" or "spotted"."""

    outcome: str
    phases: int


def shadow(result: Level, difficulty: Level) -> Shadow:
    """The roll to follow unnoticed, against the target's Alertness (ch. 4, "Shadowing"): one phase
    per success; one failure loses the target; two or more and the target spots you."""
    outcome = count(difficulty, Level(result))
    if outcome > 0:
        return Shadow(outcome="following", phases=outcome)
    return Shadow(outcome="lost" if outcome == -1 else "spotted", phases=0)
