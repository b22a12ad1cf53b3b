"""The open roll prompts of a campaign, read from the database (the JSON API can create a prompt but lists none)."""

from __future__ import annotations

from typing import Any


def open_prompts(app: Any, campaign_id: int) -> list[dict[str, Any]]:
    """Every open prompt of the campaign, oldest first: id, system, action, character_id, locked and note."""
    from sqlalchemy import select

    from app.rolls.models import RollPrompt

    with app.state.sessionmaker() as db:
        return [
            {
                "id": p.id,
                "system": p.system,
                "action": p.action,
                "character_id": p.character_id,
                "locked": dict(p.locked),
                "note": p.note,
            }
            for p in db.scalars(
                select(RollPrompt)
                .where(RollPrompt.campaign_id == campaign_id, RollPrompt.status == "open")
                .order_by(RollPrompt.id)
            )
        ]
