"""The narrator's corrections, each a new entry (entries are only ever inserted): void, reveal (which applies
the sheet changes a hidden action held back) and adjusting a sheet by hand."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access, require_narrator
from app.characters.models import Character
from app.characters.service import character_for, save_sheet
from app.errors import BadRequest, Conflict, Forbidden, NotFound, validation_message
from app.i18n import _, msg
from app.live.events import LiveEvent
from app.rolls import patch
from app.rolls.appending import Publish, append_note, appending, no_publish, write_entry
from app.rolls.models import LogEntry
from app.rolls.visibility import Visibility
from app.systems import get_system


def entry_by_seq(db: Session, campaign_id: int, seq: int) -> LogEntry:
    entry = db.scalar(select(LogEntry).where(LogEntry.campaign_id == campaign_id, LogEntry.seq == seq))
    if entry is None:
        raise NotFound(_("There is no entry #{seq}.").format(seq=seq))
    return entry


TALK_KINDS = ("message", "edit", "retract")  # app/talk: table talk's entries


def _correction_of(db: Session, campaign_id: int, kind: str, seq: int) -> int | None:
    return db.scalar(
        select(LogEntry.seq).where(
            LogEntry.campaign_id == campaign_id, LogEntry.kind == kind, LogEntry.target_seq == seq
        )
    )


def void_entry(db: Session, acc: Access, seq: int, reason: str, publish: Publish = no_publish) -> LogEntry:
    """A void inherits the voided entry's visibility (its reason cannot leak a hidden roll) and is seen by the
    voided entry's roller (or, for an adjustment, the character's owner) as by its actor."""
    require_narrator(acc)
    reason = reason.strip()
    if not reason:
        raise BadRequest(_("Say why the entry is void."), field="reason")
    target = entry_by_seq(db, acc.campaign.id, seq)
    if target.kind not in ("action", "adjust"):
        raise BadRequest(_("Only rolls and adjustments can be voided."))
    if _correction_of(db, acc.campaign.id, "void", seq) is not None:
        raise Conflict(_("Entry #{seq} is already void.").format(seq=seq))
    subject = target.actor_id if target.kind == "action" else target.subject_id
    return append_note(
        db,
        acc,
        kind="void",
        action="void",
        summary=msg("voided #{seq}: {reason}", seq=seq, reason=reason),
        visibility=target.visibility,
        request={"reason": reason},
        target_seq=seq,
        subject_id=subject,
        publish=publish,
    )


def reveal_entry(db: Session, acc: Access, seq: int, publish: Publish = no_publish) -> LogEntry:
    """Publish a hidden entry's body and salt, and apply the sheet changes it held back (unless it was voided).
    Narrators reveal blind and narrator entries; a roll kept to oneself (or shown to the narrators only) can
    also be revealed by its roller."""
    target = entry_by_seq(db, acc.campaign.id, seq)
    own = target.actor_id == acc.user.id
    if target.kind in TALK_KINDS:
        # Talk is read by whom its author chose (a whisper's readers, a team): nobody reveals it to others.
        raise BadRequest(_("Talk is never revealed: its readers were chosen when it was written."))
    if target.visibility == Visibility.PUBLIC:
        raise BadRequest(_("Entry #{seq} is already public.").format(seq=seq))
    if target.visibility == Visibility.SELF and not own:
        raise Forbidden(_("Only the roller can reveal a roll they kept to themselves."))
    if not acc.is_narrator and not (own and target.visibility in (Visibility.SELF, Visibility.NARRATOR)):
        raise Forbidden(_("Only a narrator can do that."))
    if _correction_of(db, acc.campaign.id, "reveal", seq) is not None:
        raise Conflict(_("Entry #{seq} is already revealed.").format(seq=seq))
    voided = _correction_of(db, acc.campaign.id, "void", seq) is not None
    summary = msg(
        "revealed #{seq}: {actor} {summary}",
        seq=seq,
        actor=target.body.get("actor") or "",
        summary=target.body.get("summary") or "",
    )
    with appending(db, acc, publish) as (new_seq, prev_hash):
        applied = {} if voided else _apply_held(db, acc, target.body.get("held") or {})
        entry = write_entry(
            db,
            acc,
            new_seq,
            prev_hash,
            kind="reveal",
            system="table",
            action="reveal",
            visibility="public",
            target_seq=seq,
            subject_id=target.actor_id,
            content={
                "summary": summary,
                "outcome": {"held": applied} if applied else None,
                "revealed": {"seq": seq, "body": target.body, "salt": target.salt},
            },
        )
    for cid, done in applied.items():
        if done == "applied":
            publish(acc.campaign.id, LiveEvent.SHEET, int(cid))
    return entry


def _apply_held(db: Session, acc: Access, held: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Under the log lock: apply a revealed entry's held changes to the sheets as they are now."""
    done: dict[str, str] = {}
    for cid, ops in held.items():
        character = db.get(Character, int(cid))
        if character is None or character.campaign_id != acc.campaign.id:
            done[cid] = "character gone"
            continue
        db.refresh(character)
        try:
            changed = patch.apply(dict(character.sheet), ops)
            sheet = get_system(character.system).sheet.model_validate(changed).model_dump(mode="json")
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            done[cid] = f"not applied: {str(exc).splitlines()[0]}"
            continue
        save_sheet(db, character, sheet)
        done[cid] = "applied"
    return done


def adjust_sheet(
    db: Session, acc: Access, character_id: int, changes: dict[str, Any], reason: str, publish: Publish = no_publish
) -> LogEntry:
    """The narrator changes a sheet by hand, with a reason; the change and the entry land together. The entry
    takes the visibility of what it changes: public when every changed field is on the public sheet, else the
    narrators and the character's owner only (a secret name, a foe's levels)."""
    require_narrator(acc)
    reason = reason.strip()
    if not reason:
        raise BadRequest(_("Say why you are changing the sheet."), field="reason")
    character = character_for(db, acc, character_id)
    system = get_system(character.system)
    before = dict(character.sheet)
    try:
        after = system.sheet.model_validate({**before, **changes}).model_dump(mode="json")
    except ValidationError as exc:
        message, field = validation_message(exc, system.sheet, system.labels)
        raise BadRequest(message, field=field) from exc
    changed = {k: {"from": before.get(k), "to": v} for k, v in after.items() if before.get(k) != v}
    shown_before, shown_after = system.public_sheet(before), system.public_sheet(after)
    public = all(shown_before.get(k) == before.get(k) and shown_after.get(k) == after.get(k) for k in changed)
    with appending(db, acc, publish) as (seq, prev_hash):
        db.refresh(character)
        save_sheet(db, character, after)
        entry = write_entry(
            db,
            acc,
            seq,
            prev_hash,
            kind="adjust",
            system=character.system,
            action="adjust",
            visibility=str(Visibility.PUBLIC if public else Visibility.NARRATOR),
            character=character,
            subject_id=None if public else character.owner_id,
            content={
                "request": {"changes": changes, "reason": reason},
                "outcome": changed,
                "summary": msg("adjusted {name}'s sheet ({reason})", name=character.name, reason=reason),
            },
        )
    publish(acc.campaign.id, LiveEvent.SHEET, character.id)
    return entry
