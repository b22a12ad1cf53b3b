"""Encounters: reading them, and loading and saving them for the rules service (app/rolls/service.py), which
alone changes them: every step is a log entry, in the same transaction as the new state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from app.campaigns.models import Membership
from app.campaigns.service import Access, in_campaign
from app.characters.models import Character
from app.encounters.models import Encounter
from app.errors import BadRequest, Conflict, Forbidden, NotFound
from app.i18n import _
from app.systems import SYSTEMS, Action, EncounterViewer, Resolution, Team, get_system
from app.systems.base import stored_state
from app.types import utcnow


def encounter_in(db: Session, acc: Access, encounter_id: int) -> Encounter:
    return in_campaign(db, acc, Encounter, encounter_id, _("No such encounter in this campaign."))


def active_encounters(db: Session, acc: Access) -> list[Encounter]:
    return list(
        db.scalars(
            select(Encounter)
            .where(Encounter.campaign_id == acc.campaign.id, Encounter.status == "active")
            .order_by(Encounter.id)
        )
    )


def participant_characters(db: Session, encounter: Encounter) -> dict[int, Character]:
    """The encounter's characters that still exist, by id (its page shows their names and sheets)."""
    return {c.id: c for c in (db.get(Character, p["character_id"]) for p in encounter.participants) if c}


def controlled_by(db: Session, acc: Access, encounter: Encounter) -> set[int]:
    """The participants the viewer may move: their own characters, or all of them for a narrator."""
    ids = [p["character_id"] for p in encounter.participants]
    if acc.is_narrator:
        return set(ids)
    return set(db.scalars(select(Character.id).where(Character.id.in_(ids), Character.owner_id == acc.user.id)))


def unplayed(db: Session, acc: Access, encounter: Encounter) -> set[int]:
    """The participants no member plays: their player left the campaign or deleted the account (the narrators play
    them, docs/TRUST.md). A system's page offers the narrator a step that would else wait for that player."""
    ids = [p["character_id"] for p in encounter.participants]
    if not ids:
        return set()
    members = select(Membership.user_id).where(Membership.campaign_id == acc.campaign.id)
    return set(
        db.scalars(
            select(Character.id).where(
                Character.id.in_(ids), (Character.owner_id.is_(None)) | (Character.owner_id.not_in(members))
            )
        )
    )


def visible_state(acc: Access, encounter: Encounter, controls: set[int]) -> dict[str, Any]:
    """What this viewer may read of the encounter's state: the one place that decides it (its kind's `view`;
    narrators and players alike go through it). `controls`: `controlled_by`'s answer."""
    viewer = EncounterViewer(is_narrator=acc.is_narrator, controls=frozenset(controls))
    return get_system(encounter.system).kind(encounter.kind).shown(encounter.state, viewer)


def teams(encounter: Encounter) -> Sequence[Team]:
    """The encounter's teams (its kind's `teams`; none for a kind without), for team talk."""
    system = SYSTEMS.get(encounter.system)
    return () if system is None else system.kind(encounter.kind).team_list(encounter.state)


def systems_with_teams() -> list[str]:
    """The systems with a kind of encounter that has teams (a query's first filter; has_teams decides)."""
    return [sid for sid, system in SYSTEMS.items() if any(k.teams is not None for k in system.encounters.values())]


def has_teams(encounter: Encounter) -> bool:
    system = SYSTEMS.get(encounter.system)
    return system is not None and system.kind(encounter.kind).teams is not None


def encounter_for_step(
    db: Session, acc: Access, action: Action, params: BaseModel, system_id: str, character: Character | None
) -> Encounter | None:
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


def other_participants(db: Session, encounter: Encounter, character: Character | None) -> dict[int, Character]:
    """The encounter's participants other than the acting character: their sheets come in ctx.others and a
    step may change them (Resolution.others)."""
    return {
        cid: other
        for cid, other in participant_characters(db, encounter).items()
        if other.campaign_id == encounter.campaign_id and (character is None or cid != character.id)
    }


def check_encounter_version(db: Session, encounter: Encounter, params: BaseModel) -> None:
    """Under the log lock: the state the player saw must still be the current one."""
    db.refresh(encounter)
    if encounter.status != "active":
        raise Conflict(_("This encounter is over."))
    seen = getattr(params, "version", None)
    if seen is not None and seen != encounter.version:
        raise Conflict(_("Already resolved: that move was made a moment ago. Here is where things stand now."))


def save_encounter(
    db: Session,
    acc: Access,
    action: Action,
    system_id: str,
    params: BaseModel,
    encounter: Encounter | None,
    resolution: Resolution,
) -> Encounter | None:
    """Create or advance the encounter in the action's transaction (a stale version is "already resolved")."""
    data = resolution.encounter
    if action.encounter is None:
        return None
    if data is None:
        raise BadRequest(_("That action did not say what became of the encounter."))
    status = "over" if data.get("over") else "active"
    if action.encounter == "create":
        created = Encounter(
            campaign_id=acc.campaign.id,
            system=system_id,
            kind=data["kind"],
            title=str(data.get("title", ""))[:120],
            participants=list(data["participants"]),
            state=stored_state(data["state"]),
            status=status,
            created_by=acc.user.id,
        )
        db.add(created)
        db.flush()
        return created
    assert encounter is not None
    seen = getattr(params, "version", None)
    done = cast(
        CursorResult[Any],
        db.execute(
            update(Encounter)
            .where(Encounter.id == encounter.id, Encounter.version == (seen or encounter.version))
            .values(
                state=stored_state(data["state"]), version=Encounter.version + 1, status=status, updated_at=utcnow()
            )
        ),
    ).rowcount  # an UPDATE's result is a CursorResult; Session.execute is typed as Result
    if not done:
        raise Conflict(_("Already resolved: that move was made a moment ago. Here is where things stand now."))
    db.refresh(encounter)
    return encounter
