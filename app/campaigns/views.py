"""What the campaign page shows: one context for the page and for every fragment re-rendered from it."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
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
        "adjustable": lambda ch: (
            editable_fields(SYSTEMS[ch.system].sheet, ch.sheet, SYSTEMS[ch.system].labels)
            if ch.system in SYSTEMS
            else []
        ),
    }
    ctx.update(handout_views.table_panels(db, acc))  # the scene at the top, the handouts one was shown
    if log_page_size is not None:
        ctx.update(rolllog.page(db, acc, limit=log_page_size, where=log_filter))
        ctx["game_sessions"] = service.sessions(db, acc.campaign.id)
    ctx.update(extra)
    return ctx


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


def campaign_list_context(db: Session, user: User, **extra: Any) -> dict[str, Any]:
    """The list of one's campaigns and the form for a new one."""
    ctx: dict[str, Any] = {
        "campaigns": service.campaigns_for(db, user),
        "systems": SYSTEMS,
        "languages": LANGUAGES,
        "errors": {},
        "form": {},
    }
    ctx.update(extra)
    return ctx
