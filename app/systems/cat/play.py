"""Testing fate and what follows it: Style, Advantage Dice, Reputation approval, notes (cat.txt; RULINGS.md, Cat,
rulings 1-3, 7-9); the scars and Lives a test leaves are scars.py. Each function is a pure `resolve` for the rules
service."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, join, msg, ngettext, percent, render
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, Resolution
from app.systems.cat import counts
from app.systems.cat import rules as rules
from app.systems.cat.rules import fate
from app.systems.cat.sheet import (
    TRAIT_WORDS,
    Approval,
    CatSheet,
    ScarBatch,
    Trait,
    approved,
    cat_rule_message,
    is_dead,
    reputation,
    trait_dice,
    trait_name,
)


def alive(cat: CatSheet, what: str = N_("act")) -> None:
    """`what` is an English phrase marked N_ (translated here)."""
    if is_dead(cat):
        raise ActionError(_("This cat is dead and cannot {what}.").format(what=_(what)), field="character_id")


def no_pending(cat: CatSheet) -> None:
    if cat.pending:
        waiting = sum(b.scars for b in cat.pending)
        raise ActionError(
            ngettext(
                "Place the {scars} scar waiting on the sheet first (or spend a Life to dodge it).",
                "Place the {scars} scars waiting on the sheet first (or spend a Life to dodge them).",
                waiting,
            ).format(scars=waiting),
            field="pending",
        )


def magic_on(ctx: Context[CatSheet] | None) -> bool:
    return bool(ctx and ctx.campaign_settings.get("magic"))


# --- test fate ---------------------------------------------------------------------------------------------


class TestFate(BaseModel):
    __test__ = False  # not a pytest class
    trait: Trait
    difficulty: Literal["easy", "moderate", "hard"]
    dangerous: bool = False
    advantage: int = Field(default=0, ge=0, le=100)
    reputation: str = Field(default="", max_length=60)
    style_points: int = Field(default=0, ge=0, le=1000)
    spend_life: bool = False
    magic: int = Field(default=0, ge=0, le=100)


def _pool(cat: CatSheet, p: TestFate, *, magic: bool) -> tuple[int, list[Text]]:
    """Dice for the roll and the words that explain them; raises with the field to blame."""
    if p.advantage > cat.advantage:
        raise ActionError(
            _("This cat has {advantage} Advantage Dice from the narrator, not {asked}.").format(
                advantage=cat.advantage, asked=p.advantage
            ),
            field="advantage",
        )
    if p.style_points > cat.style:
        raise ActionError(
            _("This cat has {style} Style points banked, not {style_points}.").format(
                style=cat.style, style_points=p.style_points
            ),
            field="style_points",
        )
    rep = reputation(cat, p.reputation) if p.reputation else None
    if p.reputation and rep is None:
        raise ActionError(
            _("This cat has no Reputation “{reputation}”.").format(reputation=p.reputation), field="reputation"
        )
    if p.magic:
        if not magic:
            raise ActionError(_("Magic is off in this campaign (the narrator can turn it on)."), field="magic")
        if p.trait != "tail":
            raise ActionError(_("Magic rolls Tail."), field="magic")
        if p.magic > cat.magic:
            raise ActionError(
                _("This cat has {magic} magic points, not {asked}.").format(magic=cat.magic, asked=p.magic),
                field="magic",
            )
    base = trait_dice(cat, p.trait)
    words: list[Text] = [msg("{trait} {dice}", trait=TRAIT_WORDS[p.trait], dice=base)]
    if p.spend_life:
        return 0, words
    if base == 0:
        raise ActionError(
            _("{trait} is Crippled: no Risks with it (a Life still wins any Risk).").format(trait=trait_name(p.trait)),
            field="trait",
        )
    extra = p.advantage + (rep.rank if rep else 0) + max(0, p.magic - 1)
    if p.advantage:
        words.append(msg("{n} Advantage", n=p.advantage))
    if rep:
        words.append(msg("{trait} {dice}", trait=rep.name, dice=rep.rank))
    if p.magic > 1:
        words.append(msg("{n} magic", n=p.magic - 1))
    if base + extra > rules.MAX_POOL:
        raise ActionError(_("At most {max_pool} dice.").format(max_pool=rules.MAX_POOL), field="advantage")
    return base + extra, words


def fate_odds(sheet: CatSheet, p: TestFate, ctx: Context[CatSheet]) -> Odds:
    """The exact chance of success before rolling (exact_success_chance), as the dice are added."""
    cat = sheet
    pool, words = _pool(cat, p, magic=True)
    needed = rules.DIFFICULTY_EVENS[p.difficulty]
    label = _("Chance of success:")
    if p.spend_life:
        return Odds(
            chance=1.0,
            text=_("{percent} — a Life wins this Risk outright (no roll).").format(percent=percent(1.0)),
            details={"pool": 0, "needed": needed, "label": label},
        )
    chance = fate.exact_success_chance(pool, needed, p.style_points)
    style = _(" + {n} Style").format(n=p.style_points) if p.style_points else ""
    return Odds(
        chance=float(chance),
        text=_("{percent} (exactly {fraction}) — {dice} ({words}){style}, {needed}").format(
            percent=percent(float(chance)),
            fraction=chance,
            dice=render(counts.dice_text(pool)),
            words=render(join(words)),
            style=style,
            needed=ngettext("{n} even needed", "{n} evens needed", needed).format(n=needed),
        ),
        details={"pool": pool, "needed": needed, "fraction": str(chance), "label": label},
    )


def resolve_test_fate(sheet: CatSheet, p: TestFate, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    alive(cat, N_("take Risks"))
    if cat.foe and not ctx.actor_is_narrator:
        raise ActionError(_("Only the narrator rolls for a foe."), field="character_id")
    no_pending(cat)
    pool, words = _pool(cat, p, magic=magic_on(ctx))
    if p.reputation and not ctx.actor_is_narrator and not approved(cat, p.reputation, ctx.session_number):
        raise ActionError(
            _(
                "The narrator has not approved “{reputation}” for this scene yet: propose it, or roll without it."
            ).format(reputation=p.reputation),
            field="reputation",
        )
    try:
        result = fate.test_fate(
            dice, pool, p.difficulty, style_points=p.style_points, dangerous=p.dangerous, spend_life=p.spend_life
        )
    except rules.CatRuleError as exc:
        raise ActionError(
            cat_rule_message(exc), field=exc.field if exc.field in TestFate.model_fields else "trait"
        ) from exc
    new = cat.model_copy(deep=True)
    new.advantage -= p.advantage
    new.magic -= p.magic
    new.style = cat.style - p.style_points + result.style_gained
    new.fresh_style = result.style_gained
    what = msg(RISKS[(p.difficulty, p.dangerous)], trait=TRAIT_WORDS[p.trait])
    parts: list[Text] = []
    if p.spend_life:
        new.lives -= 1
        parts.append(counts.life_wins(what=what, lives=new.lives))
    else:
        evens = (
            counts.evens_with_style(n=result.evens - result.style_spent, style=result.style_spent)
            if result.style_spent
            else counts.evens_text(result.evens - result.style_spent)
        )
        parts.append(counts.fate_line(what=what, pool=pool, words=join(words), evens=evens, needed=result.needed))
        parts.append(msg("success") if result.success else msg("Fate intervenes"))
        if result.style_gained:
            parts.append(msg(", +{n} Style", n=result.style_gained))
        if result.scars:
            new.pending.append(ScarBatch(scars=result.scars, source=msg("failed {what}", what=what)))
            parts.append(counts.to_place(n=result.scars))
        elif p.dangerous and not result.success:
            parts.append(msg(", no odd die: no scars"))
    if is_dead(new):
        parts.append(msg(". The cat's last Life is spent: he dies"))
    summary = join(parts, "")
    outcome = {
        "success": result.success,
        "evens": result.evens,
        "needed": result.needed,
        "faces": list(result.faces),
        "style_gained": result.style_gained,
        "style_spent": result.style_spent,
        "scars": result.scars,
        "life_spent": result.life_spent,
        "pool": pool,
        "reputation": p.reputation or None,
    }
    return Resolution(request=p.model_dump(), outcome=outcome, summary=summary, sheet=new)


RISKS = {
    ("easy", False): N_("Easy Risk with {trait}"),
    ("easy", True): N_("Easy dangerous Risk with {trait}"),
    ("moderate", False): N_("Moderate Risk with {trait}"),
    ("moderate", True): N_("Moderate dangerous Risk with {trait}"),
    ("hard", False): N_("Hard Risk with {trait}"),
    ("hard", True): N_("Hard dangerous Risk with {trait}"),
}


# --- Style spent at once on the scene ----------------------------------------------------------------------


class EditScene(BaseModel):
    points: int = Field(default=1, ge=1, le=1000)
    edit: str = Field(min_length=1, max_length=300)


def resolve_edit_scene(sheet: CatSheet, p: EditScene, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    alive(cat)
    if p.points > cat.fresh_style:
        raise ActionError(
            _("Only the evens just rolled can edit the scene: {fresh_style} left.").format(fresh_style=cat.fresh_style),
            field="points",
        )
    new = cat.model_copy(deep=True)
    new.fresh_style -= p.points
    new.style -= p.points
    return Resolution(
        request=p.model_dump(),
        outcome={"points": p.points, "edit": p.edit},
        summary=msg("spends {points} Style to edit the scene: {edit}", points=p.points, edit=p.edit),
        sheet=new,
    )


# --- the narrator's gifts and approvals --------------------------------------------------------------------


class GrantAdvantage(BaseModel):
    dice: int = Field(default=1, ge=1, le=20)
    reason: str = Field(default="", max_length=200)


def resolve_grant_advantage(
    sheet: CatSheet, p: GrantAdvantage, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    cat = sheet
    alive(cat, N_("receive Advantage Dice"))
    new = cat.model_copy(deep=True)
    new.advantage += p.dice
    summary = (
        counts.grants(n=p.dice, reason=p.reason.strip(), unused=new.advantage)
        if p.reason.strip()
        else counts.grants(n=p.dice, unused=new.advantage)
    )
    return Resolution(request=p.model_dump(), outcome={"advantage": new.advantage}, summary=summary, sheet=new)


class ApproveReputation(BaseModel):
    reputation: str = Field(min_length=1, max_length=60)


def resolve_approve(sheet: CatSheet, p: ApproveReputation, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """Ruling 9: the narrator agrees a Reputation fits this scene; it counts until cleared or the session ends."""
    cat = sheet
    if reputation(cat, p.reputation) is None:
        raise ActionError(
            _("This cat has no Reputation “{reputation}”.").format(reputation=p.reputation), field="reputation"
        )
    new = cat.model_copy(deep=True)
    new.approvals = [a for a in cat.approvals if a.session == ctx.session_number and a.reputation != p.reputation]
    new.approvals.append(Approval(reputation=p.reputation, session=ctx.session_number))
    if new.proposal == p.reputation:
        new.proposal = ""
    return Resolution(
        request=p.model_dump(),
        outcome={"approved": p.reputation},
        summary=msg("narrator approves Reputation “{reputation}” for this scene", reputation=p.reputation),
        sheet=new,
    )


class ClearApprovals(BaseModel):
    pass


def resolve_clear_approvals(
    sheet: CatSheet, p: ClearApprovals, dice: Dice, ctx: Context[CatSheet]
) -> Resolution[CatSheet]:
    cat = sheet
    new = cat.model_copy(deep=True)
    new.approvals, new.proposal = [], ""
    return Resolution(request={}, outcome={}, summary=msg("narrator ends the scene's Reputation approvals"), sheet=new)


class ProposeReputation(BaseModel):
    reputation: str = Field(min_length=1, max_length=60)


def resolve_propose(sheet: CatSheet, p: ProposeReputation, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    alive(cat)
    if reputation(cat, p.reputation) is None:
        raise ActionError(
            _("This cat has no Reputation “{reputation}”.").format(reputation=p.reputation), field="reputation"
        )
    new = cat.model_copy(deep=True)
    new.proposal = p.reputation
    return Resolution(
        request=p.model_dump(),
        outcome={"proposal": p.reputation},
        summary=msg("asks the narrator to count Reputation “{reputation}” in this scene", reputation=p.reputation),
        sheet=new,
    )


class Notes(BaseModel):
    notes: str = Field(default="", max_length=5000)


def resolve_notes(sheet: CatSheet, p: Notes, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    new = cat.model_copy(deep=True)
    new.notes = p.notes
    return Resolution(request={}, outcome={}, summary=msg("updates the notes"), sheet=new)
