"""Table talk's writes and reads: a message, its edits and its withdrawal are log entries (kinds message, edit,
retract; system "talk"), appended by the one writer (app/rolls/appending.py) in one transaction each — chained,
salted, published live, idempotent, in the export. Nothing is stored outside the log: a message's latest text
and whether it was withdrawn are read from the entries that point at it (`target_seq`).

Who reads a whisper or team talk is fixed when it is written: the reader ids go into the hashed, salted body
(`request.readers`) and app/rolls/visibility.py decides from them, for every page, fragment, stream, search and
export. Edits and withdrawals carry the same readers, so they are hidden from exactly the same people.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.service import Access, members
from app.characters.models import Character
from app.characters.service import can_act, character_in
from app.errors import BadRequest, Conflict, Forbidden, NotFound
from app.i18n import N_, _, msg, number
from app.live.events import LiveEvent
from app.rolls import chain, idempotency
from app.rolls import service as rules
from app.rolls.appending import Publish, appending, no_publish, write_entry, writer_lock
from app.rolls.effects import TalkPosted, emit
from app.rolls.idempotency import Once, Replayed
from app.rolls.models import LogEntry
from app.rolls.present import viewer_view
from app.rolls.visibility import TEAM, WHISPER, View, Visibility
from app.rules.dice import Dice
from app.systems import ROLLER
from app.talk.audience import Audience, audience_of, mentioned_readers
from app.talk.rate import RATE, count_post
from app.talk.text import MAX_LENGTH

SYSTEM = "talk"
KINDS = ("message", "edit", "retract")
MODES = ("ooc", "ic")
AUDIENCES = ("public", "narrator", WHISPER, TEAM)
ROLL_PREFIXES = ("/r ", "/roll ")
# At most RATE accepted posts (messages and /r rolls) per member per campaign in WINDOW (TABLE-API.md, section 1).


class MessageRequest(BaseModel):
    """`POST /api/campaigns/{id}/messages` and the composer's form (docs/API.md)."""

    text: str
    mode: Literal["ooc", "ic"] = "ooc"
    as_character_id: int | None = None
    visibility: Literal["public", "narrator", "whisper", "team"] = "public"
    to: list[int] | None = None
    encounter_id: int | None = None


@dataclass(frozen=True)
class Posted:
    entry: LogEntry
    replayed: bool = False


# --- text -------------------------------------------------------------------------------------------------------


def clean_text(text: str, field_name: str = "text") -> str:
    """1–4,000 characters after trimming; line breaks kept (CR LF → LF); no control characters but tab and LF."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise BadRequest(_("Write something first."), field=field_name)
    if len(text) > MAX_LENGTH:
        raise BadRequest(
            _("A message has at most {n} characters (this one has {count}).").format(
                n=number(MAX_LENGTH), count=number(len(text))
            ),
            field=field_name,
        )
    if any((ord(c) < 32 and c not in "\n\t") or ord(c) == 127 for c in text):
        raise BadRequest(_("The text holds control characters: take them out."), field=field_name)
    return text


def roll_text(text: str) -> tuple[str, str] | None:
    """`/r 2d6+1 # a note` → ("2d6+1", "a note"); None when the text is not a roll."""
    stripped = text.strip()
    for prefix in ROLL_PREFIXES:
        if stripped.lower().startswith(prefix):
            expression, _sep, note = stripped[len(prefix) :].partition("#")
            return expression.strip(), note.strip()
    return None


def digest_of(*parts: Any) -> str:
    return hashlib.sha256(chain.canonical_json({"request": list(parts)})).hexdigest()


# --- writes -----------------------------------------------------------------------------------------------------


def post_message(
    db: Session,
    acc: Access,
    req: MessageRequest,
    *,
    idempotency_key: str | None = None,
    publish: Publish = no_publish,
    dice: Dice | None = None,
    rate: int = RATE,
) -> Posted:
    """A message, or (text `/r …`, `/roll …`) a dice roll through the rules service. `rate`: accepted posts per
    member per campaign in WINDOW (Settings.talk_rate_limit)."""
    rolled = roll_text(req.text)
    if rolled is not None:
        return _post_roll(db, acc, req, rolled, idempotency_key=idempotency_key, publish=publish, dice=dice, rate=rate)
    text = clean_text(req.text)
    character: Character | None = None
    if req.as_character_id is not None:
        character = speaker(db, acc, req.as_character_id)
    if req.mode == "ic" and character is None:
        raise BadRequest(_("Choose the character who speaks."), field="as_character_id")
    audience = audience_of(db, acc, req)
    mentions = mentioned_readers(db, acc, text, audience)
    digest = digest_of("message", req.model_dump(mode="json"))
    outcome: dict[str, Any] = {
        "text": text,
        "mode": req.mode,
        "as_character_id": character.id if character else None,
        "as": character.name if character else None,
    }
    if audience.to is not None:
        outcome["to"] = audience.to
    if audience.team is not None:
        outcome["team"] = audience.team
    request: dict[str, Any] = {"mode": req.mode, "mentions": mentions}
    if audience.readers is not None:
        request["readers"] = audience.readers
    if audience.to_names is not None:
        request["to_names"] = audience.to_names
    try:
        with appending(db, acc, publish) as (seq, prev_hash):
            idempotency.check(db, acc, Once(idempotency_key, digest))
            count_post(db, acc, rate)
            entry = write_entry(
                db,
                acc,
                seq,
                prev_hash,
                kind="message",
                system=SYSTEM,
                action=req.mode,
                visibility=audience.visibility,
                character=character,
                idempotency_key=idempotency_key,
                request_hash=digest,
                content={"request": request, "outcome": outcome, "summary": text},
            )
            whispered = (audience.to or []) if audience.visibility == WHISPER else []
            # Whoever waits for it is told (app/notify subscribes: queued in this transaction).
            emit(db, TalkPosted(acc.campaign, seq, acc.user.username, acc.user.id, tuple(whispered), tuple(mentions)))
    except Replayed as replay:
        return Posted(replay.entry, replayed=True)
    if audience.visibility == TEAM:
        publish(acc.campaign.id, LiveEvent.TALK, None)
    return Posted(entry)


def speaker(db: Session, acc: Access, character_id: int) -> Character:
    """Who speaks in character: a player only a character they may act for; a narrator any, foes included."""
    character = character_in(db, acc, character_id, field="as_character_id")
    if not can_act(acc, character):
        raise Forbidden(_("You can only speak as your own characters."), field="as_character_id")
    return character


def _post_roll(
    db: Session,
    acc: Access,
    req: MessageRequest,
    rolled: tuple[str, str],
    *,
    idempotency_key: str | None,
    publish: Publish,
    dice: Dice | None,
    rate: int,
) -> Posted:
    expression, note = rolled
    if req.visibility not in ("public", "narrator"):
        raise BadRequest(
            _("A roll is shown to everyone or to you and the narrators, never whispered."), field="visibility"
        )
    if req.to is not None:
        raise BadRequest(_("Only a whisper has recipients (“to”)."), field="to")
    if req.encounter_id is not None:
        raise BadRequest(_("Only team talk names a conflict (“encounter_id”)."), field="encounter_id")
    if not expression:
        raise BadRequest(_("Write the dice after /r, e.g. /r 2d6+1."), field="text")
    action = rules.ActionRequest(
        system=ROLLER,
        action="roll",
        character_id=req.as_character_id,
        params={"expression": expression},
        visibility=Visibility(req.visibility),
        note=note,
    )
    # The count and the roll in one transaction: the writer lock first (re-entrant: perform_action takes it again),
    # so this process's writers queue in one order; a refused or failed roll rolls the count back.
    with writer_lock(db, acc.campaign.id):
        try:
            count_post(db, acc, rate)
            result = rules.perform_action(db, acc, action, dice=dice, idempotency_key=idempotency_key, publish=publish)
        except BaseException:
            db.rollback()
            raise
        if result.replayed:
            db.rollback()  # a replay is not a new post: the count goes back
    return Posted(result.entry, replayed=result.replayed)


def message_entry(db: Session, acc: Access, seq: int) -> LogEntry:
    """A message this viewer may read (else: no such message — a hidden one is not named)."""
    entry = db.scalar(select(LogEntry).where(LogEntry.campaign_id == acc.campaign.id, LogEntry.seq == seq))
    if entry is None or entry.kind != "message" or viewer_view(entry, acc.user.id, acc.is_narrator) != View.FULL:
        raise NotFound(_("There is no message #{seq} that you can read.").format(seq=seq))
    return entry


def _follow_up_request(target: LogEntry) -> dict[str, Any]:
    request = target.body.get("request") or {}
    return {"readers": request["readers"]} if "readers" in request else {}


def _withdrawn(db: Session, campaign_id: int, seq: int) -> bool:
    return (
        db.scalar(
            select(LogEntry.seq).where(
                LogEntry.campaign_id == campaign_id, LogEntry.kind == "retract", LogEntry.target_seq == seq
            )
        )
        is not None
    )


def edit_message(
    db: Session, acc: Access, seq: int, text: str, *, idempotency_key: str | None = None, publish: Publish = no_publish
) -> Posted:
    target = message_entry(db, acc, seq)
    if target.actor_id != acc.user.id:
        raise Forbidden(_("Only its author can edit a message."))
    text = clean_text(text)
    digest = digest_of("edit", seq, text)
    audience = Audience(target.visibility, readers=(target.body.get("request") or {}).get("readers"))
    request = {**_follow_up_request(target), "mentions": mentioned_readers(db, acc, text, audience)}
    try:
        with appending(db, acc, publish) as (new_seq, prev_hash):
            idempotency.check(db, acc, Once(idempotency_key, digest))
            if _withdrawn(db, acc.campaign.id, seq):
                raise Conflict(_("Message #{seq} was withdrawn: it cannot be edited.").format(seq=seq))
            entry = write_entry(
                db,
                acc,
                new_seq,
                prev_hash,
                kind="edit",
                system=SYSTEM,
                action="edit",
                visibility=target.visibility,
                target_seq=seq,
                idempotency_key=idempotency_key,
                request_hash=digest,
                content={"request": request, "outcome": {"text": text}, "summary": text},
            )
    except Replayed as replay:
        return Posted(replay.entry, replayed=True)
    if target.visibility == TEAM:
        publish(acc.campaign.id, LiveEvent.TALK, None)
    return Posted(entry)


def retract_message(
    db: Session, acc: Access, seq: int, *, idempotency_key: str | None = None, publish: Publish = no_publish
) -> Posted:
    """The author, or a narrator who may read the message. Its body stays in the chain."""
    target = message_entry(db, acc, seq)
    if target.actor_id != acc.user.id and not acc.is_narrator:
        raise Forbidden(_("Only its author or a narrator can withdraw a message."))
    digest = digest_of("retract", seq)
    try:
        with appending(db, acc, publish) as (new_seq, prev_hash):
            idempotency.check(db, acc, Once(idempotency_key, digest))
            if _withdrawn(db, acc.campaign.id, seq):
                raise Conflict(_("Message #{seq} is already withdrawn.").format(seq=seq))
            entry = write_entry(
                db,
                acc,
                new_seq,
                prev_hash,
                kind="retract",
                system=SYSTEM,
                action="retract",
                visibility=target.visibility,
                target_seq=seq,
                subject_id=target.actor_id,
                idempotency_key=idempotency_key,
                request_hash=digest,
                content={
                    "request": _follow_up_request(target),
                    "summary": msg(N_("withdrew message #{seq}."), seq=seq),
                },
            )
    except Replayed as replay:
        return Posted(replay.entry, replayed=True)
    if target.visibility == TEAM:
        publish(acc.campaign.id, LiveEvent.TALK, None)
    return Posted(entry)


# --- reads ------------------------------------------------------------------------------------------------------


def member_choices(db: Session, acc: Access) -> list[tuple[int, str]]:
    """Whom the viewer can whisper to or @mention: the other members, by name."""
    return [(user.id, user.username) for user, _role in members(db, acc.campaign.id) if user.id != acc.user.id]
