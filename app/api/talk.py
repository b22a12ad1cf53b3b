"""Table talk in the JSON API (docs/API.md, "Table talk"): post, edit and withdraw a message, each one job of the
group-commit writer."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request
from pydantic import Field
from sqlalchemy.orm import Session
from starlette.responses import JSONResponse

from app.api.auth import bearer_digest, token_access
from app.api.schema import StrictBody, errors
from app.campaigns import service as campaigns
from app.inputs import Id, StrictId
from app.rolls.appending import Publish
from app.rolls.present import entry_json, viewer_view
from app.talk import service as talk
from app.talk.audience import MAX_TO

router = APIRouter(prefix="/api")


class MessageIn(StrictBody):
    """Table talk (docs/API.md, "Table talk"). `text` starting with `/r ` or `/roll ` is a dice roll."""

    text: str = Field(max_length=20_000)
    mode: Literal["ooc", "ic"] = "ooc"
    as_character_id: StrictId | None = None
    visibility: Literal["public", "narrator", "whisper", "team"] = "public"
    to: list[StrictId] | None = Field(default=None, max_length=MAX_TO)
    encounter_id: StrictId | None = None


class EditIn(StrictBody):
    text: str = Field(max_length=20_000)


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
        acc = token_access(request, db, campaign_id, bearer_digest(request))
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
        acc = token_access(request, db, campaign_id, bearer_digest(request))
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
        acc = token_access(request, db, campaign_id, bearer_digest(request))
        return _posted_json(talk.retract_message(db, acc, seq, idempotency_key=idempotency_key, publish=publish), acc)

    return JSONResponse(await request.app.state.writer.run(campaign_id, work), status_code=201)
