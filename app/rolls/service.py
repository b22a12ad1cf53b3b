"""The rules service: every action reaches the log through perform_action.

One transaction does it all: lock the campaign's log head (app/rolls/appending.py), check the idempotency key,
resolve the action with the server's dice, apply the sheet change with an optimistic version check, advance
the encounter (app/encounters/service.py), append the chained entry, commit, and only then tell the broker.
Corrections are in corrections.py, roll prompts in prompts.py.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.campaigns.models import Campaign
from app.campaigns.service import Access
from app.characters.models import Character
from app.characters.service import character_for, save_sheet
from app.encounters.models import Encounter
from app.encounters.service import check_encounter_version, encounter_for_step, other_participants, save_encounter
from app.errors import BadRequest, Conflict, Forbidden, NotFound, validation_message
from app.i18n import _, rule_message
from app.live.events import LiveEvent
from app.notify.service import queue_waits
from app.rolls import chain, patch
from app.rolls.appending import Publish, appending, check_note, game_session, no_publish, write_entry
from app.rolls.models import LogEntry, RollPrompt
from app.rolls.prompts import prompt_in
from app.rolls.visibility import Visibility, kept_to_oneself_refusal
from app.rules.dice import Dice, SecureDice
from app.systems import ROLLER, Action, ActionError, Context, Resolution, get_action, get_system
from app.systems.base import RecordingDice
from app.types import utcnow


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


class _Replayed(Exception):
    """The idempotency key was used before: roll back and return the first entry."""

    def __init__(self, entry: LogEntry) -> None:
        self.entry = entry


def _open_prompt(db: Session, acc: Access, prompt_id: int) -> RollPrompt:
    prompt = prompt_in(db, acc, prompt_id)
    if prompt.status != "open":
        raise Conflict(_("That roll has already been made."))
    character_for(db, acc, prompt.character_id)
    return prompt


def request_digest(req: ActionRequest) -> str:
    """What an Idempotency-Key is bound to: the request as sent (a reuse with another request is refused)."""
    return hashlib.sha256(chain.canonical_json(req.model_dump(mode="json"))).hexdigest()


def perform_action(
    db: Session,
    acc: Access,
    req: ActionRequest,
    *,
    dice: Dice | None = None,
    idempotency_key: str | None = None,
    publish: Publish = no_publish,
) -> ActionResult:
    digest = request_digest(req) if idempotency_key else None
    prompt = _open_prompt(db, acc, req.prompt_id) if req.prompt_id is not None else None
    if prompt is not None:
        # The narrator's parameters win over anything the player sent.
        req = req.model_copy(
            update={
                "system": prompt.system,
                "action": prompt.action,
                "character_id": prompt.character_id,
                "params": {**req.params, **prompt.locked},
                "visibility": prompt.visibility,
            }
        )
    try:
        system, action = get_action(req.system, req.action)
        if system.id not in acc.campaign.systems:
            raise ActionError(_("This campaign does not use {name}.").format(name=_(system.name)), field="system")
        params = action.params.model_validate(req.params)
    except ValidationError as exc:
        message, field = validation_message(exc, action.params)
        raise BadRequest(message, field=field) from exc
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc
    note = check_note(req.note)
    if prompt is not None and prompt.note:
        # The narrator's note on the call ("Everyone: perception check") is part of every entry answering it: in the
        # hashed body, on the log line and in the search, hidden with the entry when the entry is hidden.
        note = f"{prompt.note} — {note}" if note else prompt.note
    if action.narrator_only and not acc.is_narrator:
        raise Forbidden(_("Only a narrator can do that."))  # the reader's language; action names are the API's
    hidden = req.visibility != Visibility.PUBLIC
    if hidden and action.encounter is not None:
        raise BadRequest(
            _("Moves in an encounter are seen by everyone at the table: make this one public."), field="visibility"
        )
    if req.visibility == Visibility.SELF and not action.changes_nothing:
        # Decided before any die is rolled (issue 35): a roll that may change a sheet would wait for a reveal only
        # the roller could make, so they could roll privately until they liked a result; a narrator must be able
        # to see (and reveal) it. Refused only once the dice showed a change, every refusal was a free re-roll.
        raise BadRequest(kept_to_oneself_refusal(), field="visibility")
    character = None
    if req.character_id is not None:
        character = character_for(db, acc, req.character_id, system=system.id if system.id != ROLLER else None)
    elif action.needs_character:
        raise BadRequest(_("Choose a character for this action."), field="character_id")
    others = _involved(db, acc, action, params, system.id, character)
    encounter = encounter_for_step(db, acc, action, params, system.id, character)
    if encounter is not None:  # a step involves the encounter's other participants (e.g. the opponent's health)
        others.update(other_participants(db, encounter, character))

    try:
        with appending(db, acc, publish) as (seq, prev_hash):
            if idempotency_key:
                existing = db.scalar(
                    select(LogEntry).where(
                        LogEntry.campaign_id == acc.campaign.id,
                        LogEntry.actor_id == acc.user.id,
                        LogEntry.idempotency_key == idempotency_key,
                    )
                )
                if existing is not None:
                    if existing.request_hash is not None and existing.request_hash != digest:
                        raise BadRequest(
                            _(
                                "This Idempotency-Key was already used for a different request: "
                                "send a new key for a new request."
                            ),
                            field="idempotency_key",
                        )
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
                check_encounter_version(db, encounter, params)
            waits_before = _awaited(system.id, encounter)
            before = copy.deepcopy({0: sheet, **{cid: dict(c.sheet) for cid, c in others.items()}}) if hidden else {}
            try:
                # Sheets cross the seam as the system's model (RuleSystem.sheets): loaded once here — the actor's
                # and the others' in the context; a damaged one is refused like a rule — and dumped once.
                ctx = _context(db, acc, system.id, character, others, encounter, seq)
                # The service, not the system, records the dice: what the log says was rolled is what was rolled.
                rolled = RecordingDice(dice or SecureDice())
                resolution = system.stored_sheets(action.run(system.load_sheet(sheet), params, rolled, ctx))
            except ActionError as exc:
                raise BadRequest(rule_message(exc), field=exc.field) from exc
            if any(other_id not in others for other_id in resolution.others):
                raise BadRequest(_("That action changed a character it does not involve."))
            if hidden and resolution.settings is not None:
                raise BadRequest(
                    _("Changing the campaign's settings is seen by everyone: make this one public."), field="visibility"
                )
            if resolution.note:
                note = check_note(" — ".join(part for part in (note, resolution.note) if part))
            if action.changes_nothing and _changes(resolution):
                # The declaration the `self` check relies on was broken: a system bug, not a refusal after the dice.
                raise RuntimeError(f"{system.id}.{action.id} declares changes_nothing but changed something")
            held = _hold(before, character, resolution) if hidden else None
            if held is None:
                if resolution.sheet is not None and character is not None:
                    save_sheet(db, character, resolution.sheet)
                for other_id, other_sheet in resolution.others.items():
                    save_sheet(db, others[other_id], other_sheet)
            encounter = save_encounter(db, acc, action, system.id, params, encounter, resolution)
            if encounter is not None:
                names = {c.id: c.name for c in [*([character] if character else []), *others.values()]}
                queue_waits(
                    db,
                    acc.campaign,
                    actor_id=acc.user.id,
                    before=waits_before,
                    after=_awaited(system.id, encounter),
                    encounter=encounter,
                    names=names,
                )
            if resolution.settings is not None:
                if not acc.is_narrator:
                    raise Forbidden(_("Only a narrator can change the campaign's settings."))
                settings = {**(acc.campaign.settings or {}), system.id: dict(resolution.settings)}
                db.execute(update(Campaign).where(Campaign.id == acc.campaign.id).values(settings=settings))
            entry = write_entry(
                db,
                acc,
                seq,
                prev_hash,
                kind="action",
                system=system.id,
                action=action.id,
                visibility=str(req.visibility),
                character=character,
                idempotency_key=idempotency_key,
                request_hash=digest,
                content={
                    "held": held or None,
                    "request": {
                        **resolution.request,
                        **({"prompt_id": prompt.id} if prompt else {}),
                        **({"encounter_id": encounter.id} if encounter else {}),
                    },
                    "dice": rolled.rolled,
                    "outcome": resolution.outcome,
                    "summary": resolution.summary,
                    "note": note,
                },
            )
            if prompt is not None:
                prompt.status, prompt.entry_seq = "done", seq
    except _Replayed as replay:
        return ActionResult(entry=replay.entry, replayed=True)
    if prompt is not None:
        publish(acc.campaign.id, LiveEvent.PROMPTS, None)
    if encounter is not None:
        publish(acc.campaign.id, LiveEvent.ENCOUNTER, encounter.id)
    if held is None:  # a hidden action changed no sheet (its changes wait for the reveal)
        for changed in ([character.id] if resolution.sheet is not None and character is not None else []) + list(
            resolution.others
        ):
            publish(acc.campaign.id, LiveEvent.SHEET, changed)
    return ActionResult(entry=entry, encounter_id=encounter.id if encounter else None)


def _changes(resolution: Resolution) -> bool:
    return bool(
        resolution.sheet is not None
        or resolution.others
        or resolution.settings is not None
        or resolution.encounter is not None
    )


def _awaited(system_id: str, encounter: Encounter | None) -> Mapping[int, str]:
    if encounter is None:
        return {}
    return get_system(system_id).awaited(
        {"kind": encounter.kind, "state": encounter.state, "participants": encounter.participants}
    )


def _hold(
    before: dict[int, dict[str, Any]], character: Character | None, resolution: Resolution
) -> dict[str, list[dict[str, Any]]]:
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


def _involved(
    db: Session, acc: Access, action: Action, params: BaseModel, system_id: str, character: Character | None
) -> dict[int, Character]:
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


def _context(
    db: Session,
    acc: Access,
    system_id: str,
    character: Character | None,
    others: dict[int, Character],
    encounter: Encounter | None = None,
    seq: int | None = None,
) -> Context:
    session = game_session(db, acc)
    return Context(
        actor_is_narrator=acc.is_narrator,
        session_number=session.number if session else None,
        now=utcnow().timestamp(),
        campaign_settings=dict((acc.campaign.settings or {}).get(system_id, {})),
        character_id=character.id if character else None,
        character_name=character.name if character else None,
        others={cid: get_system(system_id).load_sheet(c.sheet) for cid, c in others.items()},
        other_names={cid: c.name for cid, c in others.items()},
        encounter=None
        if encounter is None
        else {
            "id": encounter.id,
            "kind": encounter.kind,
            "title": encounter.title,
            "state": get_system(system_id).typed_state(encounter.kind, encounter.state),
            "participants": list(encounter.participants),
            "version": encounter.version,
        },
        seq=seq,
    )
