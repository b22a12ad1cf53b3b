"""Actions built from several rolls: combined efforts and sustained actions.

art-engine.md, ch. 3 "Combined Efforts", "Non-Compounding Tasks", "Compounding Tasks",
"Sustained Actions"; RULINGS.md, ART Engine ruling 8.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level, compound_results

SUSTAINED_GOALS = range(5, 31)  # ch. 3, "Sustained Actions": goals range from 5 to 30
DEFAULT_SUSTAINED_GOAL = 10  # "Most sustained actions have a goal of 10"


@dataclass(frozen=True)
class CombinedEffort:
    """The group's single result; `disaster` when any player rolled Catastrophic."""

    result: Level
    disaster: bool


def combined_effort(rolled: Sequence[Level], *, compounding: bool, helpers: Iterable[Level] = ()) -> CombinedEffort:
    """Several characters working on one task (ch. 3, "Combined Efforts").

    `rolled` are the players' results; `helpers` are narrator-controlled characters' trait ratings,
    used as they are. A non-compounding task takes the best result; a compounding one adds them like
    difficulties, capped at Awesome. A Catastrophic roll by any player ends the effort in disaster.
    """
    if not rolled:
        raise ArtRuleError("rolled", N_("a combined effort needs at least one player's roll"))
    levels = [Level(level) for level in (*rolled, *helpers)]
    result = compound_results(levels) if compounding else max(levels)
    return CombinedEffort(result=result, disaster=any(Level(level) is Level.CT for level in rolled))


@dataclass(frozen=True)
class SustainedTally:
    """Running totals of a sustained action. `last` is the final roll's successes (> 0) or failures
    (< 0), the degree of the whole action once `finished`; `succeeded` is None until then."""

    successes: int
    failures: int
    rolls: int
    last: int | None
    finished: bool
    succeeded: bool | None


def sustained_action(
    outcomes: Iterable[int], *, goal: int = DEFAULT_SUSTAINED_GOAL, failure_goal: int | None = None
) -> SustainedTally:
    """Tally a sustained action's rolls (ch. 3, "Sustained Actions").

    `outcomes` are each roll's successes (> 0) or failures (< 0), as count() gives them. The action
    ends when either running total reaches its goal; the goals may differ if the narrator wishes.
    """
    failure_goal = goal if failure_goal is None else failure_goal
    for name, value in (("goal", goal), ("failure_goal", failure_goal)):
        if value not in SUSTAINED_GOALS:
            raise ArtRuleError(name, N_("a sustained action's goal is 5 to 30, not {value}"), value=value)
    successes = failures = rolls = 0
    last: int | None = None
    for outcome in outcomes:
        if successes >= goal or failures >= failure_goal:
            raise ArtRuleError("outcomes", N_("the action already ended after roll {rolls}"), rolls=rolls)
        if outcome == 0:
            raise ArtRuleError("outcomes", N_("a roll gives at least one success or one failure, never 0"))
        successes += max(outcome, 0)
        failures += max(-outcome, 0)
        rolls += 1
        last = outcome
    finished = successes >= goal or failures >= failure_goal
    return SustainedTally(
        successes=successes,
        failures=failures,
        rolls=rolls,
        last=last,
        finished=finished,
        succeeded=(successes >= goal) if finished else None,
    )
