"""Roll prompts: the narrator calls for a roll with some parameters locked; the player answers it on the sheet
(perform_action with `prompt_id`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access, in_campaign, require_narrator
from app.characters.models import Character
from app.characters.service import character_for
from app.errors import BadRequest
from app.i18n import _, rule_message
from app.live.events import LiveEvent
from app.rolls.appending import Publish, check_note, no_publish
from app.rolls.effects import PromptsOpened, emit
from app.rolls.models import RollPrompt
from app.rolls.visibility import Visibility, kept_to_oneself_refusal
from app.systems import ROLLER, ActionError, get_action


def create_prompt(
    db: Session,
    acc: Access,
    *,
    character_id: int,
    system: str,
    action: str,
    locked: dict[str, Any],
    visibility: str = "public",
    note: str = "",
    publish: Publish = no_publish,
) -> RollPrompt:
    prompt = new_prompt(
        db,
        acc,
        character_id=character_id,
        system=system,
        action=action,
        locked=locked,
        visibility=visibility,
        note=note,
    )
    db.add(prompt)
    db.flush()
    emit(db, PromptsOpened(acc.campaign, (prompt,), acc.user.id))  # each waits for its player (app/notify)
    db.commit()
    publish(acc.campaign.id, LiveEvent.PROMPTS, None)
    return prompt


def create_prompts(
    db: Session,
    acc: Access,
    *,
    character_ids: list[int],
    system: str,
    action: str,
    locked: dict[str, Any],
    visibility: str = "public",
    note: str = "",
    publish: Publish = no_publish,
) -> list[RollPrompt]:
    """The same prompt for several characters (the narrator screen): every one is checked before any is made,
    and they are committed together — all or none."""
    made = [
        new_prompt(
            db, acc, character_id=cid, system=system, action=action, locked=locked, visibility=visibility, note=note
        )
        for cid in character_ids
    ]
    db.add_all(made)
    db.flush()
    emit(db, PromptsOpened(acc.campaign, tuple(made), acc.user.id))
    db.commit()
    publish(acc.campaign.id, LiveEvent.PROMPTS, None)
    return made


def new_prompt(
    db: Session,
    acc: Access,
    *,
    character_id: int,
    system: str,
    action: str,
    locked: dict[str, Any],
    visibility: str = "public",
    note: str = "",
) -> RollPrompt:
    """A checked prompt, not yet added to the session."""
    require_narrator(acc)
    character = character_for(db, acc, character_id)
    try:
        rule_system, rule_action = get_action(system, action)
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc
    if rule_system.id not in acc.campaign.systems:
        raise BadRequest(_("This campaign does not use {name}.").format(name=_(rule_system.name)), field="system")
    if rule_system.id != ROLLER and character.system != rule_system.id:
        raise BadRequest(
            _("{name} is not a {system} character.").format(name=character.name, system=_(rule_system.name)),
            field="character_id",
        )
    unknown = set(locked) - set(rule_action.params.model_fields)
    if unknown:
        raise BadRequest(_("Unknown parameter: {names}.").format(names=", ".join(sorted(unknown))), field="params")
    if visibility not in Visibility.__members__.values():
        raise BadRequest(_("Choose who sees the roll."), field="visibility")
    if visibility == Visibility.SELF and not rule_action.changes_nothing:
        raise BadRequest(kept_to_oneself_refusal(), field="visibility")  # its answer would be refused (service.py)
    return RollPrompt(
        campaign_id=acc.campaign.id,
        character_id=character.id,
        created_by=acc.user.id,
        system=rule_system.id,
        action=rule_action.id,
        locked=dict(locked),
        visibility=visibility,
        note=check_note(note),
    )


def cancel_prompt(db: Session, acc: Access, prompt_id: int, publish: Publish = no_publish) -> None:
    require_narrator(acc)
    prompt = prompt_in(db, acc, prompt_id)
    if prompt.status == "open":
        prompt.status = "cancelled"
    db.commit()
    publish(acc.campaign.id, LiveEvent.PROMPTS, None)


def prompt_in(db: Session, acc: Access, prompt_id: int) -> RollPrompt:
    return in_campaign(db, acc, RollPrompt, prompt_id, _("No such roll prompt."))


def open_prompts_for(db: Session, character: Character) -> list[RollPrompt]:
    """The roll prompts waiting for this character (its sheet shows them to whoever may act for it)."""
    return list(
        db.scalars(
            select(RollPrompt)
            .where(RollPrompt.character_id == character.id, RollPrompt.status == "open")
            .order_by(RollPrompt.id)
        )
    )


def open_prompts(db: Session, acc: Access) -> list[tuple[RollPrompt, Character]]:
    query = (
        select(RollPrompt, Character)
        .join(Character, Character.id == RollPrompt.character_id)
        .where(RollPrompt.campaign_id == acc.campaign.id, RollPrompt.status == "open")
        .order_by(RollPrompt.id)
    )
    if not acc.is_narrator:
        query = query.where(Character.owner_id == acc.user.id)
    return [(p, c) for p, c in db.execute(query).all()]
