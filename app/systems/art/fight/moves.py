"""Movement on the range track: the movement roll and moving (free bands or the action), escaping foes,
rough terrain, sneaking; the narrator's foe movement and the adventurers' attempts to stop it.

art-engine.md, ch. 5 "Range Track", "Movement Rates", "Movement Roll", "Rough Terrain", "Sneaking",
"Foe Movement", "Stopping Foe Movement", "Escaping Foes"; RULINGS.md, ART Engine 18-21.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet
from .models import CombatState, Fighter
from .roll import CombatRoll, StepParams, odds_for, outcome, remember, roll, shift_now
from .state import (
    MAX_BANDS,
    combat_state,
    copy_state,
    difficulty_shift,
    done,
    fighter,
    in_band,
    living,
    require_turn,
    rough,
    turn_now,
    use_action,
)

VICINITY = 2  # bands: the foes whose Alertness a sneak is against (ch. 5 "Sneaking": "foes in the vicinity")


def _opposite(side: str) -> str:
    return "foe" if side == "adventurer" else "adventurer"


def route(state: CombatState, mover: Fighter, target: int) -> list[art.Band]:
    """The bands from the mover's to `target`, as the movement rules count them: the enemies and friends
    (not the mover) in each band, and whether it is rough."""
    start = mover.band
    step = 1 if target >= start else -1
    bands = []
    for band in range(start, target + step, step):
        enemies = sum(f.count for f in in_band(state, band, _opposite(mover.side)))
        friends = sum(f.count for f in in_band(state, band, mover.side) if f.id != mover.id)
        bands.append(art.Band(foes=enemies, friends=friends, rough=rough(state, band)))
    return bands


def cost_of(bands: list[art.Band]) -> int:
    return sum(art.escape_cost(b.foes, b.friends) for b in bands[:-1])


def reachable(state: CombatState, fid: int, allowance: int) -> list[int]:
    """Every band the character can reach with `allowance` movement (shown before choosing)."""
    mover = fighter(state, fid)
    found = []
    for band in range(state.bands):
        if band == mover.band:
            continue
        bands = route(state, mover, band)
        if art.bands_moved(allowance, bands) == len(bands) - 1:
            found.append(band)
    return found


def move_options(shown: Mapping[str, Any]) -> dict[str, list[int]]:
    """For the page: where the turn-holder may move now, as a free action and with its action."""
    state = combat_state(shown)
    turn = state.turn
    move = turn.move if turn else None
    if turn is None or not move or move.get("ended"):
        return {"free": [], "action": []}
    fid = turn.id
    free = reachable(state, fid, move["free"] - move["used"]) if move["mode"] in (None, "free") else []
    action = reachable(state, fid, move["bands"] - move["used"]) if not turn.action or move["mode"] == "action" else []
    # A band the free move reaches is not offered again as a move that spends the action.
    return {"free": free, "action": [band for band in action if band not in free]}


def foe_move_options(shown: Mapping[str, Any], agility: str) -> list[int]:
    """For the narrator's page: the bands the foe on turn can reach this round (its Agility on the movement
    table, ruling 18) — the same `reachable` the step checks, so the page offers only what the server takes."""
    state = combat_state(shown)
    turn = state.turn
    if state.phase != "rounds" or turn is None or turn.move:
        return []
    me = fighter(state, turn.id)
    if me.side != "foe" or "no_move" in me.now:
        return []
    return reachable(state, me.id, art.foe_movement(Level[agility]))


class MoveRollParams(CombatRoll):
    pass


def resolve_move_roll(
    sheet: ArtSheet, params: MoveRollParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The Agility roll that says how far the adventurer may move this turn (the Movement Roll table)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx, free=True)
    if me.side != "adventurer":
        raise ActionError(_("Foes do not roll to move: the narrator moves them by their Agility."), field="move")
    if turn_now(state).move:
        raise ActionError(_("You have rolled to move this turn."), field="move")
    if "no_move" in me.now:
        raise ActionError(_("{name} cannot move this turn (the fumble).").format(name=me.name), field="move")
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Agility (movement)"),
        attribute="AGI",
        difficulty=Level.CT,
        degree_only=True,
    )
    m = art.movement(r.result)
    turn_now(state).move = {
        "bands": m.bands,
        "free": m.free_bands,
        "used": 0,
        "mode": None,
        "ended": m.bands == 0,
        "result": r.result.name,
    }
    remember(sheet, ctx, "combat_move_roll", r)
    text = msg("stumbles: no movement") if m.bands == 0 else wording.may_move(n=m.bands, free=m.free_bands)
    return done(
        state,
        params,
        join([msg("{name} rolls to move: {roll}", name=me.name, roll=r.text), text], "; "),
        outcome={**outcome(r, concealed=False), "bands": m.bands, "free_bands": m.free_bands},
        sheet=sheet,
    )


def move_roll_odds(sheet: ArtSheet, params: MoveRollParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(
        sheet,
        params.model_copy(update={"shown_difficulty": "PR"}),
        ctx,
        attribute="AGI",
        label=N_("Chance to move a band as a free action (Poor or better):"),
    )


class MoveParams(StepParams):
    band: int = Field(ge=0, lt=MAX_BANDS)
    free: bool = False


def resolve_move(sheet: ArtSheet, params: MoveParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Move the adventurer's token within what the roll allows: leaving a band its foes outnumber costs 2,
    entering rough terrain ends the movement."""
    state = copy_state(ctx)
    me = require_turn(state, ctx, free=True)
    move = turn_now(state).move
    if not move:
        raise ActionError(_("Roll Agility to move first."), field="band")
    if move.get("ended"):
        raise ActionError(_("Your movement has ended this turn."), field="band")
    mode = "free" if params.free else "action"
    if move["mode"] not in (None, mode):
        raise ActionError(
            _("This turn's movement is used as a free action: keep to it.")
            if move["mode"] == "free"
            else _("This turn's movement uses your action: keep to it."),
            field="free",
        )
    if mode == "action" and turn_now(state).action and move["mode"] != "action":
        raise ActionError(_("You have used your action: only the free bands are left."), field="free")
    if not 0 <= params.band < state.bands or params.band == me.band:
        raise ActionError(_("Choose another band on the track."), field="band")
    allowance = (move["free"] if params.free else move["bands"]) - move["used"]
    bands = route(state, me, params.band)
    if params.band not in reachable(state, me.id, allowance):
        reach = reachable(state, me.id, allowance)
        raise ActionError(
            _("Band {band} is out of reach (you can reach: {reach}).").format(
                band=params.band, reach=", ".join(str(b) for b in reach) or _("none")
            ),
            field="band",
        )
    start = me.band
    me.band = params.band
    move["used"] += cost_of(bands)
    move["mode"] = mode
    notes: list[Summary] = []
    if any(b.foes > b.friends for b in bands[:-1]):
        notes.append(msg("escaping costs 2"))
    if bands[-1].rough:
        move["ended"] = True
        notes.append(msg("rough terrain ends the movement"))
    if mode == "action":
        use_action(state)
    head = (
        msg(
            "{name} moves from band {start} to band {band} as a free action",
            name=me.name,
            start=start,
            band=params.band,
        )
        if params.free
        else msg(
            "{name} moves from band {start} to band {band} using the action",
            name=me.name,
            start=start,
            band=params.band,
        )
    )
    summary = join([head, *notes], "; ")
    return done(state, params, summary, outcome={"from": start, "to": params.band, "free": params.free})


class SneakParams(CombatRoll):
    band: int = Field(ge=0, lt=MAX_BANDS)


def sneak_difficulty(state: CombatState, me: Fighter, levels: Mapping[int, str]) -> Level:
    near = [f for f in living(state, "foe") if abs(f.band - me.band) <= VICINITY]
    if not near:
        raise ActionError(_("No foe is near: move instead of sneaking."), field="band")
    return art.add_difficulties([Level[levels[f.id]] for f in near for _i in range(f.count)])


def resolve_sneak(sheet: ArtSheet, params: SneakParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Sneak to an adjacent band: Agility against the foes' Alertness added up (a failure is spotted; an
    Awesome success is a free action)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if abs(params.band - me.band) != 1 or params.band >= state.bands:
        raise ActionError(_("Sneaking goes to an adjacent band."), field="band")
    levels = {f.id: ctx.others[f.id].levels.get("ALE", "CT") for f in living(state, "foe")}
    difficulty = sneak_difficulty(state, me, levels)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Agility (sneaking)"),
        attribute="AGI",
        difficulty=difficulty,
        against=msg("the foes' Alertness"),
        columns=difficulty_shift(me),
    )
    result = art.sneak(r.result, r.spec.difficulty)
    if result.spotted:
        text = msg("spotted")
    else:
        me.band = params.band
        text = (
            msg("slips unnoticed into band {band} as a free action", band=params.band)
            if result.free_action
            else msg("slips unnoticed into band {band}", band=params.band)
        )
    if not result.free_action:
        use_action(state)
    remember(sheet, ctx, "combat_sneak", r, concealed=True)
    return done(
        state,
        params,
        join([msg("{name} sneaks: {roll}", name=me.name, roll=r.text), text], "; "),
        outcome={**outcome(r, concealed=True), "spotted": result.spotted},
        sheet=sheet,
    )


def sneak_odds(sheet: ArtSheet, params: SneakParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(sheet, params, ctx, attribute="AGI", what=N_("the foes' Alertness"), columns=shift_now(ctx))


# --- foes -----------------------------------------------------------------------------------------------------
