"""Advancement: the session's end (narrator), Glory, and what players buy with points and experience.

art-engine.md, ch. 1 "Session", "Between Adventures"; ch. 2 "Glory", "Starting Skills"; ch. 6
"Increasing Attributes", "Improving Skills", "Experience Points", "Increasing Health", "Buying Perks".
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import N_, _, join, msg, render
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES
from app.systems.art.rules.advancement import XP_PER_SESSION
from app.systems.base import ActionError, Context, Resolution

from . import core
from .sheet import ArtSheet, Skill, ready

NEW_SKILL_IN_PLAY_COST = 1  # ruling: a +1 skill bought during an adventure costs what a starting +1 does


class EndSessionParams(BaseModel):
    participants: list[int] = Field(default_factory=list, max_length=40)
    adventure_over: bool = False


class GloryParams(BaseModel):
    target_id: int
    amount: int = Field(ge=-1000, le=1000)


class RaiseAttributeParams(BaseModel):
    attribute: str


class BuyPerkParams(BaseModel):
    perk: str = Field(max_length=80)


class BuySkillParams(BaseModel):
    name: str = Field(default="", max_length=80)
    rating: int = Field(default=1, ge=1, le=4)


class NoParams(BaseModel):
    pass


def _adventurer(sheet: ArtSheet, field: str) -> None:
    if sheet.kind != "adventurer" or not ready(sheet):
        raise ActionError(_("Only an adventurer with attributes advances."), field=field)


def session_end(sheet: ArtSheet, adventure_over: bool) -> list[str]:
    """+1 xp; capped skills +1 and cleared; at an adventure's end, healed (ch. 1, "Between Adventures")."""
    sheet.xp += XP_PER_SESSION
    sheet.sessions += 1
    improved = []
    for skill in sheet.skills:
        after = art.end_of_session_skill(art.SkillUse(skill.name, skill.rating, skill.inspiration))
        if after.rating != skill.rating or after.inspiration != skill.inspiration:
            improved.append(f"{skill.name} +{after.rating}")
        skill.rating, skill.inspiration = after.rating, after.inspiration
    sheet.between_adventures = adventure_over
    if adventure_over:
        sheet.checked = [False] * len(sheet.health)
        sheet.unconscious = False
        sheet.fatigue = 0
    return improved


def resolve_end_session(
    sheet: ArtSheet, params: EndSessionParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if not params.participants:
        raise ActionError(_("Tick the adventurers who took part."), field="participants")
    others = {}
    lines = []
    for cid in params.participants:
        sheet = ctx.others[cid]
        name = ctx.other_names.get(cid, str(cid))
        _adventurer(sheet, "participants")
        improved = session_end(sheet, params.adventure_over)
        others[cid] = sheet
        lines.append(
            msg("{name} +1 xp ({skills})", name=name, skills=join(improved))
            if improved
            else msg("{name} +1 xp", name=name)
        )
    what = N_("ends the adventure: {lines}") if params.adventure_over else N_("ends the session: {lines}")
    return Resolution(
        request=params.model_dump(),
        outcome={"participants": params.participants},
        summary=msg(what, lines=join(lines, "; ")),
        others=others,
    )


def resolve_glory(sheet: ArtSheet, params: GloryParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Glory of ten times Fame becomes one more Fame (ch. 2, "Glory")."""
    sheet = ctx.others[params.target_id]
    name = ctx.other_names.get(params.target_id, "")
    _adventurer(sheet, "target_id")
    if params.amount == 0:
        raise ActionError(_("Give or take at least 1 Glory."), field="amount")
    fame = sheet.fame
    sheet.glory, sheet.fame = art.gain_glory(sheet.glory, sheet.fame, params.amount)
    how = N_("awards {n} Glory to {name}") if params.amount > 0 else N_("takes {n} Glory from {name}")
    text = msg(how, n=abs(params.amount), name=name)
    if sheet.fame > fame:
        text = join([text, msg(": Fame rises to {fame}", fame=sheet.fame)], "")
    return Resolution(
        request=params.model_dump(),
        outcome={"glory": sheet.glory, "fame": sheet.fame},
        summary=text,
        others={params.target_id: sheet},
    )


def resolve_raise_attribute(
    sheet: ArtSheet, params: RaiseAttributeParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Each +1 costs the attribute's current score in its inspiration points (ch. 6)."""
    _adventurer(sheet, "attribute")
    code = params.attribute.upper()
    if code not in ATTRIBUTES:
        raise ActionError(_("Choose one of the ten attributes."), field="attribute")
    score, points = sheet.attributes[code] or 0, sheet.attribute_inspiration.get(code, 0)
    if points < score:
        raise ActionError(
            _("Raising {attribute} from {score} costs {score} inspiration points; it has {points}.").format(
                attribute=_(ATTRIBUTES[code]), score=score, points=points
            ),
            field="attribute",
        )
    sheet.attributes[code], sheet.attribute_inspiration[code] = score + 1, points - score
    return Resolution(
        request=params.model_dump(),
        outcome={"attribute": code, "score": score + 1},
        summary=msg(
            "raises {name} to {score} for {points} inspiration points",
            name=msg(ATTRIBUTES[code]),
            score=score + 1,
            points=score,
        ),
        sheet=sheet,
    )


def resolve_buy_perk(
    sheet: ArtSheet, params: BuyPerkParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Perks between adventures, with their attribute and perk requirements (ch. 6, "Buying Perks")."""
    _adventurer(sheet, "perk")
    if not sheet.between_adventures:
        raise ActionError(_("Perks are bought between adventures."), field="perk")
    if params.perk not in art.PERKS:
        raise ActionError(_("Choose a perk from the list."), field="perk")
    rank = sheet.perks.get(params.perk, 0) + 1
    try:
        cost = art.perk_cost(params.perk, rank)
    except art.ArtRuleError as exc:
        raise ActionError(
            _("You already have every rank of {perk}.").format(perk=_(params.perk)), field="perk"
        ) from exc
    scores = {code: value or 0 for code, value in sheet.attributes.items()}
    unmet = art.unmet_requirements(params.perk, scores, list(sheet.perks), rank=rank)
    if unmet:
        raise ActionError(
            _("{perk} needs {unmet}.").format(perk=_(params.perk), unmet=render(core.unmet_text(unmet))), field="perk"
        )
    if cost > sheet.xp:
        raise ActionError(
            _("{perk} costs {cost} xp; you have {xp}.").format(perk=_(params.perk), cost=cost, xp=sheet.xp),
            field="perk",
        )
    sheet.xp -= cost
    sheet.perks[params.perk] = rank
    what = (
        msg("buys {perk} rank {rank} for {cost} xp", perk=msg(params.perk), rank=rank, cost=cost)
        if art.PERKS[params.perk].per_rank
        else msg("buys {perk} for {cost} xp", perk=msg(params.perk), cost=cost)
    )
    return Resolution(
        request=params.model_dump(),
        outcome={"perk": params.perk, "rank": rank, "xp": cost},
        summary=what,
        sheet=sheet,
    )


def resolve_buy_health(sheet: ArtSheet, params: NoParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """One Health rank up, at the Increasing Health table's cost, between adventures (ch. 6)."""
    _adventurer(sheet, "health")
    if not sheet.between_adventures:
        raise ActionError(_("Health is increased between adventures."), field="health")
    try:
        rank = art.health_rank([art.Level[c] for c in sheet.health])
        cost = art.health_increase_cost(rank)
    except art.ArtRuleError as exc:
        raise ActionError(_("Health is at its highest rank."), field="health") from exc
    if cost > sheet.xp:
        raise ActionError(
            _("The next Health rank costs {cost} xp; you have {xp}.").format(cost=cost, xp=sheet.xp), field="health"
        )
    sheet.xp -= cost
    sheet.health = [box.name for box in art.health_track(rank + 1)]
    return Resolution(
        request={},
        outcome={"rank": rank + 1, "xp": cost},
        summary=msg("raises Health to {track} for {cost} xp", track="/".join(sheet.health), cost=cost),
        sheet=sheet,
    )


def resolve_buy_skill(
    sheet: ArtSheet, params: BuySkillParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """Before the first adventure, skills +1..+4 at the Starting Skills costs (ch. 2); later, a new +1 skill
    for 1 xp (ch. 6, "Experience Points")."""
    _adventurer(sheet, "name")
    name = params.name.strip()
    if not name:
        raise ActionError(_("Name the skill."), field="name")
    if any(s.name.lower() == name.lower() for s in sheet.skills):
        raise ActionError(_("You already have {name}.").format(name=name), field="name")
    starting = sheet.sessions == 0
    if not starting and params.rating != 1:
        raise ActionError(_("After the first session new skills start at +1."), field="rating")
    cost = art.starting_skill_cost(params.rating) if starting else NEW_SKILL_IN_PLAY_COST
    if cost > sheet.xp:
        raise ActionError(
            _("+{rating} costs {cost} xp; you have {xp}.").format(rating=params.rating, cost=cost, xp=sheet.xp),
            field="rating",
        )
    sheet.xp -= cost
    sheet.skills.append(Skill(name=name, rating=params.rating))
    return Resolution(
        request=params.model_dump(),
        outcome={"skill": name, "xp": cost},
        summary=msg("buys the skill {name} +{rating} for {cost} xp", name=name, rating=params.rating, cost=cost),
        sheet=sheet,
    )
