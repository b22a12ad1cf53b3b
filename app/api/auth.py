"""Who calls the JSON API: the bearer token's digest, and the token's access to a campaign — as the hub keeps it
(no query), else in one query (then kept), else the long way round, which names the problem."""

from __future__ import annotations

import time

from fastapi import Request
from sqlalchemy.orm import Session

from app.accounts import service as accounts
from app.campaigns import service as campaigns
from app.deps import api_user
from app.live.hub import LiveHub
from app.live.tokens import TokenAccess


def bearer_digest(request: Request) -> str | None:
    scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    return accounts.token_digest(token.strip()) if scheme.lower() == "bearer" and token.strip() else None


def authenticate(request: Request, campaign_id: int, digest: str | None) -> int:
    """Before the writer, in the thread pool: the caller's user id, or the route's 401 / 404."""
    with request.app.state.sessionmaker() as db:
        return token_access(request, db, campaign_id, digest).user.id


def token_access(request: Request, db: Session, campaign_id: int, digest: str | None) -> campaigns.Access:
    """The token's access as the hub keeps it (no query), else in one query (then kept), else the long way round,
    which names the problem (no valid token: 401; not a member: 404)."""
    hub: LiveHub = request.app.state.hub
    known = hub.token_access(campaign_id, digest) if digest is not None else None
    if known is not None:
        user, campaign = known.rows()
        acc = campaigns.Access(campaign=campaign, user=user, role=known.role)
    else:
        forgets, read_at = hub.token_forgets(), time.monotonic()
        found = campaigns.access_by_token(db, digest, campaign_id) if digest is not None else None
        if found is not None and digest is not None:
            hub.remember_token(
                campaign_id, digest, TokenAccess.of(found.user, found.campaign, found.role, read_at), forgets
            )
        acc = found or campaigns.access(db, api_user(request, db), campaign_id)
    request.state.user = acc.user
    return acc
