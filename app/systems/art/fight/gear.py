"""Arming in a combat: an adventurer whose sheet holds no weapon at all takes up the starting weapon it was made
without (a class from ch. 2's Weapon Class table at the cost its Fortune allows), ready, on its own turn and
without spending the action, so a character created without gear never stalls at "Attack". A character who has
a weapon draws it instead (the free action "Draw a weapon", turns.py). And the attack's odds line says
when the chosen target is out of the weapon's reach (the same `in_range` the attack is refused by), before the tap.

art-engine.md, ch. 2 "Gear", "Fortune", "Weapons & Attack" (Weapon Class, Weapon Attack).
"""

from __future__ import annotations

from pydantic import Field

from app.i18n import N_, _, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.base import ActionError, Context, Odds, Resolution

from ..creation import starting_weapon
from ..sheet import ArtSheet, check_slots
from ..wording import out_of_reach
from .attacks import AttackParams, attack_odds, in_range, weapon_of
from .roll import StepParams
from .state import combat_in, copy_state, done, require_turn


class ArmParams(StepParams):
    weapon_class: str = Field(default="", max_length=40)


def resolve_arm(sheet: ArtSheet, params: ArmParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Starting gear the sheet lacks: only while it holds no weapon at all (any weapon it has is drawn, not
    replaced), on the character's own turn; it costs no action and no roll."""
    state = copy_state(ctx)
    me = require_turn(state, ctx, free=True)
    if me.side != "adventurer":
        raise ActionError(_("Foes attack with their Attack rating: they need no weapon."), field="weapon_class")
    if any(item.type == "weapon" for item in sheet.gear):
        raise ActionError(
            _("{name} carries a weapon: draw it (a free action).").format(name=me.name), field="weapon_class"
        )
    if params.weapon_class not in art.WEAPON_CLASSES:
        raise ActionError(_("Choose a weapon class from the list."), field="weapon_class")
    item = starting_weapon(sheet, params.weapon_class)
    gear = [*sheet.gear, item]
    check_slots(gear)
    sheet.gear = gear
    summary = msg(
        "{name} takes up the starting weapon the sheet lacked: {weapon} ({cost}), ready",
        name=me.name,
        weapon=msg(params.weapon_class),
        cost=msg(item.cost or ""),
    )
    return done(state, params, summary, outcome={"weapon": params.weapon_class, "cost": item.cost}, sheet=sheet)


def attack_odds_in_reach(sheet: ArtSheet, params: AttackParams, ctx: Context[ArtSheet]) -> Odds:
    """The attack's odds, or, when the target is beyond the weapon's reach now, the reason the attack would be
    refused (no chance to show: it cannot be tried)."""
    state = combat_in(ctx)
    fighters = {f.id: f for f in state.fighters} if state else {}
    me, target = fighters.get(ctx.character_id or -1), fighters.get(params.target)
    if me and target:
        stats = weapon_of(sheet, params.weapon)
        distance = abs(target.band - me.band)
        if not in_range(stats, distance):
            return Odds(
                text=out_of_reach(target.name, stats["name"], distance),
                details={"label": N_("Cannot attack:")},
            )
    return attack_odds(sheet, params, ctx)
