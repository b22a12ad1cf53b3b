"""What the campaign page and the narrator screen show: one builder per panel (its block of the page's template,
drawn from only what that block reads; declared in app/panels, which composes the whole pages from them), and
what the campaign page shows besides its panels (`campaign_log_context`)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.between import views as between_views
from app.campaigns import service
from app.campaigns.service import Access
from app.characters import service as characters
from app.encounters import service as encounters
from app.forms import editable_fields
from app.i18n import LANGUAGES
from app.rolls import log as rolllog
from app.rolls import prompts
from app.rolls.log import LogFilter
from app.rolls.visibility import VISIBILITY_LABELS
from app.systems import SYSTEMS

CAMPAIGN_PAGE = "campaigns/table.html"
NARRATOR_SCREEN = "campaigns/narrator.html"


def campaign_log_context(
    db: Session, acc: Access, *, log_page_size: int, log_filter: LogFilter | None = None
) -> dict[str, Any]:
    """What the campaign page shows besides its panels (app/panels composes those): the log (`log_page_size`
    entries, from the first unread line), the game sessions and the between-sessions panel."""
    size = between_views.opening_size(db, acc, log_page_size, log_filter)
    ctx: dict[str, Any] = rolllog.page(db, acc, limit=size, where=log_filter)
    ctx["game_sessions"] = service.sessions(db, acc.campaign.id)
    # The between-sessions panel (app/between): read before the page marks what it shows as read.
    ctx.update(between_views.open_table(db, acc, None if log_filter else ctx["last_seq"]))
    return ctx


def _panel(acc: Access, extra: dict[str, Any]) -> dict[str, Any]:
    """What every block of the campaign page may read besides its own data (no query)."""
    return {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "systems": {sid: SYSTEMS[sid] for sid in acc.campaign.systems if sid in SYSTEMS},
        "visibilities": VISIBILITY_LABELS,
        "errors": {},
        "form": {},
        **extra,
    }


def session_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(acc, {"game_session": service.current_session(db, acc.campaign.id), **extra})


def prompts_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The open prompts, and the characters a narrator calls for (and whose duels challenge this player)."""
    return _panel(
        acc,
        {
            "prompts": prompts.open_prompts(db, acc),
            "characters": characters.characters_for(db, acc),
            "encounters": encounters.active_encounters(db, acc),
            "idempotency_key": secrets.token_urlsafe(16),
            **extra,
        },
    )


def encounters_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(acc, {"encounters": encounters.active_encounters(db, acc), **extra})


def characters_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(
        acc,
        {
            "characters": characters.characters_for(db, acc),
            "members": service.members(db, acc.campaign.id),  # the narrator's "Player" choice
            "adjustable": _adjustable,
            **extra,
        },
    )


def members_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(
        acc,
        {
            "members": service.members(db, acc.campaign.id),
            "invites": service.invites(db, acc.campaign.id) if acc.is_narrator else [],
            "invite_problem": service.invite_problem,
            **extra,
        },
    )


def dice_as_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The dice box's "As" list (the characters this member may roll for)."""
    return _panel(acc, {"actable": characters.actable_characters(db, acc), **extra})


def dicebox_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The dice box: the roller's own answer to a roll renders this, not the page."""
    return _panel(
        acc,
        {
            "actable": characters.actable_characters(db, acc),
            "idempotency_key": secrets.token_urlsafe(16),
            "result": None,
            **extra,
        },
    )


def _adjustable(ch: Any) -> list[Any]:
    """A narrator's "Adjust sheet" fields for a character."""
    return (
        editable_fields(SYSTEMS[ch.system].sheet, ch.sheet, SYSTEMS[ch.system].labels) if ch.system in SYSTEMS else []
    )


def screen_live_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The narrator screen's live part (#screen-live): every character's numbers, open prompts, encounters."""
    service.require_narrator(acc)
    chars = characters.characters_for(db, acc)
    return _panel(
        acc,
        {
            "characters": chars,
            "owners": {u.id: u.username for u, _role in service.members(db, acc.campaign.id)},
            "sheets": {c.id: characters.visible_sheet(acc, c) for c in chars},
            "prompts": prompts.open_prompts(db, acc),
            "encounters": encounters.active_encounters(db, acc),
            **extra,
        },
    )


def call_who_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The narrator screen's "Whose roll" ticks (#group-call-who)."""
    service.require_narrator(acc)
    return _panel(acc, {"characters": characters.characters_for(db, acc), **extra})


def campaign_list_context(db: Session, user: User, **extra: Any) -> dict[str, Any]:
    """The list of one's campaigns and the form for a new one."""
    ctx: dict[str, Any] = {
        "campaigns": service.campaigns_for(db, user),
        "systems": SYSTEMS,
        "languages": LANGUAGES,
        "errors": {},
        "form": {},
        **between_views.waiting_context(db, user),  # "Waiting for you" and unread counts (app/between)
    }
    ctx.update(extra)
    return ctx
