"""The narrator after a roll and between them: a failed test's Condition or Twist, lifting a condition, awarding
Fate, Persona and checks, and the campaign's Rabbits settings. The player's follow-ups are followups.py.

rabbits.en.md, "Rewards", "Checks", "Tests" (failure: a Condition or a Twist), "Conditions"; RULINGS.md, "Rabbits"
(ruling 1: starting Fate and Persona).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import _, join, msg, render
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import counts
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.followups import latest_roll
from app.systems.rabbits.sheet import (
    RabbitSheet,
    condition_word,
    settings_of,
    start_rewards,
)


class Consequence(BaseModel):
    entry_seq: int = Field(ge=1)
    choice: str = Field(max_length=10)
    condition: str = Field(default="", max_length=20)
    twist: str = Field(default="", max_length=300)


class ClearCondition(BaseModel):
    condition: str = Field(min_length=1, max_length=20)


class Award(BaseModel):
    fate: int = Field(default=0, ge=0, le=9)
    persona: int = Field(default=0, ge=0, le=9)
    checks: int = Field(default=0, ge=0, le=9)


class Settings(BaseModel):
    starting_fate: int = Field(default=rabbits.STARTING_REWARDS["fate"], ge=0, le=9)
    starting_persona: int = Field(default=rabbits.STARTING_REWARDS["persona"], ge=0, le=9)
    turn: str = Field(default="gm", max_length=10)


def resolve_consequence(
    sheet: RabbitSheet, params: Consequence, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Tests": on a failure the rabbit gets a Condition, or the story takes a Twist."""
    last = latest_roll(sheet, params.entry_seq)
    if last.get("passed") is not False:
        raise ActionError(_("Only a failed roll brings a twist or a condition."), field="entry_seq")
    if last.get("consequence"):
        raise ActionError(_("This failure already has its consequence."), field="entry_seq")
    choice = params.choice.strip().lower()
    if choice == "condition":
        key = params.condition.strip().lower()
        if key not in rabbits.CONDITIONS:
            raise ActionError(_("Choose one of the five conditions."), field="condition")
        if key in sheet.conditions:
            raise ActionError(
                _("The rabbit is already {key}: choose another condition.").format(key=render(condition_word(key))),
                field="condition",
            )
        sheet.conditions = [c for c in rabbits.CONDITIONS if c in {*sheet.conditions, key}]
        last["consequence"] = msg("condition: {condition}", condition=condition_word(key))
        words = msg("{condition} after the failure of #{seq}", condition=condition_word(key), seq=params.entry_seq)
    elif choice == "twist":
        twist = params.twist.strip()
        if not twist:
            raise ActionError(_("Say what the twist is."), field="twist")
        last["consequence"] = msg("twist: {twist}", twist=twist)
        words = msg("a twist after the failure of #{seq}: {twist}", seq=params.entry_seq, twist=twist)
    else:
        raise ActionError(_("Choose a twist or a condition."), field="choice")
    sheet.last_test = last
    return Resolution(
        request=params.model_dump(),
        outcome={"consequence": last["consequence"]},
        summary=words,
        sheet=sheet,
    )


def resolve_clear(
    sheet: RabbitSheet, params: ClearCondition, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Conditions": Afraid needs rest and safety — the narrator lifts a condition."""
    key = params.condition.strip().lower()
    if key not in sheet.conditions:
        raise ActionError(_("The rabbit does not have that condition."), field="condition")
    sheet.conditions = [c for c in sheet.conditions if c != key]
    return Resolution(
        request=params.model_dump(),
        outcome={"cleared": key},
        summary=msg("is no longer {condition}", condition=condition_word(key)),
        sheet=sheet,
    )


def resolve_award(sheet: RabbitSheet, params: Award, dice: Dice, ctx: Context[RabbitSheet]) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Rewards" and "Checks": the narrator hands out Fate, Persona or checks."""
    if not (params.fate or params.persona or params.checks):
        raise ActionError(_("Award at least one Fate, Persona or check."), field="fate")
    start_rewards(sheet, ctx.campaign_settings)
    sheet.fate += params.fate
    sheet.persona += params.persona
    sheet.checks += params.checks
    parts = [
        *([msg("{n} Fate", n=params.fate)] if params.fate else []),
        *([msg("{n} Persona", n=params.persona)] if params.persona else []),
        *([counts.checks(n=params.checks)] if params.checks else []),
    ]
    return Resolution(
        request=params.model_dump(),
        outcome=params.model_dump(),
        summary=msg("was awarded {what}", what=join(parts)),
        sheet=sheet,
    )


def resolve_settings(
    sheet: RabbitSheet, params: Settings, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Ruling 1 (starting Fate and Persona) and the game's turns (rabbits.en.md, "Checks")."""
    turn = params.turn.strip().lower()
    if turn not in ("gm", "players"):
        raise ActionError(_("The turn is the narrator's or the players'."), field="turn")
    chosen = {"starting_fate": params.starting_fate, "starting_persona": params.starting_persona, "turn": turn}
    before = settings_of(ctx.campaign_settings)
    head = (
        msg("Rabbits: {turn}", turn=msg("the players' turn") if turn == "players" else msg("the narrator's turn"))
        if before["turn"] != turn
        else msg("Rabbits settings")
    )
    summary = msg(
        "{head}; new rabbits start with {fate} Fate and {persona} Persona",
        head=head,
        fate=params.starting_fate,
        persona=params.starting_persona,
    )
    return Resolution(
        request=params.model_dump(),
        outcome=chosen,
        summary=summary,
        settings={**dict(ctx.campaign_settings), **chosen},
    )
