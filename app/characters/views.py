"""What a character's sheet page and a system's campaign page show: one builder per panel (declared in app/panels,
which composes the pages from them), for the page and for the fragments re-rendered from the same template."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.orm import Session

from app.campaigns.service import Access
from app.characters import service
from app.characters.models import Character
from app.encounters.service import active_encounters
from app.errors import BadRequest, NotFound
from app.i18n import _
from app.rolls import log as rolllog
from app.rolls import prompts
from app.rolls.visibility import VISIBILITY_LABELS
from app.systems import SYSTEMS, RuleSystem, get_system
from app.web import has_template


def template_for(system: RuleSystem, page: str) -> str:
    return f"{system.id}/{page}.html" if system.has_pages else f"characters/{page}.html"


def campaign_system(acc: Access, system_id: str) -> RuleSystem:
    if system_id not in SYSTEMS or system_id not in acc.campaign.systems:
        raise BadRequest(_("This campaign does not use that rule system."), field="system")
    return SYSTEMS[system_id]


def system_with_page(acc: Access, system_id: str) -> RuleSystem:
    """The campaign's system `system_id` if it has a page of its own (campaign.html is optional), else 404."""
    system = campaign_system(acc, system_id)
    if not system.has_pages or not has_template(f"{system.id}/campaign.html"):
        raise NotFound(_("This rule system has no page of its own."))
    return system


def recent_panel(db: Session, acc: Access, character: Character, **extra: Any) -> dict[str, Any]:
    """The sheet page's recent log (characters/_recent.html): this character's latest entries as this viewer
    sees them."""
    entries = rolllog.character_entries(db, acc.campaign.id, character.id)
    return {
        "campaign": acc.campaign,
        "character": character,
        "entries_html": [rolllog.entry_html(e, acc.user.id, acc.is_narrator) for e in entries],
        **extra,
    }


def sheet_panel(db: Session, acc: Access, character: Character, **extra: Any) -> dict[str, Any]:
    """The sheet itself (block `sheet` of the system's sheet template, its prompts panel inside): what every
    action on the sheet answers with, and what a live refresh fetches."""
    system = get_system(character.system)
    can_act = service.can_act(acc, character)
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "character": character,
        "system": system,
        "sheet": service.visible_sheet(acc, character),
        "can_act": can_act,
        "prompts": prompts.open_prompts_for(db, character) if can_act else [],
        "visibilities": VISIBILITY_LABELS,
        "characters": [c for c in service.characters_for(db, acc) if c.system == character.system],
        # This character's active encounters (a duel it is in), for a link to each.
        "encounters": [
            e for e in active_encounters(db, acc) if character.id in {p.get("character_id") for p in e.participants}
        ],
        "idempotency_key": secrets.token_urlsafe(16),
        "errors": {},
        "form": {},
        "result": None,
    }
    ctx.update(extra)
    return ctx


def create_context(acc: Access, system: RuleSystem, **extra: Any) -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "system": system,
        "is_narrator": acc.is_narrator,
        "errors": {},
        "form": {},
    }
    ctx.update(extra)
    return ctx


def system_context(db: Session, acc: Access, system: RuleSystem, **extra: Any) -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "system": system,
        "settings": dict((acc.campaign.settings or {}).get(system.id, {})),
        "characters": [c for c in service.characters_for(db, acc) if c.system == system.id],
        "can_act": {c.id for c in service.actable_characters(db, acc)},
        "encounters": [e for e in active_encounters(db, acc) if e.system == system.id],
        "idempotency_key": secrets.token_urlsafe(16),
        "errors": {},
        "form": {},
        "result": None,
    }
    ctx.update(extra)
    return ctx
