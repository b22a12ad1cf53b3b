"""A handout's picture on its way in and out, for the JSON API (app/handouts/api.py) and the pages (routes.py): the
upload (access first, then the body, then the checks and the store off the event loop) and serving a stored
rendition with its ETag."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import Query, Request
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session
from starlette.responses import JSONResponse, Response

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.service import Access
from app.handouts import images, service, upload
from app.handouts.models import Handout
from app.handouts.store import MediaStore, blob_key
from app.rolls.appending import Publish

Width = Annotated[int | None, Query(ge=1, le=images.MAX_SCALED_WIDTH)]


def store_of(request: Request) -> MediaStore:
    store: MediaStore = request.app.state.media
    return store


async def receive_handout(request: Request, user: User, campaign_id: int, publish: Publish) -> Handout:
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
                handout = service.add_handout(db, acc, store_of(request), prepared, received.title)
                try:
                    db.commit()
                except BaseException:
                    db.rollback()
                    service.forget_blobs(db, store_of(request), prepared.sha256, list(prepared.copies))
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


async def visible(db: Session, acc: Access, handout_id: int) -> Handout:
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
