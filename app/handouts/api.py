"""Handouts and the scene in the JSON API (docs/API.md; the contract's section 2). Thin: the service decides,
app/handouts/pictures.py receives and serves a picture."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import Field, StrictBool, StrictFloat, StrictInt
from starlette.responses import JSONResponse, Response

from app.api import ErrorBody, StrictBody, errors, stream_errors
from app.campaigns.service import Access
from app.deps import DB, ApiAccess, ApiUser, Publisher
from app.handouts import pictures, pins, service, views
from app.handouts.models import Handout
from app.handouts.pictures import Width, store_of
from app.inputs import Id
from app.rolls import idempotency
from app.rolls.chain import canonical_json
from app.rolls.present import entry_json, viewer_view

api = APIRouter(prefix="/api", tags=["handouts"])


def handout_json(handout: Handout) -> dict[str, Any]:
    return {
        "id": handout.id,
        "title": handout.title,
        "sha256": handout.sha256,
        "width": handout.width,
        "height": handout.height,
        "url": views.image_url(handout, api=True),
    }


def _entry(entry: Any, acc: Access) -> dict[str, Any]:
    return entry_json(entry, viewer_view(entry, acc.user.id, acc.is_narrator))


IdempotencyKey = Annotated[str | None, Header(max_length=100)]


def _once(request: Request, key: str | None, body: StrictBody | None = None) -> idempotency.Once:
    """The key and what it is bound to: this method, path and body."""
    if not key:
        return idempotency.Once()
    sent = {"method": request.method, "path": request.url.path, "body": body.model_dump(mode="json") if body else None}
    return idempotency.Once(key, hashlib.sha256(canonical_json(sent)).hexdigest())


def _entry_write(db: DB, acc: Access, once: idempotency.Once, write: Any) -> JSONResponse:
    """An entry-making write with the contract's replays: the first answer again, `"replayed": true`."""
    replayed = False
    entry = idempotency.earlier(db, acc, once)
    if entry is None:
        try:
            entry = write()
        except idempotency.Replayed as again:
            entry = again.entry
            replayed = True
    else:
        replayed = True
    return JSONResponse({**_entry(entry, acc), "replayed": replayed}, status_code=201)


def _pin_write(db: DB, acc: Access, once: idempotency.Once, write: Any, status: int) -> Response:
    """A pin write: its answer is the pin (or 204), replayed from the entry the key made."""
    entry = idempotency.earlier(db, acc, once)
    if entry is None:
        try:
            pin = write()
        except idempotency.Replayed as again:
            entry = again.entry
        else:
            return Response(status_code=204) if status == 204 else JSONResponse(pins.pin_json(pin), status_code=status)
    if status == 204:
        return Response(status_code=204)
    return JSONResponse({**pins.pin_from_entry(entry), "replayed": True}, status_code=status)


class ShowIn(StrictBody):
    to: Literal["all"] | list[StrictInt] = Field(description='"all", or a list of member user ids')


class SceneIn(StrictBody):
    handout_id: StrictInt | None


class PinIn(StrictBody):
    x: StrictFloat | StrictInt
    y: StrictFloat | StrictInt
    label: str = Field(max_length=200)
    visible: StrictBool = False


class PinPatch(StrictBody):
    x: StrictFloat | StrictInt | None = None
    y: StrictFloat | StrictInt | None = None
    label: str | None = Field(default=None, max_length=200)
    visible: StrictBool | None = None


UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file", "title"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "title": {"type": "string", "maxLength": 120},
                    },
                }
            }
        },
    }
}


@api.post(
    "/campaigns/{campaign_id}/handouts",
    status_code=201,
    openapi_extra=UPLOAD_BODY,
    responses={
        **errors(401, 403, 404, 422),
        413: {"model": ErrorBody, "description": "The file is over 20 MB or 40 megapixels."},
    },
)
async def api_upload(campaign_id: Id, request: Request, user: ApiUser, db: DB, publish: Publisher) -> JSONResponse:
    """A picture for the library (narrator): PNG, JPEG, WebP or GIF (first frame), at most 20 MB and 40
    megapixels, re-encoded without its metadata. Shown to no one yet."""
    await run_in_threadpool(db.close)  # no connection held while the body arrives
    handout = await pictures.receive_handout(request, user, campaign_id, publish)
    return JSONResponse(handout_json(handout), status_code=201)


@api.get("/campaigns/{campaign_id}/handouts", responses=errors(401, 404, 422))
def api_list(acc: ApiAccess, db: DB) -> dict[str, Any]:
    """Narrators: the library. Others: what was shown to them (to them or to everyone)."""
    return {"handouts": [handout_json(h) for h in service.visible_handouts(db, acc)]}


@api.get(
    "/campaigns/{campaign_id}/handouts/{handout_id}/image",
    response_class=Response,
    responses={
        200: {
            "content": {"image/png": {}, "image/jpeg": {}, "image/webp": {}},
            "description": "The picture; with ?w= the narrowest stored copy at least that wide (480, 960, 1600; "
            "else the picture: never wider than it, never scaled on request). "
            "With If-None-Match naming its ETag: 304 Not Modified, no body.",
        },
        **stream_errors(401, 404, 422),
    },
)
async def api_image(handout_id: Id, request: Request, acc: ApiAccess, db: DB, w: Width = None) -> Response:
    handout = await pictures.visible(db, acc, handout_id)
    return await pictures.image_response(request, store_of(request), handout, w)


@api.post("/campaigns/{campaign_id}/handouts/{handout_id}/show", status_code=201, responses=errors(401, 403, 404, 422))
def api_show(
    handout_id: Id,
    body: ShowIn,
    request: Request,
    acc: ApiAccess,
    db: DB,
    publish: Publisher,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Show a handout to everyone or to chosen members: an entry (kind "handout") with its title and SHA-256,
    readable by them and the narrators."""
    once = _once(request, idempotency_key, body)
    return _entry_write(db, acc, once, lambda: service.show_handout(db, acc, handout_id, body.to, publish, once))


@api.delete(
    "/campaigns/{campaign_id}/handouts/{handout_id}",
    status_code=204,
    response_class=Response,
    responses=errors(401, 403, 404, 422),
)
def api_delete(handout_id: Id, request: Request, acc: ApiAccess, db: DB, publish: Publisher) -> Response:
    """Out of the library; the picture is served to no one any more. The log's entries stay."""
    service.delete_handout(db, acc, store_of(request), handout_id, publish)
    return Response(status_code=204)


def _scene_json(db: DB, acc: Access) -> dict[str, Any]:
    ctx = views.scene_context(db, acc)
    return {
        "handout": handout_json(ctx["scene"]) if ctx["scene"] else None,
        "pins": [pins.pin_json(p) for p in ctx["pins"]],
    }


@api.get("/campaigns/{campaign_id}/scene", responses=errors(401, 404, 422))
def api_scene(acc: ApiAccess, db: DB) -> dict[str, Any]:
    """The scene picture and its pins (players: the visible ones)."""
    return _scene_json(db, acc)


@api.put("/campaigns/{campaign_id}/scene", status_code=201, responses=errors(401, 403, 404, 422))
def api_set_scene(
    body: SceneIn, request: Request, acc: ApiAccess, db: DB, publish: Publisher, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    once = _once(request, idempotency_key, body)
    return _entry_write(db, acc, once, lambda: service.set_scene(db, acc, body.handout_id, publish, once))


@api.post("/campaigns/{campaign_id}/scene/pins", status_code=201, responses=errors(401, 403, 404, 422))
def api_create_pin(
    body: PinIn, request: Request, acc: ApiAccess, db: DB, publish: Publisher, idempotency_key: IdempotencyKey = None
) -> Response:
    once = _once(request, idempotency_key, body)
    return _pin_write(
        db, acc, once, lambda: pins.create_pin(db, acc, body.x, body.y, body.label, body.visible, publish, once)[0], 201
    )


@api.patch("/campaigns/{campaign_id}/scene/pins/{pin_id}", responses=errors(401, 403, 404, 422))
def api_update_pin(
    pin_id: Id,
    body: PinPatch,
    request: Request,
    acc: ApiAccess,
    db: DB,
    publish: Publisher,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    once = _once(request, idempotency_key, body)
    change = pins.PinChange(body.x, body.y, body.label, body.visible)
    return _pin_write(db, acc, once, lambda: pins.update_pin(db, acc, pin_id, change, publish, once)[0], 200)


@api.delete(
    "/campaigns/{campaign_id}/scene/pins/{pin_id}",
    status_code=204,
    response_class=Response,
    responses=errors(401, 403, 404, 422),
)
def api_delete_pin(
    pin_id: Id, request: Request, acc: ApiAccess, db: DB, publish: Publisher, idempotency_key: IdempotencyKey = None
) -> Response:
    once = _once(request, idempotency_key)
    return _pin_write(db, acc, once, lambda: pins.delete_pin(db, acc, pin_id, publish, once), 204)
