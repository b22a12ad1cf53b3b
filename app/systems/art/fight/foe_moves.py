"""A foe's movement in a combat: the narrator moves it (its Agility on the movement table), and adventurers in
the band it leaves may try to stop it.

art-engine.md, ch. 5 "Movement", "Stopping a Foe"; RULINGS.md, ART Engine 18.
"""

from __future__ import annotations

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from ..sheet import ArtSheet
from .models import CombatState, Fighter
from .moves import reachable, route
from .roll import CombatRoll, StepParams, odds_for, outcome, remember, roll, shift_now
from .state import (
    MAX_BANDS,
    copy_state,
    difficulty_shift,
    done,
    fighter,
    in_band,
    name_of,
    require_turn,
    turn_now,
)


class FoeMoveParams(StepParams):
    band: int = Field(ge=0, lt=MAX_BANDS)


def resolve_foe_move(
    sheet: ArtSheet, params: FoeMoveParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The narrator moves a foe on its turn, up to its Agility on the movement table. Adventurers in the band
    it leaves may first try to stop it (the step waits for them; the narrator's next tap goes on)."""
    state = copy_state(ctx)
    pending = state.pending
    if pending and pending.get("kind") == "stop" and pending["foe"] == ctx.character_id:
        return _finish_foe_move(state, params, sheet, ctx)
    me = require_turn(state, ctx, free=True)
    if me.side != "foe":
        raise ActionError(_("Adventurers roll Agility to move."), field="band")
    if turn_now(state).move:
        raise ActionError(_("{name} has moved this turn.").format(name=me.name), field="band")
    if "no_move" in me.now:
        raise ActionError(_("{name} cannot move this turn (the fumble).").format(name=me.name), field="band")
    if not 0 <= params.band < state.bands or params.band == me.band:
        raise ActionError(_("Choose another band on the track."), field="band")
    agility = Level[sheet.levels.get("AGI", "CT")]
    allowance = art.foe_movement(agility)
    if params.band not in reachable(state, me.id, allowance):
        raise ActionError(_("{name} cannot get that far this round.").format(name=me.name), field="band")
    stoppers = [f.id for f in in_band(state, me.band, "adventurer") if f.stop_round != state.round]
    if stoppers:
        state.pending = {
            "kind": "stop",
            "foe": me.id,
            "to": params.band,
            "stoppers": stoppers,
            "results": {},
            "label": msg(
                "{name} tries to leave band {band}: those there may try to stop it", name=me.name, band=me.band
            ),
        }
        names = ", ".join(name_of(state, s) for s in stoppers)
        return done(
            state,
            params,
            msg(
                "{name} tries to leave band {band}; {names} may try to stop it",
                name=me.name,
                band=me.band,
                names=names,
            ),
        )
    return _move_foe(state, params, me, [])


def _move_foe(state: CombatState, params: FoeMoveParams, me: Fighter, notes: list[Summary]) -> Resolution[ArtSheet]:
    start = me.band
    bands = route(state, me, params.band)
    me.band = params.band
    turn_now(state).move = {"bands": 0, "free": 0, "used": 0, "mode": "foe", "ended": True, "result": None}
    if bands[-1].rough:
        notes.append(msg("rough terrain ends the movement"))
    summary = join(
        [msg("{name} moves from band {start} to band {band}", name=me.name, start=start, band=params.band), *notes],
        "; ",
    )
    return done(state, params, summary, outcome={"from": start, "to": params.band})


def _finish_foe_move(
    state: CombatState, params: FoeMoveParams, sheet: ArtSheet, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    pending = state.pending or {}
    me = fighter(state, pending["foe"])
    state.pending = None
    params = params.model_copy(update={"band": pending["to"]})
    results = [Level[code] for code in pending["results"].values()]
    if results and art.stop_foe(results, Level[sheet.levels.get("AGI", "CT")]):
        turn_now(state).move = {"bands": 0, "free": 0, "used": 0, "mode": "foe", "ended": True, "result": None}
        names = ", ".join(name_of(state, int(i)) for i in pending["results"])
        text = (
            msg("{names} stops {name}: it stays in band {band}", names=names, name=me.name, band=me.band)
            if len(results) == 1
            else msg("{names} stop {name}: it stays in band {band}", names=names, name=me.name, band=me.band)
        )
        return done(state, params, text, outcome={"stopped": True})
    return _move_foe(
        state, params, me, [msg("nobody stops it")] if not results else [msg("the attempt to stop it fails")]
    )


class StopParams(CombatRoll):
    pass


def resolve_stop(sheet: ArtSheet, params: StopParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """An adventurer in the band tries to keep the foe from leaving: Agility against its Agility, a free
    action even after their turn; once a round. Several make a compound action (ruling 21)."""
    state = copy_state(ctx)
    pending = state.pending
    if not pending or pending.get("kind") != "stop":
        raise ActionError(_("No foe is leaving your band now."), field="move")
    me = fighter(state, ctx.character_id)
    if me.id not in pending["stoppers"] or str(me.id) in pending["results"]:
        raise ActionError(_("{name} cannot try to stop it (now).").format(name=me.name), field="move")
    foe = fighter(state, pending["foe"])
    agility = Level[ctx.others[foe.id].levels.get("AGI", "CT")]
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Agility (stopping a foe)"),
        attribute="AGI",
        difficulty=agility,
        against=msg("{name}'s Agility", name=foe.name),
        columns=difficulty_shift(me),
    )
    pending["results"][str(me.id)] = r.result.name
    me.stop_round = state.round
    remember(sheet, ctx, "combat_stop", r, concealed=True)
    return done(
        state,
        params,
        msg("{name} tries to stop {foe}: {roll}", name=me.name, foe=foe.name, roll=r.text),
        outcome=outcome(r, concealed=True),
        sheet=sheet,
    )


def stop_odds(sheet: ArtSheet, params: StopParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(sheet, params, ctx, attribute="AGI", what=N_("the foe's Agility"), columns=shift_now(ctx))
