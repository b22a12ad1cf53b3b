"""Accounts, campaigns, invites and characters in the JSON API."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import Field, StrictInt

from app.accounts import service as accounts
from app.api.schema import StrictBody, errors
from app.campaigns import service as campaigns
from app.characters import service as characters
from app.deps import DB, ApiAccess, ApiUser, Gate, Publisher, Throttle
from app.inputs import StrictId
from app.live.events import LiveEvent
from app.security import client_address
from app.systems import ROLLER

router = APIRouter(prefix="/api")


class Credentials(StrictBody):
    username: str = Field(max_length=40)
    password: str = Field(max_length=1024)
    token_name: str = "API token"


class CampaignIn(StrictBody):
    name: str
    description: str = ""
    systems: list[str] = []
    language: str = "en"


class InviteIn(StrictBody):
    expires_in_hours: StrictInt | None = None
    max_uses: StrictInt | None = None


class CharacterIn(StrictBody):
    name: str
    system: str = ROLLER
    sheet: dict[str, Any] | None = None
    kind: str = "pc"
    owner_id: StrictId | None = None


def _campaign_json(acc: campaigns.Access, db: DB) -> dict[str, Any]:
    c = acc.campaign
    game = campaigns.current_session(db, c.id)
    return {
        "id": c.id,
        "name": c.name,
        "description": c.description,
        "systems": c.systems,
        "language": c.language,
        "role": acc.role,
        "last_seq": c.last_seq,
        "head": c.head_hash,
        "session": {"number": game.number, "title": game.title, "started_at": game.started_at.isoformat()}
        if game
        else None,
        "members": [{"id": u.id, "username": u.username, "role": r} for u, r in campaigns.members(db, c.id)],
        "characters": [
            {
                "id": ch.id,
                "name": ch.name,
                "system": ch.system,
                "kind": ch.kind,
                "owner_id": ch.owner_id,
                "version": ch.version,
                "sheet": characters.visible_sheet(acc, ch),
            }
            for ch in characters.characters_for(db, acc)
        ],
    }


@router.post("/users", status_code=201, tags=["accounts"], responses=errors(422, 429, 503))
def create_user(body: Credentials, request: Request, db: DB, throttle: Throttle, gate: Gate) -> dict[str, Any]:
    """Sign up. 422 names the field (`password`: at least 8 characters, not a common password, not containing
    the username); 429 after too many sign-ups from one address; 503 when the server is busy hashing."""
    user = accounts.register(db, throttle, gate, body.username, body.password, address=client_address(request))
    db.commit()
    return {"id": user.id, "username": user.username}


@router.post("/tokens", status_code=201, tags=["accounts"], responses=errors(422, 429, 503))
def create_token(body: Credentials, request: Request, db: DB, throttle: Throttle, gate: Gate) -> dict[str, Any]:
    """A token for a username and password. 429 with Retry-After after too many failures (docs/LIMITS.md)."""
    user = accounts.authenticate(db, throttle, gate, body.username, body.password, address=client_address(request))
    row, token = accounts.create_token(db, user, body.token_name)
    db.commit()
    return {"token": token, "id": row.id, "name": row.name}


@router.post("/campaigns", status_code=201, tags=["campaigns"], responses=errors(401, 422))
def create_campaign(body: CampaignIn, user: ApiUser, db: DB) -> dict[str, Any]:
    campaign = campaigns.create_campaign(
        db, user, name=body.name, description=body.description, systems=body.systems, language=body.language
    )
    db.commit()
    return _campaign_json(campaigns.access(db, user, campaign.id), db)


@router.get("/campaigns", tags=["campaigns"], responses=errors(401, 422))
def list_campaigns(user: ApiUser, db: DB) -> dict[str, Any]:
    return {
        "campaigns": [
            {"id": c.id, "name": c.name, "role": r, "systems": c.systems} for c, r in campaigns.campaigns_for(db, user)
        ]
    }


@router.get("/campaigns/{campaign_id}", tags=["campaigns"], responses=errors(401, 404, 422))
def get_campaign(acc: ApiAccess, db: DB) -> dict[str, Any]:
    return _campaign_json(acc, db)


@router.post(
    "/campaigns/{campaign_id}/invites", status_code=201, tags=["campaigns"], responses=errors(401, 403, 404, 422)
)
def create_invite(body: InviteIn, acc: ApiAccess, db: DB, request: Request) -> dict[str, Any]:
    invite = campaigns.create_invite(db, acc, expires_in_hours=body.expires_in_hours, max_uses=body.max_uses)
    db.commit()
    base = request.app.state.settings.base_url or str(request.base_url).rstrip("/")
    return {
        "code": invite.code,
        "url": f"{base}/join/{invite.code}",
        "id": invite.id,
        "expires_at": invite.expires_at.isoformat() if invite.expires_at else None,
        "max_uses": invite.max_uses,
    }


@router.post("/invites/{code}/accept", tags=["campaigns"], responses=errors(401, 404, 422))
def accept_invite(
    code: Annotated[str, Path(max_length=64)], user: ApiUser, db: DB, publish: Publisher
) -> dict[str, Any]:
    campaign = campaigns.accept_invite(db, user, code)
    db.commit()
    publish(campaign.id, LiveEvent.MEMBERS, None)
    return {"campaign_id": campaign.id, "name": campaign.name}


@router.post(
    "/campaigns/{campaign_id}/characters", status_code=201, tags=["characters"], responses=errors(401, 404, 422)
)
def create_character(body: CharacterIn, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    ch = characters.create_character(
        db, acc, name=body.name, system=body.system, sheet=body.sheet, kind=body.kind, owner_id=body.owner_id
    )
    db.commit()
    publish(acc.campaign.id, LiveEvent.CHARACTERS, ch.id)
    return {
        "id": ch.id,
        "name": ch.name,
        "system": ch.system,
        "kind": ch.kind,
        "owner_id": ch.owner_id,
        "sheet": ch.sheet,
        "version": ch.version,
    }
