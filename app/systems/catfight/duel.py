"""Duels as encounters: challenge, the moves, calling a duel off; the narrator's regeneration setting and heal.

Health lives in the duel's state while the cats fight and is copied to both cats' sheets on every step
(Resolution.sheet for the cat that moved, Resolution.others for its opponent), so a sheet always shows the
health its cat has now.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.i18n import N_, Text, msg, msgn, retire, rule_message
from app.i18n import gettext as _
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.catfight import rules as catfight
from app.systems.catfight.log import describe
from app.systems.catfight.models import DuelState
from app.systems.catfight.rest import health_now
from app.systems.catfight.rules import duel as moves
from app.systems.catfight.rules import odds
from app.systems.catfight.sheet import STATS, CatSheet, dump, stat_label

# --- rule errors in the reader's language ---


def rule_text(exc: catfight.CatfightError) -> str:
    """A duel rule error in the reader's language, with the move and value names in it translated too
    (app.i18n.rule_message translates the template only)."""
    values = dict(exc.values)
    if isinstance(exc, catfight.IllegalMove | catfight.RollBudgetError) and exc.move in catfight.MOVE_NAMES:
        values["move"] = _(catfight.MOVE_NAMES[exc.move])
    if isinstance(exc, catfight.IllegalMove) and exc.legal:
        values["allowed"] = ", ".join(_(catfight.move_name(m)) for m in catfight.moves_in_order(exc.legal))
    if isinstance(exc, catfight.CatStatsError) and exc.field in STATS and "name" in values:
        values["name"] = stat_label(exc.field)
    try:
        return _(exc.template).format(**values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return rule_message(exc)


# --- the duel's state as the pages need it ---


def _fraction(chance: Fraction) -> dict[str, Any]:
    return {"num": chance.numerator, "den": chance.denominator, "percent": round(float(chance) * 100, 1)}


def chances(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """Before the defender rolls: the exact chance of a DEFEND and of a JUMP (shown on the buttons)."""
    if state.get("over") or state.get("phase") != "respond":
        return None
    attacker = state["attacker"]
    defender = "b" if attacker == "a" else "a"
    return {
        "attack": state["pending_attack"],
        "defend": _fraction(odds.exact_defend_chance(state[defender]["defend"], state["pending_attack"])),
        "jump": _fraction(odds.exact_jump_chance(state[defender]["jump"], state[attacker]["jump"])),
    }


def with_view(state: dict[str, Any]) -> dict[str, Any]:
    """The state plus what the duel page shows: whose move, the legal moves, the defender's chances."""
    state["to_move"] = moves.to_move(state)
    state["legal"] = sorted(moves.legal_moves(state))
    state["chances"] = chances(state)
    return state


def _side_of(encounter: Mapping[str, Any], character_id: int | None) -> str | None:
    return next((p["side"] for p in encounter["participants"] if p["character_id"] == character_id), None)


def _names(encounter: Mapping[str, Any]) -> dict[str, str]:
    return {p["side"]: p["name"] for p in encounter["participants"]}


def _after_duel(sheet: CatSheet, state: Mapping[str, Any], side: str, now: float) -> CatSheet:
    """A cat's sheet after a step: its duel health; out of the duel when it ends, resting if it escaped."""
    changes: dict[str, Any] = {"health": state[side]["health"], "fighting": not state["over"]}
    if state["over"]:
        changes["escaped_at"] = now if state.get("escaped") == side else None
    return sheet.model_copy(update=changes)


RECENT_MAX = 40  # steps a duel page lists; a duel rarely has more (the log has them all)
RECENT_OPENING = 2  # the challenge and who starts: kept even in a very long duel


def _recent(state: Mapping[str, Any], text: Text) -> list[dict[str, Any]]:
    """The duel's steps in words (read in the reader's language), newest first, for the duel page's "What happened":
    from the challenge on. Bounded: past RECENT_MAX steps the opening ones stay and the oldest others go."""
    steps = [{"round": state["round"], "text": text}] + list(state.get("recent", []))
    if len(steps) > RECENT_MAX:
        steps = steps[: RECENT_MAX - RECENT_OPENING] + steps[-RECENT_OPENING:]
    return steps


# --- actions ---


class ChallengeParams(BaseModel):
    opponent_id: int = Field(title=N_("Opponent"))


class MoveParams(BaseModel):
    encounter_id: int
    version: int
    move: Literal["begin", "sneak", "attack", "defend", "jump", "flee"]


class CallOffParams(BaseModel):
    encounter_id: int
    version: int


class SettingsParams(BaseModel):
    regen_minutes: int = Field(ge=1, le=1440, title=N_("Minutes per health point"))


class HealParams(BaseModel):
    pass


def _fit_to_fight(sheet: CatSheet, name: str, field: str, ctx: Context[CatSheet]) -> CatSheet:
    if sheet.fighting:
        raise ActionError(_("%(name)s is already in a duel.") % {"name": name}, field=field)
    health = health_now(dump(sheet), ctx.campaign_settings, ctx.now)
    if health < 1:
        raise ActionError(
            _("%(name)s is knocked out and cannot fight until a narrator heals it.") % {"name": name}, field=field
        )
    return sheet.model_copy(update={"health": health, "escaped_at": None, "fighting": True})


def resolve_challenge(
    sheet: CatSheet, params: ChallengeParams, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    """A duel of two cats (several cats: a brawl is a series of such duels, ruling 13). Health comes back
    regenerated (ruling 11); the duel starts with the BEGINNING roll."""
    name_a, name_b = ctx.character_name or "?", ctx.other_names[params.opponent_id]
    mine = _fit_to_fight(sheet, name_a, "character_id", ctx)
    theirs = _fit_to_fight(ctx.others[params.opponent_id], name_b, "opponent_id", ctx)
    try:
        state = moves.start_duel(
            {"name": name_a, **{s: getattr(mine, s) for s in STATS}, "health": mine.health},
            {"name": name_b, **{s: getattr(theirs, s) for s in STATS}, "health": theirs.health},
        )
    except catfight.CatfightError as exc:
        raise ActionError(rule_text(exc), field="opponent_id") from exc
    text = msg("%(a)s challenges %(b)s to a duel.", a=name_a, b=name_b)
    state["recent"] = [{"round": 0, "text": text}]
    with_view(state)
    participants = [
        {"character_id": ctx.character_id, "side": "a", "name": name_a},
        {"character_id": params.opponent_id, "side": "b", "name": name_b},
    ]
    return Resolution(
        request={"opponent_id": params.opponent_id},
        outcome={"health": {"a": mine.health, "b": theirs.health}},
        summary=text,
        sheet=mine,
        others={params.opponent_id: theirs},
        encounter={
            "kind": "duel",
            "title": f"{name_a} vs {name_b}",
            "participants": participants,
            "state": DuelState.model_validate(state),
            "over": False,
        },
    )


def duel_of(ctx: Context[CatSheet]) -> dict[str, Any]:
    """The duel's state to play a move on: the JSON of the "duel" kind's model (the pure rules work on JSON)."""
    encounter = ctx.encounter
    assert encounter is not None
    state = encounter["state"]
    assert isinstance(state, DuelState), "a duel step is handed the duel's model"
    return state.stored()


def resolve_move(sheet: CatSheet, params: MoveParams, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """One move of the duel for the cat whose move it is (catfight.to_move)."""
    encounter = ctx.encounter
    assert encounter is not None
    state = duel_of(ctx)
    side = _side_of(encounter, ctx.character_id)
    names = _names(encounter)
    if side is None:
        raise ActionError(_("That cat is not in this duel."), field="character_id")
    legal = moves.legal_moves(state)
    if params.move not in legal:  # the duel moved on meanwhile (or is over): say what is possible now
        raise ActionError(rule_text(catfight.IllegalMove(params.move, legal)), field="move")
    turn = moves.to_move(state)
    assert turn is not None  # only once the duel is over, and then no move is legal
    if turn != side:
        raise ActionError(
            _("It is %(name)s's move, not %(other)s's.") % {"name": names[turn], "other": names[side]}, field="move"
        )
    try:
        new, events = moves.step(state, params.move, dice)
    except catfight.CatfightError as exc:
        raise ActionError(rule_text(exc), field="move") from exc
    text = describe(events, names)
    new["recent"] = _recent(new, text)
    with_view(new)
    others: dict[int, CatSheet] = {}
    for p in encounter["participants"]:
        if p["side"] != side and p["character_id"] in ctx.others:
            others[p["character_id"]] = _after_duel(ctx.others[p["character_id"]], new, p["side"], ctx.now)
    return Resolution(
        request={"move": params.move, "version": params.version},
        outcome={
            "move": params.move,
            "events": events,
            "over": new["over"],
            "result": new["outcome"],
            "winner": new["winner"],
            "escaped": new["escaped"],
            "health": {"a": new["a"]["health"], "b": new["b"]["health"]},
        },
        summary=text,
        sheet=_after_duel(sheet, new, side, ctx.now),
        others=others,
        encounter={"state": DuelState.model_validate(new), "over": new["over"]},
    )


def resolve_call_off(
    sheet: CatSheet, params: CallOffParams, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    """The narrator ends a duel without a result (players gone, a mistake): both cats keep their health."""
    encounter = ctx.encounter
    assert encounter is not None
    state = duel_of(ctx)
    state.update(over=True, phase="over", attacker=None, pending_attack=None, outcome="called_off")
    names = _names(encounter)
    text = msg("The duel %(a)s vs %(b)s is called off.", a=names["a"], b=names["b"])
    state["recent"] = _recent(state, text)
    with_view(state)
    others = {
        p["character_id"]: ctx.others[p["character_id"]].model_copy(update={"fighting": False})
        for p in encounter["participants"]
        if p["character_id"] in ctx.others
    }
    return Resolution(
        request={"version": params.version},
        outcome={},
        summary=text,
        others=others,
        encounter={"state": DuelState.model_validate(state), "over": True},
    )


def resolve_settings(
    sheet: CatSheet, params: SettingsParams, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    """REGENERATION: the narrator sets how many real minutes an escaped cat needs per health point."""
    text = _regen_every(params.regen_minutes)
    return Resolution(
        request={"regen_minutes": params.regen_minutes},
        outcome={},
        summary=text,
        settings={**ctx.campaign_settings, "regen_minutes": params.regen_minutes},
    )


def resolve_heal(sheet: CatSheet, params: HealParams, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """The narrator brings a cat back to full health (a knocked-out cat wakes up; OTHER RULES)."""
    if sheet.fighting:
        raise ActionError(_("%(name)s is in a duel; heal it afterwards.") % {"name": ctx.character_name}, field="heal")
    text = msg("%(name)s is back to full health.", name=ctx.character_name)
    return Resolution(
        request={},
        outcome={},
        summary=text,
        sheet=sheet.model_copy(update={"health": catfight.MAX_HEALTH, "escaped_at": None}),
    )


def _regen_every(n: int) -> Text:
    return msgn(
        "Escaped cats now regain 1 health every %(n)d minute.",
        "Escaped cats now regain 1 health every %(n)d minutes.",
        n,
    )


# Entries logged before the count had plural forms.
retire("Escaped cats now regain 1 health every %(n)d minutes.", lambda a: _regen_every(a["n"]))
