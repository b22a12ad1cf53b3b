"""Grapples in a combat beyond the grapple roll itself (options.py): who is in a grapple, joining one
(an action, no roll), and attacking into one from outside -- the characters in it roll Fate (foes use their
rating), the lowest is hit, and on a tie the attacker chooses (a pending choice); the attack itself is the
ordinary one (attacks.resolve_attack) on the character hit.

art-engine.md, ch. 5 "Grappling", "Fighting in a Grapple"; the Fate rolls as for an AOE (lowest_fate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.i18n import _, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.base import ActionError, Context, Resolution

from ..sheet import ArtSheet
from .models import CombatState, Fighter
from .roll import StepParams
from .state import copy_state, done, fate_list, fighter, living, name_of, require_turn, use_action


def members(state: CombatState, fid: int) -> list[int]:
    """Everyone in the grapple `fid` is in (the `grapple.with` links either way), `fid` first; [] if none."""
    links: dict[int, set[int]] = {}
    for f in living(state):
        other = (f.grapple or {}).get("with")
        if other is not None:
            links.setdefault(f.id, set()).add(other)
            links.setdefault(other, set()).add(f.id)
    if fid not in links:
        return []
    seen, todo = [fid], [fid]
    while todo:
        for other in sorted(links.get(todo.pop(), ())):
            if other not in seen:
                seen.append(other)
                todo.append(other)
    return seen


def diverted(state: CombatState, attacker: Fighter, target: Fighter) -> bool:
    """Does an attack on `target` go into a grapple from outside (so a random character is hit)? Not when the
    character hit was already decided by the Fate rolls (`into_grapple` in the state, used up here)."""
    chosen = state.into_grapple
    state.unset("into_grapple")
    if chosen is not None and chosen == target.id:
        return False
    group = members(state, target.id)
    return bool(group) and attacker.id not in group


# --- attacking into a grapple --------------------------------------------------------------------------------------


def attack_on(
    sheet: ArtSheet,
    params: Any,
    dice: Dice,
    ctx: Context[ArtSheet],
    state: CombatState,
    hit: int,
    before: Any,
    *,
    attack: Callable[..., Resolution[ArtSheet]],
) -> Resolution[ArtSheet]:
    """The ordinary attack on the character the Fate rolls chose; the Fate text goes before its summary."""
    state.into_grapple = hit
    inner = replace(ctx, encounter={**dict(ctx.encounter or {}), "state": state})
    on = type(params).model_validate({**params.model_dump(exclude={"origin"}), "target": hit})
    res = attack(sheet, on, dice, inner)
    new_state = (res.encounter or {})["state"]
    assert isinstance(new_state, CombatState)  # what an attack step hands back
    new_state.unset("into_grapple")
    summary = msg("{fate}; {attack}", fate=before, attack=res.summary)
    recent = list(new_state.recent or [])
    if recent:
        recent[0] = {**recent[0], "text": summary}
        new_state.recent = recent
    return replace(
        res,
        summary=summary,
        request=params.model_dump(exclude={"shown_difficulty", "origin"}),
        encounter={**dict(res.encounter or {}), "state": new_state},
    )


def attack_into(
    sheet: ArtSheet,
    params: Any,
    dice: Dice,
    ctx: Context[ArtSheet],
    state: CombatState,
    me: Fighter,
    target: Fighter,
    *,
    attack: Callable[..., Resolution[ArtSheet]],
    fate_rolls: Callable[..., list[tuple[str, art.Level]]],
) -> Resolution[ArtSheet]:
    """Called by resolve_attack when the target is in a grapple the attacker is not in: Fate for everyone in
    it; the lowest is attacked now, or the attacker chooses among a tie (combat_grapple_hit)."""
    group = members(state, target.id)
    fates = fate_rolls(ctx, [fighter(state, i) for i in group], dice)
    if not fates:
        raise ActionError(_("Nobody in that grapple can be hit."), field="target")
    low = min(art.Level(lv) for _n, lv in fates)
    tied = [int(n) for n, lv in fates if art.Level(lv) == low]
    hit = int(art.lowest_fate(fates)[0])
    rolls = fate_list(state, fates)
    fate = msg("{name} attacks into the grapple: Fate {rolls}", name=me.name, rolls=rolls)
    if len(tied) > 1:
        state.pending = {
            "kind": "grapple_tie",
            "attacker": me.id,
            "options": tied,
            "weapon": getattr(params, "weapon", 0),
            "secret": [],
            "label": msg("{name} chooses who is hit in the grapple (a Fate tie)", name=me.name),
        }
        if me.side == "foe":  # the narrator's foe: its attack is kept for after the choice
            state.pending["foe_attack"] = params.model_dump(
                include={"attack_with", "surprised", "from_behind", "reach"}
            )
        summary = msg("{fate}; a tie: {name} chooses who is hit", fate=fate, name=me.name)
        return done(
            state,
            params,
            summary,
            outcome={
                "fates": [[n, lv.name] for n, lv in fates if fighter(state, int(n)).side == "adventurer"],
                "tied": tied,
            },
        )
    before = msg("{fate} → {hit} is hit", fate=fate, hit=name_of(state, hit))
    return attack_on(sheet, params, dice, ctx, state, hit, before, attack=attack)


# --- joining a grapple -----------------------------------------------------------------------------------------------


class GrappleJoinParams(StepParams):
    target: int


def resolve_grapple_join(
    sheet: ArtSheet, params: GrappleJoinParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Join a grapple in your band: an action, no roll (ch. 5, "Grappling"). You fight in it from now on
    (+4 on attacks against foes, -4 on Defense for adventurers) with no bonus of your own."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    target = fighter(state, params.target)
    if target.out or not members(state, target.id):
        raise ActionError(_("{name} is not in a grapple.").format(name=target.name), field="target")
    if target.band != me.band:
        raise ActionError(_("A grapple can only be joined in your band."), field="target")
    if members(state, me.id):
        raise ActionError(_("{name} is already in a grapple.").format(name=me.name), field="target")
    me.grapple = {"with": target.id, "bonus": 0}
    use_action(state)
    others = ", ".join(name_of(state, i) for i in members(state, me.id) if i != me.id)
    summary = msg("{name} joins the grapple ({others})", name=me.name, others=others)
    return done(state, params, summary)
