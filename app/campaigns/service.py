"""Campaigns, memberships, invites and game sessions. Every function checks the caller's role itself."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import CursorResult, bindparam, func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import ApiToken, User
from app.campaigns.models import Campaign, GameSession, Invite, Membership
from app.errors import BadRequest, Conflict, Forbidden, NotFound
from app.i18n import DEFAULT, LANGUAGES, _
from app.systems import ALWAYS_ON, SYSTEMS
from app.types import utcnow

T = TypeVar("T")
NARRATOR = "narrator"
PLAYER = "player"


@dataclass(frozen=True)
class Access:
    """Who is looking at a campaign, and as what."""

    campaign: Campaign
    user: User
    role: str

    @property
    def is_narrator(self) -> bool:
        return self.role == NARRATOR


# Built once (every request to a campaign runs it): SQLAlchemy then reuses its compiled form and cache key.
_ACCESS = (
    select(Campaign, Membership.role)
    .join(Membership, Membership.campaign_id == Campaign.id)
    .where(Campaign.id == bindparam("campaign"), Membership.user_id == bindparam("user"))
)
# The API's hot path in one query: token -> user -> membership -> campaign.
_ACCESS_BY_TOKEN = (
    select(User, Campaign, Membership.role)
    .join(ApiToken, ApiToken.user_id == User.id)
    .join(Membership, Membership.user_id == User.id)
    .join(Campaign, Campaign.id == Membership.campaign_id)
    .where(
        ApiToken.token_hash == bindparam("digest"), ApiToken.revoked_at.is_(None), Campaign.id == bindparam("campaign")
    )
)
_CURRENT_SESSION = (
    select(GameSession)
    .where(GameSession.campaign_id == bindparam("campaign"), GameSession.ended_at.is_(None))
    .order_by(GameSession.number.desc())
)


def access(db: Session, user: User | None, campaign_id: int) -> Access:
    """The caller's access to a campaign. Outsiders get the same 404 as a campaign that does not exist."""
    row = None
    if user is not None:
        row = db.execute(_ACCESS, {"campaign": campaign_id, "user": user.id}).first()
    if row is None or user is None:
        raise NotFound(_("No such campaign, or you are not a member of it."))
    return Access(campaign=row[0], user=user, role=row[1])


def access_by_token(db: Session, token_digest: str, campaign_id: int) -> Access | None:
    """The same Access as `access(db, user_for_token(…), campaign_id)` in one query, or None when that would
    not be granted (the caller then asks the long way round, which raises the right 401 or 404)."""
    row = db.execute(_ACCESS_BY_TOKEN, {"digest": token_digest, "campaign": campaign_id}).first()
    if row is None:
        return None
    return Access(campaign=row[1], user=row[0], role=row[2])


def in_campaign(db: Session, acc: Access, model: type[T], row_id: int, message: str, field: str | None = None) -> T:
    """A row (character, encounter, prompt…) of the caller's campaign; the same 404 for one of another campaign
    as for one that does not exist."""
    row = db.get(model, row_id)
    if row is None or getattr(row, "campaign_id", None) != acc.campaign.id:
        raise NotFound(message, field=field)
    return row


def require_narrator(acc: Access) -> None:
    if not acc.is_narrator:
        raise Forbidden(_("Only a narrator can do that."))


def clean_systems(systems: list[str]) -> list[str]:
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise BadRequest(_("Unknown rule system: {names}.").format(names=", ".join(unknown)), field="systems")
    chosen = list(dict.fromkeys([*ALWAYS_ON, *systems]))
    return chosen


def create_campaign(
    db: Session, user: User, *, name: str, description: str = "", systems: list[str] | None = None, language: str = "en"
) -> Campaign:
    name = name.strip()
    if not name:
        raise BadRequest(_("Give the campaign a name."), field="name")
    if len(name) > 120:
        raise BadRequest(_("Keep the name under 120 characters."), field="name")
    if len(description) > 5000:
        raise BadRequest(_("Keep the description under 5,000 characters."), field="description")
    if language not in LANGUAGES:
        raise BadRequest(_("Choose one of: {languages}.").format(languages=", ".join(LANGUAGES)), field="language")
    campaign = Campaign(
        name=name,
        description=description.strip(),
        systems=clean_systems(systems or []),
        language=language,
        created_by=user.id,
        settings={},
    )
    db.add(campaign)
    db.flush()
    db.add(Membership(campaign_id=campaign.id, user_id=user.id, role=NARRATOR))
    return campaign


def campaigns_for(db: Session, user: User) -> list[tuple[Campaign, str]]:
    rows = db.execute(
        select(Campaign, Membership.role)
        .join(Membership, Membership.campaign_id == Campaign.id)
        .where(Membership.user_id == user.id)
        .order_by(Campaign.created_at.desc(), Campaign.id.desc())
    ).all()
    return [(c, r) for c, r in rows]


def members(db: Session, campaign_id: int) -> list[tuple[User, str]]:
    rows = db.execute(
        select(User, Membership.role)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.campaign_id == campaign_id)
        .order_by(Membership.role, User.username_key)
    ).all()
    return [(u, r) for u, r in rows]


def narrator_ids(db: Session, campaign_id: int) -> set[int]:
    return set(
        db.scalars(select(Membership.user_id).where(Membership.campaign_id == campaign_id, Membership.role == NARRATOR))
    )


def _membership(db: Session, campaign_id: int, user_id: int) -> Membership:
    row = db.scalar(select(Membership).where(Membership.campaign_id == campaign_id, Membership.user_id == user_id))
    if row is None:
        raise NotFound(_("That person is not a member of this campaign."))
    return row


def remove_member(db: Session, acc: Access, user_id: int) -> None:
    require_narrator(acc)
    row = _membership(db, acc.campaign.id, user_id)
    if row.role == NARRATOR and len(narrator_ids(db, acc.campaign.id)) == 1:
        raise Conflict(_("A campaign needs at least one narrator: promote someone else first."))
    db.delete(row)


def promote_member(db: Session, acc: Access, user_id: int) -> None:
    require_narrator(acc)
    _membership(db, acc.campaign.id, user_id).role = NARRATOR


def create_invite(
    db: Session, acc: Access, *, expires_in_hours: int | None = None, max_uses: int | None = None
) -> Invite:
    require_narrator(acc)
    if expires_in_hours is not None and not 1 <= expires_in_hours <= 24 * 365:
        raise BadRequest(_("Expiry must be between 1 hour and a year."), field="expires_in_hours")
    if max_uses is not None and not 1 <= max_uses <= 1000:
        raise BadRequest(_("Uses must be between 1 and 1,000."), field="max_uses")
    expires = utcnow() + timedelta(hours=expires_in_hours) if expires_in_hours else None
    invite = Invite(
        campaign_id=acc.campaign.id,
        code=secrets.token_urlsafe(18),
        created_by=acc.user.id,
        expires_at=expires,
        max_uses=max_uses,
    )
    db.add(invite)
    db.flush()
    return invite


def invites(db: Session, campaign_id: int) -> list[Invite]:
    return list(db.scalars(select(Invite).where(Invite.campaign_id == campaign_id).order_by(Invite.id.desc())))


def revoke_invite(db: Session, acc: Access, invite_id: int) -> None:
    require_narrator(acc)
    invite = db.get(Invite, invite_id)
    if invite is None or invite.campaign_id != acc.campaign.id:
        raise NotFound(_("No such invite."))
    invite.revoked_at = invite.revoked_at or utcnow()


def invite_problem(invite: Invite | None, now: datetime | None = None) -> str | None:
    now = now or utcnow()
    if invite is None:
        return _("This invite link is not valid.")
    if invite.revoked_at is not None:
        return _("This invite link was revoked. Ask the narrator for a new one.")
    if invite.expires_at is not None and invite.expires_at <= now:
        return _("This invite link has expired. Ask the narrator for a new one.")
    if invite.max_uses is not None and invite.uses >= invite.max_uses:
        return _("This invite link has been used up. Ask the narrator for a new one.")
    return None


def join_preview(db: Session, code: str) -> tuple[str | None, Campaign | None]:
    """What the invite page shows before joining: the invite's problem, else the campaign it leads to."""
    invite = db.scalar(select(Invite).where(Invite.code == code))
    problem = invite_problem(invite)
    campaign = db.get(Campaign, invite.campaign_id) if invite and not problem else None
    return problem, campaign


def find_invite(db: Session, code: str) -> Invite:
    invite = db.scalar(select(Invite).where(Invite.code == code))
    problem = invite_problem(invite)
    if problem:
        raise NotFound(problem)
    assert invite is not None
    return invite


def accept_invite(db: Session, user: User, code: str, browser_language: str | None = None) -> Campaign:
    invite = find_invite(db, code)
    campaign = db.get(Campaign, invite.campaign_id)
    assert campaign is not None
    already = db.scalar(
        select(Membership.id).where(Membership.campaign_id == campaign.id, Membership.user_id == user.id)
    )
    if already is None:
        # Count the use atomically, so a use limit holds under concurrent joins.
        used = cast(
            CursorResult[Any],
            db.execute(
                update(Invite)
                .where(Invite.id == invite.id, (Invite.max_uses.is_(None)) | (Invite.uses < Invite.max_uses))
                .values(uses=Invite.uses + 1)
            ),
        ).rowcount  # an UPDATE's result is a CursorResult; Session.execute is typed as Result
        if not used:
            raise NotFound(_("This invite link has been used up. Ask the narrator for a new one."))
        db.add(Membership(campaign_id=campaign.id, user_id=user.id, role=PLAYER))
        if user.locale is None:
            # A new member who has not chosen a language plays in a German or Danish campaign's language, unless
            # the browser asked for one of ours when joining (the account page changes it either way). English
            # campaigns leave it to the browser (Accept-Language), as before.
            own = campaign.language if campaign.language in LANGUAGES and campaign.language != DEFAULT else None
            user.locale = browser_language or own
    return campaign


def sessions(db: Session, campaign_id: int) -> list[GameSession]:
    """The campaign's game sessions, newest first (the log's session filter)."""
    return list(
        db.scalars(
            select(GameSession).where(GameSession.campaign_id == campaign_id).order_by(GameSession.number.desc())
        )
    )


def current_session(db: Session, campaign_id: int) -> GameSession | None:
    return db.scalar(_CURRENT_SESSION, {"campaign": campaign_id})


def start_session(db: Session, acc: Access, title: str = "") -> GameSession:
    require_narrator(acc)
    if current_session(db, acc.campaign.id) is not None:
        raise Conflict(_("A session is already running: end it first."))
    number = (
        db.scalar(select(func.max(GameSession.number)).where(GameSession.campaign_id == acc.campaign.id)) or 0
    ) + 1
    session = GameSession(campaign_id=acc.campaign.id, number=number, title=title.strip()[:120], started_by=acc.user.id)
    db.add(session)
    db.flush()
    return session


def running_session(db: Session, acc: Access) -> GameSession:
    require_narrator(acc)
    session = current_session(db, acc.campaign.id)
    if session is None:
        raise Conflict(_("No session is running."))
    return session


def end_session(db: Session, acc: Access) -> GameSession:
    session = running_session(db, acc)
    session.ended_at = utcnow()
    return session


def set_dice_animation(acc: Access, on: bool) -> None:
    """The narrator's switch for the table (issue 37): dice shown without their short animation, for everyone,
    whatever their own setting (e.g. during a fight). The log entries themselves never wait for it."""
    require_narrator(acc)
    acc.campaign.dice_animation = on
