"""Combat rounds as an encounter: the state, the narrator's set-up, what each viewer reads of it, and the
turn machinery (rounds, whose turn, staggered and defeated characters). The actions are in the other modules of
this package (its __init__ lists them).

art-engine.md, ch. 5 "Combat Rounds"; RULINGS.md, ART Engine 11-33. The pure rules are app/rules/art.

The state (JSON): `phase` ("initiative", "rounds", "over"), `bands` (the range track's length),
`features` ([{band, kind: exit|rough|hazard, label}]), `fighters` ([{id, name, side: adventurer|foe,
band, count, initiative, out, skip, prone, dodge, penalty, next, now, grapple, acted_round}]),
`initiative` ({bonus, first, later} of ids, or {simple: [...]} ), `round`, `order` (who still acts this
round; order[0] is on turn), `waited`, `turn` ({id, turns, action, move}), `pending` (a reaction the game
waits for: a Defense roll, a parry offer, a fumble roll, an AOE), `recent` (the last steps in words, with no
foe level in them). Foe levels live only on the foes' sheets and in `initiative` entries of foes; the view
for players takes those out (encounter_view). The steps read and change it as the typed CombatState
(models.py), which the rules service validates from the JSON and stores back in the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from app.i18n import Summary, _, join, msg, render
from app.systems.art import rules as art
from app.systems.base import ActionError, Context, EncounterViewer, Resolution

from ..sheet import ArtSheet, level_word, table_of
from .models import CombatState, Fighter, Turn

MAX_BANDS = 20
RECENT = 10


# --- reading the state -----------------------------------------------------------------------------------


def fighter(state: CombatState, fid: int | None) -> Fighter:
    for f in state.fighters:
        if f.id == fid:
            return f
    raise ActionError(_("That character is not in this combat."), field="character_id")


def name_of(state: CombatState, fid: int) -> str:
    return str(fighter(state, fid).name)


def living(state: CombatState, side: str | None = None) -> list[Fighter]:
    return [f for f in state.fighters if not f.out and (side is None or f.side == side)]


def in_band(state: CombatState, band: int, side: str | None = None) -> list[Fighter]:
    return [f for f in living(state, side) if f.band == band]


def rough(state: CombatState, band: int) -> bool:
    return any(x.kind == "rough" and x.band == band for x in state.features)


def turn_now(state: CombatState) -> Turn:
    """The turn under way (a step that needs one is refused by require_turn before it gets here)."""
    if state.turn is None:
        raise ActionError(_("The rounds have not begun: initiative first."), field="move")
    return state.turn


def combat_in(ctx: Context[ArtSheet]) -> CombatState | None:
    """For the odds on a button: the combat the step belongs to, or None outside a combat."""
    enc = ctx.encounter or {}
    return ctx_state(ctx) if enc.get("kind") == "combat" and enc.get("state") else None


def on_turn(state: CombatState) -> int | None:
    order = state.order
    return order[0] if state.phase == "rounds" and order else None


def fate_rolls(
    ctx: Context[ArtSheet], people: list[Fighter], dice: Any, own: ArtSheet | None = None
) -> list[tuple[str, art.Level]]:
    """Fate for each character named (adventurers roll their Fate attribute, logged with the step; foes use
    their rating). `own` is the acting character's sheet (not among ctx.others)."""
    table = table_of(ctx.campaign_settings)
    sheets = {**ctx.others, **({ctx.character_id: own} if own is not None and ctx.character_id else {})}
    out = []
    for f in people:
        if f.id not in sheets:
            continue
        sheet = sheets[f.id]
        if sheet.kind == "foe":
            out.append((str(f.id), art.Level[sheet.levels.get("FAT", "CT")]))
        else:
            trait = art.trait_total(sheet.attributes.get("FAT") or 1, [], -sheet.fatigue)
            out.append((str(f.id), art.trait_roll(dice, trait, art.Level.CT, table=table).result))
    return out


def fate_list(state: CombatState, fates: list[tuple[Any, art.Level]]) -> Summary:
    """The Fate rolls made to see who is hit, for the log: "Ann Good, Bo Poor, Goblin (rating)". An adventurer's
    roll is shown; a foe's Fate is its rating, the narrator's secret, so only its name is."""
    words = []
    for n, lv in fates:
        f = fighter(state, int(n))
        words.append(
            msg("{name} (rating)", name=f.name)
            if f.side == "foe"
            else msg("{name} {level}", name=f.name, level=level_word(lv))
        )
    return join(words)


def combat_state(state: Mapping[str, Any]) -> CombatState:
    """The stored (or shown) JSON as the model, for a page's helpers (a step is handed the model: ctx_state)."""
    return CombatState.model_validate(dict(state))


def ctx_state(ctx: Context[ArtSheet]) -> CombatState:
    """The combat's state as the rules service hands it to a step or the odds (the "combat" kind's model)."""
    assert ctx.encounter is not None
    state = ctx.encounter["state"]
    assert isinstance(state, CombatState), "a combat step is handed the combat's model"
    return state


def copy_state(ctx: Context[ArtSheet]) -> CombatState:
    """The combat's state to change (a combat step on another kind of encounter is refused)."""
    assert ctx.encounter is not None
    if ctx.encounter.get("kind") != "combat":
        raise ActionError(_("That is not a combat."), field="move")
    return ctx_state(ctx).model_copy(deep=True)


def say(state: CombatState, text: Summary) -> Summary:
    """A step in words on the encounter page (newest first; language-neutral, shown with `| tr`). Never a foe's
    level: everyone reads it."""
    number = state.round if state.phase == "rounds" else None
    state.recent = [{"round": number, "text": text}, *state.recent][:RECENT]
    return text


def done(
    state: CombatState,
    params: BaseModel,
    summary: Summary,
    *,
    outcome: dict[str, Any] | None = None,
    sheet: ArtSheet | None = None,
    others: Mapping[int, ArtSheet] | None = None,
) -> Resolution[ArtSheet]:
    """A step's Resolution: the log line (also the newest line on the page), the new state."""
    say(state, summary)
    request = params.model_dump(exclude={"shown_difficulty", "origin"})
    return Resolution(
        request=request,
        outcome={**(outcome or {}), "round": state.round},
        summary=summary,
        sheet=sheet,
        others=dict(others or {}),
        encounter={"state": state, "over": state.phase == "over"},
    )


# --- what a viewer reads ---------------------------------------------------------------------------------


def encounter_view(state: CombatState, viewer: EncounterViewer) -> dict[str, Any]:
    """Narrators read everything; players read the track, the order and the steps, never a foe's level (its
    Alertness used as initiative, the Attack a pending Defense roll is against)."""
    shown = state.stored()  # a fresh copy
    if viewer.is_narrator:
        return shown
    for f in shown.get("fighters", []):
        if f.get("side") == "foe":
            f["initiative"] = None
        f.pop("ruse", None)  # which foes a character playing dead fools: read from their levels
    pending = shown.get("pending")
    if isinstance(pending, dict):
        for key in pending.get("secret", ()):
            pending[key] = None
        pending.pop("secret", None)
    return shown


# --- rounds and turns ------------------------------------------------------------------------------------


def _names(ids: list[int]) -> list[str]:
    return [str(i) for i in ids]


def base_order(state: CombatState, round_number: int) -> list[int]:
    """Who acts in a round, in order, before staggered and defeated characters are taken out."""
    init = state.initiative or {}
    if "simple" in init:
        foes = [f.id for f in state.fighters if f.side == "foe"]
        out: list[int] = []
        for entry in init["simple"]:
            out.extend(foes if entry is None else [entry])
        return out if round_number >= 1 else []
    table = art.Initiative(
        bonus=tuple(_names(init["bonus"])), first=tuple(_names(init["first"])), later=tuple(_names(init["later"]))
    )
    return [int(n) for n in art.round_order(table, round_number)]


def start_round(state: CombatState, round_number: int) -> list[Summary]:
    """Begin a round (the bonus round is 0): staggered characters lose this turn, defeated ones are out. A
    round nobody can act in is passed over. Returns what happened, in words."""
    notes: list[Summary] = []
    for _i in range(4):
        order = []
        for fid in base_order(state, round_number):
            f = fighter(state, fid)
            if f.out:
                continue
            if f.skip:
                f.skip = False
                notes.append(msg("{name} is staggered and loses this turn", name=f.name))
                continue
            order.append(fid)
        state.round, state.order, state.waited = round_number, order, []
        if order:
            break
        round_number += 1
    begin_turn(state)
    return notes


def begin_turn(state: CombatState) -> None:
    fid = on_turn(state)
    state.turn = None
    if fid is None:
        return
    f = fighter(state, fid)
    f.dodge = None  # a dodge lasts until the start of your next turn
    f.unset("may_play_dead")  # playing dead is a reaction to being hit, until your next turn
    f.now, f.next = list(f.next), []
    state.turn = Turn(id=fid, turns=1, action=False, move=None, free_used=False)


def end_turn(state: CombatState) -> list[Summary]:
    """The turn-holder is done: the next in order, or the next round."""
    fid = on_turn(state)
    notes: list[Summary] = []
    if fid is None:
        return notes
    f = fighter(state, fid)
    f.acted_round, f.now = state.round, []
    if f.penalty:
        f.penalty["turns"] -= 1
        if f.penalty["turns"] <= 0:
            f.penalty = None
    state.order = list(state.order[1:])
    if state.order:
        begin_turn(state)
        return notes
    notes.append(msg("round {n} is over", n=state.round))
    notes += start_round(state, state.round + 1)
    return notes


def take_out_of_round(state: CombatState, fid: int) -> None:
    """A character loses its turn this round (staggered before it acted, parried, fell prone against an AOE)."""
    if fid == on_turn(state):
        return
    state.order = [i for i in state.order if i != fid]


def mark_outcome(state: CombatState, fid: int, record: Mapping[str, Any]) -> Summary:
    """Staggering and defeat on the track: a staggered character loses its next turn; a defeated one is out."""
    f = fighter(state, fid)
    if record.get("defeated"):
        f.out = True
        state.order = [i for i in state.order if i != fid or i == on_turn(state)]
        if not living(state, "foe"):
            return msg("every foe is defeated")
        if not living(state, "adventurer"):
            return msg("every adventurer is defeated")
        return ""
    if record.get("staggered"):
        if fid in state.order and fid != on_turn(state):
            state.order.remove(fid)
            return msg("{name} is staggered and loses this round's turn", name=f.name)
        f.skip = True
    return ""


def acted_this_round(state: CombatState, fid: int) -> bool:
    """Has this character taken its turn in the current round (no parry, no falling prone after that)."""
    f = fighter(state, fid)
    return f.acted_round == state.round or (fid == on_turn(state) and bool(turn_now(state).action))


def difficulty_shift(f: Fighter, *, defense: bool = False) -> int:
    """Columns added to a character's difficulties: a fumble's penalty, and on Defense a dodge's fall."""
    shift = (f.penalty or {}).get("columns", 0)
    if defense and f.dodge:
        shift += f.dodge.get("difficulty", 0)
    return int(shift)


def require_turn(state: CombatState, ctx: Context[ArtSheet], *, free: bool = False) -> Fighter:
    """The acting character must be the one whose turn it is (the server keeps the order), with nothing
    pending; its action must still be unused unless the step is free."""
    if state.phase != "rounds":
        raise ActionError(_("The rounds have not begun: initiative first."), field="move")
    fid = on_turn(state)
    if fid != ctx.character_id:
        who = name_of(state, fid) if fid is not None else "?"
        raise ActionError(_("It is {name}'s turn.").format(name=who), field="move")
    if state.pending:
        raise ActionError(_("First: {what}.").format(what=render(state.pending.get("label", ""))), field="move")
    if not free and turn_now(state).action:
        raise ActionError(
            _("You have used your action this turn: end your turn (or take another with Fame)."), field="move"
        )
    return fighter(state, fid)


def use_action(state: CombatState) -> None:
    turn_now(state).action = True
    f = fighter(state, turn_now(state).id)
    f.unset("playing_dead")  # acting ends the ruse
    f.unset("ruse")


def over(state: CombatState) -> bool:
    return not living(state, "foe") or not living(state, "adventurer")
