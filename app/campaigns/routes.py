"""Campaign pages: the list, the campaign page itself, members, invites, game sessions and characters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import Response

from app import i18n
from app.campaigns import service
from app.campaigns.service import Access
from app.campaigns.views import CAMPAIGN_PAGE, NARRATOR_SCREEN, campaign_list_context, campaign_log_context
from app.characters import service as characters
from app.deps import DB, AppSettings, CurrentUser, Htmx, MaybeUser, MemberAccess, Publisher
from app.errors import BadRequest, FateboardError
from app.i18n import _, msg, session_own_title
from app.inputs import Id, OptionalId, parse_int
from app.live.events import LiveEvent
from app.panels import compose, refuse_in_panel, render_panel
from app.rolls.appending import Publish, append_note
from app.rolls.log import LogFilter, log_kind, search_text
from app.security import set_session
from app.systems import ROLLER
from app.web import HTMX, redirect, render, render_failure

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api/


@router.get("/")
def home(request: Request, user: MaybeUser) -> Response:
    """Signed in: one's campaigns. Else the landing page: what Fateboard is, and the way in."""
    if user:
        return redirect(request, "/campaigns")
    return render(request, "landing.html", {})


@router.get("/campaigns")
def campaign_list(request: Request, db: DB, user: CurrentUser) -> Response:
    return render(request, "campaigns/list.html", campaign_list_context(db, user))


@router.post("/campaigns")
def create_campaign(
    request: Request,
    db: DB,
    user: CurrentUser,
    hx: Htmx,
    name: Annotated[str, Form()] = "",
    description: Annotated[str, Form()] = "",
    systems: Annotated[list[str] | None, Form()] = None,
    language: Annotated[str, Form()] = "en",
) -> Response:
    try:
        campaign = service.create_campaign(
            db, user, name=name, description=description, systems=systems or [], language=language
        )
    except FateboardError as exc:
        form = {"name": name, "description": description, "systems": systems or [], "language": language}
        return render_failure(
            request,
            db,
            exc,
            "campaigns/list.html",
            lambda errors: campaign_list_context(db, user, errors=errors, form=form),
            block="create" if hx.request else None,
        )
    db.commit()
    if user.locale and request.scope["fb_session"].get("locale") != user.locale:
        set_session(request.scope, {**request.scope["fb_session"], "locale": user.locale})
    return redirect(request, f"/campaigns/{campaign.id}")


@router.get("/campaigns/{campaign_id}")
def campaign_page(
    request: Request,
    db: DB,
    acc: MemberAccess,
    settings: AppSettings,
    character: OptionalId = None,
    player: OptionalId = None,
    session: OptionalId = None,
    system: Annotated[str | None, Query(max_length=32)] = None,
    q: Annotated[str | None, Query(max_length=200)] = None,
    kind: Annotated[str | None, Query(max_length=16)] = None,
) -> Response:
    where = LogFilter(
        character=character,
        player=player,
        session=session,
        system=system or None,
        kind=log_kind(kind),
        text=search_text(q),
    )
    own = campaign_log_context(db, acc, log_page_size=settings.log_page_size, log_filter=where)
    return render(request, CAMPAIGN_PAGE, compose("campaign", db, acc, **own))


@router.get("/campaigns/{campaign_id}/narrator")
def narrator_screen(request: Request, db: DB, acc: MemberAccess) -> Response:
    return render(request, NARRATOR_SCREEN, compose("narrator", db, acc, called=[]))


# The event each panel's own forms announce to the other pages when they changed something (publish in `_act_on_panel`).
PANEL_EVENTS: dict[str, LiveEvent] = {
    "members": LiveEvent.MEMBERS,
    "session": LiveEvent.SESSION,
    "characters": LiveEvent.CHARACTERS,
}


def _act_on_panel(
    request: Request,
    db: DB,
    acc: Access,
    hx: HTMX,
    block: str,
    action: Callable[[], object],
    publish: Publish | None = None,
) -> Response:
    """Run a narrator/member action; re-render its panel (app/panels), with the error next to the field if it
    failed. With `publish`, the live stream announces the panel's event (PANEL_EVENTS)."""
    try:
        action()
        db.commit()
    except FateboardError as exc:
        return refuse_in_panel(request, db, exc, acc, block, key=block)
    if publish is not None:
        publish(acc.campaign.id, PANEL_EVENTS[block], None)
    if not hx.request:
        return redirect(request, f"/campaigns/{acc.campaign.id}")
    return render_panel(request, db, acc, block)


@router.post("/campaigns/{campaign_id}/invites")
def create_invite(
    request: Request,
    db: DB,
    acc: MemberAccess,
    hx: Htmx,
    expires_in_hours: Annotated[str, Form()] = "",
    max_uses: Annotated[str, Form()] = "",
) -> Response:
    def act() -> None:
        hours = parse_int(expires_in_hours, "expires_in_hours", low=0)
        uses = parse_int(max_uses, "max_uses", low=0)
        service.create_invite(db, acc, expires_in_hours=hours, max_uses=uses)

    return _act_on_panel(request, db, acc, hx, "members", act)


@router.post("/campaigns/{campaign_id}/invites/{invite_id}/revoke")
def revoke_invite(request: Request, db: DB, acc: MemberAccess, hx: Htmx, invite_id: Id) -> Response:
    return _act_on_panel(request, db, acc, hx, "members", lambda: service.revoke_invite(db, acc, invite_id))


@router.post("/campaigns/{campaign_id}/members/{user_id}/remove")
def remove_member(request: Request, db: DB, acc: MemberAccess, hx: Htmx, publish: Publisher, user_id: Id) -> Response:
    return _act_on_panel(request, db, acc, hx, "members", lambda: service.remove_member(db, acc, user_id), publish)


@router.post("/campaigns/{campaign_id}/members/{user_id}/promote")
def promote_member(request: Request, db: DB, acc: MemberAccess, hx: Htmx, publish: Publisher, user_id: Id) -> Response:
    return _act_on_panel(request, db, acc, hx, "members", lambda: service.promote_member(db, acc, user_id), publish)


@router.post("/campaigns/{campaign_id}/sessions/start")
def start_session(
    request: Request, db: DB, acc: MemberAccess, hx: Htmx, publish: Publisher, title: Annotated[str, Form()] = ""
) -> Response:
    def act() -> None:
        game = service.start_session(db, acc, title)  # flushed, committed with its entry
        own = session_own_title(game.number, game.title)  # "Session 1: Alley" typed: "Alley"
        append_note(
            db,
            acc,
            kind="session",
            action="start",
            summary=msg("started session {number}: {title}", number=game.number, title=own)
            if own
            else msg("started session {number}", number=game.number),
            publish=publish,
        )

    return _act_on_panel(request, db, acc, hx, "session", act, publish)


@router.post("/campaigns/{campaign_id}/sessions/end")
def end_session(request: Request, db: DB, acc: MemberAccess, hx: Htmx, publish: Publisher) -> Response:
    def act() -> None:
        game = service.running_session(db, acc)
        append_note(
            db,
            acc,
            kind="session",
            action="end",
            summary=msg("ended session {number}", number=game.number),
            publish=publish,
            also=lambda: service.end_session(db, acc),
        )

    return _act_on_panel(request, db, acc, hx, "session", act, publish)


@router.post("/campaigns/{campaign_id}/characters")
def create_character(
    request: Request,
    db: DB,
    acc: MemberAccess,
    hx: Htmx,
    publish: Publisher,
    name: Annotated[str, Form()] = "",
    system: Annotated[str, Form()] = ROLLER,
    kind: Annotated[str, Form()] = "pc",
    owner_id: Annotated[str, Form()] = "",
) -> Response:
    def act() -> None:
        owner = parse_int(owner_id, "owner_id")
        characters.create_character(db, acc, name=name, system=system, kind=kind, owner_id=owner)

    return _act_on_panel(request, db, acc, hx, "characters", act, publish)


@router.get("/join/{code}")
def join_page(request: Request, db: DB, user: MaybeUser, code: str) -> Response:
    """Before signing in too: the campaign's name and narrators, then sign-in or sign-up, which come back here."""
    problem, campaign = service.join_preview(db, code)
    narrators = [u.username for u, role in service.members(db, campaign.id) if role == "narrator"] if campaign else []
    return render(
        request,
        "campaigns/join.html",
        {"code": code, "problem": problem, "campaign": campaign, "narrators": narrators, "next": f"/join/{code}"},
        status_code=404 if problem else 200,
    )


@router.post("/join/{code}")
def join(request: Request, db: DB, user: CurrentUser, publish: Publisher, code: str) -> Response:
    try:
        campaign = service.accept_invite(db, user, code, i18n.accepted(request.headers.get("accept-language")))
    except FateboardError as exc:
        problem = exc.message
        return render_failure(
            request,
            db,
            exc,
            "campaigns/join.html",
            lambda _errors: {"code": code, "problem": problem, "campaign": None},
        )
    db.commit()
    publish(campaign.id, LiveEvent.MEMBERS, None)
    return redirect(request, f"/campaigns/{campaign.id}")


@router.post("/campaigns/{campaign_id}/dice-animation")
def set_dice_animation(request: Request, db: DB, acc: MemberAccess, animation: Annotated[str, Form()] = "") -> Response:
    """The narrator screen's "dice animation at this table" (on / off)."""
    if animation not in ("on", "off"):
        raise BadRequest(_("Choose on or off."), field="animation")
    service.set_dice_animation(acc, animation == "on")
    db.commit()
    return redirect(request, f"/campaigns/{acc.campaign.id}/narrator?saved=animation#table-dice")
