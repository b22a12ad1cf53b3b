"""The JSON API of the campaign between sessions (../shared/contracts/BETWEEN-SESSIONS-API.md): catch-up, what
waits for me, the schedule and calendars, recaps, safety tools. Thin: the services decide."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Body, Header, Path, Query, Request
from pydantic import Field, StrictInt, StrictStr
from starlette.responses import JSONResponse, Response

from app.api import StrictBody, errors
from app.between import catchup, recap, safety, schedule
from app.between.models import PlannedSession
from app.between.replays import earlier, named_key, remember, request_hash
from app.campaigns.service import Access
from app.deps import DB, ApiAccess, ApiUser, Publisher
from app.inputs import Id, StrictSeq
from app.rolls.present import entry_json, viewer_view

router = APIRouter(prefix="/api", tags=["between sessions"])
IdempotencyKey = Annotated[str | None, Header(max_length=100)]


class ReadIn(StrictBody):
    seq: StrictSeq


class ScheduleIn(StrictBody):
    starts_at: StrictStr = Field(max_length=64)
    duration_minutes: StrictInt = schedule.DEFAULT_MINUTES
    title: StrictStr | None = Field(default=None, max_length=1000)


class RsvpIn(StrictBody):
    answer: Literal["yes", "maybe", "no"]


class SafetyItemIn(StrictBody):
    kind: Literal["line", "veil"]
    text: StrictStr = Field(max_length=2000)


class XIn(StrictBody):
    pass


def base_url(request: Request) -> str:
    configured: str = request.app.state.settings.base_url
    return configured.rstrip("/") if configured else str(request.base_url).rstrip("/")


def host_of(request: Request) -> str:
    return urlsplit(base_url(request)).netloc or "fateboard.invalid"


def mail_of(request: Request) -> schedule.Mail:
    return schedule.Mail(on=bool(request.app.state.settings.smtp_url), base_url=base_url(request))


def secret_of(request: Request) -> str:
    secret: str = request.app.state.settings.resolved_secret_key()
    return secret


def _replayed(status: int, answer: dict[str, Any]) -> JSONResponse:
    return JSONResponse({**answer, "replayed": True}, status_code=status)


# --- 1. catch-up ----------------------------------------------------------------------------------------------


@router.get("/campaigns/{campaign_id}/unread", responses=errors(401, 404, 422))
def unread(acc: ApiAccess, db: DB) -> dict[str, Any]:
    """Your read mark, how many lines of your log came after it (not counting your own), and the first of them."""
    return catchup.unread(db, acc.user.id, acc.campaign.id).json()


@router.post("/campaigns/{campaign_id}/read", responses=errors(401, 404, 422), response_model=None)
def read(body: ReadIn, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None) -> Any:
    """Move your read mark to `seq`. It never moves back (a lower seq answers the current mark); a seq past the
    log's head is a 422."""
    key = named_key("read", acc.user.id, acc.campaign.id, idempotency_key) if idempotency_key else None
    digest = request_hash("read", body.seq)
    first = earlier(db, key, digest)
    if first is not None:
        return _replayed(*first)
    answer = catchup.mark_read(db, acc, body.seq).json()
    remember(db, key, digest, 200, answer)
    db.commit()
    return answer


@router.get("/me/waiting", responses=errors(401, 422))
def waiting(user: ApiUser, db: DB) -> dict[str, Any]:
    """Every campaign of yours with its unread count and what the game waits for from you, each with a link."""
    return {"campaigns": [c.json() for c in catchup.waiting_for(db, user)]}


# --- 2. the schedule ------------------------------------------------------------------------------------------


def _session_json(db: DB, acc: Access, planned: PlannedSession) -> dict[str, Any]:
    return schedule.session_json(planned, schedule.answers(db, [planned.id])[planned.id], acc.user.id)


@router.post(
    "/campaigns/{campaign_id}/schedule", status_code=201, responses=errors(401, 403, 404, 422), response_model=None
)
def propose(body: ScheduleIn, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None) -> Any:
    """A narrator proposes a session: `starts_at` with its offset, in the future; 15–1440 minutes; a title."""
    key = named_key("schedule", acc.user.id, acc.campaign.id, idempotency_key) if idempotency_key else None
    digest = request_hash("schedule", body.model_dump())
    first = earlier(db, key, digest)
    if first is not None:
        return _replayed(*first)
    planned = schedule.propose(
        db, acc, starts_at=body.starts_at, duration_minutes=body.duration_minutes, title=body.title
    )
    answer = _session_json(db, acc, planned)
    remember(db, key, digest, 201, answer)
    db.commit()
    return answer


@router.get("/campaigns/{campaign_id}/schedule", responses=errors(401, 404, 422))
def upcoming(acc: ApiAccess, db: DB) -> dict[str, Any]:
    sessions = schedule.upcoming(db, [acc.campaign.id])
    given = schedule.answers(db, [p.id for p in sessions])
    return {"upcoming": [schedule.session_json(p, given[p.id], acc.user.id) for p in sessions]}


@router.put("/campaigns/{campaign_id}/schedule/{session_id}/rsvp", responses=errors(401, 404, 422), response_model=None)
def rsvp(session_id: Id, body: RsvpIn, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None) -> Any:
    """Your answer: yes, maybe or no. A new answer replaces the old one."""
    key = named_key("rsvp", acc.user.id, session_id, idempotency_key) if idempotency_key else None
    digest = request_hash("rsvp", session_id, body.answer)
    first = earlier(db, key, digest)
    if first is not None:
        return _replayed(*first)
    planned = schedule.answer(db, acc, session_id, body.answer)
    answer = _session_json(db, acc, planned)
    remember(db, key, digest, 200, answer)
    db.commit()
    return answer


@router.delete(
    "/campaigns/{campaign_id}/schedule/{session_id}",
    status_code=204,
    responses=errors(401, 403, 404, 422),
    response_class=Response,
)
def cancel(
    session_id: Id, request: Request, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None
) -> Response:
    """A narrator cancels a session: gone from the calendars; who said yes or maybe is told."""
    key = named_key("cancel", acc.user.id, session_id, idempotency_key) if idempotency_key else None
    digest = request_hash("cancel", session_id)
    if earlier(db, key, digest) is not None:
        return Response(status_code=204, headers={"Idempotent-Replayed": "true"})
    schedule.cancel(db, acc, session_id, mail_of(request))
    remember(db, key, digest, 204, {})
    db.commit()
    request.app.state.outbox.wake()
    return Response(status_code=204)


CALENDAR: dict[int | str, dict[str, Any]] = {200: {"description": "RFC 5545", "content": {"text/calendar": {}}}}


def _calendar_response(text: str, name: str) -> Response:
    return Response(
        text,
        media_type="text/calendar; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.ics"', "Cache-Control": "private, no-store"},
    )


@router.get(
    "/campaigns/{campaign_id}/calendar.ics",
    responses={**CALENDAR, **errors(401, 404, 422)},
    response_class=Response,
)
def calendar(request: Request, acc: ApiAccess, db: DB) -> Response:
    """The campaign's upcoming sessions as an iCalendar file."""
    sessions = schedule.upcoming(db, [acc.campaign.id])
    text = schedule.calendar(sessions, {acc.campaign.id: acc.campaign}, base_url(request), host_of(request))
    return _calendar_response(text, f"fateboard-campaign-{acc.campaign.id}")


@router.post("/me/calendar-feed", status_code=201, responses=errors(401, 422))
def new_feed(request: Request, user: ApiUser, db: DB) -> dict[str, str]:
    """A secret URL with the calendar of all your campaigns, for calendar apps (no sign-in). A new one replaces
    the old, which then answers 404. (A retried request makes another new URL: the secret is kept only hashed.)"""
    secret = schedule.new_feed(db, user)
    db.commit()
    return {"url": f"{base_url(request)}/api/calendar-feed/{secret}.ics"}


@router.delete("/me/calendar-feed", status_code=204, responses=errors(401, 422), response_class=Response)
def drop_feed(user: ApiUser, db: DB) -> Response:
    schedule.drop_feed(db, user)
    db.commit()
    return Response(status_code=204)


@router.get("/calendar-feed/{secret}.ics", responses={**CALENDAR, **errors(404, 422)}, response_class=Response)
def feed(secret: Annotated[str, Path(max_length=100)], request: Request, db: DB) -> Response:
    """A member's calendar feed: every campaign's upcoming sessions, for whoever holds the secret URL."""
    user = schedule.feed_user(db, secret)
    campaigns = schedule.campaigns_of(db, user)
    text = schedule.calendar(schedule.upcoming(db, campaigns), campaigns, base_url(request), host_of(request))
    return _calendar_response(text, "fateboard")


# --- 3. recaps ------------------------------------------------------------------------------------------------


@router.get(
    "/campaigns/{campaign_id}/sessions/{number}/recap",
    responses={200: {"description": "The recap", "content": {"text/markdown": {}}}, **errors(401, 404, 422)},
    response_model=None,
)
def session_recap(
    number: Id,
    request: Request,
    acc: ApiAccess,
    db: DB,
    format: Annotated[Literal["json", "md"] | None, Query()] = None,
) -> Any:
    """The game session's story as you may read it: `Accept: text/markdown` or `?format=md` for the Markdown."""
    story = recap.build(db, acc, number)
    wants_md = format == "md" or (format is None and "text/markdown" in request.headers.get("accept", ""))
    if wants_md:
        return Response(recap.markdown(story, acc.campaign.name), media_type="text/markdown; charset=utf-8")
    return recap.recap_json(story, acc.campaign.name)


# --- 4. safety tools ------------------------------------------------------------------------------------------


@router.post(
    "/campaigns/{campaign_id}/safety/x",
    status_code=201,
    responses=errors(401, 404, 422, 429),
    response_model=None,
)
def x_card(
    request: Request,
    acc: ApiAccess,
    db: DB,
    publish: Publisher,
    body: Annotated[XIn | None, Body()] = None,
    idempotency_key: IdempotencyKey = None,
) -> Any:
    """Play the X-card: the table pauses for everyone. The entry has no author — nobody, not even the server's
    records, can tell who played it. One per member per campaign per 60 seconds (429, Retry-After)."""
    played = safety.play_x(db, acc, secret_of(request), idempotency_key=idempotency_key, publish=publish)
    answer = {
        **entry_json(played.entry, viewer_view(played.entry, acc.user.id, acc.is_narrator)),
        "replayed": played.replayed,
    }
    return JSONResponse(answer, status_code=201)


@router.get("/campaigns/{campaign_id}/safety", responses=errors(401, 404, 422))
def safety_list(acc: ApiAccess, db: DB) -> dict[str, Any]:
    """The campaign's lines (never in the game) and veils (off screen)."""
    return safety.items_json(db, acc.campaign.id)


@router.post(
    "/campaigns/{campaign_id}/safety",
    status_code=201,
    responses=errors(401, 404, 422, 429),
    response_model=None,
)
def safety_add(
    body: SafetyItemIn, request: Request, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None
) -> Any:
    """Add a line or a veil, anonymously: nothing records who added it."""
    answer, replayed = safety.add_item(
        db, acc, secret_of(request), kind=body.kind, text=body.text, idempotency_key=idempotency_key
    )
    db.commit()
    if replayed:
        return _replayed(201, answer)
    return JSONResponse(answer, status_code=201)


@router.delete(
    "/campaigns/{campaign_id}/safety/{item_id}",
    status_code=204,
    responses=errors(401, 403, 404, 422),
    response_class=Response,
)
def safety_remove(item_id: Id, acc: ApiAccess, db: DB, idempotency_key: IdempotencyKey = None) -> Response:
    """Narrators curate the list (a member who added an item cannot remove it: nobody knows who added it)."""
    key = named_key("safety-remove", acc.user.id, item_id, idempotency_key) if idempotency_key else None
    digest = request_hash("safety-remove", acc.campaign.id, item_id)
    if earlier(db, key, digest) is not None:
        return Response(status_code=204, headers={"Idempotent-Replayed": "true"})
    safety.remove_item(db, acc, item_id)
    remember(db, key, digest, 204, {})
    db.commit()
    return Response(status_code=204)
