"""The exact chance on a conflict roll's button (Action.odds): the pool as chosen, against the Ob or the opposing
pool, with the dice the state adds and a weapon's."""

from __future__ import annotations

from app.i18n import _
from app.i18n import percent as percent_text
from app.systems.base import ActionError, Context, Odds
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.volley import RollParams
from app.systems.rabbits.conflict.weapons import ANY_TABLE, weapon_mods
from app.systems.rabbits.pools import breakdown, breakdown_text, plan_pool
from app.systems.rabbits.sheet import RabbitSheet, start_rewards
from app.systems.rabbits.versus import _versus_chances


def roll_odds(sheet: RabbitSheet, params: RollParams, ctx: Context[RabbitSheet]) -> Odds:
    """The pool as chosen (each helper +1D) and its exact chance against the Ob or the opposing pool."""
    start_rewards(sheet, ctx.campaign_settings)
    if not params.skill.strip():
        raise ActionError(_("Choose the skill."), field="skill")
    plan = plan_pool(
        sheet,
        params,
        settings={**ctx.campaign_settings, "turn": "gm"},
        session=None,
        helper_conditions=[[] for _ in params.helpers],
        actor_is_narrator=True,
        versus=params.against is not None,
    )
    state = ConflictState(weapons=bool(ctx.campaign_settings.get("weapons")), conflict="", weapon_table=ANY_TABLE)
    try:
        weapon = (
            weapon_mods(state, params.weapon, params.conflict_action or "attack", "", params.mode.strip().lower())
            if params.conflict_action in rabbits.ACTIONS
            else (0, 0, "")
        )
    except ActionError as exc:
        if exc.field != "weapon" or not params.weapon.strip().lower().startswith("halberd"):
            raise
        weapon = (0, 0, "")  # a Halberd without a scripted mode adds nothing (the roll itself refuses it)
    pool = max(0, plan.pool.dice + params.mods + weapon[0])
    if params.against is not None:
        against = params.against + (
            rabbits.TRAIT_USES["aids_opponent"].opponent_dice if plan.trait_use == "aids_opponent" else 0
        )
        win, tie = _versus_chances(pool, against)
        return Odds(
            chance=win,
            text=_("{dice}D vs {against}D: win {win}, tie {tie}").format(
                dice=pool, against=against, win=percent_text(float(win)), tie=percent_text(float(tie))
            ),
            details={"label": _("Pool and chance:"), "breakdown": breakdown_text(breakdown(plan))},
        )
    ob = params.ob or 0
    plain = rabbits.exact_pass_chance(pool, max(0, ob - weapon[1]))
    fate = rabbits.exact_pass_chance(pool, max(0, ob - weapon[1]), with_fate=True)
    return Odds(
        chance=float(plain),
        text=_("{dice}D vs Ob {ob}: {plain} to pass, {fate} with Fate").format(
            dice=pool, ob=ob, plain=percent_text(float(plain)), fate=percent_text(float(fate))
        ),
        details={"label": _("Pool and chance:"), "breakdown": breakdown_text(breakdown(plan))},
    )
