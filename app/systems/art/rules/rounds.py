"""Combat rounds: initiative, the order of a round, waiting, multi-action, free-action attempts.

art-engine.md, ch. 5 "Initiative", "Simplified Initiative", "Taking Your Turn", "Free Actions",
"Automatically Successful Actions", "Waiting", "Multi-Action", "Standing Up", "Drawing a Weapon";
ch. 3 "Staggering" (a staggered character loses its next turn). RULINGS.md, ART Engine rulings 11,
13, 14, 15, 16. The contract is ART-COMBAT.md, chapter 5.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from app.rules.text import N_

from ._inputs import unique_names
from .levels import ArtRuleError, Level, count

BONUS_ROUND = Level.SP  # "Awesome or Super initiative receive a bonus round" (Extreme too, ruling 13)
LOSE_FIRST_TURN = Level.PT  # "Pathetic or Catastrophic initiative lose their first turn"
MULTI_ACTION_FAME: dict[int, int] = {1: 0, 2: 1, 3: 3}  # ch. 5, "Multi-Action"; ruling 16
FREE_ACTION_DIFFICULTY = Level.IN  # ch. 5, "Automatically Successful Actions": an Inferior roll


@dataclass(frozen=True)
class Initiative:
    """The turn orders of an encounter: the bonus round, the first round, every round after."""

    bonus: tuple[str, ...]
    first: tuple[str, ...]
    later: tuple[str, ...]


def initiative_order(players: Sequence[tuple[str, Level]], foes: Sequence[tuple[str, Level]]) -> Initiative:
    """Who acts when (ch. 5, "Initiative"; rulings 11, 13).

    `players` are (name, rolled Alertness), tied players already in the order the server settled;
    `foes` are (name, Alertness rating), a group as one entry, tied foes in the narrator's order.
    Highest first; on the same level players before foes.
    """
    unique_names("names", [name for name, _ in (*players, *foes)])
    entries = [(name, Level(level), 0) for name, level in players]
    entries += [(name, Level(level), 1) for name, level in foes]
    # sorted() is stable, so tied players and tied foes keep the order they were given in
    ranked = sorted(entries, key=lambda entry: (-entry[1], entry[2]))
    later = tuple(name for name, _, _ in ranked)
    return Initiative(
        bonus=tuple(name for name, level, _ in ranked if level >= BONUS_ROUND),
        first=tuple(name for name, level, _ in ranked if level > LOSE_FIRST_TURN),
        later=later,
    )


def round_order(initiative: Initiative, round_number: int, *, out: Collection[str] = ()) -> tuple[str, ...]:
    """One round's turn order: round 0 is the bonus round, 1 the first round, then every later round.

    `out` are the characters who do not act this round: defeated, or staggered (ch. 3, "Staggering":
    a staggered character loses its next turn). Everyone else in the round acts once, in order.
    """
    if round_number < 0:
        raise ArtRuleError(
            "round_number", N_("rounds count from 0 (the bonus round), not {round_number}"), round_number=round_number
        )
    unknown = set(out) - set(initiative.later)
    if unknown:
        raise ArtRuleError("out", N_("{unknown!r} are not in this encounter"), unknown=sorted(unknown))
    order = (initiative.bonus, initiative.first)[round_number] if round_number < 2 else initiative.later
    return tuple(name for name in order if name not in out)


def simplified_initiative(players: Sequence[tuple[str, Level]], foes: Level) -> tuple[str | None, ...]:
    """One round's order by seats (ch. 5, "Simplified Initiative"; ruling 14). None is the foes' turn.

    `players` are (name, rolled Alertness) clockwise from the narrator's left; `foes` their best
    Alertness. The highest roller starts (ties: the first seat from the narrator's left) and play
    goes clockwise; the foes act on reaching the narrator, or first if every player rolled lower.
    """
    names = unique_names("players", [name for name, _ in players])
    if not names:
        return (None,)  # "the players all roll lower" holds vacuously: the foes alone act
    rolls = [Level(level) for _, level in players]
    start = rolls.index(max(rolls))
    seats: list[str | None] = list(names[start:])
    if max(rolls) < Level(foes):
        return (None, *seats, *names[:start])
    return (*seats, None, *names[:start])


def wait_targets(order: Sequence[str], waited: Collection[str]) -> tuple[str, ...]:
    """Whom order[0] may choose to act right after by waiting (ch. 5, "Waiting"; ruling 15).

    `order` is who still has to act this round, order[0] on turn; `waited` is everyone who has waited
    this round. The choice runs up to, not including, the first one already waiting; () if order[0]
    already waited (it must act now).
    """
    names = unique_names("order", order)
    if not names:
        raise ArtRuleError("order", N_("nobody is left to act this round"))
    if names[0] in waited:
        return ()
    targets: list[str] = []
    for name in names[1:]:
        if name in waited:
            break
        targets.append(name)
    return tuple(targets)


def wait(order: Sequence[str], waited: Collection[str], after: str) -> tuple[str, ...]:
    """The order once order[0] waits to act right after `after` (ch. 5, "Waiting"; ruling 15).

    The caller then adds order[0] to `waited`.
    """
    targets = wait_targets(order, waited)
    if after not in targets:
        allowed = ", ".join(targets) or "nobody: act now"
        raise ArtRuleError(
            "after",
            N_("{order!r} may wait to act after {allowed}, not {after!r}"),
            order=order[0],
            allowed=allowed,
            after=after,
        )
    rest = list(order[1:])
    rest.insert(rest.index(after) + 1, order[0])
    return tuple(rest)


def multi_action_fame(turns: int) -> int:
    """The total Fame for `turns` turns in a row: 1 more for the second, 2 more for the third
    (ch. 5, "Multi-Action"; ruling 16: no fourth)."""
    if turns not in MULTI_ACTION_FAME:
        raise ArtRuleError("turns", N_("a character takes 1 to 3 turns in a row, not {turns}"), turns=turns)
    return MULTI_ACTION_FAME[turns]


@dataclass(frozen=True)
class FreeAttempt:
    """An automatically successful action tried as a free action: was it done, does the turn end."""

    done: bool
    turn_ends: bool


def free_action_attempt(result: Level) -> FreeAttempt:
    """The Inferior roll to do an automatically successful action as a free action (ch. 5,
    "Automatically Successful Actions", "Standing Up", "Drawing a Weapon")."""
    result = Level(result)
    if count(FREE_ACTION_DIFFICULTY, result) > 0:
        return FreeAttempt(done=True, turn_ends=False)
    return FreeAttempt(done=result is Level.FB, turn_ends=True)
