"""Server-Sent Events: one stream per campaign and viewer. The event id is the entry's seq, so a client that
reconnects with Last-Event-ID (or ?after=) gets every entry it missed, in order, then live ones.

A stream lives for hours and a busy box holds a thousand of them, so they are served lean: `StreamDispatcher`
sits in front of the middleware stack and answers a well-formed GET on either stream path itself — the same
input checks as InputGuard, the session read by SessionCookieMiddleware's own code, the same dependency
functions as the routes below for authentication and access, the same headers — and hands the request to
the stack otherwise, which answers every refusal (401, the sign-in redirect, 404, 422, 405) as it always has.
The stream itself (`EventStream`) is one raw ASGI response, whichever way it was opened: ids only, no ORM
object, no task group; it writes straight to the server's `send` and notices a client hanging up through
one small task listening on `receive`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from app import i18n
from app.accounts.service import token_digest
from app.campaigns.service import NARRATOR, Access
from app.deps import DB, ApiAccess, Hub, MemberAccess, api_access, api_user, optional_user, page_access, page_user
from app.errors import FateboardError
from app.inputs import Seq, parse_int, request_problem
from app.live.access import ACCESS
from app.live.hub import TICK, Credential, LiveHub, Subscriber
from app.rolls.log import entry_html
from app.rolls.models import LogEntry
from app.rolls.present import entry_json, talk_marks, viewer_view
from app.rolls.visibility import View
from app.security import SessionCookieMiddleware, add_security_headers

router = APIRouter()
Format = Callable[[LogEntry, bool], bytes]  # (entry, viewer is a narrator now) -> the whole event, framed
PAGE_STREAM = "/campaigns/{campaign_id}/stream"
API_STREAM = "/api/campaigns/{campaign_id}/events"


def sse_message(event: str, data: str, event_id: int | None = None) -> str:
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in data.splitlines() or [""])
    return "\n".join(lines) + "\n\n"


def stream_headers() -> list[tuple[bytes, bytes]]:
    """The headers of every stream: what StreamingResponse and SecurityHeadersMiddleware gave it, built once."""
    message: dict[str, Any] = {
        "headers": [
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
            (b"content-type", b"text/event-stream; charset=utf-8"),
        ]
    }
    add_security_headers(MutableHeaders(scope=message))
    return list(message["headers"])


HEADERS = stream_headers()


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who a stream is for, as ids: the ORM objects of the access check are not kept for the stream's life."""

    campaign_id: int
    user_id: int
    role: str
    last_seq: int

    @property
    def narrator(self) -> bool:
        return self.role == NARRATOR

    @classmethod
    def of(cls, acc: Access) -> Viewer:
        return cls(acc.campaign.id, acc.user.id, acc.role, acc.campaign.last_seq)


def page_format(hub: LiveHub, viewer: int) -> Format:
    def fmt(entry: LogEntry, narrator: bool) -> bytes:
        view = viewer_view(entry, viewer, narrator)
        own, mentioned = talk_marks(entry, viewer) if view == View.FULL else (False, False)  # talk lines
        key = (
            entry.campaign_id,
            entry.seq,
            f"html:{int(narrator)}:{view}:{int(own)}{int(mentioned)}:{i18n.get_locale()}",
        )
        return hub.render_once(key, lambda: _framed(entry.seq, entry_html(entry, viewer, narrator)))

    return fmt


def api_format(hub: LiveHub, viewer: int) -> Format:
    def fmt(entry: LogEntry, narrator: bool) -> bytes:
        view = viewer_view(entry, viewer, narrator)  # entry_json depends on the view (and the language) alone
        key = (entry.campaign_id, entry.seq, f"json:{view}:{i18n.get_locale()}")
        return hub.render_once(key, lambda: _framed(entry.seq, json.dumps(entry_json(entry, view))))

    return fmt


def _framed(seq: int, data: str) -> bytes:
    return sse_message("entry", data, seq).encode()


def resume_point(last_event_id: str | None, after: int | None, last_seq: int) -> int:
    seq = parse_int(last_event_id, "Last-Event-ID", low=0)  # 422 unless 0..2**31-1
    if seq is not None:
        return seq
    if after is not None:
        return after
    return last_seq


class EventStream(Response):
    """One viewer's stream, as a raw ASGI response. Its access (membership, role, the session or token it was
    opened with) is what the opener found, re-decided by the hub on every access event (app/live/access.py): a
    removed, signed-out or revoked viewer's stream ends at once and gets nothing more, and a new role shows from
    the next entry on — without a query per delivery."""

    def __init__(
        self, hub: LiveHub, viewer: Viewer, after: int, fmt: Format, credential: Credential | None, keepalive: float
    ) -> None:
        self.hub, self.viewer, self.fmt = hub, viewer, fmt
        self.last, self.narrator = after, viewer.narrator  # the last seq sent, and the role it was sent for
        self.credential, self.keepalive = credential, keepalive
        self.status_code = 200
        self.background = None
        self.raw_headers = list(HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Subscribe before catching up, so nothing published meanwhile is lost.
        sub = self.hub.subscribe(self.viewer.campaign_id, self.viewer.user_id, self.credential, self.viewer.role)
        self.hub.tick_every(self.keepalive / 2)
        listener = asyncio.create_task(_until_disconnect(receive, sub))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await self._run(sub, send)
            if not sub.gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            listener.cancel()
            self.hub.unsubscribe(sub)
        if self.background is not None:
            await self.background()

    async def _run(self, sub: Subscriber, send: Send) -> None:
        loop = asyncio.get_running_loop()
        sent = loop.time()

        async def emit(data: bytes) -> None:
            nonlocal sent
            sent = loop.time()
            await send({"type": "http.response.body", "body": data, "more_body": True})

        await emit(f"retry: 2000\n: connected, after {self.last}\n\n".encode())
        pending = True  # catch up first
        while not sub.gone:
            if pending and not await self._catch_up(sub, emit):
                return
            pending = False
            # No timer per stream and event: the hub's one ticker wakes every stream every half keepalive.
            event, seq = await sub.queue.get()
            if event == TICK:
                if loop.time() - sent < self.keepalive:
                    continue
                # Quiet moments are checked too (the hub's answer, re-read once it is ACCESS_MAX_AGE old).
                if await self.hub.role_of(sub) is None:
                    return
                await emit(b": keepalive\n\n")
            elif event == "entry":
                pending = seq is None or seq > self.last  # not for an entry an earlier catch-up already sent
            elif event == ACCESS:  # the hub's own: who may read this stream changed (not for the client)
                role = await self.hub.role_of(sub)
                if role is None:
                    return
                self.narrator = role == NARRATOR
            elif not sub.gone:
                await emit(sse_message(event, "" if seq is None else str(seq)).encode())

    async def _catch_up(self, sub: Subscriber, emit: Callable[[bytes], Awaitable[None]]) -> bool:
        """Every entry after the last one sent, in order (a method of its own, so no entry stays referenced by
        the idle stream's frame); False when the viewer may no longer read them."""
        while True:
            rows = await self.hub.entries_after(self.viewer.campaign_id, self.last)
            if rows:
                role = await self.hub.role_of(sub)
                if role is None:
                    return False
                self.narrator = role == NARRATOR
            for row in rows:
                if sub.gone:
                    return True
                await emit(self.fmt(row, self.narrator))
                self.last = row.seq
            if len(rows) < 500:
                return True


async def _until_disconnect(receive: Receive, sub: Subscriber) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    sub.gone = True
    sub.wake("gone", None)


def _events(
    hub: LiveHub, keepalive: float, viewer: Viewer, start: int, page: bool, credential: Credential | None
) -> EventStream:
    fmt = page_format(hub, viewer.user_id) if page else api_format(hub, viewer.user_id)
    return EventStream(hub, viewer, start, fmt, credential, keepalive)


def _session_credential(sid: object) -> Credential | None:
    return ("session", str(sid)) if sid else None


def _token_credential(authorization: str) -> Credential:
    _scheme, _sep, token = authorization.partition(" ")
    return "token", token_digest(token.strip())


# The routes: what the OpenAPI document, the permission matrix and the router know. The dispatcher below opens
# almost every stream before the request gets this far; a request it leaves to the stack ends here.
@router.get(PAGE_STREAM, include_in_schema=False)
def page_stream(request: Request, acc: MemberAccess, hub: Hub, db: DB, after: Seq | None = None) -> EventStream:
    db.close()  # a stream lives for hours: it must not hold a pooled connection (the hub reads with its own)
    viewer = Viewer.of(acc)
    start = resume_point(request.headers.get("last-event-id"), after, viewer.last_seq)
    return _events(
        hub,
        request.app.state.settings.sse_keepalive_seconds,
        viewer,
        start,
        True,
        _session_credential(request.scope["fb_session"].get("sid")),
    )


@router.get(API_STREAM, tags=["log"])
def api_stream(request: Request, acc: ApiAccess, hub: Hub, db: DB, after: Seq | None = None) -> EventStream:
    """The live log as Server-Sent Events (`event: entry`, id = seq, data = the entry as JSON)."""
    db.close()
    viewer = Viewer.of(acc)
    start = resume_point(request.headers.get("last-event-id"), after, viewer.last_seq)
    return _events(
        hub,
        request.app.state.settings.sse_keepalive_seconds,
        viewer,
        start,
        False,
        _token_credential(request.headers.get("authorization", "")),
    )


_PAGE_PATH = compile_path(PAGE_STREAM)[0]  # the router's own patterns
_API_PATH = compile_path(API_STREAM)[0]


def _strict_int(text: str | None, low: int) -> int | None:
    """ASCII digits in low..2**31-1, else None (the stack then answers the 422)."""
    try:
        return parse_int(text, "", low=low) if text is not None and text.strip() == text else None
    except FateboardError:
        return None


class StreamDispatcher:
    """In front of the middleware stack (FateboardApp.build_middleware_stack): a GET on a stream path with
    well-formed input, a valid credential and a member behind it is served here, without the stack's dozen
    layers of middleware, exception handlers and routing around it for hours; anything else goes to `app`."""

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app = app
        self.state = state
        inner: Any = app
        while inner is not None and not isinstance(inner, SessionCookieMiddleware):
            inner = getattr(inner, "app", None)
        if inner is None:
            raise RuntimeError("the live streams need the SessionCookieMiddleware in the stack")
        self.sessions: SessionCookieMiddleware = inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            path: str = scope["path"]
            page = _PAGE_PATH.match(path)
            match = page or _API_PATH.match(path)
            if match is not None:
                stream = await self._open(scope, match["campaign_id"], page is not None)
                if stream is not None:
                    await stream(scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _open(self, scope: Scope, campaign: str, page: bool) -> EventStream | None:
        """The stream, or None to leave the request to the stack (which refuses it, or opens it the long way)."""
        if request_problem(scope, None) is not None:  # InputGuard's check (GET: no body)
            return None
        campaign_id = _strict_int(campaign, 1)
        if campaign_id is None:
            return None
        after: int | None = None
        for name, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True):
            if name == "after":  # FastAPI reads the last one
                after = _strict_int(value, 0)
                if after is None:
                    return None
        headers = Headers(scope=scope)
        last_event_id = headers.get("last-event-id")
        if last_event_id is not None and _strict_int(last_event_id, 0) is None:
            return None
        session = self.sessions.open(scope, headers)  # the cookie, read as SessionCookieMiddleware reads it
        if page and not (session and session.get("sid")):
            return None
        viewer = await run_in_threadpool(self._viewer, scope, campaign_id, page)
        if viewer is None:
            return None
        start = resume_point(last_event_id, after, viewer.last_seq)
        credential = (
            _session_credential(scope["fb_session"].get("sid"))
            if page
            else _token_credential(headers.get("authorization", ""))
        )
        return _events(self.state.hub, self.state.settings.sse_keepalive_seconds, viewer, start, page, credential)

    def _viewer(self, scope: Scope, campaign_id: int, page: bool) -> Viewer | None:
        """The routes' own dependencies (app/deps.py), in the order FastAPI runs them."""
        request = Request({**scope, "state": {}})  # what the dependencies note on request.state is not kept
        with self.state.sessionmaker() as db:
            try:
                if page:
                    acc = page_access(campaign_id, page_user(optional_user(request, db)), db)
                else:
                    acc = api_access(campaign_id, api_user(request, db), db)
            except FateboardError:
                return None
            return Viewer.of(acc)
