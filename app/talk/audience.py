"""Who reads a message: everyone, the narrators, a whisper's recipients or a team (an encounter kind with teams,
e.g. a Rabbits conflict) — fixed when it is written — and the members it @mentions who may read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.campaigns.models import Membership
from app.campaigns.service import Access, members, narrator_ids
from app.characters.models import Character
from app.encounters.models import Encounter
from app.encounters.service import has_teams, systems_with_teams
from app.encounters.service import teams as encounter_teams
from app.errors import BadRequest, NotFound
from app.i18n import _
from app.rolls.visibility import TEAM, WHISPER
from app.systems import Team
from app.talk.text import mentioned_names

if TYPE_CHECKING:
    from app.talk.service import MessageRequest

MAX_TO = 20  # a whisper's recipients


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


def audience_of(db: Session, acc: Access, req: MessageRequest) -> Audience:
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


def mentioned_readers(db: Session, acc: Access, text: str, audience: Audience) -> list[int]:
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
