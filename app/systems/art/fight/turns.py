"""Combat rounds: initiative, waiting, ending a turn (multi-action for Fame), free actions, and the
narrator's tools (placing a token, ending the combat, the simplified initiative setting).

art-engine.md, ch. 5 "Initiative", "Simplified Initiative", "Taking Your Turn", "Free Actions",
"Automatically Successful Actions", "Waiting", "Multi-Action", "Standing Up", "Drawing a Weapon",
"Encounter Range"; RULINGS.md, ART Engine 11, 13-17.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.art.rules.rounds import FREE_ACTION_DIFFICULTY
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet, check_slots, fame_left, level_word
from .models import CombatState, Fighter
from .roll import CombatRoll, StepParams, odds_for, outcome, remember, roll, shift_now
from .state import (
    MAX_BANDS,
    begin_turn,
    copy_state,
    difficulty_shift,
    done,
    end_turn,
    fighter,
    living,
    name_of,
    on_turn,
    require_turn,
    start_round,
    turn_now,
)

TIE_DIE = 6
TIE_ROUNDS = 10


# --- initiative --------------------------------------------------------------------------------------------


def _settle_ties(state: CombatState, dice: Dice) -> list[Summary]:
    """Ruling 11: adventurers tied on initiative roll a die each (the log keeps it), higher first; those still
    tied roll again. Returns the players' ids in their settled order (seat order among untied levels)."""
    players = [f for f in state.fighters if f.side == "adventurer" and f.initiative]
    notes: list[Summary] = []
    by_level: dict[str, list[Fighter]] = {}
    for p in players:
        by_level.setdefault(str(p.initiative), []).append(p)
    for level, group in by_level.items():
        if len(group) < 2:
            continue
        tied = group
        for _i in range(TIE_ROUNDS):
            faces = {p.id: dice.roll(TIE_DIE) for p in tied}
            for p in tied:
                p.tie = [*p.tie, faces[p.id]]
            if len(set(faces.values())) == len(faces):
                break
            tied = [p for p in tied if list(faces.values()).count(faces[p.id]) > 1]
        notes.append(
            msg(
                "tie on {level}: {rolls}",
                level=level_word(Level[level]),
                rolls=join(
                    [msg("{name} rolls {faces}", name=p.name, faces="/".join(str(x) for x in p.tie)) for p in group]
                ),
            )
        )
    return notes


def _tie_key(f: Fighter) -> list[int]:
    return [-x for x in f.tie]


def settle_initiative(state: CombatState, dice: Dice) -> list[Summary]:
    """Everyone has an initiative: the order of every round (or the simplified order), then the first round
    (the bonus round if anyone rolled Super or better)."""
    fighters = state.fighters
    players = [f for f in fighters if f.side == "adventurer"]
    foes = [f for f in fighters if f.side == "foe"]
    notes: list[Summary] = []
    if state.simplified:
        best = max(Level[str(f.initiative)] for f in foes)
        simple = art.simplified_initiative([(str(p.id), Level[str(p.initiative)]) for p in players], best)
        state.initiative = {"simple": [None if s is None else int(s) for s in simple]}
        notes.append(
            msg("simplified initiative: the highest roller starts, then clockwise; the foes act at the narrator's seat")
        )
    else:
        notes += _settle_ties(state, dice)
        ranked = sorted(players, key=lambda p: (-Level[str(p.initiative)], _tie_key(p)))
        table = art.initiative_order(
            [(str(p.id), Level[str(p.initiative)]) for p in ranked],
            [(str(f.id), Level[str(f.initiative)]) for f in foes],
        )
        state.initiative = {key: [int(n) for n in getattr(table, key)] for key in ("bonus", "first", "later")}
        lost = [name_of(state, int(n)) for n in table.later if n not in table.first]
        if table.bonus:
            notes.append(msg("bonus round: {names}", names=", ".join(name_of(state, int(n)) for n in table.bonus)))
        if lost:
            notes.append(msg("lose their first turn: {names}", names=", ".join(lost)))
    # by the players' highest roll (foes do not roll, and their Alertness stays the narrator's)
    highest = max(Level[str(p.initiative)] for p in players)
    notes.append(wording.encounter_range(n=art.encounter_range(highest)))
    state.phase = "rounds"
    notes += start_round(state, 0)
    return notes


class InitiativeParams(CombatRoll):
    pass


def resolve_initiative(
    sheet: ArtSheet, params: InitiativeParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """A player rolls their adventurer's initiative: Alertness, no difficulty (every result is a degree)."""
    state = copy_state(ctx)
    if state.phase != "initiative":
        raise ActionError(_("Initiative is settled: the rounds are under way."), field="move")
    me = fighter(state, ctx.character_id)
    if me.side != "adventurer":
        raise ActionError(_("Foes do not roll: they use their Alertness."), field="move")
    if me.initiative:
        raise ActionError(_("{name} has rolled initiative already.").format(name=me.name), field="move")
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Alertness (initiative)"),
        attribute="ALE",
        difficulty=Level.CT,
        degree_only=True,
    )
    me.initiative = r.result.name
    remember(sheet, ctx, "combat_initiative", r)
    parts: list[Summary] = [msg("{name} rolls initiative: {roll}", name=me.name, roll=r.text)]
    waiting = [f.name for f in state.fighters if f.side == "adventurer" and not f.initiative]
    if waiting:
        parts.append(msg("waiting for {names}", names=", ".join(waiting)))
    else:
        parts += settle_initiative(state, dice)
    summary = join(parts, "; ")
    return done(state, params, summary, outcome=outcome(r, concealed=False), sheet=sheet)


def initiative_odds(sheet: ArtSheet, params: InitiativeParams, ctx: Context[ArtSheet]) -> Odds:
    """The chance of a bonus round (Super or better)."""
    return odds_for(
        sheet,
        params.model_copy(update={"shown_difficulty": "SP"}),
        ctx,
        attribute="ALE",
        label=N_("Chance of a bonus round (Super or better):"),
    )


# --- waiting, ending a turn, multi-action ------------------------------------------------------------------


class WaitParams(StepParams):
    after: int


def resolve_wait(sheet: ArtSheet, params: WaitParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Wait to act right after someone still to act, before anyone already waiting; once a round (ruling 15)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if turn_now(state).action or turn_now(state).move or turn_now(state).turns > 1:
        raise ActionError(_("Waiting is announced at the start of your turn, before you act."), field="after")
    order = [str(i) for i in state.order]
    try:
        new = art.wait(order, [str(i) for i in state.waited], str(params.after))
    except art.ArtRuleError as exc:
        targets = art.wait_targets(order, [str(i) for i in state.waited])
        if not targets:
            raise ActionError(_("{name} cannot wait (again): act now.").format(name=me.name), field="after") from exc
        raise ActionError(
            _("Wait to act after one of: {names}.").format(names=", ".join(name_of(state, int(t)) for t in targets)),
            field="after",
        ) from exc
    state.order = [int(n) for n in new]
    state.waited = [*state.waited, me.id]
    begin_turn(state)
    summary = msg("{name} waits, to act after {other}", name=me.name, other=name_of(state, params.after))
    return done(state, params, summary)


class EndTurnParams(StepParams):
    again: bool = False  # multi-action: spend Fame for another turn at once


def resolve_end_turn(
    sheet: ArtSheet, params: EndTurnParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """End the turn; or, for an adventurer, spend 1 Fame for a second turn at once and 2 more for a third."""
    state = copy_state(ctx)
    me = require_turn(state, ctx, free=True)
    if not params.again:
        notes = end_turn(state)
        nxt = on_turn(state)
        parts = [msg("{name} ends the turn", name=me.name), *notes]
        if nxt is not None:
            parts.append(msg("{name}'s turn", name=name_of(state, nxt)))
        return done(state, params, join(parts, "; "))
    if me.side != "adventurer":
        raise ActionError(_("Only adventurers spend Fame for another turn."), field="again")
    turns = turn_now(state).turns
    try:
        cost = art.multi_action_fame(turns + 1) - art.multi_action_fame(turns)
    except art.ArtRuleError as exc:
        raise ActionError(_("Three turns in a row is the most."), field="again") from exc
    if fame_left(sheet) < cost:
        raise ActionError(
            _("Another turn costs {cost} Fame; you have {left} left.").format(cost=cost, left=fame_left(sheet)),
            field="again",
        )
    sheet.fame_spent += cost
    state.turn = turn_now(state).model_copy(
        update={"turns": turns + 1, "action": False, "move": None, "free_used": False}
    )
    summary = msg("{name} spends {cost} Fame to take turn {n} in a row", name=me.name, cost=cost, n=turns + 1)
    return done(state, params, summary, outcome={"fame_spent": cost}, sheet=sheet)


# --- free actions (automatically successful actions tried as free actions) ---------------------------------

FREE_ACTIONS = {
    "draw": ("DEX", N_("Draw a weapon or ready a shield")),
    "stand": ("AGI", N_("Stand up")),
    "door": ("STR", N_("Open a door")),
}


class FreeActionParams(CombatRoll):
    what: Literal["draw", "stand", "door"] = "stand"
    item: int = Field(default=-1, ge=-1, le=40)


def resolve_free_action(
    sheet: ArtSheet, params: FreeActionParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """An Inferior roll: success does it as a free action; Feeble does it but ends the turn; Pathetic or
    Catastrophic fails and ends the turn."""
    state = copy_state(ctx)
    me = require_turn(state, ctx, free=True)
    code, what = FREE_ACTIONS[params.what]
    label = msg("{what} as a free action", what=msg(what))
    if params.what == "stand" and not me.prone:
        raise ActionError(_("{name} is not lying down.").format(name=me.name), field="what")
    if params.what == "draw":
        if not 0 <= params.item < len(sheet.gear) or sheet.gear[params.item].slot == "ready":
            raise ActionError(_("Choose an item at hand or stowed to draw."), field="item")
        trial = [i.model_copy() for i in sheet.gear]
        trial[params.item].slot = "ready"
        check_slots(trial)
        label = msg("Draw {name} as a free action", name=sheet.gear[params.item].name)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=label,
        attribute=code,
        difficulty=FREE_ACTION_DIFFICULTY,
        columns=difficulty_shift(me),
    )
    attempt = art.free_action_attempt(r.result)
    if attempt.done and params.what == "draw":
        sheet.gear[params.item].slot = "ready"
    if attempt.done and params.what == "stand":
        me.prone = False
    notes: list[Summary] = []
    if attempt.turn_ends:
        text = msg("done, and the turn ends") if attempt.done else msg("not done, and the turn ends")
        notes = end_turn(state)
    else:
        text = msg("done") if attempt.done else msg("not done")
    remember(sheet, ctx, "combat_free_action", r)
    summary = join([msg("{name}: {roll}", name=me.name, roll=r.text), text, *notes], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "done": attempt.done, "turn_ends": attempt.turn_ends},
        sheet=sheet,
    )


def free_action_odds(sheet: ArtSheet, params: FreeActionParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(
        sheet,
        params.model_copy(update={"shown_difficulty": FREE_ACTION_DIFFICULTY.name}),
        ctx,
        attribute=FREE_ACTIONS[params.what][0],
        columns=shift_now(ctx),
    )


# --- the narrator's tools ------------------------------------------------------------------------------------


class PlaceParams(StepParams):
    target: int
    band: int = Field(ge=0, lt=MAX_BANDS)


def resolve_place(sheet: ArtSheet, params: PlaceParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """The narrator puts a token on a band (the start positions, a fall, a push): no roll."""
    state = copy_state(ctx)
    target = fighter(state, params.target)
    if params.band >= state.bands:
        raise ActionError(_("The track has bands 0 to {last}.").format(last=state.bands - 1), field="band")
    target.band = params.band
    return done(state, params, msg("The narrator places {name} in band {band}", name=target.name, band=params.band))


class EndCombatParams(StepParams):
    pass


def resolve_end_combat(
    sheet: ArtSheet, params: EndCombatParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    state = copy_state(ctx)
    state.phase, state.order, state.turn, state.pending = "over", [], None, None
    standing = ", ".join(f.name for f in living(state, "foe"))
    text = (
        msg("The combat ends ({names} still standing)", names=standing)
        if standing
        else msg("The combat ends (every foe is defeated)")
    )
    return done(state, params, text)


class InitiativeSettingParams(BaseModel):
    simplified: bool = False


def resolve_initiative_setting(
    sheet: ArtSheet, params: InitiativeSettingParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The simplified initiative (ch. 5) as a campaign setting, for combats set up from now on."""
    text = (
        msg("Combats use the simplified initiative (highest roller, then clockwise)")
        if params.simplified
        else msg("Combats use the full initiative order")
    )
    return Resolution(
        request=params.model_dump(),
        outcome={},
        summary=text,
        settings={**ctx.campaign_settings, "simplified_initiative": params.simplified},
    )
