"""Spending a maneuver's margin (rabbits.en.md, "Maneuver"): Impede, Gain position, Disarm — several if
affordable, none twice; then the volley goes on (volley.advance).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.exchange import advance
from app.systems.rabbits.conflict.state import EFFECT_WORDS, other_team, say, sheets_of, step_state
from app.systems.rabbits.sheet import RabbitSheet


class ManeuverParams(BaseModel):
    encounter_id: int
    version: int
    effects: list[str] = Field(default_factory=list, max_length=3)
    disarm: str = Field(default="", max_length=60, title=N_("What is disarmed"))


def resolve_maneuver(
    sheet: RabbitSheet, params: ManeuverParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Maneuver": the margin buys effects, several if affordable, none twice: Impede (1, −1D to
    the opponent's next action), Gain position (2, +2D to your next action), Disarm (3)."""
    state = step_state(ctx)
    if state.phase != "maneuver" or not state.pending:
        raise ActionError(_("No maneuver is waiting to be spent."), field="encounter_id")
    pending = state.pending[0]
    if not ctx.actor_is_narrator and ctx.character_id != pending["member"]:
        raise ActionError(_("The maneuvering rabbit spends its margin."), field="character_id")
    try:
        bought = rabbits.maneuver_effects(pending["margin"], [e.strip().lower() for e in params.effects])
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field="effects") from exc
    own = state.teams[pending["team"]]
    opp = state.teams[pending.get("opponent") or other_team(pending["team"])]
    if "disarm" in bought:
        if not params.disarm.strip():
            raise ActionError(_("Say what is disarmed (a weapon, gear or a trait)."), field="disarm")
        opp.disarmed.append(params.disarm.strip())
    if "impede" in bought:
        opp.impede = 1
    if "gain_position" in bought:
        own.position = 1
    state.pending.pop(0)
    words: Summary = (
        join([msg(EFFECT_WORDS[e]) if e in EFFECT_WORDS else e for e in bought]) if bought else msg("nothing")
    )
    if "disarm" in bought:
        words = msg("{effects} ({what})", effects=words, what=params.disarm.strip())
    line = say(
        state,
        msg("{team} spends its maneuver (margin {n}): {effects}", team=own.name, n=pending["margin"], effects=words),
    )
    openings: list[dict[str, Any]] = []
    paired: list[Summary] = []
    if not state.pending:
        openings = advance(state, ctx, sheets_of(sheet, ctx), paired)
    if paired:
        line = join([line, *paired], "; ")
    return Resolution(
        request={"version": params.version, "effects": list(bought), "disarm": params.disarm.strip()},
        summary=line,
        outcome={"team": pending["team"], "effects": list(bought), "openings": openings},
        encounter={"state": state, "over": False},
    )
