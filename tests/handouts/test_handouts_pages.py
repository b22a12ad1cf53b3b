"""The handout panels through the pages: the narrator's library (upload with the form's multipart body, show to
one player, set the scene, delete), the scene with pins placed, moved, renamed, revealed and removed, and the
campaign page's Handouts panel and log card — each panel a fragment with its own URL and live event."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi import FastAPI
from starlette.testclient import TestClient
from utils import pictures
from utils.web import signed_in


def seated(
    client: TestClient, new_client: Callable[[], TestClient]
) -> tuple[int, dict[str, TestClient], dict[str, int]]:
    from utils.tables import Table

    t = Table(client)
    browsers = {name: signed_in(new_client, name) for name in ("nora", "pia", "otto")}
    ids = {m["username"]: m["id"] for m in client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]}
    return t.id, browsers, ids


def post(browser: TestClient, path: str, data: dict[str, object] | None = None, **kwargs: object):
    return browser.post(path, data=data or {}, headers={"HX-Request": "true"}, follow_redirects=False, **kwargs)


def test_the_narrator_uploads_shows_and_sets_the_scene_through_the_pages(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    cid, b, ids = seated(client, new_client)
    nora, pia, otto = b["nora"], b["pia"], b["otto"]
    screen = nora.get(f"/campaigns/{cid}/narrator").text
    assert 'id="library-panel"' in screen and 'data-live="handouts"' in screen and "data-handout-upload" in screen
    assert 'id="handout-viewer"' in screen
    r = nora.post(
        f"/campaigns/{cid}/handouts",
        data={"title": "The mill"},
        headers={"HX-Request": "true"},
        files={"file": ("mill.jpg", pictures.photo(900, 600), "image/jpeg")},
    )
    assert r.status_code == 201, r.text
    assert 'id="library-panel"' in r.text and "Uploaded “The mill”" in r.text
    hid = int(re.search(r'id="library-(\d+)"', r.text).group(1))
    # refused: the error next to the file field, in the panel
    r = nora.post(
        f"/campaigns/{cid}/handouts",
        data={"title": "Evil"},
        headers={"HX-Request": "true"},
        files={"file": ("x.png", pictures.SVG, "image/png")},
    )
    assert r.status_code == 422 and 'class="error field-error"' in r.text and "Only PNG, JPEG" in r.text
    # a player may not upload (the form's route refuses before reading the body)
    r = pia.post(
        f"/campaigns/{cid}/handouts",
        data={"title": "x"},
        headers={"HX-Request": "true"},
        files={"file": ("mill.jpg", pictures.photo(64, 64), "image/jpeg")},
    )
    assert r.status_code == 403
    # without the CSRF header a form is refused (the page's script sends it)
    bare = new_client()
    assert bare.post(f"/campaigns/{cid}/handouts", files={"file": ("a", b"x", "image/png")}).status_code == 403

    r = post(nora, f"/campaigns/{cid}/handouts/{hid}/show", {"to": [str(ids["pia"])]})
    assert r.status_code == 200 and "shown to pia" in r.text
    image = f"/campaigns/{cid}/handouts/{hid}/image"
    assert pia.get(image).status_code == 200 and otto.get(image).status_code == 404
    assert pia.get(image, params={"w": 480}).headers["content-type"] == "image/webp"
    pia_page, otto_page = pia.get(f"/campaigns/{cid}").text, otto.get(f"/campaigns/{cid}").text
    assert 'id="handouts-panel"' in pia_page and image in pia_page and "The mill" in pia_page
    assert image not in otto_page and "The mill" not in otto_page and 'id="handouts-panel"' in otto_page
    assert 'class="handout-card"' in pia_page  # the card in the log
    assert "The mill" in pia.get(f"/campaigns/{cid}/panels/shown").text  # the panel's own URL (live refetch)
    r = post(nora, f"/campaigns/{cid}/handouts/{hid}/show", {"to": ["999"]})
    assert r.status_code == 422 and "Only members" in r.text

    r = post(nora, f"/campaigns/{cid}/scene", {"handout_id": str(hid)})
    assert r.status_code == 200 and "the scene" in r.text
    for browser in (pia, otto):
        page = browser.get(f"/campaigns/{cid}").text
        assert 'id="scene-panel"' in page and 'class="scene-stage"' in page and "data-scene-edit" not in page
    assert "data-scene-edit" in nora.get(f"/campaigns/{cid}").text
    assert otto.get(image).status_code == 200  # the scene is shown to all

    r = post(nora, f"/campaigns/{cid}/handouts/{hid}/delete")
    assert r.status_code == 200 and "The library is empty." in r.text
    assert pia.get(image).status_code == 404 and nora.get(image).status_code == 404
    assert 'class="scene-stage"' not in pia.get(f"/campaigns/{cid}").text


def test_pins_through_the_scene_panel(client: TestClient, new_client: Callable[[], TestClient], app: FastAPI) -> None:
    cid, b, _ids = seated(client, new_client)
    nora, pia = b["nora"], b["pia"]
    r = nora.post(
        f"/campaigns/{cid}/handouts",
        data={"title": "Valley"},
        headers={"HX-Request": "true"},
        files={"file": ("v.png", pictures.png(1000, 500, "RGB"), "image/png")},
    )
    hid = int(re.search(r'id="library-(\d+)"', r.text).group(1))
    post(nora, f"/campaigns/{cid}/scene", {"handout_id": str(hid)})
    r = post(nora, f"/campaigns/{cid}/scene/pins", {"label": "Nowhere"})
    assert r.status_code == 422 and "Tap the picture" in r.text  # no place tapped
    r = post(nora, f"/campaigns/{cid}/scene/pins", {"x": "0.25", "y": "0.5", "label": "The cave"})
    assert r.status_code == 200 and "The cave" in r.text and 'transform="translate(250.0 250.0)"' in r.text
    pid = int(re.search(r'data-pin="(\d+)"', r.text).group(1))
    assert (
        "The cave" not in pia.get(f"/campaigns/{cid}").text
        and "The cave" not in pia.get(f"/campaigns/{cid}/panels/scene").text
    )
    r = post(nora, f"/campaigns/{cid}/scene/pins/{pid}", {"x": "0.5", "y": "0.1"})
    assert 'transform="translate(500.0 50.0)"' in r.text
    r = post(nora, f"/campaigns/{cid}/scene/pins/{pid}", {"label": "The bear's cave"})
    assert "The bear&#39;s cave" in r.text
    r = post(nora, f"/campaigns/{cid}/scene/pins/{pid}", {"visible": "1"})
    assert "Hide from players" in r.text
    assert "The bear&#39;s cave" in pia.get(f"/campaigns/{cid}/panels/scene").text
    assert post(pia, f"/campaigns/{cid}/scene/pins/{pid}", {"visible": "0"}).status_code == 403
    r = post(nora, f"/campaigns/{cid}/scene/pins/{pid}/delete")
    assert r.status_code == 200 and "bear" not in r.text
    with app.state.sessionmaker() as db:
        from sqlalchemy import select

        from app.rolls.models import LogEntry

        rows = db.execute(
            select(LogEntry.kind, LogEntry.action, LogEntry.visibility)
            .where(LogEntry.campaign_id == cid)
            .order_by(LogEntry.seq)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("scene", "set", "public"),
        ("pin", "create", "narrator"),
        ("pin", "update", "narrator"),
        ("pin", "update", "narrator"),
        ("pin", "reveal", "public"),
        ("pin", "delete", "public"),
    ]
