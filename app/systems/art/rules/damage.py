"""Damage, the Health track, and healing.

art-engine.md, ch. 2 "Health"; ch. 3 "Taking Damage", "Inflicting Damage", "Recording Damage",
"Staggering", "Defeat", "First Aid", "Natural Healing", "Med-Kits", "Sustained Damage"; ch. 6
"Increasing Health"; RULINGS.md, ART Engine rulings 9 and 10.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level

Track = tuple[Level, Level, Level, Level]

I, R, S, G, T, P = Level.IN, Level.PR, Level.PS, Level.GD, Level.GT, Level.SP  # noqa: E741 -- the text's letters
# ch. 6, "Increasing Health" (rank: current Health, xp to go up one rank). Ranks 2..12 are also
# ch. 2's Health table, where the rank is the Stamina. Rank 20 is the top: it cannot be bought past.
HEALTH_RANKS: dict[int, tuple[Track, int | None]] = {
    2: ((I, I, I, I), 1),
    3: ((I, I, I, R), 1),
    4: ((I, I, R, R), 1),
    5: ((I, R, R, R), 2),
    6: ((I, I, R, S), 2),
    7: ((I, R, R, S), 3),
    8: ((I, R, S, S), 3),
    9: ((I, R, S, G), 4),
    10: ((R, R, S, G), 5),
    11: ((R, S, S, G), 7),
    12: ((R, S, G, G), 9),
    13: ((R, S, G, T), 12),
    14: ((S, S, G, T), 15),
    15: ((S, G, G, T), 20),
    16: ((S, G, T, T), 25),
    17: ((S, G, T, P), 30),
    18: ((G, G, T, P), 35),
    19: ((G, T, T, P), 40),
    20: ((G, T, P, P), None),
}
del I, R, S, G, T, P

# ch. 3, "Player Damage": failures rolled on Defense (plus the hazard's damage rating) -> damage.
PLAYER_DAMAGE: dict[int, Level] = {
    1: Level.IN,
    2: Level.PR,
    3: Level.PS,
    4: Level.GD,
    5: Level.GT,
    6: Level.SP,
    7: Level.AW,
}


def health_track(stamina: int) -> Track:
    """The four Health boxes, left to right, for a Stamina of 2..12 at creation (ch. 2, "Health")
    or a Health rank of 2..20 later (ch. 6, "Increasing Health")."""
    if stamina not in HEALTH_RANKS:
        raise ArtRuleError("stamina", N_("Health ranks run from 2 to 20, not {stamina}"), stamina=stamina)
    return HEALTH_RANKS[stamina][0]


def health_rank(track: Sequence[Level]) -> int:
    """The Increasing Health rank of a track (ch. 6, "Increasing Health")."""
    for rank, (boxes, _cost) in HEALTH_RANKS.items():
        if tuple(track) == boxes:
            return rank
    raise ArtRuleError("track", N_("this Health track is not on the Increasing Health table"))


def health_increase_cost(rank: int) -> int:
    """Experience points to raise Health from `rank` to the next rank (ch. 6, "Increasing Health")."""
    entry = HEALTH_RANKS.get(rank)
    cost = entry[1] if entry else None
    if cost is None:
        raise ArtRuleError("rank", N_("Health can be increased from ranks 2 to 19, not {rank}"), rank=rank)
    return cost


def player_damage(failures: int, rating: int = 0) -> Level:
    """The damage an adventurer takes from a failed Defense roll (ch. 3, "Taking Damage"; ruling 9).

    The hazard's damage rating adds to the failures; 8 or more is Extreme, which checks every box.
    A successful Defense roll takes no damage at all, so `failures` must be at least 1.
    """
    if failures < 1:
        raise ArtRuleError("failures", N_("a successful Defense roll avoids all damage; failures must be 1 or more"))
    if rating < 0:
        raise ArtRuleError("rating", N_("a hazard's damage rating is +0 or more, not {rating}"), rating=rating)
    return PLAYER_DAMAGE.get(failures + rating, Level.EX)


def inflicted_damage(result: Level, bonus: int = 0) -> Level:
    """The damage an attack on a foe does: the column rolled (ch. 3, "Inflicting Damage"), raised by
    `bonus` columns (e.g. +2 for the Critical Hits perk, ch. 6), at most Extreme."""
    return Level(min(max(int(result) + bonus, Level.CT), Level.EX))


def _validated(track: Sequence[Level], checked: Sequence[bool]) -> tuple[tuple[Level, ...], tuple[bool, ...]]:
    boxes = tuple(Level(box) for box in track)
    marks = tuple(bool(mark) for mark in checked)
    if not boxes:
        raise ArtRuleError("track", N_("a Health track has at least one box"))
    if len(marks) != len(boxes):
        raise ArtRuleError(
            "checked", N_("{marks} check marks for {boxes} Health boxes"), marks=len(marks), boxes=len(boxes)
        )
    if any(low > high for low, high in zip(boxes, boxes[1:])):
        raise ArtRuleError("track", N_("Health boxes run from the lowest on the left to the highest on the right"))
    return boxes, marks


def _boxes_to_mark(boxes: tuple[Level, ...], open_boxes: list[int], damage: Level) -> list[int]:
    if damage is Level.EX:  # ruling 9: Extreme checks off every box
        return open_boxes
    equal = [index for index in open_boxes if boxes[index] == damage]
    if equal:
        return [equal[-1]]
    top = open_boxes[-1]  # boxes rise left to right, so the rightmost open box is the highest
    if damage > boxes[top]:
        # The extra boxes come from the lowest open box upward (ruling 10).
        return [top, *open_boxes[: int(damage - boxes[top])]]
    below = [index for index in open_boxes if boxes[index] < damage]
    return below[-1:]


def mark_damage(track: Sequence[Level], checked: Sequence[bool], damage: Level) -> tuple[bool, ...]:
    """The Health track's check marks after taking `damage` (ch. 3, "Recording Damage"; ruling 10).

    Check the box equal to the damage (the rightmost such); else, if the damage is above the highest
    open box, check it plus one more box, from the lowest open box upward, per column of excess; else
    check the highest open box below the damage. Damage below every open box is shrugged off.
    """
    boxes, marks = _validated(track, checked)
    open_boxes = [index for index, mark in enumerate(marks) if not mark]
    if not open_boxes:
        return marks
    newly = set(_boxes_to_mark(boxes, open_boxes, Level(damage)))
    return tuple(mark or index in newly for index, mark in enumerate(marks))


def is_staggered(before: Sequence[bool], after: Sequence[bool]) -> bool:
    """Checking the rightmost box staggers: the character loses its next turn (ch. 3, "Staggering")."""
    return bool(after[-1]) and not before[-1]


def is_defeated(checked: Sequence[bool]) -> bool:
    """Every box checked: a foe is killed, an adventurer falls unconscious (ch. 3, "Defeat")."""
    return all(checked)


@dataclass(frozen=True)
class DamageRecord:
    """A Health track after damage, with what happened, ready for the log."""

    damage: Level
    checked: tuple[bool, ...]
    marked: tuple[int, ...]
    staggered: bool
    defeated: bool

    @property
    def shrugged_off(self) -> bool:
        return not self.marked


def record_damage(track: Sequence[Level], checked: Sequence[bool], damage: Level) -> DamageRecord:
    """mark_damage with the staggered and defeated flags (ch. 3, "Recording Damage" to "Defeat")."""
    before = tuple(bool(mark) for mark in checked)
    after = mark_damage(track, before, damage)
    return DamageRecord(
        damage=Level(damage),
        checked=after,
        marked=tuple(index for index, (old, new) in enumerate(zip(before, after)) if new and not old),
        staggered=is_staggered(before, after),
        defeated=is_defeated(after),
    )


def fame_after_defeat(fame: int) -> int:
    """A defeated adventurer loses 1 Fame for good, down to 0 (ch. 3, "Defeat")."""
    return max(0, fame - 1)


def first_aid_cost(box: Level) -> int:
    """Fame to heal a box by first aid: 1 for Inferior, +1 per level above (ch. 3, "First Aid")."""
    return max(1, int(box) - int(Level.IN) + 1)


def first_aid(track: Sequence[Level], checked: Sequence[bool], box: int) -> tuple[tuple[bool, ...], int]:
    """Remove the check from box number `box` (0 = leftmost); returns (new marks, Fame cost)."""
    boxes, marks = _validated(track, checked)
    if not 0 <= box < len(boxes) or not marks[box]:
        raise ArtRuleError("box", N_("box {box} is not a checked Health box"), box=box)
    return tuple(mark and index != box for index, mark in enumerate(marks)), first_aid_cost(boxes[box])


def natural_healing(
    track: Sequence[Level], checked: Sequence[bool], result: Level, *, box: int | None = None
) -> tuple[bool, ...]:
    """Erase one checked box that does not exceed the Stamina roll after a night's rest; a med-kit
    does the same on an Intelligence roll (ch. 3, "Natural Healing", "Med-Kits").

    `box` picks which box; by default the highest one the roll allows (the rightmost of equals).
    Nothing heals when the roll is below every wound.
    """
    boxes, marks = _validated(track, checked)
    healable = [index for index, mark in enumerate(marks) if mark and boxes[index] <= result]
    if box is None:
        box = healable[-1] if healable else None
    elif box not in healable:
        raise ArtRuleError(
            "box",
            N_("box {box} is not a checked box at or below {display_name}"),
            box=box,
            display_name=Level(result).display_name,
        )
    return tuple(mark and index != box for index, mark in enumerate(marks))


def sustained_damage(rounds: int) -> tuple[Level, ...]:
    """The damage of each round of fire or acid: Inferior, then one level more each round, at most
    Extreme (ch. 3, "Sustained Damage")."""
    if rounds < 0:
        raise ArtRuleError("rounds", N_("rounds cannot be negative ({rounds})"), rounds=rounds)
    return tuple(Level(min(int(Level.IN) + step, int(Level.EX))) for step in range(rounds))
