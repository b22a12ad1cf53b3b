"""Kicker-triggered perks applied in a combat, where the text gives a number: Combat Tactics (+2 on all attacks
next round), Strategic Positioning (+2 on the first attack of the next turn), Defensive Maneuver (+2 Defense
until the start of the next turn), and the free attacks of Flurry, Advanced Flurry, Riposte, Advanced Riposte
and Counterstrike. A kicker fires at most one beneficial effect: when several apply the player chooses one
(combat_perk_choose); one alone is applied at once. A perk whose requirement the sheet does not meet is named
in the log and not applied.

The state: each fighter's `perk_bonuses` ([{perk, on: attack|defense, amount, until: round|first_attack|
turn_start, round}]), `perk_choice` ({options, target}) and `free_attack` ({perk, target}).

art-engine.md, ch. 1 "Kicker Die"; ch. 6 "Perks".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import Field

from app.i18n import Text, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import core
from ..sheet import ArtSheet
from .models import CombatState, Fighter
from .roll import StepParams
from .state import acted_this_round, combat_in, copy_state, done, fighter, name_of, on_turn

BONUS = 2
FREE_ATTACKS = ("Flurry", "Advanced Flurry", "Riposte", "Advanced Riposte", "Counterstrike")
NUMBERED = ("Combat Tactics", "Strategic Positioning", "Defensive Maneuver", *FREE_ATTACKS)


# --- bonuses and their expiry -----------------------------------------------------------------------------


def _next_turn_round(state: CombatState, f: Fighter) -> int:
    """The round of this fighter's next turn: this one if it is still to act in it, else the next."""
    rnd = int(state.round or 0)
    waiting = f.id in (state.order or []) and f.id != on_turn(state)
    return rnd if waiting and not acted_this_round(state, f.id) else rnd + 1


def _live(state: CombatState, f: Fighter, b: Mapping[str, Any]) -> bool:
    """Is the bonus still running (it may not apply yet)?"""
    rnd = int(state.round or 0)
    if rnd > b["round"]:
        return False
    if b["until"] in ("first_attack", "turn_start") and rnd == b["round"]:
        started = f.id == on_turn(state) or f.acted_round == rnd
        if b["until"] == "turn_start":
            return not started
        return f.acted_round != rnd
    return True


def _applies(state: CombatState, f: Fighter, b: Mapping[str, Any]) -> bool:
    """Does the bonus count on a roll now? Combat Tactics in its round; Strategic Positioning on the fighter's
    own turn in its round; Defensive Maneuver until the start of that turn."""
    if not _live(state, f, b):
        return False
    if b["until"] == "round":
        return bool(int(state.round or 0) == b["round"])
    if b["until"] == "first_attack":
        return int(state.round or 0) == b["round"] and f.id == on_turn(state)
    return True


def prune(state: CombatState, f: Fighter) -> None:
    f.perk_bonuses = [b for b in f.perk_bonuses or [] if _live(state, f, b)]


def bonus(state: CombatState, f: Fighter, on: str, *, use: bool = False) -> tuple[int, list[str]]:
    """The perk bonus on this fighter's `on` ("attack"/"defense") roll now, and the perks giving it. `use`
    spends a first-attack bonus (Strategic Positioning) and drops expired ones."""
    found = [b for b in f.perk_bonuses or [] if b["on"] == on and _applies(state, f, b)]
    if use:
        prune(state, f)
        f.perk_bonuses = [b for b in f.perk_bonuses if not (b in found and b["until"] == "first_attack")]
    return sum(int(b["amount"]) for b in found), [str(b["perk"]) for b in found]


def bonus_in_state(ctx: Context[ArtSheet], fid: int | None, on: str) -> int:
    """For the odds on a button: the bonus this character has now (0 outside a combat)."""
    state = combat_in(ctx)
    if state is None or fid is None:
        return 0
    f = next((x for x in state.fighters if x.id == fid), None)
    return bonus(state, f.model_copy(deep=True), on)[0] if f else 0


def attack_extra(ctx: Context[ArtSheet], target: int | None) -> int:
    """For the odds on the attack button: everything the next attack gets from the state -- a perk's bonus,
    aiming, fighting a foe in a grapple (the same as resolve_attack adds)."""
    state = combat_in(ctx)
    me = next((x for x in state.fighters if x.id == ctx.character_id), None) if state else None
    if state is None or me is None:
        return 0
    extra = bonus(state, me.model_copy(deep=True), "attack")[0] + int(me.aim or 0)
    them = next((x for x in state.fighters if x.id == target), None)
    if me.grapple and them is not None and them.side == "foe":
        extra += art.GRAPPLE_ATTACK + int(me.grapple.get("bonus", 0))
    return extra


def noted(odds: Odds, extra: int) -> Odds:
    """The odds with the combat's bonus named when no chance can be shown (a foe's level is the narrator's):
    the player still sees that the bonus counts."""
    if not extra or odds.chance is not None:
        return odds
    if extra < 0:  # a grapple's -4, a failed grapple's -1 per failure
        return replace(odds, text=_("{text} ({n} on your roll from the combat)").format(text=odds.text, n=extra))
    return replace(odds, text=_("{text} (+{n} on your roll from the combat)").format(text=odds.text, n=extra))


def _grant(state: CombatState, f: Fighter, name: str, target: int | None) -> Text:
    rnd = int(state.round or 0)
    if name == "Combat Tactics":
        f.perk_bonuses = [
            *f.perk_bonuses,
            {"perk": name, "on": "attack", "amount": BONUS, "until": "round", "round": rnd + 1},
        ]
        return msg("{perk}: +{n} on all {name}'s attacks next round", perk=msg(name), n=BONUS, name=f.name)
    if name == "Strategic Positioning":
        f.perk_bonuses = [
            *f.perk_bonuses,
            {
                "perk": name,
                "on": "attack",
                "amount": BONUS,
                "until": "first_attack",
                "round": _next_turn_round(state, f),
            },
        ]
        return msg("{perk}: +{n} on {name}'s first attack next turn", perk=msg(name), n=BONUS, name=f.name)
    if name == "Defensive Maneuver":
        f.perk_bonuses = [
            *f.perk_bonuses,
            {
                "perk": name,
                "on": "defense",
                "amount": BONUS,
                "until": "turn_start",
                "round": _next_turn_round(state, f),
            },
        ]
        return msg(
            "{perk}: +{n} Defense for {name} until the start of their next turn",
            perk=msg(name),
            n=BONUS,
            name=f.name,
        )
    f.free_attack = {"perk": name, "target": target}
    return msg(
        "{perk}: {name} may make a free attack on {target}",
        perk=msg(name),
        name=f.name,
        target=name_of(state, target) if target is not None else "?",
    )


def fire(
    state: CombatState,
    f: Fighter,
    sheet: ArtSheet,
    perks: tuple[str, ...] | list[str],
    kicker: int | None,
    *,
    target: int | None,
) -> list[Text]:
    """The perks a kicker set off: each with an unmet requirement is named and skipped; one that is left is
    applied; several wait for the player's choice (one beneficial effect a kicker)."""
    notes: list[Text] = []
    usable: list[str] = []
    for name in perks:
        if name not in NUMBERED:
            continue
        unmet = art.unmet_requirements(name, {k: v or 0 for k, v in sheet.attributes.items()}, list(sheet.perks))
        if unmet:
            notes.append(
                msg(
                    "a kicker of {k} would fire {perk}, but it needs {needs}",
                    k=kicker,
                    perk=msg(name),
                    needs=core.unmet_text(unmet),
                )
            )
        elif name in FREE_ATTACKS and target is None:
            continue
        else:
            usable.append(name)
    if len(usable) == 1:
        notes.append(_grant(state, f, usable[0], target))
    elif usable:
        f.perk_choice = {"options": usable, "target": target}
        notes.append(
            msg(
                "a kicker of {k}: {name} chooses one of {perks}",
                k=kicker,
                name=f.name,
                perks=join([msg(p) for p in usable], " / "),
            )
        )
    return notes


def after_roll(
    state: CombatState, fid: int, sheet: ArtSheet, perks: tuple[str, ...], kicker: int | None, *, target: int | None
) -> list[Text]:
    """Hook for an attack, Defense or parry roll: `perks` are those core.roll_trait found for the roll."""
    f = fighter(state, fid)
    f.unset("perk_choice")
    return fire(state, f, sheet, perks, kicker, target=target)


# --- choosing one ------------------------------------------------------------------------------------------


class PerkChooseParams(StepParams):
    perk: str = Field(max_length=40)


def resolve_perk_choose(
    sheet: ArtSheet, params: PerkChooseParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The player picks the one beneficial effect their kicker gives."""
    state = copy_state(ctx)
    me = fighter(state, ctx.character_id)
    choice = me.perk_choice
    if not choice:
        raise ActionError(_("No perk is waiting for a choice."), field="perk")
    if params.perk not in choice["options"]:
        raise ActionError(
            _("Choose one of: {perks}.").format(perks=", ".join(_(p) for p in choice["options"])), field="perk"
        )
    me.unset("perk_choice")
    text = _grant(state, me, params.perk, choice.get("target"))
    summary = msg("{name} chooses {perk}; {text}", name=me.name, perk=msg(params.perk), text=text)
    return done(state, params, summary)
