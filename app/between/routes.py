"""The pages between sessions: the campaign page's panel and its forms (answer, plan, cancel, lines and veils, the
calendar feed, the digest), the X-card from every campaign page, the recap page and its Markdown, the campaign's
.ics for signed-in members. Thin: the services decide; the JSON API is app/between/api.py."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from app.between import catchup, recap, safety, schedule
from app.between.views import PANEL, RECAP, digest_choice, panel_context, recap_context
from app.campaigns.service import Access
from app.deps import DB, AppSettings, FormBody, MemberAccess, Publisher
from app.errors import BadRequest, FateboardError
from app.i18n import _
from app.inputs import Id, parse_int
from app.web import HTMX, redirect, render, render_failure

router = APIRouter(include_in_schema=False)


def _base(request: Request) -> str:
    configured: str = request.app.state.settings.base_url
    return configured.rstrip("/") if configured else str(request.base_url).rstrip("/")


def _panel(request: Request, db: DB, acc: Access, **extra: Any) -> Response:
    if not HTMX.of(request).request:
        return redirect(request, f"/campaigns/{acc.campaign.id}#between")
    return render(request, PANEL, panel_context(db, acc, **extra), block="between")


def _failed(request: Request, db: DB, acc: Access, exc: FateboardError, key: str, form: dict[str, str]) -> Response:
    return render_failure(
        request,
        db,
        exc,
        PANEL,
        lambda errors: panel_context(db, acc, errors=errors, form=form),
        key=key,
        by_field=False,
        block="between",
    )


@router.get("/campaigns/{campaign_id}/between")
def panel(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The panel alone (its forms answer with it)."""
    return render(request, PANEL, panel_context(db, acc), block="between")


@router.post("/campaigns/{campaign_id}/between/read")
def read(request: Request, db: DB, acc: MemberAccess, form: FormBody) -> Response:
    """The open page read new entries as they came (static/js/between.js): the mark moves forward."""
    seq = parse_int(form.get("seq"), "seq")
    if seq is None:
        raise BadRequest(_("Which entry?"), field="seq")
    catchup.mark_read(db, acc, seq)
    return Response(status_code=204)


@router.post("/campaigns/{campaign_id}/between/rsvp/{session_id}")
def rsvp(request: Request, db: DB, acc: MemberAccess, session_id: Id, form: FormBody) -> Response:
    answer = str(form.get("answer") or "")
    try:
        schedule.answer(db, acc, session_id, answer)
        db.commit()
    except FateboardError as exc:
        return _failed(request, db, acc, exc, f"rsvp-{session_id}", {})
    return _panel(request, db, acc)


def local_start(date_time: str, zone: str) -> str:
    """The form's local date and time (`datetime-local`) in the browser's zone (static/js/between.js fills
    `zone`; without it, UTC) → ISO 8601 with its offset."""
    try:
        tz = ZoneInfo(zone) if zone else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        tz = ZoneInfo("UTC")
    try:
        naive = datetime.fromisoformat(date_time.strip())
    except ValueError:
        raise BadRequest(_("Choose a date and a time."), field="starts_at") from None
    if naive.tzinfo is not None:
        raise BadRequest(_("Choose a date and a time."), field="starts_at")
    return naive.replace(tzinfo=tz).isoformat()


@router.post("/campaigns/{campaign_id}/between/schedule")
def propose(request: Request, db: DB, acc: MemberAccess, form: FormBody) -> Response:
    shown = {k: str(form.get(k) or "") for k in ("starts_at", "duration_minutes", "title", "zone")}
    try:
        minutes = parse_int(shown["duration_minutes"] or str(schedule.DEFAULT_MINUTES), "duration_minutes")
        schedule.propose(
            db,
            acc,
            starts_at=local_start(shown["starts_at"], shown["zone"]),
            duration_minutes=minutes if minutes is not None else schedule.DEFAULT_MINUTES,
            title=shown["title"],
        )
        db.commit()
    except FateboardError as exc:
        return _failed(request, db, acc, exc, "schedule", shown)
    return _panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/between/schedule/{session_id}/cancel")
def cancel(request: Request, db: DB, acc: MemberAccess, settings: AppSettings, session_id: Id) -> Response:
    try:
        schedule.cancel(db, acc, session_id, schedule.Mail(on=bool(settings.smtp_url), base_url=_base(request)))
        db.commit()
    except FateboardError as exc:
        return _failed(request, db, acc, exc, f"cancel-{session_id}", {})
    request.app.state.outbox.wake()
    return _panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/between/x")
def x_card(request: Request, db: DB, acc: MemberAccess, settings: AppSettings, publish: Publisher) -> Response:
    """The X-card from any campaign page (one tap, then the confirm): the answer is the card's own fragment."""
    try:
        safety.play_x(db, acc, settings.resolved_secret_key(), publish=publish)
    except FateboardError as exc:
        db.rollback()
        return render(
            request,
            "between/_xcard.html",
            {"campaign": acc.campaign, "x_error": exc.message},
            block="x_result",
            status_code=exc.status_code,
            headers={"Retry-After": str(getattr(exc, "retry_after", 60))} if exc.status_code == 429 else None,
        )
    if not HTMX.of(request).request:
        return redirect(request, f"/campaigns/{acc.campaign.id}")
    return render(request, "between/_xcard.html", {"campaign": acc.campaign, "x_played": True}, block="x_result")


@router.post("/campaigns/{campaign_id}/between/safety")
def add_item(request: Request, db: DB, acc: MemberAccess, settings: AppSettings, form: FormBody) -> Response:
    shown = {"kind": str(form.get("kind") or ""), "text": str(form.get("text") or "")}
    try:
        safety.add_item(db, acc, settings.resolved_secret_key(), kind=shown["kind"], text=shown["text"][:2000])
        db.commit()
    except FateboardError as exc:
        return _failed(request, db, acc, exc, "safety", shown)
    return _panel(request, db, acc, result=_("Added. Nobody can see who added it."))


@router.post("/campaigns/{campaign_id}/between/safety/{item_id}/delete")
def remove_item(request: Request, db: DB, acc: MemberAccess, item_id: Id) -> Response:
    try:
        safety.remove_item(db, acc, item_id)
        db.commit()
    except FateboardError as exc:
        return _failed(request, db, acc, exc, "safety", {})
    return _panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/between/feed/revoke")
def revoke_feed(request: Request, db: DB, acc: MemberAccess) -> Response:
    schedule.drop_feed(db, acc.user)
    db.commit()
    return _panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/between/feed")
def feed(request: Request, db: DB, acc: MemberAccess) -> Response:
    """Create (or replace) the member's secret calendar feed: its URL is shown once."""
    secret = schedule.new_feed(db, acc.user)
    db.commit()
    return _panel(request, db, acc, feed_url=f"{_base(request)}/api/calendar-feed/{secret}.ics")


@router.post("/campaigns/{campaign_id}/between/digest")
def digest(request: Request, db: DB, acc: MemberAccess, form: FormBody) -> Response:
    digest_choice(db, acc, bool(str(form.get("on") or "")))
    return _panel(request, db, acc)


@router.get("/campaigns/{campaign_id}/calendar.ics")
def calendar(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The campaign's upcoming sessions for a signed-in member (the API's twin needs a token)."""
    sessions = schedule.upcoming(db, [acc.campaign.id])
    host = urlsplit(_base(request)).netloc or "fateboard.invalid"
    text = schedule.calendar(sessions, {acc.campaign.id: acc.campaign}, _base(request), host)
    return Response(
        text,
        media_type="text/calendar; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="fateboard-campaign-{acc.campaign.id}.ics"',
            "Cache-Control": "private, no-store",
        },
    )


@router.get("/campaigns/{campaign_id}/sessions/{number}/recap")
def recap_page(request: Request, db: DB, acc: MemberAccess, number: Annotated[Id, Path()]) -> Response:
    return render(request, RECAP, recap_context(db, acc, number))


@router.get("/campaigns/{campaign_id}/sessions/{number}/recap.md")
def recap_markdown(db: DB, acc: MemberAccess, number: Annotated[Id, Path()]) -> Response:
    story = recap.build(db, acc, number)
    return Response(
        recap.markdown(story, acc.campaign.name),
        media_type="text/markdown; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="fateboard-campaign-{acc.campaign.id}-session-{number}.md"'
        },
    )
