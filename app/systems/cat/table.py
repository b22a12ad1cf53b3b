"""The narrator's campaign-wide tools (game time, settings) and Reputation changes (cat.txt, "Healing",
"Losing Reputation", "Getting a New Reputation"; RULINGS.md, Cat, rulings 1, 8, 9)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, join, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.cat import counts
from app.systems.cat import rules as rules
from app.systems.cat.play import alive
from app.systems.cat.rules import sheet as growth
from app.systems.cat.sheet import TRAIT_WORDS, CatSheet, Docked, Reputation, is_dead, reputation


class AdvanceTime(BaseModel):
    weeks: int = Field(default=1, ge=1, le=52)
    cat_ids: list[int] = Field(default_factory=list, max_length=200)


def resolve_advance_time(sheet: CatSheet, p: AdvanceTime, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """Ruling 1: each week heals one scar per cat — the player's chosen Trait first, else the most scarred."""
    others: dict[int, CatSheet] = {}
    healed: list[Text] = []
    for cid in p.cat_ids:
        cat = ctx.others[cid]
        if is_dead(cat):
            continue
        left = growth.heal(cat.scars, p.weeks, cat.heal_first or None)
        gone = {t: cat.scars[t] - left[t] for t in rules.TRAITS if cat.scars[t] != left[t]}
        if not gone:
            continue
        new = cat.model_copy(deep=True)
        new.scars = left
        others[cid] = new
        healed.append(
            msg(
                "{name} heals {scars}",
                name=ctx.other_names[cid],
                scars=join(counts.healed(n=n, trait=TRAIT_WORDS[t]) for t, n in gone.items()),
            )
        )
    week = int(ctx.campaign_settings.get("week", 0)) + p.weeks
    summary = (
        counts.weeks_pass(n=p.weeks, week=week, healed=join(healed, "; "))
        if healed
        else counts.weeks_pass(n=p.weeks, week=week)
    )
    return Resolution(
        request=p.model_dump(),
        outcome={"week": week, "healed": healed},
        summary=summary,
        others=others,
        settings={**ctx.campaign_settings, "week": week},
    )


class Settings(BaseModel):
    magic: bool = False


def resolve_settings(sheet: CatSheet, p: Settings, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """Ruling 8: magic is optional and off by default."""
    return Resolution(
        request=p.model_dump(),
        outcome={"magic": p.magic},
        summary=msg("narrator turns Cat magic on") if p.magic else msg("narrator turns Cat magic off"),
        settings={**ctx.campaign_settings, "magic": p.magic},
    )


class DockReputation(BaseModel):
    reputation: str = Field(min_length=1, max_length=60)
    reason: str = Field(min_length=1, max_length=300)


def resolve_dock(sheet: CatSheet, p: DockReputation, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """The cat acted against his Reputation: one point goes now; restored within the same session, it comes back."""
    cat = sheet
    rep = reputation(cat, p.reputation)
    if rep is None:
        raise ActionError(
            _("This cat has no Reputation “{reputation}”.").format(reputation=p.reputation), field="reputation"
        )
    new = cat.model_copy(deep=True)
    new.reputations = [
        r if r.name != rep.name else Reputation(name=r.name, rank=r.rank - 1)
        for r in cat.reputations
        if not (r.name == rep.name and r.rank == 1)
    ]
    new.docked = [d for d in cat.docked if d.session == ctx.session_number and d.reputation != rep.name]
    new.docked.append(
        Docked(reputation=rep.name, rank_before=rep.rank, session=ctx.session_number, reason=p.reason.strip())
    )
    new.approvals = [a for a in cat.approvals if a.reputation != rep.name or rep.rank > 1]
    left = msg("now {rank}", rank=rep.rank - 1) if rep.rank > 1 else msg("gone")
    return Resolution(
        request=p.model_dump(),
        outcome={"reputation": rep.name, "rank": rep.rank - 1},
        summary=msg(
            "narrator docks a point of “{reputation}” ({left}): {reason}",
            reputation=rep.name,
            left=left,
            reason=p.reason.strip(),
        ),
        sheet=new,
    )


class RestoreReputation(BaseModel):
    reputation: str = Field(min_length=1, max_length=60)
    reason: str = Field(default="", max_length=300)


def resolve_restore(sheet: CatSheet, p: RestoreReputation, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    cat = sheet
    docked = next((d for d in cat.docked if d.reputation == p.reputation), None)
    if docked is None:
        raise ActionError(
            _("No point of “{reputation}” was docked.").format(reputation=p.reputation), field="reputation"
        )
    if docked.session != ctx.session_number or ctx.session_number is None:
        raise ActionError(
            _("“{reputation}” was docked in another session: that point is lost for good.").format(
                reputation=p.reputation
            ),
            field="reputation",
        )
    new = cat.model_copy(deep=True)
    new.docked = [d for d in cat.docked if d is not docked]
    if reputation(cat, p.reputation) is None:
        if len(cat.reputations) >= rules.MAX_REPUTATIONS:
            raise ActionError(_("This cat already has five Reputations."), field="reputation")
        new.reputations.append(Reputation(name=p.reputation, rank=docked.rank_before))
    else:
        new.reputations = [
            r if r.name != p.reputation else Reputation(name=r.name, rank=docked.rank_before) for r in cat.reputations
        ]
    summary = (
        msg(
            "narrator restores “{reputation}” to {rank} — fixed in the same session: {reason}",
            reputation=p.reputation,
            rank=docked.rank_before,
            reason=p.reason.strip(),
        )
        if p.reason.strip()
        else msg(
            "narrator restores “{reputation}” to {rank} — fixed in the same session",
            reputation=p.reputation,
            rank=docked.rank_before,
        )
    )
    return Resolution(
        request=p.model_dump(),
        outcome={"reputation": p.reputation, "rank": docked.rank_before},
        summary=summary,
        sheet=new,
    )


class GiftReputation(BaseModel):
    recipient_id: int
    reputation: str = Field(min_length=1, max_length=60)
    new_reputation: str = Field(min_length=1, max_length=60)


def resolve_gift(sheet: CatSheet, p: GiftReputation, dice: Dice, ctx: Context[CatSheet]) -> Resolution[CatSheet]:
    """cat.txt, "Getting a New Reputation"; ruling 9: the giver spends a fitting Reputation of his own; the
    recipient gets a new one at half its rank (rounded down, minimum 1). Decided here: "spends" means the
    giver's Reputation is gone."""
    giver = sheet
    alive(giver, N_("give a Reputation"))
    rep = reputation(giver, p.reputation)
    if rep is None:
        raise ActionError(
            _("This cat has no Reputation “{reputation}”.").format(reputation=p.reputation), field="reputation"
        )
    recipient = ctx.others[p.recipient_id]
    if recipient.foe:
        raise ActionError(_("Only a cat can receive a Reputation."), field="recipient_id")
    name = p.new_reputation.strip()
    if reputation(recipient, name) is not None:
        raise ActionError(
            _("{recipient} already has “{name}”.").format(recipient=ctx.other_names[p.recipient_id], name=name),
            field="new_reputation",
        )
    if len(recipient.reputations) >= rules.MAX_REPUTATIONS:
        raise ActionError(
            _("{recipient} already has five Reputations.").format(recipient=ctx.other_names[p.recipient_id]),
            field="recipient_id",
        )
    rank = growth.gift_reputation_rank(rep.rank)
    new_giver = giver.model_copy(deep=True)
    new_giver.reputations = [r for r in giver.reputations if r.name != rep.name]
    new_giver.approvals = [a for a in giver.approvals if a.reputation != rep.name]
    new_recipient = recipient.model_copy(deep=True)
    new_recipient.reputations.append(Reputation(name=name, rank=rank))
    who = ctx.other_names[p.recipient_id]
    return Resolution(
        request=p.model_dump(),
        outcome={"rank": rank, "recipient": who},
        summary=msg(
            "spends “{reputation}” ({rank_before}) to give {who} the Reputation “{name}” ({rank})",
            reputation=rep.name,
            rank_before=rep.rank,
            who=who,
            name=name,
            rank=rank,
        ),
        sheet=new_giver,
        others={p.recipient_id: new_recipient},
    )
