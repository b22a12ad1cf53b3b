"""What an encounter's page shows: the system's own view (app/systems/<system>/templates/encounter.html, block
`encounter`) or the generic one, with one context for the page and its live fragment."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy.orm import Session

from app.campaigns.service import Access
from app.encounters import service
from app.encounters.models import Encounter
from app.systems import get_system
from app.talk.views import team_panel_context


def encounter_context(db: Session, acc: Access, encounter: Encounter, **extra: Any) -> dict[str, Any]:
    # Templates read `state` (what this viewer may see), never `encounter.state` (tests/encounters checks).
    controls = service.controlled_by(db, acc, encounter)  # one query: the filter and the buttons both need it
    ctx: dict[str, Any] = {
        "acc": acc,
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "encounter": encounter,
        "state": service.visible_state(acc, encounter, controls),
        "system": get_system(encounter.system),
        "characters": service.participant_characters(db, encounter),
        "controls": controls,
        # Participants whose player left (the narrators play them): a step that waits for them is the narrator's.
        "unplayed": service.unplayed(db, acc, encounter) if acc.is_narrator else set(),
        "idempotency_key": secrets.token_urlsafe(16),
        "errors": {},
        "result": None,
        # The team talk of an encounter whose kind has teams (templates/talk/team.html), only when the page renders it.
        "team_talk": (lambda: team_panel_context(db, acc, encounter)) if service.has_teams(encounter) else None,
    }
    ctx.update(extra)
    return ctx


def template_for(encounter: Encounter) -> str:
    """The system's own view, or the generic one (participants and state) for a system without pages."""
    return (
        f"{encounter.system}/encounter.html" if get_system(encounter.system).has_pages else "encounters/encounter.html"
    )
