"""Fumbles in a combat: the Fumble table roll a fumble leaves pending, and what it does (a penalty, a fall, a
dropped weapon, a free attack for the target, a friend hit).

art-engine.md, ch. 5 "Fumbles", "Foe Fumbles"; RULINGS.md, ART Engine 9, 10.
"""

from __future__ import annotations

from typing import Any

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from ..sheet import ArtSheet
from .attacks import defense_pending
from .roll import CombatRoll, acting, odds_for, outcome, remember, roll
from .state import (
    copy_state,
    done,
    fate_list,
    fate_rolls,
    fighter,
    in_band,
    name_of,
    on_turn,
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


def resolve_fumble(sheet: ArtSheet, params: FumbleParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """The Fumble table: the fumbler's Agility (an adventurer's fumble), or the Cunning of the player whose
    Awesome Defense made a foe fumble, read on the Cunning column."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "fumble" or pending["roller"] != ctx.character_id:
        raise ActionError(_("No fumble is waiting for this character's roll."), field="move")
    roller = fighter(state, ctx.character_id)
    fumbler = fighter(state, pending["fumbler"])
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
        fates = fate_rolls(ctx, friends, dice, own=sheet)
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
            foe_sheet = ctx.others[target.id]
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
        sheet=sheet,
    )


def fumble_roll(pending: dict[str, Any]) -> tuple[str, str]:
    """The Fumble table roll: the fumbler's Agility, or for a foe's fumble the Cunning of the player who
    caused it (the reversed column). With its label in the log."""
    return ("CUN", N_("Cunning (Fumble table)")) if pending.get("foe") else ("AGI", N_("Agility (Fumble table)"))


def fumble_odds(sheet: ArtSheet, params: FumbleParams, ctx: Context[ArtSheet]) -> Odds:
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
    return odds_for(sheet, params.model_copy(update={"shown_difficulty": "AW"}), ctx, attribute=code, label=label)
