"""The rules service: every action, correction and announcement reaches the log through here.

One transaction does it all: lock the campaign's log head (UPDATE … RETURNING, which queues concurrent
writers on SQLite and row-locks on PostgreSQL), check the idempotency key, resolve the action with the
server's dice, apply the sheet change with an optimistic version check, append the chained entry, commit,
and only then tell the broker.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.i18n import _
from app.campaigns.models import Campaign, GameSession
from app.campaigns.service import Access, current_session, require_narrator
from app.characters.models import Character
from app.encounters.models import Encounter
from app.errors import BadRequest, Conflict, Forbidden, NotFound
from app.rolls import chain, patch
from app.rolls.models import LogEntry, RollPrompt
from app.rolls.visibility import Visibility
from app.rules.dice import Dice, SecureDice
from app.systems import Action, ActionError, Context, Resolution, get_action, get_system
from app.types import utcnow

Publish = Callable[[int, str, int | None], None]


def _no_publish(campaign_id: int, event: str, seq: int | None) -> None:
    return None


class ActionRequest(BaseModel):
    system: str
    action: str
    character_id: int | None = None
    params: dict[str, Any] = {}
    visibility: Visibility = Visibility.PUBLIC
    note: str = ""
    prompt_id: int | None = None
    expected_version: int | None = None


@dataclass(frozen=True)
class ActionResult:
    entry: LogEntry
    replayed: bool = False
    encounter_id: int | None = None


def validation_message(exc: ValidationError) -> tuple[str, str | None]:
    """The first problem of a pydantic error, in words, and the field it belongs to."""
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__") or None
    message = err.get("msg", "is not valid")
    return (f"{field}: {message}" if field else message), field


def _lock_head(db: Session, campaign_id: int) -> tuple[int, str]:
    row = db.execute(
        update(Campaign).where(Campaign.id == campaign_id).values(last_seq=Campaign.last_seq + 1)
        .execution_options(synchronize_session=False)
        .returning(Campaign.last_seq, Campaign.head_hash)
    ).one()
    return row[0], row[1]


class _Replayed(Exception):
    """The idempotency key was used before: roll back and return the first entry."""

    def __init__(self, entry: LogEntry) -> None:
        self.entry = entry


@contextmanager
def _appending(db: Session, acc: Access, publish: Publish) -> Iterator[tuple[int, str]]:
    """Lock the log head and yield (seq, prev_hash); commit when the block ends, roll back if it raises,
    and tell the broker only after the commit."""
    with _writer_lock(db, acc.campaign.id):
        seq, prev_hash = _lock_head(db, acc.campaign.id)
        try:
            yield seq, prev_hash
            db.commit()
        except BaseException:
            db.rollback()
            raise
        finally:
            db.info.pop(_GAME_SESSION, None)
    publish(acc.campaign.id, "entry", seq)


_GAME_SESSION = "fateboard.game_session"


def _game_session(db: Session, acc: Access) -> GameSession | None:
    """The running game session, read once per transaction (the entry and the action's context both need it).
    A session started in this transaction is flushed before the entry is written, so it is seen."""
    if _GAME_SESSION not in db.info:
        db.info[_GAME_SESSION] = current_session(db, acc.campaign.id)
    return db.info[_GAME_SESSION]


_WRITERS: dict[tuple[str, int], threading.Lock] = {}
_WRITERS_GUARD = threading.Lock()


@contextmanager
def _writer_lock(db: Session, campaign_id: int) -> Iterator[None]:
    """Queue this process's writers on a Python lock before they take the database's: SQLite's busy handler
    polls (sleeping 1, 2, 5 … 100 ms), so waiting writers were overtaken and the tail reached seconds; on
    PostgreSQL, 40 threads holding connections while they wait for the campaign's row lock starve its holder
    of the GIL. Other processes still meet the database's own lock. SQLite locks the whole database, so its
    key is the database; PostgreSQL locks the campaign row, so its key is the campaign."""
    bind = db.get_bind()
    key = (str(bind.url), 0 if bind.dialect.name == "sqlite" else campaign_id)
    with _WRITERS_GUARD:
        lock = _WRITERS.setdefault(key, threading.Lock())
    with lock:
        yield


def _write_entry(db: Session, acc: Access, seq: int, prev_hash: str, *, kind: str, system: str, action: str,
                 visibility: str, content: dict[str, Any], character: Character | None = None,
                 target_seq: int | None = None, subject_id: int | None = None, idempotency_key: str | None = None,
                 request_hash: str | None = None) -> LogEntry:
    session = _game_session(db, acc)
    now = utcnow()
    body = {
        "kind": kind, "system": system, "action": action, "seq": seq,
        "created_at": now.isoformat(), "actor": acc.user.username, "actor_id": acc.user.id,
        "character_id": character.id if character else None, "character": character.name if character else None,
        "session": session.number if session else None, "target_seq": target_seq,
        "request": content.get("request"), "dice": content.get("dice"), "outcome": content.get("outcome"),
        "summary": content.get("summary"), "note": content.get("note") or None,
    }
    for extra in ("revealed", "held"):
        if content.get(extra) is not None:
            body[extra] = content[extra]
    salt = chain.new_salt()
    digest = chain.body_hash(salt, body)
    entry = LogEntry(
        campaign_id=acc.campaign.id, seq=seq, created_at=now, actor_id=acc.user.id, actor_name=acc.user.username,
        character_id=body["character_id"], game_session_id=session.id if session else None, kind=kind,
        system=system, action=action, visibility=visibility, target_seq=target_seq, subject_id=subject_id,
        body=body, salt=salt, body_hash=digest, prev_hash=prev_hash, idempotency_key=idempotency_key,
        request_hash=request_hash,
    )
    entry.hash = chain.entry_hash(prev_hash, entry.header(), digest)
    db.add(entry)
    db.execute(update(Campaign).where(Campaign.id == acc.campaign.id).values(head_hash=entry.hash)
               .execution_options(synchronize_session=False))
    return entry


def _check_note(note: str) -> str:
    note = note.strip()
    if len(note) > 500:
        raise BadRequest(_("Keep the note under 500 characters."), field="note")
    return note


def character_for(db: Session, acc: Access, character_id: int, *, system: str | None = None) -> Character:
    character = db.get(Character, character_id)
    if character is None or character.campaign_id != acc.campaign.id:
        raise NotFound(_("No such character in this campaign."), field="character_id")
    if not acc.is_narrator and character.owner_id != acc.user.id:
        raise Forbidden(_("You can only act for your own characters."), field="character_id")
    if system is not None and character.system != system:
        raise BadRequest(_("{name} is not a {system} character.").format(name=character.name, system=get_system(system).name), field="character_id")
    return character


def _open_prompt(db: Session, acc: Access, req: ActionRequest) -> RollPrompt:
    prompt = db.get(RollPrompt, req.prompt_id)
    if prompt is None or prompt.campaign_id != acc.campaign.id:
        raise NotFound(_("No such roll prompt."))
    if prompt.status != "open":
        raise Conflict(_("That roll has already been made."))
    character_for(db, acc, prompt.character_id)
    return prompt


def request_digest(req: ActionRequest) -> str:
    """What an Idempotency-Key is bound to: the request as sent (a reuse with another request is refused)."""
    return hashlib.sha256(chain.canonical_json(req.model_dump(mode="json"))).hexdigest()


def perform_action(db: Session, acc: Access, req: ActionRequest, *, dice: Dice | None = None,
                   idempotency_key: str | None = None, publish: Publish = _no_publish) -> ActionResult:
    digest = request_digest(req) if idempotency_key else None
    prompt = _open_prompt(db, acc, req) if req.prompt_id is not None else None
    if prompt is not None:
        # The narrator's parameters win over anything the player sent.
        req = req.model_copy(update={
            "system": prompt.system, "action": prompt.action, "character_id": prompt.character_id,
            "params": {**req.params, **prompt.locked}, "visibility": prompt.visibility,
        })
    try:
        system, action = get_action(req.system, req.action)
        if system.id not in acc.campaign.systems:
            raise ActionError(f"This campaign does not use {system.name}.", field="system")
        params = action.params.model_validate(req.params)
    except ValidationError as exc:
        message, field = validation_message(exc)
        raise BadRequest(message, field=field) from exc
    except ActionError as exc:
        raise BadRequest(exc.message, field=exc.field) from exc
    note = _check_note(req.note)
    if action.narrator_only and not acc.is_narrator:
        raise Forbidden(_("Only a narrator can {action}.").format(action=action.name.lower()))
    hidden = req.visibility != Visibility.PUBLIC
    if hidden and action.encounter is not None:
        raise BadRequest(_("Moves in an encounter are seen by everyone at the table: make this one public."),
                         field="visibility")
    character = None
    if req.character_id is not None:
        character = character_for(db, acc, req.character_id, system=system.id if system.id != "dice" else None)
    elif action.needs_character:
        raise BadRequest(_("Choose a character for this action."), field="character_id")
    others = _involved(db, acc, action, params, system.id, character)
    encounter = _encounter_for(db, acc, action, params, system.id, character)
    if encounter is not None:  # a step involves the encounter's other participants (e.g. the opponent's health)
        others.update(_participants(db, encounter, character))

    try:
        with _appending(db, acc, publish) as (seq, prev_hash):
            if idempotency_key:
                existing = db.scalar(select(LogEntry).where(
                    LogEntry.campaign_id == acc.campaign.id, LogEntry.actor_id == acc.user.id,
                    LogEntry.idempotency_key == idempotency_key))
                if existing is not None:
                    if existing.request_hash is not None and existing.request_hash != digest:
                        raise BadRequest(_("This Idempotency-Key was already used for a different request: "
                                           "send a new key for a new request."), field="idempotency_key")
                    raise _Replayed(existing)
            sheet: dict[str, Any] = {}
            if character is not None:
                db.refresh(character)
                if req.expected_version is not None and req.expected_version != character.version:
                    raise Conflict(_("The sheet changed since you opened it: reload and try again."))
                sheet = dict(character.sheet)
            for other in others.values():
                db.refresh(other)
            if encounter is not None:
                _check_encounter_version(db, encounter, params)
            ctx = _context(db, acc, system.id, character, others, encounter, seq)
            before = copy.deepcopy({0: sheet, **{cid: dict(c.sheet) for cid, c in others.items()}}) if hidden else {}
            try:
                resolution = action.run(sheet, params, dice or SecureDice(), ctx)
            except ActionError as exc:
                raise BadRequest(exc.message, field=exc.field) from exc
            if any(other_id not in others for other_id in resolution.others):
                raise BadRequest(_("That action changed a character it does not involve."))
            if hidden and resolution.settings is not None:
                raise BadRequest(_("Changing the campaign's settings is seen by everyone: make this one public."),
                                 field="visibility")
            held = _hold(before, character, resolution) if hidden else None
            if held is None:
                if resolution.sheet is not None and character is not None:
                    _save_sheet(db, character, resolution.sheet)
                for other_id, other_sheet in resolution.others.items():
                    _save_sheet(db, others[other_id], other_sheet)
            encounter = _save_encounter(db, acc, action, system.id, params, encounter, resolution)
            if resolution.settings is not None:
                if not acc.is_narrator:
                    raise Forbidden(_("Only a narrator can change the campaign's settings."))
                settings = {**(acc.campaign.settings or {}), system.id: dict(resolution.settings)}
                db.execute(update(Campaign).where(Campaign.id == acc.campaign.id).values(settings=settings))
            entry = _write_entry(
                db, acc, seq, prev_hash, kind="action", system=system.id, action=action.id,
                visibility=str(req.visibility), character=character, idempotency_key=idempotency_key,
                request_hash=digest,
                content={"held": held or None, "request": {**resolution.request, **({"prompt_id": prompt.id} if prompt else {}),
                                     **({"encounter_id": encounter.id} if encounter else {})},
                         "dice": resolution.dice, "outcome": resolution.outcome, "summary": resolution.summary,
                         "note": note},
            )
            if prompt is not None:
                prompt.status, prompt.entry_seq = "done", seq
    except _Replayed as replay:
        return ActionResult(entry=replay.entry, replayed=True)
    if prompt is not None:
        publish(acc.campaign.id, "prompts", None)
    if encounter is not None:
        publish(acc.campaign.id, "encounter", encounter.id)
    return ActionResult(entry=entry, encounter_id=encounter.id if encounter else None)


def _hold(before: dict[int, dict[str, Any]], character: Character | None,
          resolution: Resolution) -> dict[str, list[dict[str, Any]]]:
    """A hidden action's sheet changes, kept as patches (app/rolls/patch.py) in the entry's hashed body and
    applied at the reveal: until then no sheet anyone can read tells a hidden success from a failure."""
    held: dict[str, list[dict[str, Any]]] = {}
    if resolution.sheet is not None and character is not None:
        ops = patch.diff(before[0], resolution.sheet)
        if ops:
            held[str(character.id)] = ops
    for other_id, other_sheet in resolution.others.items():
        ops = patch.diff(before[other_id], other_sheet)
        if ops:
            held[str(other_id)] = ops
    return held


def _involved(db: Session, acc: Access, action: Action, params: BaseModel, system_id: str,
              character: Character | None) -> dict[int, Character]:
    """The other characters an action names in its params (an opponent, helpers): same campaign and system."""
    found: dict[int, Character] = {}
    for name in action.involves:
        value = getattr(params, name, None)
        ids = value if isinstance(value, list | tuple) else [value]
        for cid in ids:
            if cid is None:
                continue
            other = db.get(Character, cid)
            if other is None or other.campaign_id != acc.campaign.id or other.system != system_id:
                raise NotFound(_("No such character in this campaign."), field=name)
            if character is not None and other.id == character.id:
                raise BadRequest(_("A character cannot be its own opponent or helper."), field=name)
            found[other.id] = other
    return found


def _encounter_for(db: Session, acc: Access, action: Action, params: BaseModel, system_id: str,
                   character: Character | None) -> Encounter | None:
    if action.encounter != "step":
        return None
    encounter = db.get(Encounter, getattr(params, "encounter_id", None))
    if encounter is None or encounter.campaign_id != acc.campaign.id or encounter.system != system_id:
        raise NotFound(_("No such encounter in this campaign."), field="encounter_id")
    if encounter.status != "active":
        raise Conflict(_("This encounter is over."))
    if character is not None and character.id not in {p["character_id"] for p in encounter.participants}:
        raise Forbidden(_("{name} is not part of this encounter.").format(name=character.name), field="character_id")
    return encounter


def _participants(db: Session, encounter: Encounter, character: Character | None) -> dict[int, Character]:
    """The encounter's participants other than the acting character: their sheets come in ctx.others and a
    step may change them (Resolution.others)."""
    found: dict[int, Character] = {}
    for p in encounter.participants:
        other = db.get(Character, p.get("character_id"))
        if other is not None and other.campaign_id == encounter.campaign_id and (character is None
                                                                                or other.id != character.id):
            found[other.id] = other
    return found


def _check_encounter_version(db: Session, encounter: Encounter, params: BaseModel) -> None:
    """Under the log lock: the state the player saw must still be the current one."""
    db.refresh(encounter)
    if encounter.status != "active":
        raise Conflict(_("This encounter is over."))
    seen = getattr(params, "version", None)
    if seen is not None and seen != encounter.version:
        raise Conflict(_("Already resolved: that move was made a moment ago. Here is where things stand now."))


def _save_encounter(db: Session, acc: Access, action: Action, system_id: str, params: BaseModel,
                    encounter: Encounter | None, resolution: Resolution) -> Encounter | None:
    """Create or advance the encounter in the action's transaction (a stale version is "already resolved")."""
    data = resolution.encounter
    if action.encounter is None:
        return None
    if data is None:
        raise BadRequest(_("That action did not say what became of the encounter."))
    status = "over" if data.get("over") else "active"
    if action.encounter == "create":
        created = Encounter(campaign_id=acc.campaign.id, system=system_id, kind=data["kind"],
                            title=str(data.get("title", ""))[:120], participants=list(data["participants"]),
                            state=dict(data["state"]), status=status, created_by=acc.user.id)
        db.add(created)
        db.flush()
        return created
    assert encounter is not None
    seen = getattr(params, "version", None)
    done = db.execute(
        update(Encounter).where(Encounter.id == encounter.id, Encounter.version == (seen or encounter.version))
        .values(state=dict(data["state"]), version=Encounter.version + 1, status=status, updated_at=utcnow())
    ).rowcount
    if not done:
        raise Conflict(_("Already resolved: that move was made a moment ago. Here is where things stand now."))
    db.refresh(encounter)
    return encounter


def _context(db: Session, acc: Access, system_id: str, character: Character | None, others: dict[int, Character],
             encounter: Encounter | None = None, seq: int | None = None) -> Context:
    session = _game_session(db, acc)
    return Context(
        actor_is_narrator=acc.is_narrator, session_number=session.number if session else None,
        now=utcnow().timestamp(), campaign_settings=dict((acc.campaign.settings or {}).get(system_id, {})),
        character_id=character.id if character else None, character_name=character.name if character else None,
        others={cid: dict(c.sheet) for cid, c in others.items()}, other_names={cid: c.name for cid, c in others.items()},
        encounter=None if encounter is None else {
            "id": encounter.id, "kind": encounter.kind, "title": encounter.title, "state": dict(encounter.state),
            "participants": list(encounter.participants), "version": encounter.version},
        seq=seq,
    )


def _save_sheet(db: Session, character: Character, sheet: dict[str, Any]) -> None:
    done = db.execute(
        update(Character).where(Character.id == character.id, Character.version == character.version)
        .values(sheet=sheet, version=Character.version + 1)
    ).rowcount
    if not done:
        raise Conflict(_("The sheet changed while you were rolling: reload and try again."))
    db.refresh(character)


def append_note(db: Session, acc: Access, *, kind: str, action: str, summary: str, visibility: str = "public",
                request: dict[str, Any] | None = None, outcome: dict[str, Any] | None = None,
                note: str = "", character: Character | None = None, target_seq: int | None = None,
                subject_id: int | None = None, extra: dict[str, Any] | None = None, publish: Publish = _no_publish,
                also: Callable[[], object] | None = None) -> LogEntry:
    """A narrator action or announcement (session start, void, reveal) as a chained entry.
    `also` runs after the entry is written and before the commit: its changes land with the entry or not at all."""
    with _appending(db, acc, publish) as (seq, prev_hash):
        entry = _write_entry(
            db, acc, seq, prev_hash, kind=kind, system="table", action=action, visibility=visibility,
            character=character, target_seq=target_seq, subject_id=subject_id,
            content={"request": request, "outcome": outcome, "summary": summary, "note": note, **(extra or {})},
        )
        if also is not None:
            also()
    return entry


def entry_by_seq(db: Session, campaign_id: int, seq: int) -> LogEntry:
    entry = db.scalar(select(LogEntry).where(LogEntry.campaign_id == campaign_id, LogEntry.seq == seq))
    if entry is None:
        raise NotFound(_("There is no entry #{seq}.").format(seq=seq))
    return entry


def _correction_of(db: Session, campaign_id: int, kind: str, seq: int) -> int | None:
    return db.scalar(select(LogEntry.seq).where(LogEntry.campaign_id == campaign_id, LogEntry.kind == kind,
                                                LogEntry.target_seq == seq))


def void_entry(db: Session, acc: Access, seq: int, reason: str, publish: Publish = _no_publish) -> LogEntry:
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
    return append_note(db, acc, kind="void", action="void", summary=f"voided #{seq}: {reason}",
                       visibility=target.visibility, request={"reason": reason}, target_seq=seq,
                       subject_id=subject, publish=publish)


def reveal_entry(db: Session, acc: Access, seq: int, publish: Publish = _no_publish) -> LogEntry:
    """Publish a hidden entry's body and salt, and apply the sheet changes it held back (unless it was voided).
    Narrators reveal blind and narrator entries; a roll kept to oneself (or shown to the narrators only) can
    also be revealed by its roller."""
    target = entry_by_seq(db, acc.campaign.id, seq)
    own = target.actor_id == acc.user.id
    if target.visibility == Visibility.PUBLIC:
        raise BadRequest(_("Entry #{seq} is already public.").format(seq=seq))
    if target.visibility == Visibility.SELF and not own:
        raise Forbidden(_("Only the roller can reveal a roll they kept to themselves."))
    if not acc.is_narrator and not (own and target.visibility in (Visibility.SELF, Visibility.NARRATOR)):
        raise Forbidden(_("Only a narrator can do that."))
    if _correction_of(db, acc.campaign.id, "reveal", seq) is not None:
        raise Conflict(_("Entry #{seq} is already revealed.").format(seq=seq))
    voided = _correction_of(db, acc.campaign.id, "void", seq) is not None
    summary = f"revealed #{seq}: {target.body.get('actor')} {target.body.get('summary') or ''}".rstrip()
    with _appending(db, acc, publish) as (new_seq, prev_hash):
        applied = {} if voided else _apply_held(db, acc, target.body.get("held") or {})
        entry = _write_entry(
            db, acc, new_seq, prev_hash, kind="reveal", system="table", action="reveal", visibility="public",
            target_seq=seq, subject_id=target.actor_id,
            content={"summary": summary, "outcome": {"held": applied} if applied else None,
                     "revealed": {"seq": seq, "body": target.body, "salt": target.salt}})
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
        _save_sheet(db, character, sheet)
        done[cid] = "applied"
    return done


def adjust_sheet(db: Session, acc: Access, character_id: int, changes: dict[str, Any], reason: str,
                 publish: Publish = _no_publish) -> LogEntry:
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
        message, field = validation_message(exc)
        raise BadRequest(message, field=field) from exc
    changed = {k: {"from": before.get(k), "to": v} for k, v in after.items() if before.get(k) != v}
    shown_before, shown_after = system.public_sheet(before), system.public_sheet(after)
    public = all(shown_before.get(k) == before.get(k) and shown_after.get(k) == after.get(k) for k in changed)
    with _appending(db, acc, publish) as (seq, prev_hash):
        db.refresh(character)
        _save_sheet(db, character, after)
        entry = _write_entry(db, acc, seq, prev_hash, kind="adjust", system=character.system, action="adjust",
                             visibility=str(Visibility.PUBLIC if public else Visibility.NARRATOR), character=character,
                             subject_id=None if public else character.owner_id,
                             content={"request": {"changes": changes, "reason": reason}, "outcome": changed,
                                      "summary": f"adjusted {character.name}'s sheet ({reason})"})
    return entry


def create_prompt(db: Session, acc: Access, *, character_id: int, system: str, action: str,
                  locked: dict[str, Any], visibility: str = "public", note: str = "",
                  publish: Publish = _no_publish) -> RollPrompt:
    require_narrator(acc)
    character = character_for(db, acc, character_id)
    try:
        rule_system, rule_action = get_action(system, action)
    except ActionError as exc:
        raise BadRequest(exc.message, field=exc.field) from exc
    if rule_system.id not in acc.campaign.systems:
        raise BadRequest(_("This campaign does not use {name}.").format(name=rule_system.name), field="system")
    if rule_system.id != "dice" and character.system != rule_system.id:
        raise BadRequest(_("{name} is not a {system} character.").format(name=character.name, system=rule_system.name), field="character_id")
    unknown = set(locked) - set(rule_action.params.model_fields)
    if unknown:
        raise BadRequest(_("Unknown parameter: {names}.").format(names=', '.join(sorted(unknown))), field="params")
    if visibility not in Visibility.__members__.values():
        raise BadRequest(_("Choose who sees the roll."), field="visibility")
    prompt = RollPrompt(campaign_id=acc.campaign.id, character_id=character.id, created_by=acc.user.id,
                        system=rule_system.id, action=rule_action.id, locked=locked, visibility=visibility,
                        note=_check_note(note))
    db.add(prompt)
    db.commit()
    publish(acc.campaign.id, "prompts", None)
    return prompt


def cancel_prompt(db: Session, acc: Access, prompt_id: int, publish: Publish = _no_publish) -> None:
    require_narrator(acc)
    prompt = db.get(RollPrompt, prompt_id)
    if prompt is None or prompt.campaign_id != acc.campaign.id:
        raise NotFound(_("No such roll prompt."))
    if prompt.status == "open":
        prompt.status = "cancelled"
    db.commit()
    publish(acc.campaign.id, "prompts", None)


def open_prompts(db: Session, acc: Access) -> list[tuple[RollPrompt, Character]]:
    query = (select(RollPrompt, Character).join(Character, Character.id == RollPrompt.character_id)
             .where(RollPrompt.campaign_id == acc.campaign.id, RollPrompt.status == "open")
             .order_by(RollPrompt.id))
    if not acc.is_narrator:
        query = query.where(Character.owner_id == acc.user.id)
    return [(p, c) for p, c in db.execute(query).all()]
