"""Campaign pages: the list, the table itself, members, invites, game sessions and characters."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from sqlalchemy import select
from starlette.responses import Response

from app.campaigns import service
from app.campaigns.models import Campaign, Invite
from app.campaigns.service import LANGUAGES, Access
from app.characters import service as characters
from app.encounters import service as encounters
from app.deps import DB, CurrentUser, MaybeUser, MemberAccess, Publisher
from app.errors import FateboardError
from app.forms import editable_fields
from app.inputs import Id, parse_int
from app.rolls import log as rolllog
from app.rolls import prompts
from app.rolls.appending import append_note
from app.rolls.visibility import VISIBILITY_LABELS
from app.systems import SYSTEMS
from app.web import redirect, render

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api.py


@router.get("/")
def home(request: Request, user: MaybeUser) -> Response:
    return redirect(request, "/campaigns" if user else "/signin")


@router.get("/campaigns")
def campaign_list(request: Request, db: DB, user: CurrentUser) -> Response:
    return render(request, "campaigns/list.html", {"campaigns": service.campaigns_for(db, user), "systems": SYSTEMS,
                                                   "languages": LANGUAGES, "errors": {}, "form": {}})


@router.post("/campaigns")
def create_campaign(request: Request, db: DB, user: CurrentUser, name: Annotated[str, Form()] = "",
                    description: Annotated[str, Form()] = "", systems: Annotated[list[str] | None, Form()] = None,
                    language: Annotated[str, Form()] = "en") -> Response:
    try:
        campaign = service.create_campaign(db, user, name=name, description=description, systems=systems or [],
                                           language=language)
    except FateboardError as exc:
        db.rollback()
        return render(request, "campaigns/list.html", {
            "campaigns": service.campaigns_for(db, user), "systems": SYSTEMS, "languages": LANGUAGES,
            "errors": {exc.field or "form": exc.message},
            "form": {"name": name, "description": description, "systems": systems or [], "language": language},
        }, block="create" if request.headers.get("hx-request") else None, status_code=exc.status_code)
    db.commit()
    return redirect(request, f"/campaigns/{campaign.id}")


def table_context(db: DB, acc: Access, *, with_log: bool = False, **extra: Any) -> dict[str, Any]:
    """Everything the campaign page shows; fragments re-render parts of it from the same template."""
    ctx: dict[str, Any] = {
        "acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator,
        "members": service.members(db, acc.campaign.id),
        "invites": service.invites(db, acc.campaign.id) if acc.is_narrator else [],
        "game_session": service.current_session(db, acc.campaign.id),
        "characters": characters.characters_for(db, acc),
        "actable": characters.actable_characters(db, acc),
        "prompts": prompts.open_prompts(db, acc),
        "encounters": encounters.active_encounters(db, acc),
        "systems": {sid: SYSTEMS[sid] for sid in acc.campaign.systems if sid in SYSTEMS},
        "visibilities": VISIBILITY_LABELS, "errors": {}, "form": {}, "result": None,
        "idempotency_key": secrets.token_urlsafe(16), "invite_problem": service.invite_problem,
        "adjustable": lambda ch: editable_fields(SYSTEMS[ch.system].sheet, ch.sheet) if ch.system in SYSTEMS else [],
    }
    if with_log:  # only the whole page shows the log; a panel's fragment need not render 50 entries
        ctx.update(rolllog.page(db, acc))
    ctx.update(extra)
    return ctx


@router.get("/campaigns/{campaign_id}")
def campaign_page(request: Request, db: DB, acc: MemberAccess) -> Response:
    return render(request, "campaigns/table.html", table_context(db, acc, with_log=True))


def _panel(request: Request, db: DB, acc: Access, block: str, **extra: Any) -> Response:
    status = extra.pop("status_code", 200)
    return render(request, "campaigns/table.html", table_context(db, acc, **extra), block=block, status_code=status)


def _do(request: Request, db: DB, acc: Access, block: str, action: Any) -> Response:
    """Run a narrator/member action; re-render its panel, with the error next to the field if it failed."""
    try:
        action()
        db.commit()
    except FateboardError as exc:
        db.rollback()
        return _panel(request, db, acc, block, errors={exc.field or block: exc.message}, status_code=exc.status_code)
    if not request.headers.get("hx-request"):
        return redirect(request, f"/campaigns/{acc.campaign.id}")
    return _panel(request, db, acc, block)


@router.post("/campaigns/{campaign_id}/invites")
def create_invite(request: Request, db: DB, acc: MemberAccess, expires_in_hours: Annotated[str, Form()] = "",
                  max_uses: Annotated[str, Form()] = "") -> Response:
    def act() -> None:
        hours = parse_int(expires_in_hours, "expires_in_hours", low=0)
        uses = parse_int(max_uses, "max_uses", low=0)
        service.create_invite(db, acc, expires_in_hours=hours, max_uses=uses)
    return _do(request, db, acc, "members", act)


@router.post("/campaigns/{campaign_id}/invites/{invite_id}/revoke")
def revoke_invite(request: Request, db: DB, acc: MemberAccess, invite_id: Id) -> Response:
    return _do(request, db, acc, "members", lambda: service.revoke_invite(db, acc, invite_id))


@router.post("/campaigns/{campaign_id}/members/{user_id}/remove")
def remove_member(request: Request, db: DB, acc: MemberAccess, user_id: Id) -> Response:
    return _do(request, db, acc, "members", lambda: service.remove_member(db, acc, user_id))


@router.post("/campaigns/{campaign_id}/members/{user_id}/promote")
def promote_member(request: Request, db: DB, acc: MemberAccess, user_id: Id) -> Response:
    return _do(request, db, acc, "members", lambda: service.promote_member(db, acc, user_id))


@router.post("/campaigns/{campaign_id}/sessions/start")
def start_session(request: Request, db: DB, acc: MemberAccess, publish: Publisher,
                  title: Annotated[str, Form()] = "") -> Response:
    def act() -> None:
        game = service.start_session(db, acc, title)  # flushed, committed with its entry
        append_note(db, acc, kind="session", action="start",
                    summary=f"started session {game.number}" + (f": {game.title}" if game.title else ""),
                    publish=publish)
    return _do(request, db, acc, "session", act)


@router.post("/campaigns/{campaign_id}/sessions/end")
def end_session(request: Request, db: DB, acc: MemberAccess, publish: Publisher) -> Response:
    def act() -> None:
        game = service.running_session(db, acc)
        append_note(db, acc, kind="session", action="end", summary=f"ended session {game.number}",
                    publish=publish, also=lambda: service.end_session(db, acc))
    return _do(request, db, acc, "session", act)


@router.post("/campaigns/{campaign_id}/characters")
def create_character(request: Request, db: DB, acc: MemberAccess, name: Annotated[str, Form()] = "",
                     system: Annotated[str, Form()] = "dice", kind: Annotated[str, Form()] = "pc",
                     owner_id: Annotated[str, Form()] = "") -> Response:
    def act() -> None:
        owner = parse_int(owner_id, "owner_id")
        characters.create_character(db, acc, name=name, system=system, kind=kind, owner_id=owner)
    return _do(request, db, acc, "characters", act)


@router.get("/join/{code}")
def join_page(request: Request, db: DB, user: MaybeUser, code: str) -> Response:
    invite = db.scalar(select(Invite).where(Invite.code == code))
    problem = service.invite_problem(invite)
    campaign = db.get(Campaign, invite.campaign_id) if invite and not problem else None
    if user is None and not problem:
        return redirect(request, f"/signin?next=/join/{code}")
    return render(request, "campaigns/join.html", {"code": code, "problem": problem, "campaign": campaign},
                  status_code=404 if problem else 200)


@router.post("/join/{code}")
def join(request: Request, db: DB, user: CurrentUser, code: str) -> Response:
    try:
        campaign = service.accept_invite(db, user, code)
    except FateboardError as exc:
        db.rollback()
        return render(request, "campaigns/join.html", {"code": code, "problem": exc.message, "campaign": None},
                      status_code=exc.status_code)
    db.commit()
    return redirect(request, f"/campaigns/{campaign.id}")
