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
import math
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, cast

from pydantic import BaseModel
from sqlalchemy import Table, bindparam, case, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.accounts.models import AuthCounter
from app.campaigns.models import Membership
from app.campaigns.service import Access, members, narrator_ids
from app.characters.models import Character
from app.characters.service import can_act, character_in
from app.encounters.models import Encounter
from app.encounters.service import has_teams, systems_with_teams
from app.encounters.service import teams as encounter_teams
from app.errors import BadRequest, Conflict, Forbidden, NotFound, TooManyRequests
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
from app.systems import ROLLER, Team
from app.talk.text import MAX_LENGTH, mentioned_names
from app.types import utcnow

SYSTEM = "talk"
KINDS = ("message", "edit", "retract")
MODES = ("ooc", "ic")
AUDIENCES = ("public", "narrator", WHISPER, TEAM)
MAX_TO = 20
ROLL_PREFIXES = ("/r ", "/roll ")
# At most RATE accepted posts (messages and /r rolls) per member per campaign in WINDOW (TABLE-API.md, section 1).
RATE = 30
WINDOW = timedelta(seconds=10)


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


# --- the rate limit ---------------------------------------------------------------------------------------------

_COUNTERS = cast(Table, AuthCounter.__table__)


def _count_statement(dialect: str) -> Any:
    """The counter's upsert for one dialect, built once (SQLAlchemy then reuses its compiled form)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(_COUNTERS).values(key=bindparam("key"), count=1, expires_at=bindparam("expires"))
    expired = _COUNTERS.c.expires_at <= bindparam("now")
    return stmt.on_conflict_do_update(
        index_elements=[_COUNTERS.c.key],
        set_={
            "count": case((expired, 1), else_=_COUNTERS.c.count + 1),
            "expires_at": case((expired, stmt.excluded.expires_at), else_=_COUNTERS.c.expires_at),
        },
    ).returning(_COUNTERS.c.count, _COUNTERS.c.expires_at)


_COUNT = {name: _count_statement(name) for name in ("sqlite", "postgresql")}


def _count_post(db: Session, acc: Access, rate: int = RATE) -> None:
    """Count one accepted post in this transaction (the shared counter table of app/accounts/throttle.py:
    one atomic upsert, so every process counts exactly); the one over `rate` in a window is refused with
    Retry-After and, because the transaction then rolls back, is not counted."""
    now = utcnow()
    dialect = "postgresql" if db.get_bind().dialect.name == "postgresql" else "sqlite"
    count, expires_at = db.execute(
        _COUNT[dialect], {"key": f"talk:{acc.campaign.id}:{acc.user.id}", "expires": now + WINDOW, "now": now}
    ).one()
    if count > rate:
        wait = max(1, math.ceil((expires_at - now).total_seconds()))
        raise TooManyRequests(
            _("That is a lot of talk: wait {n} seconds, then send it again.").format(n=wait),
            retry_after=wait,
            field="text",
        )


# --- who reads it -----------------------------------------------------------------------------------------------


@dataclass
class Audience:
    visibility: str
    readers: list[int] | None = None  # whisper and team: exactly these user ids
    to: list[int] | None = None  # whisper
    to_names: list[str] | None = None  # whisper: the recipients' usernames, for the readers' pages
    team: dict[str, Any] | None = None  # team: {"encounter_id", "key", "name"}
    member_names: dict[str, int] = field(default_factory=dict)

    def may_read(self, user_id: int, narrators: set[int], author: int) -> bool:
        if self.readers is not None:
            return user_id in self.readers
        if self.visibility == "narrator":
            return user_id == author or user_id in narrators
        return True


def team_of_author(db: Session, acc: Access, encounter: Encounter) -> Team | None:
    """The author's team in an encounter with teams (its kind's `teams`, e.g. a Rabbits conflict): a team with a
    character they own, or (a narrator) a narrator-run team. A narrator is never on a team of players' characters
    (TABLE-API.md, section 6)."""
    teams = sorted(encounter_teams(encounter), key=lambda team: team.key)
    if not teams:
        return None
    ids = [cid for team in teams for cid in team.members]
    owners = dict(db.execute(select(Character.id, Character.owner_id).where(Character.id.in_(ids))).all())
    for team in teams:
        if any(owners.get(cid) == acc.user.id for cid in team.members):
            return team
    if acc.is_narrator:
        for team in teams:
            if team.narrator:
                return team
    return None


def team_readers(db: Session, acc: Access, team: Team) -> list[int]:
    """The team's members: the players of its characters, and the narrators when the team is narrator-run."""
    owners = set(
        db.scalars(
            select(Character.owner_id).where(Character.id.in_(list(team.members)), Character.owner_id.is_not(None))
        )
    )
    member_ids = set(db.scalars(select(Membership.user_id).where(Membership.campaign_id == acc.campaign.id)))
    readers = {uid for uid in owners if uid in member_ids}
    if team.narrator:
        readers |= narrator_ids(db, acc.campaign.id)
    return sorted(readers)


def talk_conflicts(db: Session, acc: Access) -> list[tuple[Encounter, Team]]:
    """The active encounters with teams in which the viewer is on a team (the composer's "my team" choices)."""
    found = []
    for encounter in db.scalars(
        select(Encounter)
        .where(
            Encounter.campaign_id == acc.campaign.id,
            Encounter.system.in_(systems_with_teams()),
            Encounter.status == "active",
        )
        .order_by(Encounter.id)
    ):
        mine = team_of_author(db, acc, encounter) if has_teams(encounter) else None
        if mine is not None:
            found.append((encounter, mine))
    return found


def _audience(db: Session, acc: Access, req: MessageRequest) -> Audience:
    if req.to is not None and req.visibility != WHISPER:
        raise BadRequest(_("Only a whisper has recipients (“to”)."), field="to")
    if req.encounter_id is not None and req.visibility != TEAM:
        raise BadRequest(_("Only team talk names a conflict (“encounter_id”)."), field="encounter_id")
    if req.visibility == WHISPER:
        to = sorted(set(req.to or []) - {acc.user.id})
        if not to:
            raise BadRequest(_("Choose whom to whisper to."), field="to")
        if len(req.to or []) > MAX_TO:
            raise BadRequest(_("A whisper goes to at most {n} members.").format(n=MAX_TO), field="to")
        names = {user.id: user.username for user, _role in members(db, acc.campaign.id)}
        if set(to) - set(names):
            raise BadRequest(_("You can only whisper to members of this campaign."), field="to")
        return Audience(WHISPER, readers=sorted({acc.user.id, *to}), to=to, to_names=[names[u] for u in to])
    if req.visibility == TEAM:
        if req.encounter_id is None:
            raise BadRequest(_("Choose the conflict whose team you talk to."), field="encounter_id")
        encounter = db.get(Encounter, req.encounter_id)
        if encounter is None or encounter.campaign_id != acc.campaign.id:
            raise NotFound(_("No such encounter in this campaign."), field="encounter_id")
        team = team_of_author(db, acc, encounter)
        if team is None:
            raise BadRequest(_("You are on no team in that conflict."), field="encounter_id")
        readers = team_readers(db, acc, team)
        if acc.user.id not in readers:  # a narrator-run team: the narrators; a players' team: its players
            readers = sorted({*readers, acc.user.id})
        return Audience(TEAM, readers=readers, team={"encounter_id": encounter.id, "key": team.key, "name": team.name})
    return Audience(str(req.visibility))


def _mentions(db: Session, acc: Access, text: str, audience: Audience) -> list[int]:
    """Members named `@username` who may read the line (a mention where they cannot read names nobody)."""
    names = mentioned_names(text)
    if not names:
        return []
    narrators = narrator_ids(db, acc.campaign.id)
    by_name = {user.username.casefold(): user.id for user, _role in members(db, acc.campaign.id)}
    return [
        by_name[n]
        for n in names
        if n in by_name and by_name[n] != acc.user.id and audience.may_read(by_name[n], narrators, acc.user.id)
    ]


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
    audience = _audience(db, acc, req)
    mentions = _mentions(db, acc, text, audience)
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
            _count_post(db, acc, rate)
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
            _count_post(db, acc, rate)
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
    request = {**_follow_up_request(target), "mentions": _mentions(db, acc, text, audience)}
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
