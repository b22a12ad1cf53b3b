"""The rest of a combat: the Fumble table roll, area of effect (an adventurer's and a foe's, falling prone,
the Fate rolls for who is hit), grappling, the combat options (force back, knock down, disarm, takedown,
pin, take a weapon) and aiming.

art-engine.md, ch. 5 "Fumble Table", "Area of Effect", "AOE Attack", "Foe AOE Attacks", "Combat Options",
"Grappling", "Aimed Attack"; RULINGS.md, ART Engine 23, 26-28, 33.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules import art
from app.rules.art import Level
from app.rules.art.combat import DODGE_DIFFICULTY
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet, attr, dump, load
from .attacks import defense_pending, weapon_of
from .models import CombatState, Fighter
from .roll import CombatRoll, StepParams, acting, odds_for, outcome, remember, roll, shift_now
from .state import (
    copy_state,
    difficulty_shift,
    done,
    end_turn,
    fate_list,
    fate_rolls,
    fighter,
    in_band,
    name_of,
    on_turn,
    require_turn,
    turn_now,
    use_action,
)

# --- the Fumble table ---------------------------------------------------------------------------------------

FUMBLE_TEXT = {
    "penalty_2": N_("{name}: +2 difficulty on all rolls until the end of the next turn"),
    "penalty_1": N_("{name}: +1 difficulty on all rolls until the end of the next turn"),
    "hit_friend": N_("{name} strikes a friend in the band (lowest Fate)"),
    "free_attack": N_("{name}: the target gets a free attack"),
    "drop_weapon": N_("{name} drops the weapon"),
    "fall_down": N_("{name} falls down"),
    "no_attack": N_("{name} cannot attack next turn"),
    "no_move": N_("{name} cannot move next turn"),
    "no_parry_dodge": N_("{name} cannot parry or dodge next turn"),
    "recover": N_("{name} recovers fully"),
}


class FumbleParams(CombatRoll):
    pass


def resolve_fumble(sheet_data: dict[str, Any], params: FumbleParams, dice: Dice, ctx: Context) -> Resolution:
    """The Fumble table: the fumbler's Agility (an adventurer's fumble), or the Cunning of the player whose
    Awesome Defense made a foe fumble, read on the Cunning column."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "fumble" or pending["roller"] != ctx.character_id:
        raise ActionError(_("No fumble is waiting for this character's roll."), field="move")
    roller = fighter(state, ctx.character_id)
    fumbler = fighter(state, pending["fumbler"])
    sheet = load(sheet_data)
    code, label = fumble_roll(pending)
    r = roll(sheet, params, dice, ctx, label=msg(label), attribute=code, difficulty=Level.CT, degree_only=True)
    friends = [f for f in in_band(state, fumbler.band, fumbler.side) if f.id != fumbler.id]
    effect = art.fumble(r.result, foe=pending["foe"], friend_in_band=bool(friends), prone=fumbler.prone)
    state.pending = None
    notes: list[Summary] = [msg(FUMBLE_TEXT[effect], name=fumbler.name)]
    if effect in ("penalty_2", "penalty_1"):
        fumbler.penalty = {
            "columns": 2 if effect == "penalty_2" else 1,
            "turns": 2 if on_turn(state) == fumbler.id else 1,
        }
    elif effect in ("no_attack", "no_move", "no_parry_dodge"):
        fumbler.next = [*fumbler.next, effect]
    elif effect == "fall_down":
        fumbler.prone = True
    elif effect == "drop_weapon" and not pending["foe"] and pending.get("weapon") is not None:
        if 0 <= pending["weapon"] < len(sheet.gear):
            sheet.gear[pending["weapon"]].slot = "stowed"
    elif effect == "hit_friend":
        fates = fate_rolls(ctx, friends, dice, own=sheet_data)
        if fates:
            struck = int(art.lowest_fate(fates)[0])
            notes.append(msg("Fate {rolls}", rolls=fate_list(state, fates)))
            if fumbler.side == "adventurer":
                notes.append(
                    defense_pending(
                        state,
                        defender=struck,
                        attacker=fumbler.id,
                        attack=Level.PR,
                        rating=0,
                        attack_with="one_handed",
                        foe=False,
                        why=msg("struck by a friend"),
                    )
                )
            else:
                notes.append(msg("{name} is struck: the narrator marks the damage", name=name_of(state, struck)))
    elif effect == "free_attack":
        target = fighter(state, pending["target"])
        if fumbler.side == "adventurer" and target.side == "foe" and target.band == fumbler.band:
            foe_sheet = load(ctx.others[target.id])
            notes.append(
                defense_pending(
                    state,
                    defender=fumbler.id,
                    attacker=target.id,
                    attack=Level[foe_sheet.levels.get("ATK", "CT")],
                    rating=foe_sheet.damage_rating,
                    attack_with="one_handed",
                    foe=True,
                    why=msg("a free attack"),
                )
            )
        elif not target.out and target.side == "adventurer":  # their phone offers it (combat_free_attack)
            target.free_attack = {"perk": "Fumble", "target": fumbler.id}
            notes.append(msg("{name} may attack {fumbler} at once", name=target.name, fumbler=fumbler.name))
    remember(sheet, ctx, "combat_fumble", r)
    summary = join([msg("{name} rolls on the Fumble table: {roll}", name=roller.name, roll=r.text), *notes], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "effect": effect},
        sheet=dump(sheet),
    )


def fumble_roll(pending: dict[str, Any]) -> tuple[str, str]:
    """The Fumble table roll: the fumbler's Agility, or for a foe's fumble the Cunning of the player who
    caused it (the reversed column). With its label in the log."""
    return ("CUN", N_("Cunning (Fumble table)")) if pending.get("foe") else ("AGI", N_("Agility (Fumble table)"))


def fumble_odds(sheet_data: dict[str, Any], params: FumbleParams, ctx: Context) -> Odds:
    """The chance of an Awesome roll (the roll has no difficulty and no shift): on the Agility column the
    fumbler recovers fully; on the Cunning column (a foe's fumble) it is the Agility Catastrophic row, the worst
    for the foe (+2 difficulty on all its rolls)."""
    state = acting(ctx)[0]
    pending = (state.pending if state else None) or {}
    code = fumble_roll(pending)[0]
    label = (
        N_("Chance of the worst for the foe, +2 difficulty (Awesome Cunning):")
        if code == "CUN"
        else N_("Chance to recover fully (Awesome):")
    )
    return odds_for(sheet_data, params.model_copy(update={"shown_difficulty": "AW"}), ctx, attribute=code, label=label)


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


def resolve_maneuver(sheet_data: dict[str, Any], params: ManeuverParams, dice: Dice, ctx: Context) -> Resolution:
    """A combat option against a foe in the band: the difficulty is read from its levels (the narrator's
    secret, so the log names the maneuver, not the level)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    target = fighter(state, params.target)
    if target.side != "foe" or target.out or target.band != me.band:
        raise ActionError(_("Choose a foe in your band."), field="target")
    if params.maneuver in IN_GRAPPLE and (me.grapple or {}).get("with") != target.id:
        raise ActionError(_("Grapple {name} first.").format(name=target.name), field="maneuver")
    sheet = load(sheet_data)
    foe = load(ctx.others[target.id])
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
        sheet=dump(sheet),
    )


def _maneuver_outcome(
    state: CombatState,
    params: ManeuverParams,
    me: Fighter,
    target: Fighter,
    result: Level,
    difficulty: Level,
    sheet: ArtSheet,
    ctx: Context,
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
        foe = load(ctx.others[target.id])
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


def maneuver_odds(sheet_data: dict[str, Any], params: ManeuverParams, ctx: Context) -> Odds:
    code = MANEUVER_ROLL[params.maneuver][0]
    me = acting(ctx)[1]
    extra = maneuver_bonus(me, params.maneuver) if me else 0
    base = None
    if code == "ATTACK":
        stats = weapon_of(load(sheet_data), params.weapon)
        code, base = stats["attribute"], stats["attack"]
    return odds_for(
        sheet_data,
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


def resolve_aim(sheet: dict[str, Any], params: AimParams, dice: Dice, ctx: Context) -> Resolution:
    """Aiming takes the turn's action: +4 on the next attack."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    me.aim = art.AIMED_ATTACK
    use_action(state)
    return done(state, params, msg("{name} takes aim (+{n} on the next attack)", name=me.name, n=art.AIMED_ATTACK))


# --- dodging ------------------------------------------------------------------------------------------------


class DodgeParams(CombatRoll):
    pass


def resolve_dodge(sheet_data: dict[str, Any], params: DodgeParams, dice: Dice, ctx: Context) -> Resolution:
    """An Inferior Agility roll: +1 on Defense per success until your next turn; Catastrophic falls (the turn
    ends, +1 difficulty on Defense); Great or better may move to an adjacent band."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if "no_parry_dodge" in me.now:
        raise ActionError(_("{name} cannot dodge this turn (the fumble).").format(name=me.name), field="move")
    sheet = load(sheet_data)
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
        sheet=dump(sheet),
    )


def dodge_odds(sheet_data: dict[str, Any], params: DodgeParams, ctx: Context) -> Odds:
    return odds_for(
        sheet_data,
        params.model_copy(update={"shown_difficulty": DODGE_DIFFICULTY.name}),
        ctx,
        attribute="AGI",
        columns=shift_now(ctx),
    )
