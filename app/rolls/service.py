"""The rules service: every action reaches the log through perform_action, in five stages.

1. **check** (`_check`): the system, action, params, who may act, how hidden, the characters and the encounter —
   everything that can be refused is refused here, before the lock and before any die (never roll twice);
2. **lock** (`appending`, app/rolls/appending.py): the campaign's log head, then the Idempotency-Key
   (app/rolls/idempotency.py: a replay rolls back and answers the first entry);
3. **resolve** (`_resolve`): the rows re-read under the lock, the action run once with the server's dice;
4. **persist** (`_persist`): the sheets (or, for a hidden action, the changes held in the entry), the encounter,
   the settings, the chained entry — and the effects declared in the transaction (app/rolls/effects.py: the
   outbox subscribes), all in one commit;
5. after the commit, **announce** (`_announce`): the live events. Nothing is announced for a rollback.
Corrections are in corrections.py, roll prompts in prompts.py."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import update
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
from app.rolls import chain, idempotency, patch
from app.rolls.appending import Publish, appending, check_note, game_session, no_publish, write_entry
from app.rolls.effects import WaitsChanged, emit
from app.rolls.idempotency import Once, Replayed
from app.rolls.models import LogEntry, RollPrompt
from app.rolls.prompts import prompt_in
from app.rolls.visibility import Visibility, kept_to_oneself_refusal
from app.rules.dice import Dice, SecureDice
from app.systems import ROLLER, Action, ActionError, Context, Resolution, get_action, get_system
from app.systems.base import RecordingDice, RuleSystem
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


@dataclass
class _Plan:
    """What the checks decided, before anything is locked or rolled: the request as answered (a prompt's locked
    parameters applied), the action and its params, and the rows it involves."""

    req: ActionRequest
    system: RuleSystem
    action: Action
    params: BaseModel
    note: str
    prompt: RollPrompt | None
    character: Character | None
    others: dict[int, Character]
    encounter: Encounter | None

    @property
    def hidden(self) -> bool:
        return self.req.visibility != Visibility.PUBLIC


@dataclass
class _Resolved:
    """What the action did, under the lock: the resolution, the faces rolled, the note, and a hidden action's
    held changes (None: the changes are applied now)."""

    resolution: Resolution
    dice: list[Any]
    note: str
    held: dict[str, list[dict[str, Any]]] | None
    waits_before: Mapping[int, str]


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
    """The rules service, in stages: check (refuse before rolling), lock the log head, resolve (the dice, once),
    persist (the sheets or the held changes, the encounter, the chained entry), commit; then the effects."""
    once = Once(idempotency_key, request_digest(req) if idempotency_key else None)
    plan = _check(db, acc, req)
    try:
        with appending(db, acc, publish) as (seq, prev_hash):
            idempotency.check(db, acc, once)
            done = _resolve(db, acc, plan, seq, dice)
            entry, encounter = _persist(db, acc, plan, done, seq, prev_hash, once)
    except Replayed as replay:
        return ActionResult(entry=replay.entry, replayed=True)
    _announce(acc, plan, done, encounter, publish)
    return ActionResult(entry=entry, encounter_id=encounter.id if encounter else None)


# --- 1. check: everything that can be refused is refused before the lock and before any die ---------------------


def _check(db: Session, acc: Access, req: ActionRequest) -> _Plan:
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
    system, action, params = _action_of(acc, req)
    note = check_note(req.note)
    if prompt is not None and prompt.note:
        # The narrator's note on the call ("Everyone: perception check") is part of every entry answering it: in the
        # hashed body, on the log line and in the search, hidden with the entry when the entry is hidden.
        note = f"{prompt.note} — {note}" if note else prompt.note
    _refuse_visibility(acc, req, action)
    character = None
    if req.character_id is not None:
        character = character_for(db, acc, req.character_id, system=system.id if system.id != ROLLER else None)
    elif action.needs_character:
        raise BadRequest(_("Choose a character for this action."), field="character_id")
    others = _involved(db, acc, action, params, system.id, character)
    encounter = encounter_for_step(db, acc, action, params, system.id, character)
    if encounter is not None:  # a step involves the encounter's other participants (e.g. the opponent's health)
        others.update(other_participants(db, encounter, character))
    return _Plan(req, system, action, params, note, prompt, character, others, encounter)


def _action_of(acc: Access, req: ActionRequest) -> tuple[RuleSystem, Action, BaseModel]:
    """The system and action (one the campaign uses) and the params its schema reads; a 400 in words otherwise."""
    try:
        system, action = get_action(req.system, req.action)
        if system.id not in acc.campaign.systems:
            raise ActionError(_("This campaign does not use {name}.").format(name=_(system.name)), field="system")
        return system, action, action.params.model_validate(req.params)
    except ValidationError as exc:
        message, field = validation_message(exc, action.params)
        raise BadRequest(message, field=field) from exc
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc


def _refuse_visibility(acc: Access, req: ActionRequest, action: Action) -> None:
    """Who may do it, and how hidden: decided before any die is rolled."""
    if action.narrator_only and not acc.is_narrator:
        raise Forbidden(_("Only a narrator can do that."))  # the reader's language; action names are the API's
    if req.visibility != Visibility.PUBLIC and action.encounter is not None:
        raise BadRequest(
            _("Moves in an encounter are seen by everyone at the table: make this one public."), field="visibility"
        )
    if req.visibility == Visibility.SELF and not action.changes_nothing:
        # Decided before any die is rolled (issue 35): a roll that may change a sheet would wait for a reveal only
        # the roller could make, so they could roll privately until they liked a result; a narrator must be able
        # to see (and reveal) it. Refused only once the dice showed a change, every refusal was a free re-roll.
        raise BadRequest(kept_to_oneself_refusal(), field="visibility")


# --- 3. resolve: under the head lock, with the rows as they are now; the dice are rolled once, here --------------


def _resolve(db: Session, acc: Access, plan: _Plan, seq: int, dice: Dice | None) -> _Resolved:
    sheet = _fresh_rows(db, plan)
    waits_before = _awaited(plan.system.id, plan.encounter)
    before = _before(sheet, plan.others) if plan.hidden else {}
    try:
        # Sheets cross the seam as the system's model (RuleSystem.sheets): loaded once here — the actor's and the
        # others' in the context; a damaged one is refused like a rule — and dumped once.
        ctx = _context(db, acc, plan.system.id, plan.character, plan.others, plan.encounter, seq)
        # The service, not the system, records the dice: what the log says was rolled is what was rolled.
        rolled = RecordingDice(dice or SecureDice())
        resolution = plan.system.stored_sheets(plan.action.run(plan.system.load_sheet(sheet), plan.params, rolled, ctx))
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc
    _check_resolution(plan, resolution)
    note = plan.note
    if resolution.note:
        note = check_note(" — ".join(part for part in (note, resolution.note) if part))
    held = None
    if plan.hidden:  # kept as patches in the entry's hashed body, applied at the reveal (app/rolls/patch.py)
        mine = {plan.character.id: resolution.sheet} if plan.character and resolution.sheet is not None else {}
        held = patch.hold(before, {**mine, **resolution.others}, plan.character.id if plan.character else None)
    return _Resolved(resolution, rolled.rolled, note, held, waits_before)


def _fresh_rows(db: Session, plan: _Plan) -> dict[str, Any]:
    """The rows re-read under the lock (a version the caller saw that no longer holds is a 409); the sheet."""
    sheet: dict[str, Any] = {}
    if plan.character is not None:
        db.refresh(plan.character)
        if plan.req.expected_version is not None and plan.req.expected_version != plan.character.version:
            raise Conflict(_("The sheet changed since you opened it: reload and try again."))
        sheet = dict(plan.character.sheet)
    for other in plan.others.values():
        db.refresh(other)
    if plan.encounter is not None:
        check_encounter_version(db, plan.encounter, plan.params)
    return sheet


def _before(sheet: dict[str, Any], others: dict[int, Character]) -> dict[int, dict[str, Any]]:
    """The sheets before a hidden action, to hold its changes as patches against (the actor's under 0)."""
    return copy.deepcopy({0: sheet, **{cid: dict(c.sheet) for cid, c in others.items()}})


def _check_resolution(plan: _Plan, resolution: Resolution) -> None:
    if any(other_id not in plan.others for other_id in resolution.others):
        raise BadRequest(_("That action changed a character it does not involve."))
    if plan.hidden and resolution.settings is not None:
        raise BadRequest(
            _("Changing the campaign's settings is seen by everyone: make this one public."), field="visibility"
        )
    if plan.action.changes_nothing and _changes(resolution):
        # The declaration the `self` check relies on was broken: a system bug, not a refusal after the dice.
        raise RuntimeError(f"{plan.system.id}.{plan.action.id} declares changes_nothing but changed something")


# --- 4. persist: the changes (or the held patches), the encounter, the settings, the chained entry --------------


def _persist(
    db: Session, acc: Access, plan: _Plan, done: _Resolved, seq: int, prev_hash: str, once: Once
) -> tuple[LogEntry, Encounter | None]:
    resolution = done.resolution
    if done.held is None:
        if resolution.sheet is not None and plan.character is not None:
            save_sheet(db, plan.character, resolution.sheet)
        for other_id, other_sheet in resolution.others.items():
            save_sheet(db, plan.others[other_id], other_sheet)
    encounter = save_encounter(db, acc, plan.action, plan.system.id, plan.params, plan.encounter, resolution)
    if encounter is not None:  # whoever the step now waits for is told (app/notify subscribes)
        emit(db, _waits(acc, plan, done, encounter))
    if resolution.settings is not None:
        _save_settings(db, acc, plan.system.id, resolution.settings)
    entry = write_entry(
        db,
        acc,
        seq,
        prev_hash,
        kind="action",
        system=plan.system.id,
        action=plan.action.id,
        visibility=str(plan.req.visibility),
        character=plan.character,
        idempotency_key=once.key,
        request_hash=once.digest,
        content={
            "held": done.held or None,
            "request": {
                **resolution.request,
                **({"prompt_id": plan.prompt.id} if plan.prompt else {}),
                **({"encounter_id": encounter.id} if encounter else {}),
            },
            "dice": done.dice,
            "outcome": resolution.outcome,
            "summary": resolution.summary,
            "note": done.note,
        },
    )
    if plan.prompt is not None:
        plan.prompt.status, plan.prompt.entry_seq = "done", seq
    return entry, encounter


def _waits(acc: Access, plan: _Plan, done: _Resolved, encounter: Encounter) -> WaitsChanged:
    names = {c.id: c.name for c in [*([plan.character] if plan.character else []), *plan.others.values()]}
    after = _awaited(plan.system.id, encounter)
    return WaitsChanged(acc.campaign, acc.user.id, done.waits_before, after, encounter, names)


def _save_settings(db: Session, acc: Access, system_id: str, changed: Mapping[str, Any]) -> None:
    if not acc.is_narrator:
        raise Forbidden(_("Only a narrator can change the campaign's settings."))
    settings = {**(acc.campaign.settings or {}), system_id: dict(changed)}
    db.execute(update(Campaign).where(Campaign.id == acc.campaign.id).values(settings=settings))


# --- 5. after the commit: the live events (the entry's own went out with the commit: appending()) --------------


def _announce(acc: Access, plan: _Plan, done: _Resolved, encounter: Encounter | None, publish: Publish) -> None:
    if plan.prompt is not None:
        publish(acc.campaign.id, LiveEvent.PROMPTS, None)
    if encounter is not None:
        publish(acc.campaign.id, LiveEvent.ENCOUNTER, encounter.id)
    if done.held is None:  # a hidden action changed no sheet (its changes wait for the reveal)
        resolution = done.resolution
        changed = [plan.character.id] if resolution.sheet is not None and plan.character is not None else []
        for character_id in [*changed, *resolution.others]:
            publish(acc.campaign.id, LiveEvent.SHEET, character_id)


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
