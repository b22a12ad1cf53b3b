"""What the conflict text left open, as RULINGS.md ("Rabbits") settles it: the weapon table each conflict uses
(ruling 10), the Halberd's mode (ruling 11) and ties in a conflict's versus action (ruling 12).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from app.rules.text import N_
from app.systems.rabbits.rules.errors import check_choice, check_count
from app.systems.rabbits.rules.tables import ACTIONS, ARGUMENT_WEAPONS, CONFLICTS, WEAPONS

# --- ruling 10: which weapon table a conflict uses ------------------------------------------------------------
WEAPON_TABLES = ("weapons", "argument", "none")
CONFLICT_WEAPON_TABLE: Mapping[str, str | None] = MappingProxyType(
    {
        "fight": "weapons",
        "fight_animal": "weapons",
        "war": "weapons",
        "argument": "argument",
        "speech": "argument",
        "negotiation": "argument",
        "chase": "none",
        "journey": "none",
        "other": None,  # the narrator picks one of the two tables, or none, at set-up
    }
)


def weapon_table_key(conflict: str, other_pick: str = "") -> str:
    """Ruling 10: "weapons", "argument" or "none" for the conflict; for Other, the narrator's pick."""
    conflict = check_choice(conflict, CONFLICTS, "conflict", N_("conflict"))
    fixed = CONFLICT_WEAPON_TABLE[conflict]
    if fixed is not None:
        return fixed
    return check_choice(other_pick or "", WEAPON_TABLES, "weapon_table", N_("weapon table"))


def weapon_rows(table_key: str) -> tuple[tuple[str, ...], ...]:
    """The rows of a weapon table ("none": no rows)."""
    key = check_choice(table_key, WEAPON_TABLES, "weapon_table", N_("weapon table"))
    return {"weapons": WEAPONS, "argument": ARGUMENT_WEAPONS, "none": ()}[key]


# --- ruling 11: the Halberd's mode ----------------------------------------------------------------------------
HALBERD = "Halberd"
HALBERD_MODES = ("axe", "spear")
_MOD = re.compile(r"([+-]\d+)(D|s)")
_MODE = re.compile(r"\((axe|spear)\)")


def weapon_modifier(row: Sequence[str], action: str, against: str, mode: str = "") -> tuple[int, int]:
    """(dice, successes) a weapon's row gives an action ("+1D", "-1D", "+1s"; the bow's starred +1D only against
    Defend). Ruling 11: a cell marked with a Halberd mode counts only in that mode, chosen with the scripted
    action — axe mode gives the Attack, Defend and Feint modifiers, spear mode the Maneuver modifier."""
    action = check_choice(action, ACTIONS, "action", N_("action"))
    cell = row[1 + ACTIONS.index(action)]
    marked = _MODE.search(cell)
    if marked:
        chosen = check_choice(mode, HALBERD_MODES, "mode", N_("halberd mode"))
        if marked.group(1) != chosen:
            return 0, 0
    if "*" in cell and against != "defend":
        return 0, 0
    dice = sum(int(n) for n, kind in _MOD.findall(cell) if kind == "D")
    hits = sum(int(n) for n, kind in _MOD.findall(cell) if kind == "s")
    return dice, hits


# --- ruling 12: ties in a conflict's versus action -------------------------------------------------------------
CONFLICT_TIE_STEPS = ("trait", "fate", "tiebreak")
CONFLICT_TIEBREAK: Mapping[str, str | None] = MappingProxyType(
    {
        "argument": "will",
        "speech": "will",
        "negotiation": "will",
        "war": "will",
        "fight": "health",
        "fight_animal": "health",
        "chase": "health",
        "journey": "health",
        "other": None,  # the narrator's pick
    }
)
TIEBREAK_PICKS = ("will", "health")
# Winning a tie beats a tied roll by one success: the winner's action takes effect with a margin of 1.
TIE_WON_MARGIN = 1


def conflict_tiebreak_ability(conflict: str, tested: str, other_pick: str = "") -> str:
    """Ruling 12: the tiebreaker of a conflict's tied versus action is Will (Argument, Speech, Negotiation, War)
    or Health (Fight, Fight Animal, Chase, Journey; Other: the narrator's pick, Will or Health) — or Nature when
    the tied test was already Will or Health."""
    conflict = check_choice(conflict, CONFLICTS, "conflict", N_("conflict"))
    if isinstance(tested, str) and tested.strip().lower() in TIEBREAK_PICKS:
        return "nature"
    fixed = CONFLICT_TIEBREAK[conflict]
    if fixed is not None:
        return fixed
    return check_choice(other_pick or "", TIEBREAK_PICKS, "tiebreak", N_("tiebreaker ability"))


@dataclass(frozen=True)
class TieResult:
    """Where a tie stands: `winner` ("a", "b" or None), `margin` (the winner's margin), `step` (the ruling's next
    step while it is still tied and undecided; None once settled) and `settled` (True when nothing is left:
    a winner, or the tiebreaker tied too and the action changes no disposition)."""

    winner: str | None
    margin: int
    step: str | None
    settled: bool


def settle_tie(
    a_hits: int,
    b_hits: int,
    *,
    conceded_by: str | None = None,
    traits_done: bool = False,
    fate_done: bool = False,
    tiebreak: tuple[int, int] | None = None,
) -> TieResult:
    """Ruling 12, in order: a side may give the tie away with a trait (the other side wins); then either side
    may spend Fate (the successes after Fate decide, by their difference); then a tiebreaker roll (its winner
    wins); only a tiebreaker that ties too leaves the action without a change of disposition.

    `traits_done`: both sides declined the trait; `fate_done`: every side that could spend Fate has chosen;
    `tiebreak`: the tiebreaker's successes (a, b)."""
    check_count(a_hits, "a_hits")
    check_count(b_hits, "b_hits")
    if conceded_by is not None:
        side = check_choice(conceded_by, ("a", "b"), "conceded_by", N_("side"))
        return TieResult("b" if side == "a" else "a", TIE_WON_MARGIN, None, True)
    if not traits_done:
        return TieResult(None, 0, "trait", False)
    if not fate_done:
        return TieResult(None, 0, "fate", False)
    if a_hits != b_hits:
        return TieResult("a" if a_hits > b_hits else "b", abs(a_hits - b_hits), None, True)
    if tiebreak is None:
        return TieResult(None, 0, "tiebreak", False)
    ta, tb = (check_count(n, "tiebreak") for n in tiebreak)
    if ta == tb:
        return TieResult(None, 0, None, True)
    return TieResult("a" if ta > tb else "b", TIE_WON_MARGIN, None, True)
