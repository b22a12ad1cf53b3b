"""Which roll a declaration on the phase track makes (the attribute, the difficulty, where a shadowing or
tracking stands) and its exact chance before it is made. The declaration itself is declare.py.

art-engine.md, ch. 4 "Declaration of Intention", "Movement During Phases", "Shadowing", "Tracking".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import Field

from app.i18n import N_, _, msg
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, Level
from app.systems.base import ActionError, Context, Odds

from .. import complex as complex_
from .. import core
from ..rolling import RollChoices, chance_of
from ..sheet import ArtSheet, attr

Kind = Literal["action", "travel", "shadow", "track", "wait"]
Mode = Literal["foot", "mounted", "vehicle"]
# ch. 4, "Movement During Phases": Stamina for long hikes, Strength for long mounted rides, Craft for drives.
TRAVEL_TRAIT = {"foot": "STA", "mounted": "STR", "vehicle": "CRA"}
TRAVEL_SCALES = ("hours", "days", "weeks")
# ch. 4, "Shadowing": the second roll, by how you move; "Tracking": Stamina on foot, Strength mounted.
SHADOW_TRAIT = {"foot": "AGI", "vehicle": "CRA", "mounted": "STR"}
TRACK_TRAIT = {"foot": "STA", "mounted": "STR"}


class DeclareParams(RollChoices):
    encounter_id: int
    version: int
    kind: Kind = "action"
    task: str = Field(default="", max_length=120)
    attribute: str = ""
    difficulty: str | None = None
    limit: int | None = Field(default=None, ge=0, le=99)  # the most phases the player will spend
    influence_id: int | None = None
    influence: Literal["help", "hinder"] = "help"
    mode: Mode = "foot"
    destination: str = Field(default="", max_length=80)
    # Tracking's second roll (ch. 4): the target moves without rest, by a faster method, or slowly.
    continuous: bool = False
    faster: bool = False
    slow: bool = False


@dataclass(frozen=True)
class Plan:
    """Which roll a declaration makes: the attribute, the difficulty, and where a complex action stands."""

    code: str
    difficulty: Level
    stage: int = 1  # shadowing and tracking: the first or the second roll
    step_mod: int = 0  # shadowing's second roll: the first roll's successes (or failures)


def chase_of(sheet: ArtSheet) -> dict[str, Any] | None:
    """The shadowing or tracking under way on the sheet (a complex action with an `explore` note)."""
    running = complex_.open_complex(sheet)
    return running if running and running.get("explore") else None


def plan_roll(sheet: ArtSheet, params: DeclareParams) -> Plan:
    chase = chase_of(sheet)
    if params.kind == "travel":
        return Plan(TRAVEL_TRAIT[params.mode], Level.CT)
    if params.kind in ("shadow", "track") and chase is None:
        if params.kind == "track" and params.mode == "vehicle":
            raise ActionError(_("Tracking is done on foot or mounted."), field="mode")
        what = N_("the target's Stamina, Craft or Strength") if params.kind == "shadow" else N_("the difficulty")
        return Plan("ALE", core.adjusted(core.parse_level(params.difficulty, "difficulty", what), params.adjust))
    if params.kind == "shadow" and chase is not None:
        mode = chase["explore"]["mode"]
        difficulty = core.parse_level(params.difficulty, "difficulty", N_("the target's Alertness"))
        return Plan(SHADOW_TRAIT[mode], core.adjusted(difficulty, params.adjust), 2, chase["modifier"])
    if params.kind == "track" and chase is not None:
        successes = chase["explore"]["successes"]
        difficulty = art.tracking_difficulty(
            successes, continuous=params.continuous, faster=params.faster, slow=params.slow
        )
        return Plan(TRACK_TRAIT[chase["explore"]["mode"]], core.adjusted(difficulty, params.adjust), 2)
    code = core.attribute_code(params.attribute)
    return Plan(code, core.adjusted(core.parse_level(params.difficulty, "difficulty"), params.adjust))


def spec_of(sheet: ArtSheet, params: DeclareParams, plan: Plan) -> core.RollSpec:
    return core.RollSpec(
        label=msg(ATTRIBUTES[plan.code]),
        base=attr(sheet, plan.code),
        attribute=plan.code,
        difficulty=plan.difficulty,
        skills=params.skills,
        modifiers=params.modifiers + plan.step_mod,
        fame_before=params.fame_before,
        take25=params.take25,
    )


def explore_odds(sheet: ArtSheet, params: DeclareParams, ctx: Context[ArtSheet]) -> Odds | None:
    """The exact chance of the roll the declaration makes, before it is made (the same plan as the roll)."""
    if params.kind == "wait":
        return Odds(text=_("No roll: a phase goes by."))
    core.require_adventurer(sheet)
    if params.kind in ("shadow", "track") and (chase := chase_of(sheet)) and chase["explore"]["kind"] != params.kind:
        return Odds(text=_("Finish “{title}” first.").format(title=chase["title"]))
    plan = plan_roll(sheet, params)
    odds = chance_of(sheet, spec_of(sheet, params, plan), ctx.campaign_settings)
    if plan.step_mod:
        odds = replace(odds, text=_("{odds} ({n} from the first roll)").format(odds=odds.text, n=f"{plan.step_mod:+d}"))
    return odds
