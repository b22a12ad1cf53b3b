"""The rest of a combat: the Fumble table roll, area of effect (an adventurer's and a foe's, falling prone,
the Fate rolls for who is hit), grappling, the combat options (force back, knock down, disarm, takedown,
pin, take a weapon) and aiming.

art-engine.md, ch. 5 "Fumble Table", "Area of Effect", "AOE Attack", "Foe AOE Attacks", "Combat Options",
"Grappling", "Aimed Attack"; RULINGS.md, ART Engine 23, 26-28, 33.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.art.rules.combat import DODGE_DIFFICULTY
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet, attr
from .attacks import defense_pending, weapon_of
from .models import CombatState, Fighter
from .roll import CombatRoll, StepParams, acting, odds_for, outcome, remember, roll, shift_now
from .state import (
    copy_state,
    difficulty_shift,
    done,
    end_turn,
    fighter,
    require_turn,
    turn_now,
    use_action,
)

# --- grappling and the combat options --------------------------------------------------------------------------

MANEUVER_ROLL = {
    "force_back": ("STR", N_("Force back")),
    "knock_down": ("STR", N_("Knock down")),
    "disarm": ("ATTACK", N_("Disarm")),
    "grapple": ("AGI", N_("Grapple")),
    "takedown": ("STR", N_("Takedown")),
    "pin": ("STR", N_("Pin")),
    "take_weapon": ("STR", N_("Take a weapon")),
}
# The maneuver in the log, after the foe's name ("Goblin (grapple)").
MANEUVER_WORD = {
    "force_back": N_("force back"),
    "knock_down": N_("knock down"),
    "disarm": N_("disarm"),
    "grapple": N_("grapple"),
    "takedown": N_("takedown"),
    "pin": N_("pin"),
    "take_weapon": N_("take a weapon"),
}
IN_GRAPPLE = ("takedown", "pin", "take_weapon")


class ManeuverParams(CombatRoll):
    target: int
    maneuver: Literal["force_back", "knock_down", "disarm", "grapple", "takedown", "pin", "take_weapon"] = "grapple"
    weapon: int = Field(default=-1, ge=-1, le=40)
    surprise: bool = False
    both_hands: bool = False
    silent: bool = False
    one_vs_two_handed: bool = False


def resolve_maneuver(
    sheet: ArtSheet, params: ManeuverParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """A combat option against a foe in the band: the difficulty is read from its levels (the narrator's
    secret, so the log names the maneuver, not the level)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    target = fighter(state, params.target)
    if target.side != "foe" or target.out or target.band != me.band:
        raise ActionError(_("Choose a foe in your band."), field="target")
    if params.maneuver in IN_GRAPPLE and (me.grapple or {}).get("with") != target.id:
        raise ActionError(_("Grapple {name} first.").format(name=target.name), field="maneuver")
    foe = ctx.others[target.id]
    levels = {
        k: Level[foe.levels[c]] if c in foe.levels else None
        for k, c in (("strength", "STR"), ("agility", "AGI"), ("dexterity", "DEX"), ("alertness", "ALE"))
    }
    code, label = MANEUVER_ROLL[params.maneuver]
    base, item_index, ranged = None, None, False
    if code == "ATTACK":
        stats = weapon_of(sheet, params.weapon)
        base, code, item_index, ranged = stats["attack"], stats["attribute"], params.weapon, stats["ranged"]
    try:
        difficulty = art.maneuver_difficulty(
            params.maneuver,
            strength=levels["strength"] or Level.CT,
            agility=levels["agility"],
            dexterity=levels["dexterity"],
            alertness=levels["alertness"],
            surprise=params.surprise,
            both_hands=params.both_hands,
            silent=params.silent,
            one_vs_two_handed=params.one_vs_two_handed,
            ranged=ranged,
        )
    except art.ArtRuleError as exc:
        raise ActionError(_("That option does not go with this maneuver."), field="maneuver") from exc
    bonus = maneuver_bonus(me, params.maneuver)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg(label),
        base=base,
        attribute=code,
        difficulty=difficulty,
        item_index=item_index,
        against=msg("{name} ({maneuver})", name=target.name, maneuver=msg(MANEUVER_WORD[params.maneuver])),
        extra=bonus,
        columns=difficulty_shift(me),
    )
    use_action(state)
    text = _maneuver_outcome(state, params, me, target, r.result, r.spec.difficulty, sheet, ctx, ranged=ranged)
    remember(sheet, ctx, "combat_maneuver", r, concealed=True)
    summary = join([msg("{name}: {roll}", name=me.name, roll=r.text), text], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=True), "maneuver": params.maneuver},
        sheet=sheet,
    )


def _maneuver_outcome(
    state: CombatState,
    params: ManeuverParams,
    me: Fighter,
    target: Fighter,
    result: Level,
    difficulty: Level,
    sheet: ArtSheet,
    ctx: Context[ArtSheet],
    *,
    ranged: bool = False,
) -> Summary:
    n = art.count(difficulty, result)
    name = target.name
    if params.maneuver == "grapple":
        g = art.grapple(result, difficulty)
        if g.held:
            me.grapple = {"with": target.id, "bonus": g.bonus}
            target.grapple = {"with": me.id, "bonus": 0}
            return msg(
                "grapples {name} (+{bonus} on actions in the grapple; a free follow-up action)",
                name=name,
                bonus=g.bonus,
            )
        foe = ctx.others[target.id]
        return join(
            [
                msg("the grapple fails"),
                defense_pending(
                    state,
                    defender=me.id,
                    attacker=target.id,
                    attack=Level[foe.levels.get("ATK", "CT")],
                    rating=foe.damage_rating,
                    attack_with="one_handed",
                    foe=True,
                    modifier=g.defense_modifier,
                    why=msg("a free attack, {n} on Defense", n=g.defense_modifier),
                ),
            ],
            "; ",
        )
    if params.maneuver == "knock_down":
        res = art.knock_down(result, difficulty, agility=attr(sheet, "AGI"))
        if res == "foe_down":
            target.prone = True
            return msg("{name} is knocked down", name=name)
        if res == "you_down":
            me.prone = True
            return msg("{name} falls down instead", name=me.name)
        return msg("nothing happens")
    if params.maneuver == "disarm":
        d = art.disarm(result, difficulty, ranged=ranged)
        text = (
            msg("{name} is disarmed (the weapon lands five feet away)", name=name) if d.disarmed else msg("no disarm")
        )
        if d.own_weapon_away and 0 <= params.weapon < len(sheet.gear):
            sheet.gear[params.weapon].slot = "stowed"
            return join([text, msg("{name}'s own weapon is knocked away", name=me.name)], "; ")
        return text
    if params.maneuver == "force_back":
        return wording.pushes_back(n=n, name=name) if n > 0 else wording.pushed_back(n=-n, name=name, me=me.name)
    if params.maneuver == "pin":
        if n <= 0:
            return msg("no pin")
        return wording.pinned(n=n, name=name)
    if params.maneuver == "takedown":
        if n > 0:
            target.prone = True
            return msg("{name} is thrown to the ground", name=name)
        return msg("no takedown")
    return msg("takes {name}'s weapon", name=name) if n > 0 else msg("keeps no hold of the weapon")


def maneuver_bonus(me: Fighter, maneuver: str) -> int:
    """A grapple's bonus on the actions in it (takedown, pin, take a weapon)."""
    return int((me.grapple or {}).get("bonus", 0)) if maneuver in IN_GRAPPLE else 0


def maneuver_odds(sheet: ArtSheet, params: ManeuverParams, ctx: Context[ArtSheet]) -> Odds:
    code = MANEUVER_ROLL[params.maneuver][0]
    me = acting(ctx)[1]
    extra = maneuver_bonus(me, params.maneuver) if me else 0
    base = None
    if code == "ATTACK":
        stats = weapon_of(sheet, params.weapon)
        code, base = stats["attribute"], stats["attack"]
    return odds_for(
        sheet,
        params,
        ctx,
        attribute=code,
        base=base,
        what=N_("the foe's levels"),
        extra=extra,
        columns=shift_now(ctx),
    )


class AimParams(StepParams):
    pass


def resolve_aim(sheet: ArtSheet, params: AimParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Aiming takes the turn's action: +4 on the next attack."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    me.aim = art.AIMED_ATTACK
    use_action(state)
    return done(state, params, msg("{name} takes aim (+{n} on the next attack)", name=me.name, n=art.AIMED_ATTACK))


# --- dodging ------------------------------------------------------------------------------------------------


class DodgeParams(CombatRoll):
    pass


def resolve_dodge(sheet: ArtSheet, params: DodgeParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """An Inferior Agility roll: +1 on Defense per success until your next turn; Catastrophic falls (the turn
    ends, +1 difficulty on Defense); Great or better may move to an adjacent band."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if "no_parry_dodge" in me.now:
        raise ActionError(_("{name} cannot dodge this turn (the fumble).").format(name=me.name), field="move")
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Agility (dodge)"),
        attribute="AGI",
        difficulty=DODGE_DIFFICULTY,
        columns=difficulty_shift(me),
    )
    result = art.dodge(r.result)
    me.dodge = {"bonus": result.defense_bonus, "difficulty": result.defense_difficulty}
    use_action(state)
    notes: list[Summary] = [
        msg("+{n} on Defense until the next turn", n=result.defense_bonus) if result.defense_bonus else msg("no bonus")
    ]
    begin_dodge = None
    if result.fell:
        me.prone = True
        notes.append(msg("falls down, +1 difficulty on Defense; the turn ends"))
    elif result.may_move and not turn_now(state).move:
        turn_now(state).move = {
            "bands": 1,
            "free": 1,
            "used": 0,
            "mode": "free",
            "ended": False,
            "result": r.result.name,
        }
        notes.append(msg("may move to an adjacent band"))
    remember(sheet, ctx, "combat_dodge", r)
    if result.fell:
        begin_dodge = end_turn(state)
        me.dodge = {"bonus": 0, "difficulty": 1}
    summary = join([msg("{name} dodges: {roll}", name=me.name, roll=r.text), *notes, *(begin_dodge or [])], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "defense_bonus": result.defense_bonus},
        sheet=sheet,
    )


def dodge_odds(sheet: ArtSheet, params: DodgeParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(
        sheet,
        params.model_copy(update={"shown_difficulty": DODGE_DIFFICULTY.name}),
        ctx,
        attribute="AGI",
        columns=shift_now(ctx),
    )
