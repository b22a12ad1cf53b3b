"""Server-Sent Events: one stream per campaign and viewer. The event id is the entry's seq, so a client that
reconnects with Last-Event-ID (or ?after=) gets every entry it missed, in order, then live ones."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, Request
from starlette.responses import StreamingResponse

from app import i18n
from app.accounts.service import token_digest
from app.campaigns.service import NARRATOR, Access
from app.deps import DB, ApiAccess, Hub, MemberAccess
from app.inputs import Seq, parse_int
from app.live.hub import Credential, LiveHub
from app.rolls.log import entry_html
from app.rolls.models import LogEntry
from app.rolls.present import entry_json, viewer_view

router = APIRouter()
Format = Callable[[LogEntry, bool], str]  # (entry, viewer is a narrator now) -> the event's data


def resume_point(request: Request, acc: Access, after: int | None) -> int:
    seq = parse_int(request.headers.get("last-event-id"), "Last-Event-ID", low=0)  # 422 unless 0..2**31-1
    if seq is not None:
        return seq
    if after is not None:
        return after
    return acc.campaign.last_seq


def sse_message(event: str, data: str, event_id: int | None = None) -> str:
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in data.splitlines() or [""])
    return "\n".join(lines) + "\n\n"


async def event_stream(request: Request, hub: LiveHub, acc: Access, after: int, fmt: Format,
                       credential: Credential | None) -> AsyncIterator[str]:
    """Access is re-checked before every delivery (membership, role, the session or token the stream was
    opened with): a removed, signed-out or revoked viewer gets nothing more, and a new role shows from the
    next entry on."""
    campaign_id = acc.campaign.id
    # Subscribe before catching up, so nothing published meanwhile is lost.
    sub = hub.subscribe(campaign_id, acc.user.id, credential)
    keepalive = request.app.state.settings.sse_keepalive_seconds
    narrator = acc.is_narrator
    last = after
    try:
        yield f"retry: 2000\n: connected, after {after}\n\n"
        pending = True  # catch up first
        while True:
            if pending:
                while True:
                    rows = await hub.entries_after(campaign_id, last)
                    if rows:
                        role = await hub.role_of(sub, rows[-1].seq)
                        if role is None:
                            return
                        narrator = role == NARRATOR
                    for row in rows:
                        yield sse_message("entry", fmt(row, narrator), row.seq)
                        last = row.seq
                    if len(rows) < 500:
                        break
                pending = False
            try:
                event, _seq = await asyncio.wait_for(sub.queue.get(), timeout=keepalive)
            except TimeoutError:
                # Quiet moments are checked too: a removed member's stream ends even when nothing happens.
                if await hub.role_of(sub, None) is None:
                    return
                yield ": keepalive\n\n"
                continue
            if event == "entry":
                pending = True
            else:
                yield sse_message(event, "" if _seq is None else str(_seq))
    finally:
        hub.unsubscribe(sub)


def _stream(request: Request, hub: LiveHub, acc: Access, after: int | None, fmt: Format,
            credential: Credential | None) -> StreamingResponse:
    start = resume_point(request, acc, after)
    return StreamingResponse(event_stream(request, hub, acc, start, fmt, credential), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/campaigns/{campaign_id}/stream", include_in_schema=False)
def page_stream(request: Request, acc: MemberAccess, hub: Hub, db: DB, after: Seq | None = None) -> StreamingResponse:
    db.close()  # a stream lives for hours: it must not hold a pooled connection (the hub reads with its own)
    viewer = acc.user.id

    def fmt(entry: LogEntry, narrator: bool) -> str:
        view = viewer_view(entry, viewer, narrator)
        key = (entry.campaign_id, entry.seq, f"html:{int(narrator)}:{view}:{i18n.get_locale()}")
        return hub.render_once(key, lambda: entry_html(entry, viewer, narrator))

    sid = request.scope["fb_session"].get("sid")
    return _stream(request, hub, acc, after, fmt, ("session", str(sid)) if sid else None)


@router.get("/api/campaigns/{campaign_id}/events", tags=["log"])
def api_stream(request: Request, acc: ApiAccess, hub: Hub, db: DB, after: Seq | None = None) -> StreamingResponse:
    """The live log as Server-Sent Events (`event: entry`, id = seq, data = the entry as JSON)."""
    db.close()
    viewer = acc.user.id

    def fmt(entry: LogEntry, narrator: bool) -> str:
        return json.dumps(entry_json(entry, viewer_view(entry, viewer, narrator)))

    _scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    return _stream(request, hub, acc, after, fmt, ("token", token_digest(token.strip())))
