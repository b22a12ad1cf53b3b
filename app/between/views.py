"""What the pages show between sessions: the campaign page's panel (unread, the next session and its answers, lines
and veils, recaps), the home page's "Waiting for you", and the recap page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.between import catchup, recap, safety, schedule
from app.between.models import CalendarFeed, DigestChoice, ReadMark
from app.campaigns import service as campaigns
from app.campaigns.service import Access
from app.rolls.log import LogFilter

PANEL = "between/panel.html"
RECAP = "between/recap.html"
# The campaign page shows at least the log's page size and at most this many entries, so that it can open at
# the first unread line (the rest is one "Show earlier entries" away).
MAX_OPENING = 300


def opening_size(db: Session, acc: Access, page_size: int, log_filter: LogFilter | None) -> int:
    """How many entries the campaign page shows: for a member coming back (one who has read here before), enough
    to start at the first unread line (at most MAX_OPENING); on a first visit, the log's usual page."""
    if log_filter or db.get(ReadMark, (acc.user.id, acc.campaign.id)) is None:
        return page_size
    found = catchup.unread(db, acc.user.id, acc.campaign.id)
    if found.first_unread_seq is None:
        return page_size
    return max(page_size, min(MAX_OPENING, acc.campaign.last_seq - found.first_unread_seq + 4))


def open_table(db: Session, acc: Access, shown_to: int | None) -> dict[str, Any]:
    """The campaign page's context for this panel, read before the page marks what it shows as read (`shown_to`:
    the newest seq the page shows; None for a filtered log, which marks nothing)."""
    ctx = panel_context(db, acc)
    if shown_to is not None and shown_to > ctx["b"]["unread"].last_read_seq:
        catchup.mark_read(db, acc, shown_to)
    return ctx


def panel_context(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    sessions = schedule.upcoming(db, [acc.campaign.id])
    given = schedule.answers(db, [p.id for p in sessions])
    names = {u.id: u.username for u, _role in campaigns.members(db, acc.campaign.id)}
    b: dict[str, Any] = {
        "unread": catchup.unread(db, acc.user.id, acc.campaign.id),
        "upcoming": [
            {
                "session": p,
                "starts_iso": catchup.iso(p.starts_at),
                "ends_iso": catchup.iso(schedule.ends_at(p)),
                "mine": given[p.id].get(acc.user.id),
                "answers": {
                    a: sorted(names.get(u, "?") for u, v in given[p.id].items() if v == a) for a in schedule.ANSWERS
                },
            }
            for p in sessions
        ],
        "safety": safety.items(db, acc.campaign.id),
        "recaps": campaigns.sessions(db, acc.campaign.id),
        "feed": db.get(CalendarFeed, acc.user.id) is not None,
        "digest": db.get(DigestChoice, (acc.user.id, acc.campaign.id)) is not None,
        "feed_url": None,
        "result": None,
        "errors": {},
        "form": {},
    }
    b.update(extra)
    return {"b": b, "acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator}


def waiting_context(db: Session, user: User) -> dict[str, Any]:
    """The home page's (the campaign list's) "Waiting for you" and each campaign's unread count."""
    found = catchup.waiting_for(db, user)
    return {
        "waiting": [c for c in found if c.waiting],
        "unread_by_campaign": {c.campaign.id: c.unread.unread for c in found},
        "unread_total": sum(c.unread.unread for c in found),
    }


def recap_context(db: Session, acc: Access, number: int) -> dict[str, Any]:
    story = recap.build(db, acc, number)
    return {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "recap": story,
        "sessions": campaigns.sessions(db, acc.campaign.id),
    }


def digest_choice(db: Session, acc: Access, on: bool) -> None:
    row = db.scalar(
        select(DigestChoice).where(DigestChoice.user_id == acc.user.id, DigestChoice.campaign_id == acc.campaign.id)
    )
    if on and row is None:
        db.add(DigestChoice(user_id=acc.user.id, campaign_id=acc.campaign.id))
    elif not on and row is not None:
        db.delete(row)
    db.commit()
