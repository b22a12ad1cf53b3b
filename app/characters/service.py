"""Characters: each belongs to a player (or to a narrator, for foes and extras) and to one rule system."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access
from app.characters.models import Character
from app.errors import BadRequest
from app.rolls.service import validation_message
from app.systems import ActionError, get_system


def create_character(db: Session, acc: Access, *, name: str, system: str, sheet: dict[str, Any] | None = None,
                     owner_id: int | None = None, kind: str = "pc") -> Character:
    name = name.strip()
    if not name:
        raise BadRequest("Give the character a name.", field="name")
    if len(name) > 120:
        raise BadRequest("Keep the name under 120 characters.", field="name")
    try:
        rule_system = get_system(system)
    except ActionError as exc:
        raise BadRequest(exc.message, field="system") from exc
    if rule_system.id not in acc.campaign.systems:
        raise BadRequest(f"This campaign does not use {rule_system.name}.", field="system")
    if kind not in ("pc", "npc"):
        raise BadRequest("A character is a player character or a narrator's character.", field="kind")
    if not acc.is_narrator and (kind == "npc" or (owner_id not in (None, acc.user.id))):
        raise BadRequest("Players create their own player characters only.", field="kind")
    try:
        clean = rule_system.sheet.model_validate(sheet or {}).model_dump(mode="json")
    except ValidationError as exc:
        message, field = validation_message(exc)
        raise BadRequest(message, field=field) from exc
    character = Character(campaign_id=acc.campaign.id, owner_id=owner_id or acc.user.id, system=rule_system.id,
                          name=name, kind=kind, sheet=clean)
    db.add(character)
    db.flush()
    return character


def characters_for(db: Session, acc: Access) -> list[Character]:
    """Everyone sees the cast list; sheets the caller may not open are marked by `can_act`."""
    return list(db.scalars(select(Character).where(Character.campaign_id == acc.campaign.id)
                           .order_by(Character.kind, Character.name)))


def can_act(acc: Access, character: Character) -> bool:
    return acc.is_narrator or character.owner_id == acc.user.id


def actable_characters(db: Session, acc: Access) -> list[Character]:
    return [c for c in characters_for(db, acc) if can_act(acc, c)]
