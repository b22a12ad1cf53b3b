"""A conflict's state as typed models (issue 23 §3): what the rules service validates the stored JSON with before
a step (RuleSystem.encounter_states, kind "conflict") and dumps back after it. The JSON keeps its shape: a key an
older state lacks (fronts, weapon_table, tiebreak, spread, …) stays missing (dumped with exclude_unset).

The fields are described in state.py and docs/RABBITS-CONFLICTS.md. An exchange (`current`, its `more`), a
pending maneuver, an opening and the result stay JSON objects: they are built and read whole by exchange.py, volley.py,
result.py, tie.py and end.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from app.systems.stored import Stored

Phase = Literal["disposition", "script", "resolve", "maneuver", "end", "over"]


class Team(Stored):
    name: Any  # a typed name, or the table's label (language-neutral, app.i18n.msg)
    goal: str = ""
    captain: int
    members: list[int] = []
    narrator: bool = False  # a narrator-run team (ruling 9: the narrator sees only these scripts)
    base: str | None = None  # the disposition's ability
    start: int | None = None  # the starting disposition (S)
    disposition: int | None = None  # what is left (R)
    roll: dict[str, Any] | None = None  # the captain's disposition roll, Fate still open
    scripted: bool = False
    locked: bool = False
    script: list[dict[str, Any]] | None = None  # the three {action, member, mode} (secret until revealed)
    salts: list[str] | None = None  # secret until revealed
    commitments: list[str] | None = None  # public: the hash of each scripted action
    lock_seq: int | None = None  # the log entry that holds the commitments
    impede: int = 0
    position: int = 0
    disarmed: list[str] = []
    preview: dict[str, Any] | None = None  # the captain's button: pool and chances
    spread: dict[str, int] | None = None  # the disposition among the members, for display
    spread_by_hand: bool = False
    out: int | None = None  # the volley the team fell to 0 in (absent while it is in)

    def left(self) -> int:
        """The disposition left (R), once the team has one."""
        assert self.disposition is not None, "the team has no disposition yet"
        return self.disposition

    def started(self) -> int:
        """The starting disposition (S), once the team has one."""
        assert self.start is not None, "the team has no disposition yet"
        return self.start


class ConflictState(Stored):
    conflict: str = ""
    other_skill: str = ""
    weapons: bool = False
    weapon_table: str = ""  # ruling 10 ("weapons", "argument", "none"); absent in older states
    tiebreak: str = ""  # ruling 12, an "other" conflict's tiebreaker ability
    phase: Phase = "disposition"
    volley: int = 1
    index: int = 0  # the action of the volley, 0–2
    teams: dict[str, Team] = {}
    fronts: list[list[str]] | None = None  # the pairs of opposing teams; absent in older states (A–B)
    current: dict[str, Any] | None = None  # the revealed exchange of the first front; the others' in current.more
    pending: list[dict[str, Any]] = []  # maneuvers to spend
    opened: list[dict[str, Any]] = []  # every published opening
    recent: list[Any] = []  # the last steps in words, newest first
    result: dict[str, Any] | None = None
    title: Any = None  # language-neutral (shown with `| tr`)


def conflict_state(state: Mapping[str, Any]) -> ConflictState:
    """The stored (or shown) JSON as the model, for the pages' helpers (a step is handed the model itself)."""
    return ConflictState.model_validate(dict(state))
