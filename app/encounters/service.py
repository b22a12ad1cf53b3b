"""Reading encounters. Changing them is the rules service's job (app/rolls/service.py): every step is a
log entry, in the same transaction as the new state."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.i18n import _
from app.campaigns.service import Access
from app.characters.models import Character
from app.encounters.models import Encounter
from app.errors import NotFound


def encounter_in(db: Session, acc: Access, encounter_id: int) -> Encounter:
    encounter = db.get(Encounter, encounter_id)
    if encounter is None or encounter.campaign_id != acc.campaign.id:
        raise NotFound(_("No such encounter in this campaign."))
    return encounter


def active_encounters(db: Session, acc: Access) -> list[Encounter]:
    return list(db.scalars(select(Encounter).where(Encounter.campaign_id == acc.campaign.id,
                                                   Encounter.status == "active").order_by(Encounter.id)))


def controlled_by(db: Session, acc: Access, encounter: Encounter) -> set[int]:
    """The participants the viewer may move: their own characters, or all of them for a narrator."""
    ids = [p["character_id"] for p in encounter.participants]
    if acc.is_narrator:
        return set(ids)
    return set(db.scalars(select(Character.id).where(Character.id.in_(ids), Character.owner_id == acc.user.id)))
