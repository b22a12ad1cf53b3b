"""Fights as encounters (cat.txt, "Fighting Other Cats", "Fighting Non-Cats", "Dodging"; rulings 4-6).

Cat against cat: the challenger names his Trait (kept from the other side until the answer); the other
cat's player answers on their own screen with Fangs, Claws or a dodge (Legs); the server rolls both, in
that order, and both sides' scars wait on their sheets to be placed. Cat against a foe: rounds, each one
logged; before the next round both sides' scars must be placed (or dodged with a Life)."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from app.i18n import N_, _, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.cat import counts
from app.systems.cat.fights import CatFightState, FoeFightState, FoughtRound
from app.systems.cat.play import alive
from app.systems.cat.rules import fights
from app.systems.cat.sheet import TRAIT_WORDS, CatSheet, ScarBatch, Trait, trait_dice, trait_name

Weapon = Literal["claws", "fangs", "legs"]
F = TypeVar("F", CatFightState, FoeFightState)
WORDS = {"claws": msg(N_("Claws")), "fangs": msg(N_("Fangs")), "legs": msg(N_("a dodge (Legs)"))}


def _weapon_dice(cat: CatSheet, weapon: Trait, field: str = "weapon") -> int:
    n = trait_dice(cat, weapon)
    if n == 0:
        raise ActionError(
            _("{weapon} is Crippled (or has no dice): choose another.").format(weapon=trait_name(weapon)), field=field
        )
    return n


def _ready(cat: CatSheet, who: str, field: str) -> None:
    alive(cat, N_("fight"))
    if cat.pending:
        raise ActionError(_("{who} has scars to place first.").format(who=who), field=field)


def _side(ctx: Context[CatSheet], character_id: int | None) -> dict[str, Any]:
    assert ctx.encounter is not None
    participants: list[dict[str, Any]] = ctx.encounter["participants"]
    for part in participants:
        if part["character_id"] == character_id:
            return part
    raise ActionError(_("This character is not in this fight."), field="character_id")


def _state(ctx: Context[CatSheet], model: type[F]) -> F:
    """The fight's state to change: a copy of the kind's model the rules service validated."""
    assert ctx.encounter is not None
    state = ctx.encounter["state"]
    assert isinstance(state, model), "a fight's step is handed its kind's model"
    return state.model_copy(deep=True)


def _other(ctx: Context[CatSheet], character_id: int | None) -> dict[str, Any]:
    assert ctx.encounter is not None
    return next(p for p in ctx.encounter["participants"] if p["character_id"] != character_id)


# --- cat against cat ---------------------------------------------------------------------------------------


class Challenge(BaseModel):
    opponent_id: int
    weapon: Weapon = "fangs"


def resolve_challenge(sheet: CatSheet, p: Challenge, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    me, them = sheet, ctx.others[p.opponent_id]
    name = ctx.other_names[p.opponent_id]
    if me.foe or them.foe:
        raise ActionError(_("Cats fight cats here; the narrator starts fights with foes."), field="opponent_id")
    _ready(me, _("Your cat"), "weapon")
    _ready(them, name, "opponent_id")
    _weapon_dice(me, p.weapon)
    participants = [
        {"character_id": ctx.character_id, "side": "challenger", "name": ctx.character_name},
        {"character_id": p.opponent_id, "side": "defender", "name": name},
    ]
    return Resolution(
        request={"opponent_id": p.opponent_id},
        outcome={"opponent": name},
        summary=msg("challenges {name} to a fight (one scuffle for dominance)", name=name),
        encounter={
            "kind": "cat-fight",
            "title": f"{ctx.character_name} vs {name}",
            "participants": participants,
            "state": CatFightState(stage="answer", challenger_weapon=p.weapon),
        },
    )


class Answer(BaseModel):
    encounter_id: int
    version: int
    opponent_id: int
    weapon: Weapon


def resolve_answer(sheet: CatSheet, p: Answer, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    assert ctx.encounter is not None
    if ctx.encounter["kind"] != "cat-fight":
        raise ActionError(_("This is not a fight between cats."), field="encounter_id")
    if _side(ctx, ctx.character_id)["side"] != "defender":
        raise ActionError(_("The challenged cat answers the challenge."), field="character_id")
    challenger = _other(ctx, ctx.character_id)
    if challenger["character_id"] != p.opponent_id:
        raise ActionError(_("That is not the cat who challenged you."), field="opponent_id")
    state = _state(ctx, CatFightState)
    a, b = ctx.others[p.opponent_id], sheet
    _ready(b, _("Your cat"), "weapon")
    a_weapon = state.challenger_weapon
    a_pool, b_pool = _weapon_dice(a, a_weapon, "opponent_id"), _weapon_dice(b, p.weapon)
    r = fights.cat_fight(dice, a_pool, b_pool, a_dodges=a_weapon == "legs", b_dodges=p.weapon == "legs")
    a_name, b_name = challenger["name"], ctx.character_name
    new_a, new_b = a.model_copy(deep=True), b.model_copy(deep=True)
    if r.a_scars:
        new_a.pending.append(ScarBatch(scars=r.a_scars, source=msg("fight with {name}", name=b_name), fight=True))
    if r.b_scars:
        new_b.pending.append(ScarBatch(scars=r.b_scars, source=msg("fight with {name}", name=a_name), fight=True))
    winner = {"a": a_name, "b": b_name}.get(r.winner or "")
    summary = counts.scuffle_line(
        a=a_name,
        a_weapon=WORDS[a_weapon],
        a_evens=r.a_evens,
        b=b_name,
        b_weapon=WORDS[p.weapon],
        b_evens=r.b_evens,
        a_scars=r.a_scars,
        b_scars=r.b_scars,
        result=msg("{name} wins", name=winner) if winner else msg("nobody dominates"),
    )
    state.put(
        stage="done",
        defender_weapon=p.weapon,
        challenger_faces=list(r.a_faces),
        defender_faces=list(r.b_faces),
        challenger_evens=r.a_evens,
        defender_evens=r.b_evens,
        challenger_scars=r.a_scars,
        defender_scars=r.b_scars,
        winner=winner,
    )
    stored = state.stored()
    return Resolution(
        request=p.model_dump(),
        outcome={k: stored[k] for k in stored if k != "stage"},
        summary=summary,
        sheet=new_b,
        others={p.opponent_id: new_a},
        encounter={"state": state, "over": True},
    )


# --- cat against a foe -------------------------------------------------------------------------------------


class StartFoeFight(BaseModel):
    cat_id: int
    foe_trait: Literal["claws", "fangs"] = "fangs"


def resolve_start_foe_fight(
    sheet: CatSheet, p: StartFoeFight, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    foe, cat = sheet, ctx.others[p.cat_id]
    name = ctx.other_names[p.cat_id]
    if not foe.foe:
        raise ActionError(_("Start the fight from a foe (a narrator's foe sheet)."), field="character_id")
    if cat.foe:
        raise ActionError(_("Choose a cat to fight the foe."), field="cat_id")
    alive(foe, N_("fight"))
    _ready(cat, name, "cat_id")
    _weapon_dice(foe, p.foe_trait, "foe_trait")
    participants = [
        {"character_id": p.cat_id, "side": "cat", "name": name},
        {"character_id": ctx.character_id, "side": "foe", "name": ctx.character_name},
    ]
    return Resolution(
        request=p.model_dump(),
        outcome={"cat": name},
        summary=msg("attacks {name}: a fight for life, in rounds", name=name),
        encounter={
            "kind": "foe-fight",
            "title": f"{name} vs {ctx.character_name}",
            "participants": participants,
            "state": FoeFightState(round=0, foe_trait=p.foe_trait, rounds=[]),
        },
    )


class FoeRound(BaseModel):
    encounter_id: int
    version: int
    foe_id: int
    weapon: Weapon


def resolve_foe_round(sheet: CatSheet, p: FoeRound, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """Ruling 5: each round both roll; each takes scars equal to the other's evens; a dodging cat rolls Legs,
    each even cancelling one scar, and inflicts none."""
    assert ctx.encounter is not None
    if ctx.encounter["kind"] != "foe-fight" or _side(ctx, ctx.character_id)["side"] != "cat":
        raise ActionError(_("The cat's side rolls the round."), field="character_id")
    if _other(ctx, ctx.character_id)["character_id"] != p.foe_id:
        raise ActionError(_("That is not the foe in this fight."), field="foe_id")
    cat, foe = sheet, ctx.others[p.foe_id]
    foe_name = ctx.other_names[p.foe_id]
    _ready(cat, _("Your cat"), "weapon")
    _ready(foe, foe_name, "foe_id")
    state = _state(ctx, FoeFightState)
    cat_pool = _weapon_dice(cat, p.weapon)
    foe_pool = _weapon_dice(foe, state.foe_trait, "foe_id")
    r = fights.foe_round(dice, cat_pool, foe_pool, cat_dodges=p.weapon == "legs")
    new_cat, new_foe = cat.model_copy(deep=True), foe.model_copy(deep=True)
    n = state.round + 1
    if r.cat_scars:
        new_cat.pending.append(
            ScarBatch(scars=r.cat_scars, source=msg("round {n} against {name}", n=n, name=foe_name), fight=True)
        )
    if r.foe_scars:
        new_foe.pending.append(
            ScarBatch(
                scars=r.foe_scars, source=msg("round {n} against {name}", n=n, name=ctx.character_name), fight=True
            )
        )
    cancelled = msg(", {n} cancelled by the dodge", n=r.scars_cancelled) if r.cat_dodged else ""
    summary = counts.round_line(
        n=n,
        cat=ctx.character_name,
        weapon=WORDS[p.weapon],
        cat_evens=r.cat_evens,
        foe=foe_name,
        foe_trait=TRAIT_WORDS.get(state.foe_trait, state.foe_trait),
        foe_evens=r.foe_evens,
        cat_scars=r.cat_scars,
        cancelled=cancelled,
        foe_scars=r.foe_scars,
    )
    fought = FoughtRound(
        round=n,
        weapon=p.weapon,
        cat_faces=list(r.cat_faces),
        foe_faces=list(r.foe_faces),
        cat_scars=r.cat_scars,
        foe_scars=r.foe_scars,
        cancelled=r.scars_cancelled,
    )
    state.put(round=n, rounds=[*state.rounds, fought][-20:])
    return Resolution(
        request=p.model_dump(),
        outcome=fought.stored(),
        summary=summary,
        sheet=new_cat,
        others={p.foe_id: new_foe},
        encounter={"state": state},
    )


class EndFight(BaseModel):
    encounter_id: int
    version: int
    how: Literal["cat_wins", "foe_wins", "cat_flees", "foe_flees", "called_off"] = "called_off"


ENDINGS = {
    "cat_wins": N_("{cat} wins"),
    "foe_wins": N_("{foe} wins"),
    "cat_flees": N_("{cat} flees"),
    "foe_flees": N_("{foe} flees"),
    "called_off": N_("the fight is called off"),
}


def resolve_end_fight(sheet: CatSheet, p: EndFight, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """Ruling 5: a fight with a non-cat goes on until one side is beaten, flees or dies; either side may flee,
    only the narrator declares a winner. Also ends an unanswered cat challenge."""
    assert ctx.encounter is not None
    parts = {x["side"]: x["name"] for x in ctx.encounter["participants"]}
    if p.how in ("cat_wins", "foe_wins", "foe_flees") and not ctx.actor_is_narrator:
        raise ActionError(_("Only the narrator ends the fight that way; your cat may flee."), field="how")
    if ctx.encounter["kind"] == "cat-fight" and p.how != "called_off":
        raise ActionError(_("A challenge between cats can only be called off."), field="how")
    text = msg(ENDINGS[p.how], cat=parts.get("cat", ""), foe=parts.get("foe", ""))
    state = ctx.encounter["state"].model_copy(deep=True)
    assert isinstance(state, CatFightState | FoeFightState)  # the kinds' models (__init__.py)
    state.put(stage="done", ending=text)
    return Resolution(
        request=p.model_dump(),
        outcome={"ending": text},
        summary=msg("ends the fight: {ending}", ending=text),
        encounter={"state": state, "over": True},
    )
