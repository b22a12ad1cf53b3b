"""Characters: each belongs to a player (or to a narrator, for foes and extras) and to one rule system."""

from __future__ import annotations

import json
from typing import Any, cast

from pydantic import ValidationError
from sqlalchemy import CursorResult, Table, bindparam, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.campaigns.models import Membership
from app.campaigns.service import Access, in_campaign
from app.characters.models import Character
from app.errors import BadRequest, Conflict, Forbidden, validation_message
from app.i18n import _, rule_message
from app.systems import ActionError, get_system


def create_character(
    db: Session,
    acc: Access,
    *,
    name: str,
    system: str,
    sheet: dict[str, Any] | None = None,
    owner_id: int | None = None,
    kind: str = "pc",
) -> Character:
    name = name.strip()
    if not name:
        raise BadRequest(_("Give the character a name."), field="name")
    if len(name) > 120:
        raise BadRequest(_("Keep the name under 120 characters."), field="name")
    try:
        rule_system = get_system(system)
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field="system") from exc
    if rule_system.id not in acc.campaign.systems:
        raise BadRequest(_("This campaign does not use {name}.").format(name=_(rule_system.name)), field="system")
    if kind not in ("pc", "npc"):
        raise BadRequest(_("A character is a player character or a narrator's character."), field="kind")
    if not acc.is_narrator and (kind == "npc" or (owner_id not in (None, acc.user.id))):
        raise BadRequest(_("Players create their own player characters only."), field="kind")
    if (
        owner_id is not None
        and owner_id != acc.user.id
        and db.scalar(
            select(Membership.id).where(Membership.campaign_id == acc.campaign.id, Membership.user_id == owner_id)
        )
        is None
    ):
        raise BadRequest(
            _("The owner must be a member of this campaign (owner_id {id} is not).").format(id=owner_id),
            field="owner_id",
        )
    try:
        clean = rule_system.new_sheet(sheet or {})
    except ValidationError as exc:
        message, field = validation_message(exc, rule_system.sheet, rule_system.labels)
        raise BadRequest(message, field=field) from exc
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc
    character = Character(
        campaign_id=acc.campaign.id,
        owner_id=owner_id or acc.user.id,
        system=rule_system.id,
        name=name,
        kind=kind,
        sheet=clean,
    )
    db.add(character)
    db.flush()
    return character


def characters_for(db: Session, acc: Access) -> list[Character]:
    """Everyone sees the cast list; sheets the caller may not open are marked by `can_act`."""
    return list(
        db.scalars(
            select(Character).where(Character.campaign_id == acc.campaign.id).order_by(Character.kind, Character.name)
        )
    )


def can_act(acc: Access, character: Character) -> bool:
    return acc.is_narrator or character.owner_id == acc.user.id


def visible_sheet(acc: Access, character: Character) -> dict[str, Any]:
    """The one place that decides what a viewer reads of a sheet: all of it for the narrators, the owner's
    view for its player, the system's public part for everyone else. (Changes a hidden roll would make wait
    in its log entry until the reveal, so no sheet tells a hidden result.)"""
    system = get_system(character.system)
    if acc.is_narrator:
        return dict(character.sheet)
    if character.owner_id == acc.user.id:
        return system.owner_sheet(dict(character.sheet))
    return system.public_sheet(dict(character.sheet))


def character_in(db: Session, acc: Access, character_id: int, field: str | None = None) -> Character:
    """A character of this campaign that the caller may look at (everyone sees the cast list)."""
    return in_campaign(db, acc, Character, character_id, _("No such character in this campaign."), field)


def actable_characters(db: Session, acc: Access) -> list[Character]:
    return [c for c in characters_for(db, acc) if can_act(acc, c)]


def character_for(db: Session, acc: Access, character_id: int, *, system: str | None = None) -> Character:
    """A character the caller may act for (owner or narrator), of `system` if given."""
    character = character_in(db, acc, character_id, field="character_id")
    if not can_act(acc, character):
        raise Forbidden(_("You can only act for your own characters."), field="character_id")
    if system is not None and character.system != system:
        raise BadRequest(
            _("{name} is not a {system} character.").format(name=character.name, system=get_system(system).name),
            field="character_id",
        )
    return character


# Built once (SQLAlchemy caches its compiled form): the sheet write of every action that changes a sheet.
_characters = cast(Table, Character.__table__)
_SAVE_SHEET = (
    update(_characters)
    .where(_characters.c.id == bindparam("b_id"), _characters.c.version == bindparam("b_seen"))
    .values(sheet=bindparam("b_sheet"), version=bindparam("b_next"))
)


def save_sheet(db: Session, character: Character, sheet: dict[str, Any]) -> None:
    """Under the log lock: write the sheet only if it is still the version read (a lost update is impossible).

    A Core UPDATE on the session's connection (no ORM bulk-update machinery, no reload): the object then holds
    what was written — the sheet as the database returns it (a JSON round trip) and the next version — as its
    committed state."""
    seen = character.version
    stored = json.loads(json.dumps(sheet))
    done = cast(
        CursorResult[Any],
        db.connection().execute(
            _SAVE_SHEET, {"b_id": character.id, "b_seen": seen, "b_sheet": stored, "b_next": seen + 1}
        ),
    ).rowcount
    if not done:
        raise Conflict(_("The sheet changed while you were rolling: reload and try again."))
    set_committed_value(character, "sheet", stored)
    set_committed_value(character, "version", seen + 1)
