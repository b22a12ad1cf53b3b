"""What a rule system gives the app: its sheet, its actions, and pure resolve/odds functions.

Nothing here does I/O: the rules service (app/rolls/service.py) loads the sheet, calls `resolve`
with the server's dice, and writes the log entry and the sheet changes in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol

from pydantic import BaseModel
from typing_extensions import TypeVar  # a TypeVar with a default (PEP 696); pydantic itself requires the package

from app.i18n import Summary
from app.rules.dice import Dice
from app.systems.kinds import UNDECLARED, EncounterKind
from app.systems.kinds import EncounterViewer as EncounterViewer  # where steps and tests have found it
from app.systems.marks import Mark, ResultDetails, ResultTotal, no_details, no_total


class ActionError(ValueError):
    """A request the rules refuse (e.g. a bad expression). `field` names the form field to blame."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class RecordingDice:
    """Wraps the dice so the log can show every face in the order it was rolled. The rules service wraps the dice
    it hands to `resolve` and logs this record: a system never reports its own dice."""

    def __init__(self, dice: Dice) -> None:
        self._dice = dice
        self.rolled: list[dict[str, int]] = []

    def roll(self, sides: int) -> int:
        face = self._dice.roll(sides)
        self.rolled.append({"sides": sides, "face": face})
        return face


# A sheet as an action sees it: its system's model where the system declares `sheets` (the rules service loads the
# stored JSON once and dumps the model once), else the stored JSON (issue 38: the systems not yet converted).
SheetT = TypeVar("SheetT", default=dict[str, Any])
ParamsT = TypeVar("ParamsT", bound=BaseModel, default=Any)


@dataclass(frozen=True)
class Resolution(Generic[SheetT]):
    request: dict[str, Any]
    outcome: dict[str, Any]
    # The log line: `msg(...)` from app.i18n (stored language-neutral, read in each viewer's language), or a
    # plain str (shown as it is, in every language).
    summary: Summary
    # The new sheet (whole), or None when the action does not change it.
    sheet: SheetT | None = None
    # New sheets (whole) of other characters the action involves (Action.involves), by character id.
    others: Mapping[int, SheetT] = field(default_factory=dict)
    # For encounter actions: the encounter after this step. For Action.encounter == "create" it must hold
    # kind, title, participants ([{character_id, side, name}]) and state; for "step", state. `over`
    # (bool) closes the encounter.
    encounter: Mapping[str, Any] | None = None
    # This system's campaign settings after the action (e.g. an uploaded table, a regeneration interval),
    # or None to leave them as they are. Stored in campaign.settings[<system id>].
    settings: Mapping[str, Any] | None = None
    # A note the action found in its own params (the dice roller's `2d6 # sneak`): the entry's note, after the
    # request's note field when both are given.
    note: str = ""


@dataclass(frozen=True)
class Context(Generic[SheetT]):
    """What an action may know besides its own sheet and params: plain data, loaded by the rules service."""

    actor_is_narrator: bool = False
    session_number: int | None = None
    now: float = 0.0  # server time, seconds since the epoch (for real-time rules such as regeneration)
    campaign_settings: Mapping[str, Any] = field(default_factory=dict)  # this system's settings only
    character_id: int | None = None
    character_name: str | None = None
    # Sheets and names of the other characters named in the params (Action.involves), by id.
    others: Mapping[int, SheetT] = field(default_factory=dict)
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


@dataclass(frozen=True)
class Action(Generic[SheetT, ParamsT]):
    """One action of a system, generic over its sheet (the system's model, or the stored JSON) and its params."""

    id: str
    name: str
    params: type[ParamsT]
    resolve: Callable[[SheetT, ParamsT, Dice, Context[SheetT]], Resolution[SheetT]]  # (sheet, params, dice, ctx)
    # (sheet, params, ctx): what the page shows before rolling (ctx.campaign_settings, ctx.encounter)
    odds: Callable[[SheetT, ParamsT, Context[SheetT]], Odds | None] | None = None
    needs_character: bool = True
    narrator_only: bool = False
    # Names of params that hold the ids of other characters this action reads or changes (an opponent,
    # helpers). The service loads their sheets into the Context and saves Resolution.others.
    involves: tuple[str, ...] = ()
    description: str = ""
    # "create": the action starts an encounter (Resolution.encounter). "step": the params carry
    # `encounter_id` and `version` (the state the player saw); a stale version is "already resolved".
    encounter: str | None = None
    # True: whatever the dice say, the action changes no sheet and no setting (a plain roll). Only such an action
    # may be kept to oneself (visibility `self`): the rules service decides that before it rolls, so a private
    # roll cannot be made again and again until a result that changes the sheet comes up (issue 35).
    changes_nothing: bool = False

    def run(self, sheet: SheetT, params: ParamsT, dice: Dice, ctx: Context[SheetT]) -> Resolution[SheetT]:
        return self.resolve(sheet, params, dice, ctx)


Role = str  # "narrator", "player" (the demo's player) or "other_player" (a second player, if there is one)


class Seeder(Protocol):
    """What a system's demo may do (app/demo.py implements it with the services): make characters of this
    system and act with them, as the demo's narrator or players. A system never imports a service itself."""

    def character(self, role: Role, name: str, sheet: Mapping[str, Any] | None = None, kind: str = "pc") -> int:
        """Create a character of this system (the sheet is a creation form's fields) and return its id.
        "other_player" falls back to the narrator (and an npc) when the campaign has no second player."""
        ...

    def act(
        self,
        role: Role,
        action: str,
        character_id: int | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        note: str = "",
        visibility: str = "public",
        dice_faces: list[int] | None = None,
    ) -> None:
        """Perform one of this system's actions; `dice_faces` scripts the dice (the same demo everywhere)."""
        ...

    def prompt(self, role: Role, character_id: int, action: str, locked: Mapping[str, Any], note: str = "") -> None:
        """Call for a roll of this system's `action` with `locked` params."""
        ...


def action_table(actions: Iterable[Action[Any, Any]]) -> dict[str, Action[Any, Any]]:
    """A system's actions (its actions.py: a tuple of Action) by id, for RuleSystem.actions."""
    table: dict[str, Action[Any, Any]] = {}
    for action in actions:
        if action.id in table:
            raise ValueError(f"two actions with the id {action.id!r}")
        table[action.id] = action
    return table


SheetFilter = Callable[[dict[str, Any]], dict[str, Any]]


# How a system marks its dice in the log line (app/rolls/faces.py): (the faces in the order rolled, each
# {face, sides, marks: []}; the entry's outcome) → the faces to show, marked ("success", "critical", "rerolled", a
# system's own: app/systems/marks.py). By default a d20 or larger shows a natural maximum as critical and a 1 as a
# fumble.
DieMarks = Callable[[list[dict[str, Any]], Mapping[str, Any]], list[dict[str, Any]]]
# What a log line flags beside its result besides its faces' marks (a fight's confirmed critical, ART's kicker):
# the entry's outcome → [{mark, value?}] (app/rolls/faces.py, entry_marks).
ResultMarks = Callable[[Mapping[str, Any]], list[dict[str, Any]]]


def critical_marks(faces: list[dict[str, Any]], outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The default die marks: a d20 or larger (not dropped) rolled at its maximum is a critical, a 1 a fumble."""
    for face in faces:
        sides, value, marks = face.get("sides"), face["face"], face["marks"]
        if isinstance(sides, int) and sides >= 20 and "dropped" not in marks:
            if value == sides:
                marks.append("critical")
            elif value == 1:
                marks.append("fumble")
    return faces


def _no_marks(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    return []


@dataclass(frozen=True)
class GroupCall:
    """A roll the narrator screen may call for from several characters at once (templates/campaigns/narrator.html):
    the action, its name on the picker (English, marked N_) and the template of its locked fields, a fieldset
    rendered with the system's template data (e.g. "cat/_group_call.html")."""

    action: str
    name: str
    template: str


def _nothing_public(sheet: dict[str, Any]) -> dict[str, Any]:
    return {}


def _whole(sheet: dict[str, Any]) -> dict[str, Any]:
    return sheet


@dataclass(frozen=True)
class Sheets(Generic[SheetT]):
    """How the rules service reads a system's stored sheet into its model (`load`, once per action: the actor's and
    every sheet in ctx.others) and writes the model an action returns (`dump`, once: Resolution.sheet and .others).
    A system's `load` may refuse a damaged sheet with an ActionError; `dump` keeps the stored JSON's shape."""

    load: Callable[[Mapping[str, Any]], SheetT]
    dump: Callable[[SheetT], dict[str, Any]]


@dataclass(frozen=True)
class RuleSystem:
    """A rule system as the app sees it. Its pages live in app/systems/<id>/templates/ (sheet.html, create.html;
    named "<id>/…") when `has_pages` is set; otherwise characters use the generic sheet."""

    id: str
    name: str
    sheet: type[BaseModel]
    actions: Mapping[str, Action[Any, Any]]
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
    # Optional: add this system's examples to the demo campaign, through the seeder it is handed.
    seed_demo: Callable[[Seeder], None] | None = None
    # What this system's templates need besides the sheet (tables, derived numbers, helpers), by name. The
    # templates read it as `system_data.<system id>.<name>` (app/web.py).
    template_data: Mapping[str, Any] = field(default_factory=dict)
    # The sheet's fields in words (English, marked N_), by key: the narrator's "Adjust sheet" form shows them
    # translated, and validation errors name a field by them (app.errors.validation_message).
    labels: Mapping[str, str] = field(default_factory=dict)
    # How the log line marks this system's dice, and what it flags beside the result (app/rolls/faces.py).
    die_marks: DieMarks = critical_marks
    result_marks: ResultMarks = _no_marks
    # Its own marks besides the core's (app/systems/marks.py: CORE_MARKS), with their words; its total and details.
    marks: Mapping[str, Mark] = field(default_factory=dict)
    result_total: ResultTotal = no_total
    result_details: ResultDetails = no_details
    # The rolls the narrator screen may call for from several characters at once (its group call).
    group_calls: tuple[GroupCall, ...] = ()
    # Whether an action's odds read the encounter the character is in (ctx.encounter on the sheet's odds route):
    # ART's odds in a combat round do; a Cat's test of fate does not.
    odds_read_encounter: bool = False
    # The kinds of encounter this system runs (app/systems/kinds.py: each with its typed state, view, waits,
    # challenges, title and teams), by id: `kind_table((EncounterKind(...), ...))`.
    encounters: Mapping[str, EncounterKind[Any]] = field(default_factory=dict)
    # Its sheets at the seam: its actions get and return its sheet model (Sheets(load, dump)). None: they still get
    # and return the stored JSON and load it themselves (issue 38 converts the systems one by one).
    sheets: Sheets[Any] | None = None

    def default_sheet(self) -> dict[str, Any]:
        return self.sheet().model_dump(mode="json")

    def new_sheet(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        if self.create is not None:
            return self.create(fields)
        return self.sheet.model_validate(dict(fields)).model_dump(mode="json")

    def load_sheet(self, stored: Mapping[str, Any]) -> Any:
        """A stored sheet as this system's actions take it: its model (`sheets`), or a copy of the JSON."""
        return self.sheets.load(stored) if self.sheets is not None else dict(stored)

    def stored_sheets(self, resolution: Resolution[Any]) -> Resolution[dict[str, Any]]:
        """An action's resolution with its sheets as JSON to store (`sheets.dump`), once, for the rules service."""
        if self.sheets is None:
            return resolution
        dump = self.sheets.dump
        return replace(
            resolution,
            sheet=None if resolution.sheet is None else dump(resolution.sheet),
            others={cid: dump(sheet) for cid, sheet in resolution.others.items()},
        )

    def kind(self, kind: str) -> EncounterKind[Any]:
        """One of its encounter kinds (an undeclared one — a state from before — is read as it is)."""
        return self.encounters.get(kind, UNDECLARED)

    def awaited(self, encounter: Mapping[str, Any]) -> Mapping[int, str]:
        """Who one of its encounters ({"kind", "state", "participants"}, as stored) waits for (its kind's `awaited`)."""
        return self.kind(encounter["kind"]).waits(encounter["state"], encounter["participants"])

    def typed_state(self, kind: str, state: Mapping[str, Any]) -> Any:
        """An encounter's stored state as its kind's model (what a step is handed as ctx.encounter["state"])."""
        return self.kind(kind).load(state)


def stored_state(state: Any) -> dict[str, Any]:
    """A step's encounter state as JSON to store: a model is dumped with only the keys it had or was given (a key an
    older state lacks stays missing), so the stored JSON keeps its shape."""
    if isinstance(state, BaseModel):
        return state.model_dump(mode="json", exclude_unset=True)
    return dict(state)
