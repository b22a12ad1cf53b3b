"""The defender's side of an attack in a combat: the Defense roll with its damage on the Health track, the parry
offered once the damage is known (only when legal), and declining it (taking the damage).

art-engine.md, ch. 5 "Foe Attacking Player", "Fumbles", "Foe Fumbles", "Parrying"; ch. 3 "Taking Damage";
RULINGS.md, ART Engine 9, 10, 22-25.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from ..sheet import ArtSheet, defense, level_word, shield_bonus
from ..skirmish import damage_text, mark_damage
from . import perks as fp
from .models import CombatState, Fighter
from .pvp import defense_trait
from .roll import CombatRoll, StepParams, acting, odds_for, outcome, remember, roll
from .state import (
    acted_this_round,
    copy_state,
    difficulty_shift,
    done,
    fighter,
    mark_outcome,
    name_of,
    take_out_of_round,
)

PARRY_WITH = {"melee_1h": "one_handed", "melee_2h": "two_handed"}


def parry_items(sheet: ArtSheet, state: CombatState, pending: dict[str, Any], me: Fighter) -> list[int]:
    """The gear this defender may parry with now: at hand or ready, legal against the attack, and only if they
    have not taken their turn this round (ch. 5 "Parrying"; ruling 25)."""
    if "no_parry_dodge" in me.now:
        return []
    acted = acted_this_round(state, me.id)
    found = []
    for index, item in enumerate(sheet.gear):
        if item.slot not in ("ready", "at_hand"):
            continue
        kind = (
            "shield"
            if item.type == "shield"
            else PARRY_WITH.get(item.weapon or "", "ranged")
            if item.type == "weapon"
            else None
        )
        if kind and art.can_parry(
            kind,
            pending["attack_with"],
            surprised=pending["surprised"],
            from_behind=pending["from_behind"],
            acted=acted,
        ):
            found.append(index)
    return found


class DefendParams(CombatRoll):
    use_shield: bool = False


def resolve_defend(sheet: ArtSheet, params: DefendParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """The Defense roll against the pending attack; its failures plus the damage rating are the damage. If a
    parry is legal the damage waits for the defender's choice, else it is marked at once."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "defense" or pending["defender"] != ctx.character_id:
        raise ActionError(_("No attack is waiting for this character's Defense roll."), field="move")
    me = fighter(state, ctx.character_id)
    if params.use_shield and not shield_bonus(sheet):
        raise ActionError(_("No shield ready or at hand."), field="use_shield")
    base = defense_trait(state, me, sheet, modifier=pending.get("modifier", 0), shield=params.use_shield, use=True)
    foe = bool(pending["foe"])
    attacker = fighter(state, pending["attacker"])
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Defense"),
        base=base,
        attribute="AGI",
        difficulty=Level[pending["attack"]],
        kind="defense",
        against=msg("{name}'s Attack", name=attacker.name) if foe else None,
        columns=difficulty_shift(me, defense=True),
    )
    damage = art.defense_damage(r.result, r.spec.difficulty, rating=pending["rating"])
    fumbles = foe and art.foe_fumbles(r.result)
    remember(sheet, ctx, "combat_defend", r, concealed=foe)
    notes: list[Summary] = list(
        fp.after_roll(state, me.id, sheet, r.rolled.perks, r.rolled.roll.kicker, target=attacker.id)
    )
    state.pending = None
    if damage is None:
        notes.append(msg("avoids all damage"))
    else:
        legal = parry_items(sheet, state, pending, me) if damage is not Level.EX else []
        if legal:
            state.pending = {
                "kind": "parry",
                "defender": me.id,
                "damage": damage.name,
                "items": legal,
                "attacker": pending["attacker"],
                "foe_fumble": pending["attacker"] if fumbles else None,
                "secret": [],
                "label": msg("{name} may parry {level} damage or take it", name=me.name, level=level_word(damage)),
            }
            notes.append(msg("{level} damage: {name} may parry it", level=level_word(damage), name=me.name))
        else:
            notes.append(take(state, me, sheet, damage))
    if fumbles and (state.pending or {}).get("kind") != "parry":
        notes.append(foe_fumble_pending(state, me.id, pending["attacker"]))
    summary = join(
        [
            msg("{name} defends against {attacker}: {roll}", name=me.name, attacker=attacker.name, roll=r.text),
            *(n for n in notes if n),
        ],
        "; ",
    )
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=foe), "damage": damage.name if damage else None},
        sheet=sheet,
    )


def defend_odds(sheet: ArtSheet, params: DefendParams, ctx: Context[ArtSheet]) -> Odds:
    """The same Defense trait and difficulty shift resolve_defend rolls with (defense_trait, difficulty_shift)."""
    plain = defense(sheet) + (shield_bonus(sheet) if params.use_shield else 0)
    state, me = acting(ctx)
    if state is None or me is None:
        return odds_for(sheet, params, ctx, attribute="AGI", base=plain, what=N_("the foe's Attack"))
    pending = state.pending or {}
    modifier = (
        pending.get("modifier", 0) if pending.get("kind") == "defense" and pending.get("defender") == me.id else 0
    )
    base = defense_trait(state, me, sheet, modifier=modifier, shield=params.use_shield)
    return fp.noted(
        odds_for(
            sheet,
            params,
            ctx,
            attribute="AGI",
            base=base,
            what=N_("the foe's Attack"),
            columns=difficulty_shift(me, defense=True),
        ),
        base - plain,
    )


def foe_fumble_pending(state: CombatState, player: int, foe: int) -> Summary:
    state.pending = {
        "kind": "fumble",
        "roller": player,
        "fumbler": foe,
        "foe": True,
        "target": player,
        "weapon": None,
        "label": msg(
            "Awesome Defense: {name} rolls Cunning on the Fumble table for {foe}",
            name=name_of(state, player),
            foe=name_of(state, foe),
        ),
    }
    return msg("Awesome Defense: {foe} fumbles", foe=name_of(state, foe))


def take(state: CombatState, me: Fighter, sheet: ArtSheet, damage: Level) -> Summary:
    record = mark_damage(sheet, damage)
    if record["marked"] and not record["defeated"] and me.side == "adventurer":
        me.may_play_dead = True  # ch. 5 "Playing Dead": "When you are hit in combat" (until the next turn)
    text = msg("{name} {damage}", name=me.name, damage=damage_text(record))
    more = mark_outcome(state, me.id, record)
    return join([text, more], "; ") if more else text


class ParryParams(CombatRoll):
    item: int = Field(default=0, ge=0, le=40)


def resolve_parry(sheet: ArtSheet, params: ParryParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Parry the known damage: Dexterity against it; it costs this round's action. Pathetic knocks the weapon
    or shield away, Catastrophic shatters it."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "parry" or pending["defender"] != ctx.character_id:
        raise ActionError(_("There is nothing to parry now."), field="item")
    if params.item not in pending["items"]:
        raise ActionError(_("You cannot parry this attack with that."), field="item")
    me = fighter(state, ctx.character_id)
    damage = Level[pending["damage"]]
    item = sheet.gear[params.item]
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Parry with {name}", name=item.name),
        attribute="DEX",
        difficulty=damage,
        item_index=params.item,
        columns=difficulty_shift(me),
    )
    result = art.parry(r.result, damage)
    notes: list[Summary] = []
    state.pending = None
    if result.parried:
        notes.append(msg("parried: no damage"))
        perks = art.triggered_perks(list(sheet.perks), "parried", r.rolled.roll.kicker, r.result)
        notes += fp.after_roll(state, me.id, sheet, perks, r.rolled.roll.kicker, target=pending.get("attacker"))
    else:
        notes.append(take(state, me, sheet, damage))
    if result.lost == "knocked_away":
        item.slot = "stowed"
        notes.append(msg("{name} is knocked away (draw it again)", name=item.name))
    elif result.lost == "shattered":
        sheet.gear.pop(params.item)
        notes.append(msg("{name} shatters", name=item.name))
    take_out_of_round(state, me.id)
    remember(sheet, ctx, "combat_parry", r)
    if pending.get("foe_fumble") is not None:
        notes.append(foe_fumble_pending(state, me.id, pending["foe_fumble"]))
    summary = join([msg("{name} parries: {roll}", name=me.name, roll=r.text), *(n for n in notes if n)], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "parried": result.parried, "lost": result.lost},
        sheet=sheet,
    )


def parry_odds(sheet: ArtSheet, params: ParryParams, ctx: Context[ArtSheet]) -> Odds:
    me = acting(ctx)[1]
    return odds_for(
        sheet, params, ctx, attribute="DEX", what=N_("the damage"), columns=difficulty_shift(me) if me else 0
    )


class TakeParams(StepParams):
    pass


def resolve_take(sheet: ArtSheet, params: TakeParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """No parry: the damage is marked on the Health track."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "parry" or pending["defender"] != ctx.character_id:
        raise ActionError(_("There is no damage waiting for this character."), field="move")
    me = fighter(state, ctx.character_id)
    state.pending = None
    parts = [msg("{name} does not parry", name=me.name), take(state, me, sheet, Level[pending["damage"]])]
    if pending.get("foe_fumble") is not None:
        parts.append(foe_fumble_pending(state, me.id, pending["foe_fumble"]))
    return done(state, params, join(parts, "; "), sheet=sheet)
