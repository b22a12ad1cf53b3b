"""A Fate tie when attacking into a grapple (grapple.attack_into): the attacker chooses who is hit, then the
ordinary attack (attacks.resolve_attack) is rolled on them.

art-engine.md, ch. 5 "Fighting in a Grapple"; the Fate rolls as for an AOE (lowest_fate).
"""

from __future__ import annotations

from pydantic import Field

from app.i18n import _, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution

from ..sheet import ArtSheet
from .attacks import FoeAttackParams, resolve_attack, resolve_foe_attack
from .grapple import attack_on
from .roll import CombatRoll
from .state import copy_state, name_of


class GrappleHitParams(CombatRoll):
    target: int
    weapon: int = Field(default=0, ge=0, le=40)


def resolve_grapple_hit(
    sheet: ArtSheet, params: GrappleHitParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The attacker picks among those tied for the lowest Fate; the attack is then rolled on them."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "grapple_tie" or pending["attacker"] != ctx.character_id:
        raise ActionError(_("There is no Fate tie in a grapple to decide."), field="target")
    if params.target not in pending["options"]:
        names = ", ".join(name_of(state, i) for i in pending["options"])
        raise ActionError(_("Choose one of: {names}.").format(names=names), field="target")
    state.pending = None
    before = msg(
        "{name} chooses {hit} in the grapple",
        name=name_of(state, ctx.character_id or 0),
        hit=name_of(state, params.target),
    )
    if pending.get("foe_attack") is not None:  # the narrator's foe: its attack on the one chosen
        step = params.model_dump(include=set(FoeAttackParams.model_fields) & set(GrappleHitParams.model_fields))
        on = FoeAttackParams.model_validate({**step, **pending["foe_attack"], "target": params.target})
        return attack_on(sheet, on, dice, ctx, state, params.target, before, attack=resolve_foe_attack)
    return attack_on(sheet, params, dice, ctx, state, params.target, before, attack=resolve_attack)
