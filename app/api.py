"""The JSON API (OpenAPI at /docs): bearer tokens, JSON errors with a `detail` a person can read."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.accounts import service as accounts
from app.campaigns import service as campaigns
from app.characters import service as characters
from app.deps import DB, ApiAccess, ApiUser, Gate, Publisher, Throttle, api_user
from app.errors import FateboardError
from app.i18n import rule_message
from app.inputs import Id, Seq, StrictId, StrictSeq
from app.live.events import LiveEvent
from app.live.hub import LiveHub, TokenAccess
from app.rolls import corrections, prompts
from app.rolls import log as rolllog
from app.rolls import service as rolls
from app.rolls.appending import Publish
from app.rolls.present import entry_json, viewer_view
from app.rolls.writer import Written
from app.security import client_address
from app.systems import ROLLER
from app.talk import service as talk

router = APIRouter(prefix="/api")


class ErrorBody(BaseModel):
    """Every API error: `detail` in words; `field` names the input to blame, when there is one; `errors`
    lists each problem of a request that failed validation."""

    detail: str
    field: str | None = None
    errors: list[str] | None = None


_ERROR_WORDS = {
    401: "No valid API token (send 'Authorization: Bearer <token>').",
    403: "Signed in, but your role in this campaign does not allow it.",
    404: "No such campaign (or you are not a member), character, entry, prompt or invite.",
    409: "It conflicts with the current state: the sheet or encounter changed, or it was done already.",
    422: "The request is not valid: a field's value, type or size, or text with NUL / broken Unicode.",
    429: "Too many requests (failed sign-ins, sign-ups, or more than 30 messages in 10 seconds): wait (see "
    "Retry-After) and try again.",
    503: "The server is busy checking passwords: wait (see Retry-After) and try again.",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the error statuses a route answers, all with the ErrorBody schema."""
    return {code: {"model": ErrorBody, "description": _ERROR_WORDS[code]} for code in codes}


def stream_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The same for a route whose success is not JSON (FastAPI would file a `model` under the route's own
    media type): errors are JSON all the same. ErrorBody is in the components, every other route uses it."""
    schema = {"$ref": "#/components/schemas/ErrorBody"}
    return {
        code: {"description": _ERROR_WORDS[code], "content": {"application/json": {"schema": schema}}} for code in codes
    }


# One Server-Sent Event, as OpenAPI 3.2's `itemSchema` describes the items of a stream (FastAPI's own shape).
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "event": {"type": "string", "enum": ["entry", "prompts", "encounter"]},
        "data": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
}


def event_stream_responses() -> dict[int | str, dict[str, Any]]:
    """The live routes' `responses`: events on success (the routes' response class has no media type, so
    this is the only content documented), JSON errors otherwise."""
    return {
        200: {
            "description": "Server-Sent Events: `entry` (id = seq, data = the entry as JSON), `prompts`, "
            "`encounter` (data = its id).",
            "content": {"text/event-stream": {"itemSchema": SSE_EVENT}},
        },
        **stream_errors(401, 404, 422),
    }


class StrictBody(BaseModel):
    # JSON bodies are typed strictly: `true` is not 1 and "5" is not 5.
    model_config = ConfigDict(strict=True)


class Credentials(StrictBody):
    username: str = Field(max_length=40)
    password: str = Field(max_length=1024)
    token_name: str = "API token"


class CampaignIn(StrictBody):
    name: str
    description: str = ""
    systems: list[str] = []
    language: str = "en"


class InviteIn(StrictBody):
    expires_in_hours: StrictInt | None = None
    max_uses: StrictInt | None = None


class CharacterIn(StrictBody):
    name: str
    system: str = ROLLER
    sheet: dict[str, Any] | None = None
    kind: str = "pc"
    owner_id: StrictId | None = None


class PromptIn(StrictBody):
    character_id: StrictId
    system: str = ROLLER
    action: str = "roll"
    locked: dict[str, Any] = {}
    visibility: str = "public"
    note: str = ""


class VoidIn(StrictBody):
    reason: str


class AdjustIn(StrictBody):
    changes: dict[str, Any]
    reason: str


class ActionIn(rolls.ActionRequest):
    """The rules service's request, with the JSON API's strict, bounded ids."""

    character_id: StrictId | None = None
    prompt_id: StrictId | None = None
    expected_version: StrictSeq | None = None


class MessageIn(StrictBody):
    """Table talk (docs/API.md, "Table talk"). `text` starting with `/r ` or `/roll ` is a dice roll."""

    text: str = Field(max_length=20_000)
    mode: Literal["ooc", "ic"] = "ooc"
    as_character_id: StrictId | None = None
    visibility: Literal["public", "narrator", "whisper", "team"] = "public"
    to: list[StrictId] | None = Field(default=None, max_length=talk.MAX_TO)
    encounter_id: StrictId | None = None


class EditIn(StrictBody):
    text: str = Field(max_length=20_000)


def _campaign_json(acc: campaigns.Access, db: DB) -> dict[str, Any]:
    c = acc.campaign
    game = campaigns.current_session(db, c.id)
    return {
        "id": c.id,
        "name": c.name,
        "description": c.description,
        "systems": c.systems,
        "language": c.language,
        "role": acc.role,
        "last_seq": c.last_seq,
        "head": c.head_hash,
        "session": {"number": game.number, "title": game.title, "started_at": game.started_at.isoformat()}
        if game
        else None,
        "members": [{"id": u.id, "username": u.username, "role": r} for u, r in campaigns.members(db, c.id)],
        "characters": [
            {
                "id": ch.id,
                "name": ch.name,
                "system": ch.system,
                "kind": ch.kind,
                "owner_id": ch.owner_id,
                "version": ch.version,
                "sheet": characters.visible_sheet(acc, ch),
            }
            for ch in characters.characters_for(db, acc)
        ],
    }


@router.post("/users", status_code=201, tags=["accounts"], responses=errors(422, 429, 503))
def create_user(body: Credentials, request: Request, db: DB, throttle: Throttle, gate: Gate) -> dict[str, Any]:
    """Sign up. 422 names the field (`password`: at least 8 characters, not a common password, not containing
    the username); 429 after too many sign-ups from one address; 503 when the server is busy hashing."""
    user = accounts.register(db, throttle, gate, body.username, body.password, address=client_address(request))
    db.commit()
    return {"id": user.id, "username": user.username}


@router.post("/tokens", status_code=201, tags=["accounts"], responses=errors(422, 429, 503))
def create_token(body: Credentials, request: Request, db: DB, throttle: Throttle, gate: Gate) -> dict[str, Any]:
    """A token for a username and password. 429 with Retry-After after too many failures (docs/LIMITS.md)."""
    user = accounts.authenticate(db, throttle, gate, body.username, body.password, address=client_address(request))
    row, token = accounts.create_token(db, user, body.token_name)
    db.commit()
    return {"token": token, "id": row.id, "name": row.name}


@router.post("/campaigns", status_code=201, tags=["campaigns"], responses=errors(401, 422))
def create_campaign(body: CampaignIn, user: ApiUser, db: DB) -> dict[str, Any]:
    campaign = campaigns.create_campaign(
        db, user, name=body.name, description=body.description, systems=body.systems, language=body.language
    )
    db.commit()
    return _campaign_json(campaigns.access(db, user, campaign.id), db)


@router.get("/campaigns", tags=["campaigns"], responses=errors(401, 422))
def list_campaigns(user: ApiUser, db: DB) -> dict[str, Any]:
    return {
        "campaigns": [
            {"id": c.id, "name": c.name, "role": r, "systems": c.systems} for c, r in campaigns.campaigns_for(db, user)
        ]
    }


@router.get("/campaigns/{campaign_id}", tags=["campaigns"], responses=errors(401, 404, 422))
def get_campaign(acc: ApiAccess, db: DB) -> dict[str, Any]:
    return _campaign_json(acc, db)


@router.post(
    "/campaigns/{campaign_id}/invites", status_code=201, tags=["campaigns"], responses=errors(401, 403, 404, 422)
)
def create_invite(body: InviteIn, acc: ApiAccess, db: DB, request: Request) -> dict[str, Any]:
    invite = campaigns.create_invite(db, acc, expires_in_hours=body.expires_in_hours, max_uses=body.max_uses)
    db.commit()
    base = request.app.state.settings.base_url or str(request.base_url).rstrip("/")
    return {
        "code": invite.code,
        "url": f"{base}/join/{invite.code}",
        "id": invite.id,
        "expires_at": invite.expires_at.isoformat() if invite.expires_at else None,
        "max_uses": invite.max_uses,
    }


@router.post("/invites/{code}/accept", tags=["campaigns"], responses=errors(401, 404, 422))
def accept_invite(
    code: Annotated[str, Path(max_length=64)], user: ApiUser, db: DB, publish: Publisher
) -> dict[str, Any]:
    campaign = campaigns.accept_invite(db, user, code)
    db.commit()
    publish(campaign.id, LiveEvent.MEMBERS, None)
    return {"campaign_id": campaign.id, "name": campaign.name}


@router.post(
    "/campaigns/{campaign_id}/characters", status_code=201, tags=["characters"], responses=errors(401, 404, 422)
)
def create_character(body: CharacterIn, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    ch = characters.create_character(
        db, acc, name=body.name, system=body.system, sheet=body.sheet, kind=body.kind, owner_id=body.owner_id
    )
    db.commit()
    publish(acc.campaign.id, LiveEvent.CHARACTERS, ch.id)
    return {
        "id": ch.id,
        "name": ch.name,
        "system": ch.system,
        "kind": ch.kind,
        "owner_id": ch.owner_id,
        "sheet": ch.sheet,
        "version": ch.version,
    }


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
            raise RuntimeError(f"ActionRoute reads {self.READS}, the route declares {found}: update app/api.py")
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
    digest = _bearer_digest(request)
    if digest is None or hub.token_access(campaign_id, digest) is None:
        await run_in_threadpool(_authenticate, request, campaign_id, digest)

    def work(db: Session, publish: Publish) -> Written:
        acc = _token_access(request, db, campaign_id, digest)
        result = rolls.perform_action(db, acc, body, idempotency_key=idempotency_key, publish=publish)
        entry = entry_json(result.entry, viewer_view(result.entry, acc.user.id, acc.is_narrator))
        return Written({**entry, "replayed": result.replayed}, () if result.replayed else (result.entry,))

    result: dict[str, Any] = await request.app.state.writer.run(campaign_id, work)
    return result


def error_response(exc: FateboardError) -> JSONResponse:
    """A domain error as every API route answers it (app/main.py's handler for /api/ paths): ErrorBody."""
    body: dict[str, Any] = {"detail": exc.message}
    if exc.field:
        body["field"] = exc.field
    headers = {"Retry-After": str(exc.retry_after)} if hasattr(exc, "retry_after") else None
    return JSONResponse(body, status_code=exc.status_code, headers=headers)


def _bearer_digest(request: Request) -> str | None:
    scheme, _sep, token = request.headers.get("authorization", "").partition(" ")
    return accounts.token_digest(token.strip()) if scheme.lower() == "bearer" and token.strip() else None


def _authenticate(request: Request, campaign_id: int, digest: str | None) -> int:
    """Before the writer, in the thread pool: the caller's user id, or the route's 401 / 404."""
    with request.app.state.sessionmaker() as db:
        return _token_access(request, db, campaign_id, digest).user.id


def _token_access(request: Request, db: Session, campaign_id: int, digest: str | None) -> campaigns.Access:
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


def _posted_json(posted: talk.Posted, acc: campaigns.Access) -> dict[str, Any]:
    return {
        **entry_json(posted.entry, viewer_view(posted.entry, acc.user.id, acc.is_narrator)),
        "replayed": posted.replayed,
    }


@router.post(
    "/campaigns/{campaign_id}/messages",
    status_code=201,
    tags=["talk"],
    response_model=None,
    responses=errors(401, 403, 404, 409, 422, 429),
)
async def post_message(
    campaign_id: Id,
    body: MessageIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> JSONResponse:
    """Say something at the table: out of character (`mode: "ooc"`) or in character (`"ic"`, `as_character_id`);
    to everyone, the narrators, a whisper (`to`: member ids) or your team in a Rabbits conflict (`encounter_id`).
    Returns the log entry (`kind: "message"`). A text starting with `/r ` or `/roll ` is a dice roll (`# note`)
    and returns that action entry. At most 30 posts per member per 10 seconds per campaign (429, Retry-After)."""

    def work(db: Session, publish: Publish) -> dict[str, Any]:
        acc = _token_access(request, db, campaign_id, _bearer_digest(request))
        req = talk.MessageRequest.model_validate(body.model_dump())
        return _posted_json(
            talk.post_message(
                db,
                acc,
                req,
                idempotency_key=idempotency_key,
                publish=publish,
                rate=request.app.state.settings.talk_rate_limit,
            ),
            acc,
        )

    return JSONResponse(await request.app.state.writer.run(campaign_id, work), status_code=201)


@router.post(
    "/campaigns/{campaign_id}/messages/{seq}/edit",
    status_code=201,
    tags=["talk"],
    response_model=None,
    responses=errors(401, 403, 404, 409, 422),
)
async def edit_message(
    campaign_id: Id,
    seq: Id,
    body: EditIn,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
) -> JSONResponse:
    """A new text for your message: an entry `kind: "edit"` with `target_seq`; the earlier texts stay."""

    def work(db: Session, publish: Publish) -> dict[str, Any]:
        acc = _token_access(request, db, campaign_id, _bearer_digest(request))
        return _posted_json(
            talk.edit_message(db, acc, seq, body.text, idempotency_key=idempotency_key, publish=publish), acc
        )

    return JSONResponse(await request.app.state.writer.run(campaign_id, work), status_code=201)


@router.post(
    "/campaigns/{campaign_id}/messages/{seq}/retract",
    status_code=201,
    tags=["talk"],
    response_model=None,
    responses=errors(401, 403, 404, 409, 422),
)
async def retract_message(
    campaign_id: Id, seq: Id, request: Request, idempotency_key: Annotated[str | None, Header(max_length=100)] = None
) -> JSONResponse:
    """Withdraw a message (its author, or a narrator who may read it): an entry `kind: "retract"`."""

    def work(db: Session, publish: Publish) -> dict[str, Any]:
        acc = _token_access(request, db, campaign_id, _bearer_digest(request))
        return _posted_json(talk.retract_message(db, acc, seq, idempotency_key=idempotency_key, publish=publish), acc)

    return JSONResponse(await request.app.state.writer.run(campaign_id, work), status_code=201)


@router.get("/campaigns/{campaign_id}/log", tags=["log"], responses=errors(401, 404, 422))
def get_log(
    acc: ApiAccess,
    db: DB,
    after: Annotated[Seq, Query()] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    kind: Annotated[Literal["message"] | None, Query()] = None,
) -> dict[str, Any]:
    """Entries after `after`, oldest first. `kind=message`: talk only (messages, edits, withdrawals)."""
    return {"entries": rolllog.visible_json(db, acc, after, limit, system="talk" if kind == "message" else None)}


@router.get(
    "/campaigns/{campaign_id}/export",
    tags=["log"],
    response_model=None,
    responses={
        200: {
            "description": "The export: `campaign`, `format`, `head` and `entries`.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **stream_errors(401, 404, 422),
    },
)
def export(request: Request, acc: ApiAccess, db: DB) -> StreamingResponse:
    """Every entry you may see, with bodies and salts where you may see them; hashes for all. Streamed: the
    log may be long, and memory stays flat."""
    db.close()  # the stream reads with its own short sessions
    return StreamingResponse(rolllog.export_stream(request.app.state.sessionmaker, acc), media_type="application/json")


@router.get("/campaigns/{campaign_id}/verify", tags=["log"], responses=errors(401, 404, 422))
def verify(acc: ApiAccess, db: DB) -> dict[str, Any]:
    """The server checks every entry (hidden bodies included, without showing them) against the campaign's head."""
    result = rolllog.verify(db, acc)
    return {
        "ok": result.ok,
        "count": result.count,
        "head": result.head,
        "head_seq": acc.campaign.last_seq,
        "bodies_checked": result.bodies_checked,
        "reveals_checked": result.reveals_checked,
        "problems": [rule_message(problem) for problem in result.details],
    }  # Accept-Language


@router.post("/campaigns/{campaign_id}/prompts", status_code=201, tags=["log"], responses=errors(401, 403, 404, 422))
def call_for_roll(body: PromptIn, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    prompt = prompts.create_prompt(
        db,
        acc,
        character_id=body.character_id,
        system=body.system,
        action=body.action,
        locked=body.locked,
        visibility=body.visibility,
        note=body.note,
        publish=publish,
    )
    return {"id": prompt.id, "character_id": prompt.character_id, "locked": prompt.locked, "status": prompt.status}


@router.post(
    "/campaigns/{campaign_id}/entries/{seq}/void",
    status_code=201,
    tags=["log"],
    responses=errors(401, 403, 404, 409, 422),
)
def void_entry(seq: Id, body: VoidIn, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    entry = corrections.void_entry(db, acc, seq, body.reason, publish=publish)
    return entry_json(entry, viewer_view(entry, acc.user.id, acc.is_narrator))


@router.post(
    "/campaigns/{campaign_id}/entries/{seq}/reveal",
    status_code=201,
    tags=["log"],
    responses=errors(401, 403, 404, 409, 422),
)
def reveal_entry(seq: Id, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    entry = corrections.reveal_entry(db, acc, seq, publish=publish)
    return entry_json(entry, viewer_view(entry, acc.user.id, acc.is_narrator), with_body=True)


@router.post(
    "/campaigns/{campaign_id}/characters/{character_id}/adjust",
    status_code=201,
    tags=["characters"],
    responses=errors(401, 403, 404, 409, 422),
)
def adjust(character_id: Id, body: AdjustIn, acc: ApiAccess, db: DB, publish: Publisher) -> dict[str, Any]:
    entry = corrections.adjust_sheet(db, acc, character_id, body.changes, body.reason, publish=publish)
    return entry_json(entry, viewer_view(entry, acc.user.id, acc.is_narrator))


@router.get("/ping", tags=["meta"], include_in_schema=False)
def ping() -> dict[str, str]:
    """A trivial endpoint: the benchmark's baseline."""
    return {"ok": "yes"}
