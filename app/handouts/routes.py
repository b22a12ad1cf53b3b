"""Handouts and the scene: the JSON API (docs/API.md; the contract's section 2) and the pages' forms and
fragments. Thin: the service decides, app/handouts/upload.py receives a file, images.py checks it."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Form, Header, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import Field, StrictBool, StrictFloat, StrictInt
from sqlalchemy.orm import Session
from starlette.responses import JSONResponse, Response

from app.accounts.models import User
from app.api import ErrorBody, StrictBody, errors, stream_errors
from app.campaigns import service as campaigns
from app.campaigns.service import Access
from app.deps import DB, ApiAccess, ApiUser, CurrentUser, Htmx, MemberAccess, Publisher
from app.errors import BadRequest, FateboardError, NotFound
from app.handouts import images, pins, service, upload, views
from app.handouts.models import Handout
from app.handouts.store import MediaStore, blob_key
from app.i18n import _
from app.inputs import Id, parse_int
from app.rolls import idempotency
from app.rolls.appending import Publish
from app.rolls.chain import canonical_json
from app.rolls.present import entry_json, viewer_view
from app.web import render, render_failure

api = APIRouter(prefix="/api", tags=["handouts"])
router = APIRouter(include_in_schema=False)

Width = Annotated[int | None, Query(ge=1, le=images.MAX_SCALED_WIDTH)]


def _store(request: Request) -> MediaStore:
    store: MediaStore = request.app.state.media
    return store


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


async def _upload(request: Request, user: User, campaign_id: int, publish: Publish) -> Handout:
    """Access first (a player's upload is refused before a byte is read), then the body, then the checks and the
    store off the event loop. A refusal stores nothing: no blob, no row; the temporary file is closed."""
    factory = request.app.state.sessionmaker

    def check() -> None:
        with factory() as db:
            campaigns.require_narrator(campaigns.access(db, user, campaign_id))

    await run_in_threadpool(check)
    received = await upload.receive(request)
    try:

        def store() -> Handout:
            service.clean_title(received.title)  # the cheap check first
            try:
                prepared = images.prepare(received.file.file)
            except images.ImageRefused as exc:
                raise upload.refusal(exc) from None
            with factory(expire_on_commit=False) as db:
                acc = campaigns.access(db, user, campaign_id)
                handout = service.add_handout(db, acc, _store(request), prepared, received.title)
                try:
                    db.commit()
                except BaseException:
                    db.rollback()
                    service.forget_blobs(db, _store(request), prepared.sha256, list(prepared.copies))
                    raise
                return handout

        handout = await run_in_threadpool(store)
    finally:
        await received.close()
    publish(campaign_id, service.HANDOUTS_EVENT, handout.id)
    return handout


_EXTENSIONS = {"png": "png", "jpeg": "jpg"}  # the name a saved picture gets (python -m app.verify --media)


def rendition(handout: Handout, width: int | None) -> int | None:
    """The stored rendition a request for `width` gets: the narrowest stored copy at least that wide, else the
    picture itself (None). Only what the upload stored is ever served: a read never decodes or scales (issue 35:
    60 requests for widths not stored starved the thread pool decoding a 40-megapixel picture)."""
    if width is None or width >= handout.width:
        return None
    return min((w for w in handout.copies if w >= width), default=None)


async def _visible(db: Session, acc: Access, handout_id: int) -> Handout:
    """The handout if the viewer may see it (else NotFound), the connection handed back before the bytes go out."""

    def find() -> Handout:
        try:
            return service.visible_handout(db, acc, handout_id)
        finally:
            db.close()

    return await run_in_threadpool(find)


# Picture reads run on threads of their own (at most this many at once), never in the pool other routes need.
_READS = anyio.CapacityLimiter(4)


async def image_response(request: Request, store: MediaStore, handout: Handout, width: int | None) -> Response:
    """The picture, or the stored copy nearest `width` (never narrower, never wider than the picture), private to
    the viewer's browser, with an ETag (naming the rendition) so a phone asks again but downloads nothing it has."""
    served = rendition(handout, width)
    etag = f'"{handout.sha256}{f"-w{served}" if served else ""}"'
    headers = {
        "ETag": etag,
        "Cache-Control": "private, no-cache",
        "X-Content-Type-Options": "nosniff",
        "Content-Disposition": f'inline; filename="handout-{handout.id}.{_EXTENSIONS[handout.fmt]}"',
    }
    if etag in [tag.strip() for tag in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    data = await anyio.to_thread.run_sync(store.get, blob_key(handout.sha256, served), limiter=_READS)
    content_type = images.CONTENT_TYPES["webp" if served else handout.fmt]
    if data is None:
        return JSONResponse({"detail": "No such handout."}, status_code=404)
    return Response(data, media_type=content_type, headers=headers)


# --- the JSON API ---------------------------------------------------------------------------------------------


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
    handout = await _upload(request, user, campaign_id, publish)
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
    handout = await _visible(db, acc, handout_id)
    return await image_response(request, _store(request), handout, w)


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
    service.delete_handout(db, acc, _store(request), handout_id, publish)
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


# --- pages ----------------------------------------------------------------------------------------------------


def _panel(request: Request, db: DB, acc: Access, block: str, action: Any) -> Response:
    """Run a form's action and render its panel again, the error next to its field when it fails."""
    try:
        action()
    except FateboardError as exc:
        return render_failure(
            request,
            db,
            exc,
            views.PANELS,
            lambda errs: views.panels_context(db, acc, errors=errs),
            key=block,
            block=block,
        )
    return render(request, views.PANELS, views.panels_context(db, acc), block=block)


@router.get("/campaigns/{campaign_id}/handouts")
def handouts_page(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The handout panels on a page of their own: the live refetch's URL (`handouts`, `scene` events)."""
    return render(request, views.PANELS, views.panels_context(db, acc))


@router.get("/campaigns/{campaign_id}/scene")
def scene_page(request: Request, db: DB, acc: MemberAccess) -> Response:
    return render(request, views.PANELS, views.panels_context(db, acc))


@router.get("/campaigns/{campaign_id}/handouts/panels/{name}")
def handout_panel(request: Request, db: DB, acc: MemberAccess, name: Annotated[str, Path(max_length=32)]) -> Response:
    """One handout panel (its block of PANELS, from its own context): the live refetch's URL."""
    builder = views.HANDOUT_PANELS.get(name)
    if builder is None:
        raise NotFound(_("There is no such panel."))
    return render(request, views.PANELS, builder(db, acc), block=name)


@router.get("/campaigns/{campaign_id}/handouts/{handout_id}/image", response_class=Response)
async def page_image(handout_id: Id, request: Request, acc: MemberAccess, db: DB, w: Width = None) -> Response:
    handout = await _visible(db, acc, handout_id)
    return await image_response(request, _store(request), handout, w)


@router.post("/campaigns/{campaign_id}/handouts")
async def page_upload(campaign_id: Id, request: Request, user: CurrentUser, db: DB, publish: Publisher) -> Response:
    """The library's upload (static/js/handouts.js sends it with progress); answers the library panel."""
    await run_in_threadpool(db.close)  # no connection held while the body arrives
    factory = request.app.state.sessionmaker
    try:
        handout = await _upload(request, user, campaign_id, publish)
        result: dict[str, Any] = {"uploaded": handout}
        status = 201
    except FateboardError as exc:
        result, status = {"errors": {"upload": exc.message}}, exc.status_code

    def panel() -> bytes:
        with factory() as db:
            acc = campaigns.access(db, user, campaign_id)
            return bytes(render(request, views.PANELS, views.panels_context(db, acc, **result), block="library").body)

    return Response(await run_in_threadpool(panel), status_code=status, media_type="text/html")


def _chosen(values: list[str]) -> Literal["all"] | list[int]:
    if "all" in values or not values:
        return "all" if values else []
    return [int(parse_int(v, "to", low=1) or 0) for v in values]


@router.post("/campaigns/{campaign_id}/handouts/{handout_id}/show")
def page_show(
    handout_id: Id,
    request: Request,
    db: DB,
    acc: MemberAccess,
    publish: Publisher,
    to: Annotated[list[str] | None, Form()] = None,
) -> Response:
    return _panel(
        request, db, acc, "library", lambda: service.show_handout(db, acc, handout_id, _chosen(to or []), publish)
    )


@router.post("/campaigns/{campaign_id}/handouts/{handout_id}/delete")
def page_delete(handout_id: Id, request: Request, db: DB, acc: MemberAccess, publish: Publisher) -> Response:
    return _panel(
        request, db, acc, "library", lambda: service.delete_handout(db, acc, _store(request), handout_id, publish)
    )


@router.post("/campaigns/{campaign_id}/scene")
def page_scene(
    request: Request,
    db: DB,
    acc: MemberAccess,
    publish: Publisher,
    hx: Htmx,
    handout_id: Annotated[str, Form(max_length=12)] = "",
) -> Response:
    chosen = parse_int(handout_id, "handout_id", low=1) if handout_id else None
    block = "scene" if hx.target == "scene-panel" else "library"
    return _panel(request, db, acc, block, lambda: service.set_scene(db, acc, chosen, publish))


def _fraction(value: str, name: str) -> float | None:
    if value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        raise BadRequest(_("{name} must be a number from 0 to 1.").format(name=name), field=name) from None
    return number


@router.post("/campaigns/{campaign_id}/scene/pins")
def page_create_pin(
    request: Request,
    db: DB,
    acc: MemberAccess,
    publish: Publisher,
    x: Annotated[str, Form(max_length=24)] = "",
    y: Annotated[str, Form(max_length=24)] = "",
    label: Annotated[str, Form(max_length=200)] = "",
    visible: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    def create() -> None:
        px, py = _fraction(x, "x"), _fraction(y, "y")
        if px is None or py is None:
            raise BadRequest(_("Tap the picture where the pin goes, then name it."), field="label")
        pins.create_pin(db, acc, px, py, label, visible == "1", publish)

    return _panel(request, db, acc, "scene", create)


@router.post("/campaigns/{campaign_id}/scene/pins/{pin_id}")
def page_update_pin(
    pin_id: Id,
    request: Request,
    db: DB,
    acc: MemberAccess,
    publish: Publisher,
    x: Annotated[str, Form(max_length=24)] = "",
    y: Annotated[str, Form(max_length=24)] = "",
    label: Annotated[str | None, Form(max_length=200)] = None,
    visible: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    change = pins.PinChange(label=label, visible={"1": True, "0": False}.get(visible))
    return _panel(
        request,
        db,
        acc,
        "scene",
        lambda: pins.update_pin(
            db, acc, pin_id, pins.PinChange(_fraction(x, "x"), _fraction(y, "y"), change.label, change.visible), publish
        ),
    )


@router.post("/campaigns/{campaign_id}/scene/pins/{pin_id}/delete")
def page_delete_pin(pin_id: Id, request: Request, db: DB, acc: MemberAccess, publish: Publisher) -> Response:
    return _panel(request, db, acc, "scene", lambda: pins.delete_pin(db, acc, pin_id, publish))
