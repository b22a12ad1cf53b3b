"""The free attack a perk gives (Flurry, Advanced Flurry, Riposte, Advanced Riposte, Counterstrike): on the same
target (the attacker, for a parry or a Defense roll), out of turn, without spending the action, when nothing else
is pending and the target is in reach. perks.py grants it (`free_attack` on the fighter).

art-engine.md, ch. 6 "Perks".
"""

from __future__ import annotations

from pydantic import Field

from app.i18n import N_, _, join, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, Resolution

from ..sheet import ArtSheet, level_word
from .attacks import ATTACK_WITH, defense_pending, in_range, weapon_of, weapon_roll
from .models import CombatState, Fighter
from .perks import bonus, bonus_in_state, noted
from .pvp import pvp_attack_odds
from .roll import CombatRoll, odds_for, outcome, remember
from .state import combat_in, copy_state, difficulty_shift, done, fighter


class FreeAttackParams(CombatRoll):
    weapon: int = Field(default=0, ge=0, le=40)


def _free_attack_ready(state: CombatState, ctx: Context[ArtSheet]) -> tuple[Fighter, Fighter]:
    if state.phase != "rounds":
        raise ActionError(_("The rounds have not begun."), field="move")
    me = fighter(state, ctx.character_id)
    grant = me.free_attack
    if not grant:
        raise ActionError(_("{name} has no free attack.").format(name=me.name), field="move")
    if state.pending:
        raise ActionError(_("First: {what}.").format(what=state.pending.get("label", "")), field="move")
    target = fighter(state, grant["target"])
    if target.out:
        me.unset("free_attack")
        raise ActionError(_("{name} is out of the fight.").format(name=target.name), field="move")
    return me, target


def resolve_free_attack(
    sheet: ArtSheet, params: FreeAttackParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The perk's free attack on the same target (the attacker's, for Riposte and Counterstrike), out of turn
    and without spending the action; it needs the target in reach."""
    state = copy_state(ctx)
    me, target = _free_attack_ready(state, ctx)
    stats = weapon_of(sheet, params.weapon)
    if not in_range(stats, abs(target.band - me.band)):
        raise ActionError(
            _("{name} is out of reach of {weapon}.").format(name=target.name, weapon=stats["name"]), field="weapon"
        )
    grant = me.free_attack or {}
    me.unset("free_attack")
    extra, _perks = bonus(state, me, "attack", use=True)
    kind = "ranged_attack" if stats["ranged"] else "melee_attack"
    foe = target.side == "foe"
    label = msg("Free attack with {name}", name=stats["name"])
    r, others, notes = weapon_roll(
        sheet, params, dice, ctx, state, me, target, stats, params.weapon, kind, label, extra
    )
    if not foe:
        notes.append(
            defense_pending(
                state,
                defender=target.id,
                attacker=me.id,
                attack=r.result,
                rating=0,
                attack_with=ATTACK_WITH[stats["kind"]],
                foe=False,
                why=msg("against {level}", level=level_word(r.result)),
            )
        )
    if extra:
        notes.append(msg("+{n} from perks", n=extra))
    remember(sheet, ctx, "combat_free_attack", r, concealed=foe)
    perk_key: str = grant["perk"]  # a perk's English name, translated when read
    perk = msg(N_("Fumble")) if perk_key == "Fumble" else msg(perk_key)
    summary = msg(
        "{name}'s free attack ({perk}) on {target}: {roll}; {notes}",
        name=me.name,
        perk=perk,
        target=target.name,
        roll=r.text,
        notes=join([n for n in notes if n], "; "),
    )
    return done(
        state,
        params,
        summary,
        outcome=outcome(r, concealed=foe),
        sheet=sheet,
        others=others,
    )


def free_attack_odds(sheet: ArtSheet, params: FreeAttackParams, ctx: Context[ArtSheet]) -> Odds:
    stats = weapon_of(sheet, params.weapon)
    extra = bonus_in_state(ctx, ctx.character_id, "attack")
    state = combat_in(ctx)
    me = next((x for x in state.fighters if x.id == ctx.character_id), None) if state else None
    target = ((me.free_attack if me else None) or {}).get("target")
    pvp = (
        pvp_attack_odds(
            sheet, params, ctx, attribute=stats["attribute"], base=stats["attack"], extra=extra, target=target
        )
        if target is not None
        else None
    )
    return pvp or noted(
        odds_for(
            sheet,
            params,
            ctx,
            attribute=stats["attribute"],
            base=stats["attack"],
            what="the foe's Defense",
            extra=extra,
            columns=difficulty_shift(me) if me else 0,
        ),
        extra,
    )
