"""What every roll in a combat shares: its params (the player's skills and Fame before, the narrator's
modifier), one trait roll through core.roll_trait, its log text (a foe's level never in it), and the odds
shown on its button before it is pressed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, Text, _, join, msg
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds

from .. import core
from ..rolling import chance_of, no_chance
from ..sheet import ArtSheet, attr, level_word, table_of
from .models import CombatState, Fighter


class StepParams(BaseModel):
    """Every combat step names the encounter and the version the player saw."""

    encounter_id: int
    version: int


class CombatRoll(StepParams):
    skills: list[str] = Field(default_factory=list, max_length=2)
    fame_before: int = Field(default=0, ge=0, le=50)
    modifiers: int = Field(default=0, ge=-20, le=20)
    # For the odds on the button only (the step itself reads the state and the sheets on the server): the
    # difficulty, which the page fills in when its viewer may know it.
    shown_difficulty: str | None = None


@dataclass
class Rolled:
    rolled: core.Rolled
    spec: core.RollSpec
    text: Summary  # for the log: never a foe's level when `against` names it

    @property
    def result(self) -> Level:
        return self.rolled.roll.result

    @property
    def successes(self) -> int:
        return self.rolled.roll.successes

    @property
    def succeeded(self) -> bool:
        return self.rolled.roll.succeeded


def roll(
    sheet: ArtSheet,
    params: CombatRoll,
    dice: Any,
    ctx: Context[ArtSheet],
    *,
    label: str | Text,
    attribute: str,
    difficulty: Level,
    base: int | None = None,
    kind: str = "trait",
    item_index: int | None = None,
    against: str | Text | None = None,
    extra: int = 0,
    columns: int = 0,
    degree_only: bool = False,
) -> Rolled:
    """One trait roll for a combat step. `against` names a foe's trait whose level stays the narrator's (the
    text says "vs Goblin's Defense"); `degree_only` for rolls without a difficulty (initiative, movement)."""
    spec = core.RollSpec(
        label=label,
        base=attr(sheet, attribute) if base is None else base,
        attribute=attribute,
        roll_kind=kind,
        difficulty=shift(difficulty, columns),
        skills=params.skills,
        modifiers=params.modifiers + extra,
        fame_before=params.fame_before,
        item_index=item_index,
    )
    rolled = core.roll_trait(sheet, spec, dice, table_of(ctx.campaign_settings))
    if degree_only:
        roll_ = rolled.roll
        parts: list[Any] = [
            msg(
                "{label} (row {row}): rolled {roll} → {result}",
                label=label,
                row=roll_.row,
                roll=f"{roll_.roll:02d}",
                result=level_word(roll_.result),
            )
        ]
        if rolled.perks or rolled.items:
            parts.append(
                msg(
                    "; a kicker of {kicker} fires {fired}",
                    kicker=roll_.kicker,
                    fired=join([*rolled.perks, *rolled.items], msg(" or ")),
                )
            )
        text: Summary = join(parts, "")
    else:
        text = core.describe(spec, rolled, against=against)
    return Rolled(rolled, spec, text)


def shift(level: Level, columns: int) -> Level:
    return Level(min(max(int(level) + columns, Level.CT), Level.EX))


def outcome(r: Rolled, *, concealed: bool) -> dict[str, Any]:
    out = core.outcome_of(r.rolled)
    return core.conceal(out) if concealed else out


def remember(sheet: ArtSheet, ctx: Context[ArtSheet], action: str, r: Rolled, **extra: Any) -> None:
    core.remember(sheet, ctx.seq, action, r.spec, r.rolled, **extra)


def acting(ctx: Context[ArtSheet]) -> tuple[CombatState | None, Fighter | None]:
    """For the odds on a button: the combat's state and the fighter of ctx.character_id (a copy), or (None, None)
    outside a combat."""
    from .state import combat_in

    state = combat_in(ctx)
    me = next((f.model_copy(deep=True) for f in state.fighters if f.id == ctx.character_id), None) if state else None
    return state, me


def shift_now(ctx: Context[ArtSheet], *, defense: bool = False) -> int:
    """For the odds: the columns the acting character's difficulties have now (fight.difficulty_shift, which
    the step's roll uses too)."""
    from .state import difficulty_shift

    me = acting(ctx)[1]
    return difficulty_shift(me, defense=defense) if me else 0


def odds_for(
    sheet: ArtSheet,
    params: CombatRoll,
    ctx: Context[ArtSheet],
    *,
    attribute: str,
    base: int | None = None,
    label: str = N_("Chance of success:"),
    what: str = N_("your opponent"),
    extra: int = 0,
    columns: int = 0,
) -> Odds:
    """The exact chance before rolling against `params.shown_difficulty` (a level the page may show), with the
    same trait (`base`, `extra`) and the same difficulty shift (`columns`) the step's roll will use."""
    core.require_adventurer(sheet)
    shown = params.shown_difficulty or ""
    if "=" in shown:  # the narrator's page: "<target id>=<level>;…", read for the chosen target
        pairs = dict(p.split("=", 1) for p in shown.split(";") if "=" in p)
        shown = pairs.get(str(getattr(params, "target", "")), "")
    if not shown:
        odds = no_chance(what)
        return replace(odds, details={**odds.details, "label": _("Chance of success:")})
    try:
        difficulty = shift(Level.parse(shown), columns)
    except art.ArtRuleError as exc:
        raise ActionError(
            _("{code} is not a level (Catastrophic to Extreme).").format(code=shown), field="shown_difficulty"
        ) from exc
    spec = core.RollSpec(
        label=attribute,
        base=attr(sheet, attribute) if base is None else base,
        attribute=attribute,
        difficulty=difficulty,
        skills=params.skills,
        modifiers=params.modifiers + extra,
        fame_before=params.fame_before,
    )
    odds = chance_of(sheet, spec, ctx.campaign_settings)
    return replace(odds, details={**odds.details, "label": _(label)})
