"""What a rule system gives the app: its sheet, its actions, and pure resolve/odds functions.

Nothing here does I/O: the rules service (app/rolls/service.py) loads the sheet, calls `resolve`
with the server's dice, and writes the log entry and the sheet changes in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.rules.dice import Dice


class ActionError(ValueError):
    """A request the rules refuse (e.g. a bad expression). `field` names the form field to blame."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class RecordingDice:
    """Wraps the dice so the log can show every face in the order it was rolled."""

    def __init__(self, dice: Dice) -> None:
        self._dice = dice
        self.rolled: list[dict[str, int]] = []

    def roll(self, sides: int) -> int:
        face = self._dice.roll(sides)
        self.rolled.append({"sides": sides, "face": face})
        return face


@dataclass(frozen=True)
class Resolution:
    request: dict[str, Any]
    dice: list[dict[str, int]]
    outcome: dict[str, Any]
    summary: str
    # The new sheet (whole), or None when the action does not change it.
    sheet: dict[str, Any] | None = None
    # New sheets (whole) of other characters the action involves (Action.involves), by character id.
    others: Mapping[int, dict[str, Any]] = field(default_factory=dict)
    # For encounter actions: the encounter after this step. For Action.encounter == "create" it must hold
    # kind, title, participants ([{character_id, side, name}]) and state; for "step", state. `over`
    # (bool) closes the encounter.
    encounter: Mapping[str, Any] | None = None
    # This system's campaign settings after the action (e.g. an uploaded table, a regeneration interval),
    # or None to leave them as they are. Stored in campaign.settings[<system id>].
    settings: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Context:
    """What an action may know besides its own sheet and params: plain data, loaded by the rules service."""

    actor_is_narrator: bool = False
    session_number: int | None = None
    now: float = 0.0  # server time, seconds since the epoch (for real-time rules such as regeneration)
    campaign_settings: Mapping[str, Any] = field(default_factory=dict)  # this system's settings only
    character_id: int | None = None
    character_name: str | None = None
    # Sheets and names of the other characters named in the params (Action.involves), by id.
    others: Mapping[int, dict[str, Any]] = field(default_factory=dict)
    other_names: Mapping[int, str] = field(default_factory=dict)
    # For Action.encounter == "step": {id, kind, title, state, participants, version}.
    encounter: Mapping[str, Any] | None = None
    # The seq the action's own log entry will get (so a sheet can remember "my last roll was #12").
    seq: int | None = None


@dataclass(frozen=True)
class Odds:
    """What the page shows before rolling. `chance` is exact where the action has one."""

    chance: float | None = None
    text: str = ""
    details: dict[str, Any] = field(default_factory=dict)


Resolve = Callable[..., Resolution]  # (sheet, params, dice) or, with takes_context, (sheet, params, dice, ctx)
OddsFn = Callable[..., Odds | None]  # (sheet, params) or, with odds_uses_settings, (sheet, params, settings)


@dataclass(frozen=True)
class Action:
    id: str
    name: str
    params: type[BaseModel]
    resolve: Resolve
    odds: OddsFn | None = None
    needs_character: bool = True
    narrator_only: bool = False
    # Names of params that hold the ids of other characters this action reads or changes (an opponent,
    # helpers). The service loads their sheets into the Context and saves Resolution.others.
    involves: tuple[str, ...] = ()
    takes_context: bool = False
    description: str = ""
    # "create": the action starts an encounter (Resolution.encounter). "step": the params carry
    # `encounter_id` and `version` (the state the player saw); a stale version is "already resolved".
    encounter: str | None = None
    # The odds function takes this system's campaign settings as a third argument (e.g. an uploaded table).
    odds_uses_settings: bool = False

    def run(self, sheet: dict[str, Any], params: BaseModel, dice: Dice, ctx: Context) -> Resolution:
        if self.takes_context:
            return self.resolve(sheet, params, dice, ctx)
        return self.resolve(sheet, params, dice)


SheetFilter = Callable[[dict[str, Any]], dict[str, Any]]


def _nothing_public(sheet: dict[str, Any]) -> dict[str, Any]:
    return {}


def _whole(sheet: dict[str, Any]) -> dict[str, Any]:
    return sheet


@dataclass(frozen=True)
class RuleSystem:
    """A rule system as the app sees it. Its pages live in templates/<id>/ (sheet.html, create.html) when
    `has_pages` is set; otherwise characters use the generic sheet."""

    id: str
    name: str
    sheet: type[BaseModel]
    actions: Mapping[str, Action]
    description: str = ""
    has_pages: bool = False
    # What someone who may not act for the character sees of its sheet (e.g. without a secret name).
    public_sheet: SheetFilter = _nothing_public
    # What the character's player (not a narrator) sees of its sheet: by default all of it; a system takes
    # out what only narrators may know (e.g. a foe's level remembered with a roll against it).
    owner_sheet: SheetFilter = _whole
    # Optional: turn a creation form's fields into a sheet, raising ActionError(field=…) with a message a
    # person understands. Default: the sheet model validates the fields as they are.
    create: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    # The rulings (../shared/rules/RULINGS.md) this system implements, in words, for the help page.
    rulings: tuple[str, ...] = ()
    # Optional: add this system's examples to the demo campaign: seed_demo(db, narrator_access, player_access).
    seed_demo: Callable[..., None] | None = None

    def default_sheet(self) -> dict[str, Any]:
        return self.sheet().model_dump(mode="json")

    def new_sheet(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        if self.create is not None:
            return self.create(fields)
        return self.sheet.model_validate(dict(fields)).model_dump(mode="json")
