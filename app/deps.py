"""Dependency aliases, so route signatures read like sentences: `def page(acc: MemberAccess, db: DB, hx: Htmx)`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.datastructures import FormData

from app.accounts.models import User
from app.accounts.passwords import Argon2Gate
from app.accounts.service import user_for_session, user_for_token
from app.accounts.throttle import Throttle as SigninThrottle
from app.campaigns.service import Access, access
from app.config import Settings
from app.errors import NotSignedIn
from app.i18n import _
from app.inputs import Id
from app.live.hub import LiveHub
from app.rolls.appending import Publish
from app.web import HTMX


def get_db(request: Request) -> Iterator[Session]:
    with request.app.state.sessionmaker() as session:
        yield session


DB = Annotated[Session, Depends(get_db)]


def optional_user(request: Request, db: DB) -> User | None:
    user = user_for_session(db, request.scope["fb_session"].get("sid"))
    request.state.user = user
    return user


def page_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    if user is None:
        raise NotSignedIn(_("Sign in to continue."))
    return user


def api_user(request: Request, db: DB) -> User:
    scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    user = user_for_token(db, token.strip()) if scheme.lower() == "bearer" and token else None
    if user is None:
        raise NotSignedIn(
            _("Send a valid API token: 'Authorization: Bearer <token>' (create one on your account page).")
        )
    request.state.user = user
    return user


MaybeUser = Annotated[User | None, Depends(optional_user)]
CurrentUser = Annotated[User, Depends(page_user)]
ApiUser = Annotated[User, Depends(api_user)]


def page_access(campaign_id: Id, user: CurrentUser, db: DB) -> Access:
    return access(db, user, campaign_id)


def api_access(campaign_id: Id, user: ApiUser, db: DB) -> Access:
    return access(db, user, campaign_id)


MemberAccess = Annotated[Access, Depends(page_access)]
ApiAccess = Annotated[Access, Depends(api_access)]


# async: no I/O here, so no trip through the thread pool. app.state is untyped: each names what create_app put there.
async def get_publish(request: Request) -> Publish:
    publish: Publish = request.app.state.broker.publish
    return publish


async def get_hub(request: Request) -> LiveHub:
    hub: LiveHub = request.app.state.hub
    return hub


async def get_throttle(request: Request) -> SigninThrottle:
    throttle: SigninThrottle = request.app.state.throttle
    return throttle


async def get_gate(request: Request) -> Argon2Gate:
    gate: Argon2Gate = request.app.state.argon2_gate
    return gate


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_htmx(request: Request) -> HTMX:
    return HTMX.of(request)


# A form's bounds: Starlette's own, named here (at most 1,000 fields, 1,000 files, 1 MiB a part); the whole body
# was bounded before any of this by security.BodyLimitMiddleware (1 MiB) and checked by InputGuard (no NUL).
FORM_MAX_FIELDS = 1000
FORM_MAX_FILES = 1000
FORM_MAX_PART_BYTES = 1024 * 1024


async def read_form(request: Request) -> AsyncIterator[FormData]:
    """The request's form, read once on the event loop, so that a route taking it (`form: FormBody`) is a plain
    `def` that FastAPI runs in the thread pool with its database session. A body that cannot be parsed raises
    Starlette's HTTPException(400), which app/main.py answers with a 422 in words; uploaded parts are closed
    when the request is done."""
    async with request.form(
        max_fields=FORM_MAX_FIELDS, max_files=FORM_MAX_FILES, max_part_size=FORM_MAX_PART_BYTES
    ) as form:
        yield form


Publisher = Annotated[Publish, Depends(get_publish)]
Throttle = Annotated[SigninThrottle, Depends(get_throttle)]
Gate = Annotated[Argon2Gate, Depends(get_gate)]
Hub = Annotated[LiveHub, Depends(get_hub)]
AppSettings = Annotated[Settings, Depends(get_settings)]
# The HTMX request headers, typed (django-htmx's `request.htmx`): `def form(hx: Htmx)`, then `hx.request`.
Htmx = Annotated[HTMX, Depends(get_htmx)]
# Every field of a page's form, for the routes that read more than a few named ones (action forms, prompts).
FormBody = Annotated[FormData, Depends(read_form)]
