"""Scars and what undoes them: placing the scars a failed test of fate left waiting, spending a Life to dodge them,
the narrator moving a scar, and which Trait heals first (cat.txt, "Scars", "Lives"; RULINGS.md, Cat, ruling 5).
Each function is a pure `resolve` for the rules service."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, join, msg, ngettext
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.cat import counts
from app.systems.cat import rules as rules
from app.systems.cat.play import alive
from app.systems.cat.sheet import (
    TRAIT_WORDS,
    CatSheet,
    Trait,
    is_dead,
    trait_dice,
    trait_name,
)


class PlaceScars(BaseModel):
    claws: int = Field(default=0, ge=0, le=100)
    coat: int = Field(default=0, ge=0, le=100)
    face: int = Field(default=0, ge=0, le=100)
    fangs: int = Field(default=0, ge=0, le=100)
    legs: int = Field(default=0, ge=0, le=100)
    tail: int = Field(default=0, ge=0, le=100)
    reason: str = Field(default="", max_length=300)


def _ranks_changed(before: CatSheet, after: CatSheet) -> list[Text]:
    return [
        counts.rank_change(trait=TRAIT_WORDS[t], before=trait_dice(before, t), after=trait_dice(after, t))
        for t in rules.TRAITS
        if trait_dice(before, t) != trait_dice(after, t)
    ]


def resolve_place_scars(sheet: CatSheet, p: PlaceScars, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """cat.txt, "Scars": the player puts the scars of the oldest waiting batch where they explain."""
    cat = sheet
    alive(cat, N_("place scars"))
    if not cat.pending:
        raise ActionError(_("There are no scars to place."), field="pending")
    if cat.foe and not ctx.actor_is_narrator:
        raise ActionError(_("Only the narrator places a foe's scars."), field="character_id")
    batch = cat.pending[0]
    placed = {t: getattr(p, t) for t in rules.TRAITS if getattr(p, t)}
    if sum(placed.values()) != batch.scars:
        raise ActionError(
            ngettext(
                "Place exactly {scars} scar; you placed {placed}.",
                "Place exactly {scars} scars; you placed {placed}.",
                batch.scars,
            ).format(scars=batch.scars, placed=sum(placed.values())),
            field="claws",
        )
    if not p.reason.strip():
        raise ActionError(
            _("Say why the scars go there (the narrator may move a scar without a good reason)."), field="reason"
        )
    new = cat.model_copy(deep=True)
    for t, n in placed.items():
        new.scars[t] += n
    new.pending = cat.pending[1:]
    where = join(msg("{n} on {trait}", n=n, trait=TRAIT_WORDS[t]) for t, n in placed.items())
    parts = [counts.places(scars=batch.scars, where=where, reason=p.reason.strip())]
    changed = _ranks_changed(cat, new)
    if changed:
        parts.append(msg("; {changed}", changed=join(changed)))
    if is_dead(new):
        parts.append(msg(". Four Traits are Crippled: the cat dies"))
    summary = join(parts, "")
    return Resolution(
        request=p.model_dump(),
        outcome={"placed": placed, "changed": changed, "dead": is_dead(new)},
        summary=summary,
        sheet=new,
    )


class DodgeWithLife(BaseModel):
    pass


def resolve_dodge_with_life(
    sheet: CatSheet, p: DodgeWithLife, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    """cat.txt, "Lives"; ruling 5: a Life dodges all scars of one round (the oldest batch waiting)."""
    cat = sheet
    alive(cat, N_("spend a Life"))
    if not cat.pending:
        raise ActionError(_("There are no scars to dodge."), field="pending")
    if cat.foe and not ctx.actor_is_narrator:
        raise ActionError(_("Only the narrator spends a foe's Lives."), field="character_id")
    batch = cat.pending[0]
    new = cat.model_copy(deep=True)
    new.pending = cat.pending[1:]
    new.lives -= 1
    summary = join(
        [
            counts.life_dodges(scars=batch.scars, source=batch.source, lives=new.lives),
            *([msg(". That was the last Life: the cat dies")] if new.lives == 0 else []),
        ],
        "",
    )
    return Resolution(request={}, outcome={"dodged": batch.scars, "lives": new.lives}, summary=summary, sheet=new)


class MoveScar(BaseModel):
    from_trait: Trait
    to_trait: Trait
    reason: str = Field(min_length=1, max_length=300)


def resolve_move_scar(sheet: CatSheet, p: MoveScar, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """cat.txt, "Scars": without a compelling reason the narrator says where the scar goes."""
    cat = sheet
    if p.from_trait == p.to_trait:
        raise ActionError(_("Choose another Trait to move the scar to."), field="to_trait")
    if cat.scars[p.from_trait] == 0:
        raise ActionError(
            _("{from_trait} has no scar to move.").format(from_trait=trait_name(p.from_trait)), field="from_trait"
        )
    new = cat.model_copy(deep=True)
    new.scars[p.from_trait] -= 1
    new.scars[p.to_trait] += 1
    changed = _ranks_changed(cat, new)
    summary = join(
        [
            msg(
                "narrator moves a scar from {from_trait} to {to_trait}: {reason}",
                from_trait=TRAIT_WORDS[p.from_trait],
                to_trait=TRAIT_WORDS[p.to_trait],
                reason=p.reason,
            ),
            *([msg("; {changed}", changed=join(changed))] if changed else []),
        ],
        "",
    )
    return Resolution(request=p.model_dump(), outcome={"changed": changed}, summary=summary, sheet=new)


class HealFirst(BaseModel):
    trait: Trait | Literal[""] = ""


def resolve_heal_first(sheet: CatSheet, p: HealFirst, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    new = cat.model_copy(deep=True)
    new.heal_first = p.trait
    which = TRAIT_WORDS[p.trait] if p.trait else msg("the most-scarred Trait")
    return Resolution(
        request=p.model_dump(),
        outcome={"heal_first": p.trait},
        summary=msg("will heal {trait} first", trait=which),
        sheet=new,
    )
