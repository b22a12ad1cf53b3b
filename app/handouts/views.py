"""What the handout panels render from (blocks of handouts/panels.html, declared in app/panels): the scene (every
member) and the handouts a viewer was shown (the campaign page), the library (the narrator screen)."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy.orm import Session

from app.campaigns import service as campaigns
from app.campaigns.service import Access
from app.handouts import pins, service
from app.handouts.images import MAX_BYTES
from app.handouts.models import Handout

PANELS = "handouts/panels.html"


def image_url(handout: Handout, width: int | None = None, *, api: bool = False) -> str:
    url = f"{'/api' if api else ''}/campaigns/{handout.campaign_id}/handouts/{handout.id}/image"
    return f"{url}?w={width}" if width else url


def srcset(handout: Handout) -> str:
    """The phone-sized copies for <img srcset>: a phone downloads the smallest that fills its screen."""
    parts = [f"{image_url(handout, w)} {w}w" for w in handout.copies]
    parts.append(f"{image_url(handout)} {handout.width}w")
    return ", ".join(parts)


def scene_context(db: Session, acc: Access) -> dict[str, Any]:
    scene = service.current_scene(db, acc)
    return {"scene": scene, "pins": pins.pins_of(db, acc, scene)}


def shown_context(db: Session, acc: Access) -> dict[str, Any]:
    return {"shown": service.visible_handouts(db, acc)}


def library_context(db: Session, acc: Access) -> dict[str, Any]:
    campaigns.require_narrator(acc)
    library = service.visible_handouts(db, acc)
    members = campaigns.members(db, acc.campaign.id)
    names = {u.id: u.username for u, _role in members}
    shown_to: dict[int, str | list[str]] = {}
    for hid, to in service.recipients_of(db, [h.id for h in library]).items():
        shown_to[hid] = "all" if None in to else sorted(names[uid] for uid in to if uid is not None and uid in names)
    scene = service.current_scene(db, acc)
    # The panel is swapped by a live refresh only when this changes (app.js, data-live-version): an answer's
    # message ("Uploaded …") stays when the refresh that follows finds the same library.
    version = repr(([(h.id, h.title) for h in library], sorted(shown_to.items()), scene.id if scene else None))
    return {
        "scene": scene,  # marked in the list ("the scene")
        "library": library,
        "shown_to": shown_to,
        "library_version": hashlib.sha256(version.encode()).hexdigest()[:12],
        "players": [u for u, role in members if role != campaigns.NARRATOR],
        "max_mb": MAX_BYTES // 1_000_000,
    }


def _panel(acc: Access, data: dict[str, Any]) -> dict[str, Any]:
    return {"acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator, "errors": {}, **data}


def scene_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(acc, {**scene_context(db, acc), **extra})


def shown_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(acc, {**shown_context(db, acc), **extra})


def library_panel(db: Session, acc: Access, **extra: Any) -> dict[str, Any]:
    return _panel(acc, {**library_context(db, acc), **extra})
