"""What the talk templates render from: the composer (campaign page, every sheet: templates/talk/composer.html)
and the team talk panel of an encounter with teams (a Rabbits conflict) (templates/talk/team.html)."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access, members
from app.characters.models import Character
from app.characters.service import actable_characters
from app.encounters.models import Encounter
from app.rolls.log import entry_html
from app.rolls.models import LogEntry
from app.rolls.present import viewer_view
from app.rolls.visibility import TEAM, View
from app.talk.audience import talk_conflicts, team_of_author
from app.talk.history import talk_states
from app.talk.text import MAX_LENGTH

TEAM_PANEL_LINES = 30


def composer_context(
    db: Session,
    acc: Access,
    *,
    character: Character | None = None,
    form: dict[str, Any] | None = None,
    errors: dict[str, str] | None = None,
    result: dict[str, Any] | None = None,
    panel: str = "",
) -> dict[str, Any]:
    """`character`: the sheet the composer is on (its default voice, when the viewer may speak as it)."""
    speakers = [(c.id, c.name, c.kind) for c in actable_characters(db, acc)]
    default_as = str(character.id) if character is not None and any(s[0] == character.id for s in speakers) else ""
    everyone = [(user.id, user.username) for user, _role in members(db, acc.campaign.id)]
    conflicts = [
        {"id": encounter.id, "title": encounter.title, "team": team.name} for encounter, team in talk_conflicts(db, acc)
    ]
    form = {"as": default_as, "audience": "public", "to": [], "text": "", **(form or {})}
    return {
        "campaign": acc.campaign,
        "is_narrator": acc.is_narrator,
        "speakers": speakers,
        "others": [(uid, name) for uid, name in everyone if uid != acc.user.id],
        "mention_names": [name for uid, name in everyone if uid != acc.user.id],
        "conflicts": conflicts,
        "form": form,
        "errors": errors or {},
        "result": result,
        "idempotency_key": secrets.token_urlsafe(16),
        "panel": panel,
        "max_length": MAX_LENGTH,
    }


def team_panel_context(
    db: Session,
    acc: Access,
    encounter: Encounter,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A conflict's team talk for this viewer: their team's lines (words), and — for everyone — that team talk
    happened since the conflict began (the header every member sees of any entry, never its words or readers).
    """
    mine = team_of_author(db, acc, encounter)
    rows = list(
        db.scalars(
            select(LogEntry)
            .where(
                LogEntry.campaign_id == acc.campaign.id,
                LogEntry.system == "talk",
                LogEntry.kind == "message",
                LogEntry.visibility == TEAM,
                LogEntry.created_at >= encounter.created_at,
            )
            .order_by(LogEntry.seq.desc())
            .limit(TEAM_PANEL_LINES)
        )
    )
    rows.reverse()
    shown = []
    others = 0  # the other teams' lines: a viewer on a team sees only their count, not a line each
    for row in rows:
        if viewer_view(row, acc.user.id, acc.is_narrator) == View.FULL:
            audience = (row.body.get("outcome") or {}).get("team") or {}  # talk's own: {encounter_id, key, name}
            if audience.get("encounter_id") != encounter.id:
                continue  # the viewer's team talk of another conflict
            if mine is not None and audience.get("key") != mine.key:
                others += 1  # another team this viewer also reads (a narrator running two teams)
                continue
        elif mine is not None:
            others += 1
            continue
        shown.append(row)
    states = talk_states(db, acc.campaign.id, [r.seq for r in shown])
    return {
        "campaign": acc.campaign,
        "encounter": encounter,
        "team": mine,
        "lines": [entry_html(r, acc.user.id, acc.is_narrator, talk=states.get(r.seq)) for r in shown],
        "others": others,
        "errors": errors or {},
        "form": form or {},
        "idempotency_key": secrets.token_urlsafe(16),
        "active": encounter.status == "active",
    }
