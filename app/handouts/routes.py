"""Handouts and the scene on the pages: the library's upload, a picture, and the forms of the `scene` and `library`
panels, each answering with its panel (app/panels). Thin: the service decides; the JSON API is app/handouts/api.py."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from app.campaigns import service as campaigns
from app.campaigns.service import Access
from app.deps import DB, CurrentUser, Htmx, MemberAccess, Publisher
from app.errors import BadRequest, FateboardError
from app.handouts import pictures, pins, service
from app.handouts.pictures import Width, store_of
from app.i18n import _
from app.inputs import Id, parse_int
from app.panels import refuse_in_panel, render_panel

router = APIRouter(include_in_schema=False)


def _panel(request: Request, db: DB, acc: Access, block: str, action: Any) -> Response:
    """Run a form's action and render its panel again (`scene` or `library`, app/panels), the error next to its
    field when it fails."""
    try:
        action()
    except FateboardError as exc:
        if block == "library" and not acc.is_narrator:
            raise  # the library is the narrator's: a player is refused, not shown it again
        return refuse_in_panel(request, db, exc, acc, block, key=block)
    return render_panel(request, db, acc, block)


@router.get("/campaigns/{campaign_id}/handouts/{handout_id}/image", response_class=Response)
async def page_image(handout_id: Id, request: Request, acc: MemberAccess, db: DB, w: Width = None) -> Response:
    handout = await pictures.visible(db, acc, handout_id)
    return await pictures.image_response(request, store_of(request), handout, w)


@router.post("/campaigns/{campaign_id}/handouts")
async def page_upload(campaign_id: Id, request: Request, user: CurrentUser, db: DB, publish: Publisher) -> Response:
    """The library's upload (static/js/handouts.js sends it with progress); answers the library panel."""
    await run_in_threadpool(db.close)  # no connection held while the body arrives
    factory = request.app.state.sessionmaker
    try:
        handout = await pictures.receive_handout(request, user, campaign_id, publish)
        result: dict[str, Any] = {"uploaded": handout}
        status = 201
    except FateboardError as exc:
        result, status = {"errors": {"upload": exc.message}}, exc.status_code

    def panel() -> bytes:
        with factory() as db:
            acc = campaigns.access(db, user, campaign_id)
            return bytes(render_panel(request, db, acc, "library", **result).body)

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
        request, db, acc, "library", lambda: service.delete_handout(db, acc, store_of(request), handout_id, publish)
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
