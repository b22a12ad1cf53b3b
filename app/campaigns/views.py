"""What the campaign page shows: one context for the whole page, and one builder per live panel (its block of the
same template, drawn from only what that block reads: `TABLE_PANELS`, served by GET /campaigns/{id}/panels/{name}
and used by the forms that answer with that panel)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.between import views as between_views
from app.campaigns import service
from app.campaigns.service import Access
from app.characters import service as characters
from app.encounters import service as encounters
from app.forms import editable_fields
from app.handouts import views as handout_views
from app.i18n import LANGUAGES
from app.rolls import log as rolllog
from app.rolls import prompts
from app.rolls.log import LogFilter
from app.rolls.visibility import VISIBILITY_LABELS
from app.systems import SYSTEMS
from app.talk.views import composer_context

TABLE = "campaigns/table.html"
NARRATOR_SCREEN = "campaigns/narrator.html"


def table_context(
    db: Session, acc: Access, *, log_page_size: int | None = None, log_filter: LogFilter | None = None, **extra: Any
) -> dict[str, Any]:
    """Everything the campaign page shows; fragments re-render parts of it from the same template. The log
    (`log_page_size` entries) only for the whole page: a panel's fragment need not render 50 entries."""
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "members": service.members(db, acc.campaign.id),
        "invites": service.invites(db, acc.campaign.id) if acc.is_narrator else [],
        "game_session": service.current_session(db, acc.campaign.id),
        "characters": characters.characters_for(db, acc),
        "actable": characters.actable_characters(db, acc),
        "prompts": prompts.open_prompts(db, acc),
        "encounters": encounters.active_encounters(db, acc),
        "systems": {sid: SYSTEMS[sid] for sid in acc.campaign.systems if sid in SYSTEMS},
        "visibilities": VISIBILITY_LABELS,
        "errors": {},
        "form": {},
        "result": None,
        "idempotency_key": secrets.token_urlsafe(16),
        "invite_problem": service.invite_problem,
        "composer": lambda: composer_context(db, acc),  # templates/talk/composer.html, only when rendered
        "adjustable": _adjustable,
    }
    ctx.update(handout_views.table_panels(db, acc))  # the scene at the top, the handouts one was shown
    if log_page_size is not None:
        size = between_views.opening_size(db, acc, log_page_size, log_filter)  # from the first unread line
        ctx.update(rolllog.page(db, acc, limit=size, where=log_filter))
        ctx["game_sessions"] = service.sessions(db, acc.campaign.id)
        # The between-sessions panel (app/between): read before the page marks what it shows as read.
        ctx.update(between_views.open_table(db, acc, None if log_filter else ctx["last_seq"]))
    ctx.update(extra)
    return ctx


PanelContext = Callable[..., dict[str, Any]]  # (db, acc, **extra) -> the block's context


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
            "members": service.members(db, acc.campaign.id) if acc.is_narrator else [],  # the narrator's "Player"
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


# The campaign page's panels: name = its block in TABLE.
TABLE_PANELS: dict[str, PanelContext] = {
    "session": session_panel,
    "prompts": prompts_panel,
    "encounters": encounters_panel,
    "characters": characters_panel,
    "members": members_panel,
    "dice_as": dice_as_panel,
    "dicebox": dicebox_panel,
}


def _adjustable(ch: Any) -> list[Any]:
    """A narrator's "Adjust sheet" fields for a character."""
    return (
        editable_fields(SYSTEMS[ch.system].sheet, ch.sheet, SYSTEMS[ch.system].labels) if ch.system in SYSTEMS else []
    )


def narrator_context(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    """The narrator's screen: every character's key numbers at a glance (each system's `<system>/_glance.html`),
    open prompts, encounters, and a call for a roll to several characters at once."""
    service.require_narrator(acc)
    chars = characters.characters_for(db, acc)
    owners = {u.id: u.username for u, _role in service.members(db, acc.campaign.id)}
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": True,
        "characters": chars,
        "owners": owners,
        "sheets": {c.id: characters.visible_sheet(acc, c) for c in chars},
        "prompts": prompts.open_prompts(db, acc),
        "encounters": encounters.active_encounters(db, acc),
        "systems": {sid: SYSTEMS[sid] for sid in acc.campaign.systems if sid in SYSTEMS},
        "visibilities": VISIBILITY_LABELS,
        "errors": {},
        "form": {},
        "called": [],
        **handout_views.scene_context(db, acc),
        **handout_views.library_context(db, acc),  # the handout library
    }
    ctx.update(extra)
    return ctx


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


# The narrator screen's panels: name = its block in NARRATOR_SCREEN.
NARRATOR_PANELS: dict[str, PanelContext] = {"screen_live": screen_live_panel, "call_who": call_who_panel}


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
