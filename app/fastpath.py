"""The action route's plain requests, answered before the router (issue 27: server CPU per action).

`POST /api/campaigns/{id}/actions` is the hot path. Routed the usual way, each action also pays for the router
trying the routes in order, FastAPI's dependency and parameter machinery and its exception-handling layers:
about a fifth of the server's CPU per action in the profile (docs/PERFORMANCE.md, "Peer"). `ActionFastPath` is
the innermost middleware (inside InputGuard, so the body limit, the input checks, CSRF, the session cookie,
the security headers and compression all still apply, to this answer as to any other): a plain request — the
exact path with an id in range, no query string, a bearer token, a JSON body that is a valid `ActionIn`, at most
one Idempotency-Key of at most 100 characters — runs the route's own job (`app.api.run_action`) and gets the
route's own response (`JSONResponse`, 201).

Anything else goes to the router unchanged. A plain request whose job refused it (a 4xx from the rules service:
the job's savepoint was rolled back, so it changed nothing) is answered here too, with the body the API's error
handler writes (`app.api.error_response`): running it again through the router would roll fresh dice for the
same request, and a refusal that depends on the dice would be a free re-roll (issue 35).
"""

from __future__ import annotations

import json

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api import ActionIn, error_response, run_action
from app.errors import FateboardError
from app.inputs import MAX_INT

ACTIONS = "/api/campaigns/{campaign_id}/actions"
_ACTIONS_PATH = compile_path(ACTIONS)[0]  # the router's own pattern
_IDEMPOTENCY_KEY_MAX = 100  # the route's Header(max_length=100)


def _campaign_id(text: str) -> int | None:
    """ASCII digits naming an id in 1..MAX_INT (the route's `Id`), else None (the router decides)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 10:
        return None
    value = int(text)
    return value if 1 <= value <= MAX_INT else None


def _plain_headers(scope: Scope) -> tuple[bool, str | None]:
    """(plain, idempotency key): a bearer token, a JSON content type, each of those and the key at most once."""
    auth = ctype = key = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            if auth is not None:
                return False, None
            auth = value
        elif name == b"content-type":
            if ctype is not None:
                return False, None
            ctype = value
        elif name == b"idempotency-key":
            if key is not None:
                return False, None
            key = value
    if auth is None or auth[:7].lower() != b"bearer " or ctype is None:
        return False, None
    if ctype.split(b";", 1)[0].strip().lower() != b"application/json":
        return False, None
    if key is None:
        return True, None
    text = key.decode("latin-1")
    return len(text) <= _IDEMPOTENCY_KEY_MAX, text


async def _body(receive: Receive) -> bytes | None:
    """The whole body (InputGuard has read it already and replays it in one message), or None on a disconnect."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """The body again, for the router (then whatever the connection says next)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


class ActionFastPath:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("query_string"):
            match = _ACTIONS_PATH.match(scope["path"])
            if match is not None:
                await self._action(scope, receive, send, match["campaign_id"])
                return
        await self.app(scope, receive, send)

    async def _action(self, scope: Scope, receive: Receive, send: Send, campaign: str) -> None:
        campaign_id = _campaign_id(campaign)
        plain, key = _plain_headers(scope)
        if campaign_id is None or not plain:
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            return  # the client went away before its body was in
        try:
            action = ActionIn.model_validate(json.loads(body))
        except (ValueError, RecursionError, ValidationError):  # JSONDecodeError, UnicodeDecodeError: ValueErrors
            await self.app(scope, _replay(body), send)  # the router answers it (not an action, in its own words)
            return
        try:
            result = await run_action(Request(scope), campaign_id, action, key)
        except FateboardError as exc:  # answered once: the job ran once, whatever dice it rolled are in the log
            await error_response(exc)(scope, receive, send)
            return
        await JSONResponse(result, status_code=201)(scope, receive, send)
