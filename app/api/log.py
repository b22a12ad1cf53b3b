"""The log in the JSON API: pages of it, the export and its check, roll prompts, and the narrator's corrections
(void, reveal, adjust)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import StreamingResponse

from app.api.schema import StrictBody, errors, stream_errors
from app.deps import DB, ApiAccess, Publisher
from app.i18n import rule_message
from app.inputs import Id, Seq, StrictId
from app.rolls import corrections, prompts
from app.rolls import log as rolllog
from app.rolls.present import entry_json, viewer_view
from app.systems import ROLLER

router = APIRouter(prefix="/api")


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
