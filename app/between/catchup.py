"""Catching up: a read mark per member per campaign (it never moves back), what is unread, and what the game
waits for from me across my campaigns (roll calls and each system's `awaited` waits)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, and_, case, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.between.models import ReadMark
from app.campaigns.models import Campaign, Membership
from app.campaigns.service import Access, campaigns_for
from app.characters.models import Character
from app.encounters.models import Encounter
from app.encounters.titles import encounter_title
from app.errors import BadRequest
from app.i18n import _
from app.rolls.models import LogEntry, RollPrompt
from app.systems import ROLLER, SYSTEMS


@dataclass(frozen=True)
class Unread:
    last_read_seq: int
    unread: int
    first_unread_seq: int | None

    def json(self) -> dict[str, Any]:
        return {"last_read_seq": self.last_read_seq, "unread": self.unread, "first_unread_seq": self.first_unread_seq}


def mark_of(db: Session, user_id: int, campaign_id: int) -> int:
    """The member's read mark: the stored one, else the log's head when they joined (a new member does not
    inherit the campaign's whole past as "unread")."""
    stored = db.scalar(select(ReadMark.seq).where(ReadMark.user_id == user_id, ReadMark.campaign_id == campaign_id))
    if stored is not None:
        return int(stored)
    joined = db.scalar(
        select(Membership.joined_at).where(Membership.user_id == user_id, Membership.campaign_id == campaign_id)
    )
    if joined is None:
        return 0
    head = db.scalar(
        select(func.max(LogEntry.seq)).where(LogEntry.campaign_id == campaign_id, LogEntry.created_at <= joined)
    )
    return int(head or 0)


def _counted(user_id: int, campaign_id: int, mark: int) -> Any:
    """The lines after the mark that count: every entry (a hidden one is one line, its stub), but the member's
    own. An entry without an actor (an X-card, a deleted account's) counts for everyone."""
    return and_(
        LogEntry.campaign_id == campaign_id,
        LogEntry.seq > mark,
        or_(LogEntry.actor_id.is_(None), LogEntry.actor_id != user_id),
    )


def unread(db: Session, user_id: int, campaign_id: int, mark: int | None = None) -> Unread:
    mark = mark_of(db, user_id, campaign_id) if mark is None else mark
    count, first = db.execute(
        select(func.count(LogEntry.id), func.min(LogEntry.seq)).where(_counted(user_id, campaign_id, mark))
    ).one()
    return Unread(mark, int(count or 0), int(first) if first is not None else None)


_MARKS = cast(Table, ReadMark.__table__)


def mark_read(db: Session, acc: Access, seq: int) -> Unread:
    """Move the caller's mark forward to `seq` (never back: a lower seq answers the current mark). A seq past
    the log's head is refused. One upsert, so two tabs racing cannot move it back either."""
    head = int(db.scalar(select(Campaign.last_seq).where(Campaign.id == acc.campaign.id)) or 0)
    if seq > head:
        raise BadRequest(
            _("The log has {n} entries: you cannot have read #{seq}.").format(n=head, seq=seq), field="seq"
        )
    start = mark_of(db, acc.user.id, acc.campaign.id)
    wanted = max(seq, start)
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_MARKS).values(user_id=acc.user.id, campaign_id=acc.campaign.id, seq=wanted)
    db.execute(
        stmt.on_conflict_do_update(
            index_elements=[_MARKS.c.user_id, _MARKS.c.campaign_id],
            set_={"seq": case((stmt.excluded.seq > _MARKS.c.seq, stmt.excluded.seq), else_=_MARKS.c.seq)},
        )
    )
    db.commit()
    return unread(db, acc.user.id, acc.campaign.id)


# --- what waits for me --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wait:
    kind: str
    text: str
    url: str
    since: datetime

    def json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "url": self.url, "since": iso(self.since)}


def iso(moment: datetime) -> str:
    """UTC with a `Z`, to the second (the contract's times)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_WORD = re.compile(r"[A-Za-z]+")


def wait_word(key: str) -> str:
    """The system's word for a wait, from its `awaited` key ("script-2" → "script", "disposition", "round-3" →
    "round"; a duel's "2-attack-a" → "attack")."""
    found = _WORD.search(str(key))
    return found.group(0).lower() if found else "wait"


def waits_in(db: Session, user_id: int, campaign: Campaign) -> list[Wait]:
    """What the game waits for from this member in one campaign: the roll calls to the characters they play, and
    every active encounter's waits (RuleSystem.awaited) on those characters. Answered waits are gone: a prompt
    answered is no longer open, an encounter's `awaited` moves on."""
    found: list[Wait] = []
    prompts = db.execute(
        select(RollPrompt, Character)
        .join(Character, Character.id == RollPrompt.character_id)
        .where(RollPrompt.campaign_id == campaign.id, RollPrompt.status == "open", Character.owner_id == user_id)
        .order_by(RollPrompt.id)
    ).all()
    for prompt, character in prompts:
        text = _("A roll for {name}").format(name=character.name)
        if prompt.note:
            text = f"{text}: {prompt.note}"
        # The generic roller's calls are answered in the campaign page's prompts panel, a system's on the sheet.
        url = (
            f"/campaigns/{campaign.id}#prompt-{prompt.id}"
            if prompt.system == ROLLER
            else f"/campaigns/{campaign.id}/characters/{character.id}#prompt-{prompt.id}"
        )
        found.append(Wait("prompt", text, url, prompt.created_at))
    mine = dict(
        db.execute(
            select(Character.id, Character.name).where(
                Character.campaign_id == campaign.id, Character.owner_id == user_id
            )
        ).all()
    )
    if not mine:
        return found
    encounters = db.scalars(
        select(Encounter)
        .where(Encounter.campaign_id == campaign.id, Encounter.status == "active")
        .order_by(Encounter.id)
    )
    for encounter in encounters:
        system = SYSTEMS.get(encounter.system)
        if system is None:
            continue
        waits = system.awaited(
            {"kind": encounter.kind, "state": encounter.state, "participants": encounter.participants}
        )
        for cid, key in sorted(waits.items()):
            if cid not in mine:
                continue
            found.append(
                Wait(
                    wait_word(key),
                    _("{title} waits for {name}.").format(title=encounter_title(encounter), name=mine[cid]),
                    f"/campaigns/{campaign.id}/encounters/{encounter.id}",
                    encounter.updated_at,
                )
            )
    return found


@dataclass(frozen=True)
class CampaignWaits:
    campaign: Campaign
    role: str
    unread: Unread
    waiting: list[Wait]

    def json(self) -> dict[str, Any]:
        return {
            "id": self.campaign.id,
            "name": self.campaign.name,
            "unread": self.unread.unread,
            "waiting": [w.json() for w in self.waiting],
        }


def waiting_for(db: Session, user: User) -> list[CampaignWaits]:
    """Every campaign the user is a member of, with its unread count and what waits for them."""
    return [
        CampaignWaits(campaign, role, unread(db, user.id, campaign.id), waits_in(db, user.id, campaign))
        for campaign, role in campaigns_for(db, user)
    ]
