"""Reactions to a foe's attack beyond Defense and parrying: protecting a companion (jumping in front of them)
and playing dead once hit.

art-engine.md, ch. 5 "Protecting", "Playing Dead"; the pure rules art.protect and art.sees_through.
"""

from __future__ import annotations

from app.i18n import N_, _, join, msg, render
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.art.rules.maneuvers import PROTECT_AT
from app.systems.base import ActionError, Context, Odds, Resolution

from ..sheet import ArtSheet
from .models import CombatState, Fighter
from .roll import CombatRoll, odds_for, outcome, remember, roll, shift, shift_now
from .state import acted_this_round, copy_state, difficulty_shift, done, fighter, living, on_turn, take_out_of_round

# --- protecting a companion, playing dead ---------------------------------------------------------------------


def may_protect(state: CombatState, f: Fighter) -> bool:
    """ch. 5 "Protecting": a foe's attack has just been announced (its Defense roll is waiting), the companion
    attacked is in your band, and you have not acted this round -- you are still in its order, with a turn
    to forfeit. One try each per attack, and none once someone has jumped in."""
    pending = state.pending or {}
    if pending.get("kind") != "defense" or not pending.get("foe") or pending.get("protected") is not None:
        return False
    friend = fighter(state, pending["defender"])
    return (
        f.side == "adventurer"
        and not f.out
        and f.id != friend.id
        and f.band == friend.band
        and f.id in state.order
        and f.id != on_turn(state)
        and not acted_this_round(state, f.id)
        and f.id not in pending.get("protect_tried", [])
    )


class ProtectParams(CombatRoll):
    pass


def resolve_protect(sheet: ArtSheet, params: ProtectParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Jump in front of a companion a foe attacks: an Agility roll, Passable or better (art.protect) and the foe
    attacks you instead (your Defense roll). Tried or not, it forfeits your next action: this round's turn."""
    state = copy_state(ctx)
    me = fighter(state, ctx.character_id)
    if not may_protect(state, me):
        raise ActionError(
            _(
                "{name} cannot protect anyone now: only a companion in the same band, right after a foe's "
                "attack on them is announced, and before acting this round."
            ).format(name=me.name),
            field="move",
        )
    pending = state.pending or {}
    friend = fighter(state, pending["defender"])
    columns = difficulty_shift(me)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Agility (protect)"),
        attribute="AGI",
        difficulty=PROTECT_AT,
        columns=columns,
    )
    covered = art.protect(shift(r.result, -columns))  # a fumble's penalty raises the bar like any difficulty
    pending["protect_tried"] = [*pending.get("protect_tried", []), me.id]
    take_out_of_round(state, me.id)
    if covered:
        pending.update(defender=me.id, protected=friend.id, label=msg("{name} rolls Defense", name=me.name))
        text = msg("{name} jumps in front of {friend}: the attack is on {name} now", name=me.name, friend=friend.name)
    else:
        text = msg("{name} does not get in front of {friend}", name=me.name, friend=friend.name)
    remember(sheet, ctx, "combat_protect", r)
    summary = join(
        [
            msg("{name} tries to protect {friend}: {roll}", name=me.name, friend=friend.name, roll=r.text),
            text,
            msg("{name} forfeits this round's turn", name=me.name),
        ],
        "; ",
    )
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "protected": covered},
        sheet=sheet,
    )


def protect_odds(sheet: ArtSheet, params: ProtectParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(
        sheet,
        params.model_copy(update={"shown_difficulty": PROTECT_AT.name}),
        ctx,
        attribute="AGI",
        columns=shift_now(ctx),
        label=N_("Chance to get in front (Passable):"),
    )


class PlayDeadParams(CombatRoll):
    pass


def resolve_play_dead(
    sheet: ArtSheet, params: PlayDeadParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """ch. 5 "Playing Dead": hit, you pretend the wounds are fatal: a Cunning roll. A foe whose Intelligence or
    Alertness is greater than the roll sees through it (art.sees_through); the others leave you alone. Which
    foes are fooled is read from their levels, so only the narrator sees it (`ruse`, taken out of the players'
    view); the log says the roll. It is no action; acting ends the ruse."""
    state = copy_state(ctx)
    me = fighter(state, ctx.character_id)
    if state.phase != "rounds" or not me.may_play_dead or me.out:
        raise ActionError(_("{name} can play dead only right after being hit.").format(name=me.name), field="move")
    if state.pending:
        raise ActionError(_("First: {what}.").format(what=render(state.pending.get("label", ""))), field="move")
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Cunning (playing dead)"),
        attribute="CUN",
        difficulty=Level.CT,
        degree_only=True,
    )
    fooled: list[int] = []
    seen: list[int] = []
    for foe in living(state, "foe"):
        levels = ctx.others[foe.id].levels if foe.id in ctx.others else {}
        sees = art.sees_through(r.result, Level[levels.get("INT", "CT")], Level[levels.get("ALE", "CT")])
        (seen if sees else fooled).append(foe.id)
    me.unset("may_play_dead")
    me.playing_dead = True
    me.ruse = {"fooled": fooled, "seen": seen}
    remember(sheet, ctx, "combat_play_dead", r)
    summary = msg("{name} plays dead: {roll}; the narrator knows which foes are fooled", name=me.name, roll=r.text)
    return done(state, params, summary, outcome={**outcome(r, concealed=False)}, sheet=sheet)


def play_dead_odds(sheet: ArtSheet, params: PlayDeadParams, ctx: Context[ArtSheet]) -> Odds:
    """The narrator's page fills in the highest Intelligence or Alertness of the foes still fighting: the chance
    to fool them all. A player reads that the narrator knows the levels."""
    return odds_for(
        sheet,
        params,
        ctx,
        attribute="CUN",
        what=N_("the foes' Intelligence and Alertness"),
        label=N_("Chance to fool every foe:"),
    )
