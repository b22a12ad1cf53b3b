"""The hot path, `POST /api/campaigns/{id}/actions` (issue 34): the route's declaration, ActionRoute (which serves a
plain request of it without FastAPI's dependency solver) and run_action (authenticate outside the writer, then
act as one job of the group-commit writer)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.routing import APIRoute
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.auth import authenticate, bearer_digest, token_access
from app.api.schema import errors
from app.inputs import Id, StrictId, StrictSeq
from app.live.hub import LiveHub
from app.rolls import service as rolls
from app.rolls.appending import Publish
from app.rolls.present import entry_json, viewer_view
from app.rolls.writer import Written

router = APIRouter(prefix="/api")


class ActionIn(rolls.ActionRequest):
    """The rules service's request, with the JSON API's strict, bounded ids."""

    character_id: StrictId | None = None
    prompt_id: StrictId | None = None
    expected_version: StrictSeq | None = None


class ActionRoute(APIRoute):
    """The action route made cheap (issue 34): `POST /api/campaigns/{id}/actions` is the hot path, and FastAPI's
    parameter machinery around it cost about a fifth of the server's CPU per action (docs/PERFORMANCE.md). The
    route's signature below stays the one place that says what it accepts — the OpenAPI document, the bounds,
    the status — and this class serves a plain request of it (an id in range, one JSON content type, at most
    one Idempotency-Key within the header's bound, a body that is a valid ActionIn) by reading those same
    declarations without FastAPI's dependency solver, then calls the route's own function. Anything else goes to
    FastAPI's own handler for the route, which refuses it in its own words (nothing has run: no token was
    looked at, no die rolled). A parameter or dependency added to the route that this class does not read
    stops the application at start-up instead of being silently skipped (it replaced app/fastpath.py, a
    middleware that copied the route)."""

    READS = {"campaign_id": "path", "body": "body", "idempotency_key": "header"}

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        dependant = self.dependant
        found = {
            **{p.name: "path" for p in dependant.path_params},
            **{p.name: "header" for p in dependant.header_params},
            **{p.name: "body" for p in dependant.body_params},
            **{p.name: "query" for p in dependant.query_params},
            **{p.name: "cookie" for p in dependant.cookie_params},
        }
        if found != self.READS or dependant.dependencies:
            raise RuntimeError(f"ActionRoute reads {self.READS}, the route declares {found}: update app/api/action.py")
        key = next(p for p in dependant.header_params if p.name == "idempotency_key")
        self.key_header = key.alias.lower().encode("latin-1")
        self.key_max = next(m.max_length for m in key.field_info.metadata if hasattr(m, "max_length"))
        self.id_field = next(p for p in dependant.path_params if p.name == "campaign_id")
        self.routed: ASGIApp = self.app  # FastAPI's handler of this route: everything that is not plain
        # What the application puts ahead of every other route (app/main.py): a plain Starlette route, so the
        # router finds it first and nothing of FastAPI's per-route machinery runs for a plain request.
        self.plain = Route(self.path, _Plain(self), methods=["POST"], name=f"{self.name}_plain")

    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        campaign_id = self._id(scope["path_params"].get("campaign_id", ""))
        plain, key = self._headers(scope)
        if campaign_id is None or not plain:
            await self.routed(scope, receive, send)
            return
        body = await _whole_body(receive)
        if body is None:
            return  # the client went away before its body was in
        try:
            action = ActionIn.model_validate(json.loads(body))  # as FastAPI reads it: json.loads, then the model
        except (ValueError, RecursionError, ValidationError):  # JSONDecodeError, UnicodeDecodeError: ValueErrors
            await self.routed(scope, _replayed(body), send)
            return
        request = Request(scope, receive)
        response = await self.endpoint(campaign_id=campaign_id, body=action, request=request, idempotency_key=key)
        await response(scope, receive, send)

    def _id(self, text: str) -> int | None:
        """The path's campaign id if it is one the route's declaration accepts (ASCII digits in its bounds)."""
        if not (text.isascii() and text.isdigit()) or len(text) > 10:
            return None
        value, problems = self.id_field.validate(int(text), {}, loc=("path", "campaign_id"))
        return None if problems else int(value)

    def _headers(self, scope: Scope) -> tuple[bool, str | None]:
        """(plain, idempotency key): a JSON content type, it and the key at most once, the key within bounds."""
        ctype = key = None
        for name, value in scope["headers"]:
            if name == b"content-type":
                if ctype is not None:
                    return False, None
                ctype = value
            elif name == self.key_header:
                if key is not None:
                    return False, None
                key = value
        if ctype is None or ctype.split(b";", 1)[0].strip().lower() != b"application/json":
            return False, None
        if key is None:
            return True, None
        text = key.decode("latin-1")
        return len(text) <= self.key_max, text


class _Plain:
    """The plain route's ASGI app (an object, not a function, so Starlette calls it as it is)."""

    def __init__(self, route: ActionRoute) -> None:
        self.route = route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.route.serve(scope, receive, send)


async def _whole_body(receive: Receive) -> bytes | None:
    """The whole body (InputGuard has read it already and replays it in one message), or None on a disconnect."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replayed(body: bytes) -> Receive:
    """The body again, for FastAPI's handler (then whatever the connection says next)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def perform_action(
    campaign_id: Id,
    body: ActionIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> JSONResponse:
    """Ask the rules service to act: `{"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}}`."""
    # Already plain JSON types: skip FastAPI's generic encoder on the hot path (ActionRoute above serves it).
    return JSONResponse(await run_action(request, campaign_id, body, idempotency_key), status_code=201)


router.add_api_route(
    "/campaigns/{campaign_id}/actions",
    perform_action,
    methods=["POST"],
    status_code=201,
    tags=["log"],
    response_model=None,
    responses=errors(401, 403, 404, 409, 422),
    route_class_override=ActionRoute,
)
ACTION_ROUTE = next(route for route in router.routes if isinstance(route, ActionRoute))


async def run_action(request: Request, campaign_id: int, body: ActionIn, idempotency_key: str | None) -> dict[str, Any]:
    """The hot path: the caller is authenticated first, outside the writer (a refused token or a non-member never
    enters a batch, so a flood of them never takes the database's write lock); then the action runs as one job of
    the group-commit writer (app/rolls/writer.py); the entry as the actor sees it, once the batch it is in is
    committed. What a token that acted in this campaign needs (its user, the campaign, its role) is kept by the
    hub, so neither step queries for it; any access or campaign change forgets it at once (app/live/access.py),
    and the job asks the hub again when it starts: a token revoked a moment ago is refused."""
    hub: LiveHub = request.app.state.hub
    digest = bearer_digest(request)
    if digest is None or hub.token_access(campaign_id, digest) is None:
        await run_in_threadpool(authenticate, request, campaign_id, digest)

    def work(db: Session, publish: Publish) -> Written:
        acc = token_access(request, db, campaign_id, digest)
        result = rolls.perform_action(db, acc, body, idempotency_key=idempotency_key, publish=publish)
        entry = entry_json(result.entry, viewer_view(result.entry, acc.user.id, acc.is_narrator))
        return Written({**entry, "replayed": result.replayed}, () if result.replayed else (result.entry,))

    result: dict[str, Any] = await request.app.state.writer.run(campaign_id, work)
    return result
