"""The handouts contract (../shared/contracts/TABLE-API.md, section 2) through the JSON API: upload, show, the
log entry, the list, serving (headers, ?w=, ETag), the scene and its pins, delete."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from starlette.testclient import TestClient
from utils import pictures
from utils.tables import Table

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def upload(
    t: Table,
    data: bytes,
    title: str = "The mill",
    who: dict[str, str] | None = None,
    content_type: str = "image/jpeg",
    name: str = "photo.jpg",
):
    return t.client.post(
        f"/api/campaigns/{t.id}/handouts",
        headers=who or t.narrator,
        data={"title": title},
        files={"file": (name, data, content_type)},
    )


def media_files(tmp_path: Path) -> list[Path]:
    return sorted(p for p in (tmp_path / "media").rglob("*") if p.is_file())


def test_upload_reencodes_without_metadata_and_serves_what_it_hashes(table: Table, tmp_path: Path) -> None:
    original = pictures.photo(1200, 900)
    assert b"PhoneMaker" in original and b"private comment" in original
    r = upload(table, original)
    assert r.status_code == 201, r.text
    h = r.json()
    assert set(h) == {"id", "title", "sha256", "width", "height", "url"}
    assert (h["title"], h["width"], h["height"]) == ("The mill", 1200, 900)
    img = table.client.get(h["url"], headers=table.narrator)
    assert img.status_code == 200
    assert pictures.sha256(img.content) == h["sha256"]
    assert img.headers["content-type"] == "image/jpeg"
    assert img.headers["x-content-type-options"] == "nosniff"
    assert "private" in img.headers["cache-control"]
    for secret in (b"PhoneMaker", b"SecretCamera", b"private comment", b"Exif"):
        assert secret not in img.content
    with Image.open(io.BytesIO(img.content)) as stored:
        assert not stored.getexif() and "comment" not in stored.info
    # content-addressed: the picture and its copies, named by the stored bytes' hash
    names = {p.name for p in media_files(tmp_path)}
    assert h["sha256"] in names and f"{h['sha256']}-w480" in names and f"{h['sha256']}-w960" in names


def test_formats_are_decoded_not_believed(table: Table) -> None:
    png = upload(table, pictures.png(300, 200, "RGBA", text="a secret note"), content_type="image/jpeg", name="x.jpg")
    assert png.status_code == 201, png.text
    served = table.client.get(png.json()["url"], headers=table.narrator)
    assert served.headers["content-type"] == "image/png"  # lossless with alpha stays PNG
    assert b"a secret note" not in served.content
    gif = upload(table, pictures.gif(3), content_type="application/octet-stream", name="anim")
    assert gif.status_code == 201 and gif.json()["width"] == 64, gif.text
    webp = upload(table, pictures.webp(), content_type="image/webp", name="w.webp")
    assert webp.status_code == 201, webp.text
    assert table.client.get(webp.json()["url"], headers=table.narrator).headers["content-type"] == "image/jpeg"


@pytest.mark.parametrize("name", sorted(pictures.hostile()))
def test_hostile_files_are_refused_and_store_nothing(name: str, table: Table, tmp_path: Path) -> None:
    data = pictures.hostile()[name]
    seq = table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["last_seq"]
    r = upload(table, data, content_type="image/png", name="picture.png")
    expected = 413 if name in ("bomb", "41_megapixels") else 422
    assert r.status_code == expected, (name, r.status_code, r.text)
    assert r.json()["field"] == "file" and len(r.json()["detail"]) > 10
    assert media_files(tmp_path) == []
    assert table.client.get(f"/api/campaigns/{table.id}/handouts", headers=table.narrator).json() == {"handouts": []}
    assert table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["last_seq"] == seq


def test_a_file_over_20_mb_is_refused_before_it_is_decoded(table: Table, tmp_path: Path) -> None:
    big = pictures.png(32, 32, "RGB") + b"\x00" * 20_000_001
    r = upload(table, big, content_type="image/png")
    assert r.status_code == 413, r.text
    assert "20 MB" in r.json()["detail"]
    assert media_files(tmp_path) == []


def test_upload_needs_a_narrator_a_file_and_a_title(table: Table, tmp_path: Path) -> None:
    assert upload(table, pictures.photo(64, 64), who=table.player).status_code == 403
    assert upload(table, pictures.photo(64, 64), who=table.outsider).status_code == 404
    r = upload(table, pictures.photo(64, 64), title="   ")
    assert (r.status_code, r.json()["field"]) == (422, "title")
    r = table.client.post(f"/api/campaigns/{table.id}/handouts", headers=table.narrator, data={"title": "x"})
    assert (r.status_code, r.json()["field"]) == (422, "file")
    r = table.client.post(f"/api/campaigns/{table.id}/handouts", headers=table.narrator, json={"title": "x"})
    assert r.status_code == 422
    assert media_files(tmp_path) == []


def test_show_to_one_player_is_on_the_log_for_them_and_the_narrators(table: Table) -> None:
    h = upload(table, pictures.photo(640, 480)).json()
    players = {
        m["username"]: m["id"]
        for m in table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    }
    assert table.client.get(h["url"], headers=table.player).status_code == 404  # shown to no one yet
    r = table.client.post(
        f"/api/campaigns/{table.id}/handouts/{h['id']}/show", headers=table.narrator, json={"to": [players["pia"]]}
    )
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["kind"] == "handout"
    assert entry["outcome"] == {
        "handout_id": h["id"],
        "title": "The mill",
        "sha256": h["sha256"],
        "to": [players["pia"]],
    }
    for who, sees in ((table.narrator, True), (table.player, True), (table.other, False)):
        logged = next(e for e in table.log(who) if e["seq"] == entry["seq"])
        assert (logged["outcome"] is not None) == sees
        assert (table.client.get(h["url"], headers=who).status_code == 200) == sees
        listed = table.client.get(f"/api/campaigns/{table.id}/handouts", headers=who).json()["handouts"]
        assert ([x["id"] for x in listed] == [h["id"]]) == sees
    hidden = next(e for e in table.log(table.other) if e["seq"] == entry["seq"])
    assert hidden["text"] is None and hidden["summary"] is None
    # to everyone: the others now get it too
    r = table.client.post(
        f"/api/campaigns/{table.id}/handouts/{h['id']}/show", headers=table.narrator, json={"to": "all"}
    )
    assert (r.status_code, r.json()["visibility"], r.json()["outcome"]["to"]) == (201, "public", "all")
    assert table.client.get(h["url"], headers=table.other).status_code == 200
    assert table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"]


def test_show_refuses_bad_recipients_and_players(table: Table) -> None:
    h = upload(table, pictures.photo(64, 64)).json()
    url = f"/api/campaigns/{table.id}/handouts/{h['id']}/show"
    for body in ({"to": []}, {"to": [999]}, {"to": "some"}, {"to": ["2"]}, {}):
        assert table.client.post(url, headers=table.narrator, json=body).status_code == 422, body
    assert table.client.post(url, headers=table.player, json={"to": "all"}).status_code == 403
    assert (
        table.client.post(
            f"/api/campaigns/{table.id}/handouts/99/show", headers=table.narrator, json={"to": "all"}
        ).status_code
        == 404
    )
    assert table.log(table.narrator) == []


def test_a_width_not_stored_gets_the_nearest_stored_rendition_and_decodes_nothing(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: a read never decodes. A 2000-pixel picture has copies 480, 960 and 1600 wide: ?w=1 … 480 gets the
    480 copy, 481 … 960 the 960 one, 961 … 1600 the 1600 one, anything wider the picture — byte for byte what is
    stored — and Pillow opens nothing while serving them."""
    h = upload(table, pictures.photo(2000, 1000)).json()
    table.client.post(f"/api/campaigns/{table.id}/handouts/{h['id']}/show", headers=table.narrator, json={"to": "all"})
    stored = {w: table.client.get(h["url"], params={"w": w}, headers=table.player).content for w in (480, 960, 1600)}
    stored[None] = table.client.get(h["url"], headers=table.player).content
    opened: list[object] = []
    real_open = Image.open

    def counting_open(*args: object, **kwargs: object) -> object:
        opened.append(args)
        return real_open(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Image, "open", counting_open)
    for width, nearest in ((1, 480), (479, 480), (481, 960), (1601, None), (1999, None), (4095, None)):
        r = table.client.get(h["url"], params={"w": width}, headers=table.player)
        assert r.status_code == 200
        assert r.content == stored[nearest], width
        assert r.headers["etag"] == f'"{h["sha256"]}{f"-w{nearest}" if nearest else ""}"'
    assert opened == []


def test_picture_reads_never_take_the_threads_other_routes_need(table: Table, app: Any) -> None:
    """Issue 35: 45 picture reads stuck in the store (more than the 40 threads other routes share) leave
    `GET /api/campaigns/{id}` answering; the reads wait for threads of their own."""
    h = upload(table, pictures.photo(800, 600)).json()
    store, gate = app.state.media, threading.Event()
    waiting = threading.Semaphore(0)

    class Stuck:
        def get(self, key: str) -> bytes | None:
            waiting.release()
            gate.wait(30)
            return store.get(key)

    app.state.media = Stuck()
    reads = [
        threading.Thread(target=table.client.get, args=(h["url"],), kwargs={"headers": table.narrator})
        for _ in range(45)
    ]
    try:
        for read in reads:
            read.start()
        assert waiting.acquire(timeout=10)  # the first reads are inside the store
        answered: list[int] = []
        probe = threading.Thread(
            target=lambda: answered.append(
                table.client.get(f"/api/campaigns/{table.id}", headers=table.player).status_code
            )
        )
        probe.start()
        probe.join(timeout=10)
        assert answered == [200]
    finally:
        gate.set()
        for read in reads:
            read.join(timeout=30)
        app.state.media = store


def test_sized_copies_never_upscale_and_etags_save_the_download(table: Table) -> None:
    h = upload(table, pictures.photo(1200, 900)).json()
    table.client.post(f"/api/campaigns/{table.id}/handouts/{h['id']}/show", headers=table.narrator, json={"to": "all"})
    small = table.client.get(h["url"], params={"w": 480}, headers=table.player)
    assert small.status_code == 200 and small.headers["content-type"].startswith("image/")
    with Image.open(io.BytesIO(small.content)) as img:
        assert img.size == (480, 360)
    odd = table.client.get(h["url"], params={"w": 300}, headers=table.player)
    assert odd.content == small.content and odd.headers["etag"] == small.headers["etag"]  # the nearest stored copy
    whole = table.client.get(h["url"], headers=table.player)
    bigger = table.client.get(h["url"], params={"w": 4096}, headers=table.player)
    assert bigger.status_code == 200 and bigger.content == whole.content  # no upscaling
    assert len(small.content) < len(whole.content) / 4
    for w in (0, 4097, -1, "x"):
        assert table.client.get(h["url"], params={"w": w}, headers=table.player).status_code == 422
    again = table.client.get(
        h["url"], params={"w": 480}, headers={**table.player, "If-None-Match": small.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    assert (
        table.client.get(h["url"], headers={**table.player, "If-None-Match": small.headers["etag"]}).status_code == 200
    )


def test_guessing_ids_or_another_campaigns_picture_is_404(client: TestClient, table: Table) -> None:
    h = upload(table, pictures.photo(64, 64)).json()
    other = Table(client, suffix="2")
    assert client.get(h["url"], headers=other.narrator).status_code == 404
    moved = h["url"].replace(f"/campaigns/{table.id}/", f"/campaigns/{other.id}/")
    assert client.get(moved, headers=other.narrator).status_code == 404
    for hid in (h["id"] + 1, 0, 2**31):
        status = client.get(f"/api/campaigns/{table.id}/handouts/{hid}/image", headers=table.narrator).status_code
        assert status in (404, 422)


def test_the_scene_and_its_pins(table: Table) -> None:
    h = upload(table, pictures.photo(800, 600)).json()
    base = f"/api/campaigns/{table.id}/scene"
    assert table.client.get(base, headers=table.player).json() == {"handout": None, "pins": []}
    assert (
        table.client.post(
            f"{base}/pins", headers=table.narrator, json={"x": 0.5, "y": 0.5, "label": "x", "visible": True}
        ).status_code
        == 422
    )  # no scene
    assert table.client.put(base, headers=table.player, json={"handout_id": h["id"]}).status_code == 403
    r = table.client.put(base, headers=table.narrator, json={"handout_id": h["id"]})
    assert (r.status_code, r.json()["kind"], r.json()["visibility"]) == (201, "scene", "public")
    assert r.json()["outcome"]["sha256"] == h["sha256"]
    assert table.client.get(h["url"], headers=table.other).status_code == 200  # a scene is shown to all
    hidden = table.client.post(
        f"{base}/pins", headers=table.narrator, json={"x": 0.25, "y": 0.75, "label": "The well", "visible": False}
    )
    shown = table.client.post(
        f"{base}/pins", headers=table.narrator, json={"x": 1, "y": 0, "label": "Gate", "visible": True}
    )
    assert hidden.status_code == shown.status_code == 201
    assert hidden.json() == {"id": hidden.json()["id"], "x": 0.25, "y": 0.75, "label": "The well", "visible": False}
    assert [p["label"] for p in table.client.get(base, headers=table.narrator).json()["pins"]] == ["The well", "Gate"]
    assert [p["label"] for p in table.client.get(base, headers=table.player).json()["pins"]] == ["Gate"]
    pin_entries = [e for e in table.log(table.player) if e["kind"] == "pin"]
    assert [e["outcome"] is None for e in pin_entries] == [True, False]  # the hidden pin's entry: narrators only
    for bad in (
        {"x": 1.5, "y": 0, "label": "a"},
        {"x": 0, "y": 0, "label": ""},
        {"x": 0, "y": 0, "label": "a" * 81},
        {"x": "0", "y": 0, "label": "a"},
        {"x": 0, "y": -0.1, "label": "a"},
    ):
        assert table.client.post(f"{base}/pins", headers=table.narrator, json=bad).status_code == 422, bad
    pid = hidden.json()["id"]
    r = table.client.patch(f"{base}/pins/{pid}", headers=table.narrator, json={"visible": True, "label": "Old well"})
    assert r.status_code == 200 and r.json()["visible"] and r.json()["label"] == "Old well"
    reveal = [e for e in table.log(table.player) if e["kind"] == "pin"][-1]
    assert reveal["action"] == "reveal" and reveal["outcome"]["label"] == "Old well"
    assert table.client.patch(f"{base}/pins/{pid}", headers=table.player, json={"x": 0.1}).status_code == 403
    assert table.client.delete(f"{base}/pins/{pid}", headers=table.narrator).status_code == 204
    assert table.client.delete(f"{base}/pins/{pid}", headers=table.narrator).status_code == 404
    assert [p["label"] for p in table.client.get(base, headers=table.player).json()["pins"]] == ["Gate"]
    r = table.client.put(base, headers=table.narrator, json={"handout_id": None})
    assert r.status_code == 201 and r.json()["outcome"] == {"handout_id": None}
    assert table.client.get(base, headers=table.player).json() == {"handout": None, "pins": []}
    assert table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"]


def test_hiding_a_pin_publishes_only_what_was_public_before(table: Table) -> None:
    """Issue 35: PATCH {visible: false, label, x, y} on a visible pin. The public "hides the pin" entry names the
    pin as the players saw it; its new label and place are in a narrators' entry after it, nowhere a player reads.
    The same Idempotency-Key again replays, and changes nothing more."""
    h = upload(table, pictures.photo(800, 600)).json()
    base = f"/api/campaigns/{table.id}/scene"
    assert table.client.put(base, headers=table.narrator, json={"handout_id": h["id"]}).status_code == 201
    pin = table.client.post(
        f"{base}/pins", headers=table.narrator, json={"x": 0.1, "y": 0.2, "label": "Old mill", "visible": True}
    ).json()
    change = {"visible": False, "label": "Smugglers' cave", "x": 0.9, "y": 0.8}
    key = {"Idempotency-Key": "hide-and-move-1"}
    r = table.client.patch(f"{base}/pins/{pin['id']}", headers={**table.narrator, **key}, json=change)
    assert r.status_code == 200, r.text
    assert r.json() == {"id": pin["id"], "x": 0.9, "y": 0.8, "label": "Smugglers' cave", "visible": False}
    hide, move = [e for e in table.log(table.narrator) if e["kind"] == "pin"][-2:]
    assert (hide["action"], hide["visibility"], move["action"], move["visibility"]) == (
        "hide",
        "public",
        "update",
        "narrator",
    )
    assert {k: hide["outcome"][k] for k in ("label", "x", "y", "visible")} == {
        "label": "Old mill",
        "x": 0.1,
        "y": 0.2,
        "visible": False,
    }
    assert {k: move["outcome"][k] for k in ("label", "x", "y", "visible")} == {
        "label": "Smugglers' cave",
        "x": 0.9,
        "y": 0.8,
        "visible": False,
    }
    seen = table.client.get(f"/api/campaigns/{table.id}/log", headers=table.player).text
    exported = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.player).text
    for text in (seen, exported, table.client.get(base, headers=table.player).text):
        assert "Smugglers" not in text and "0.9" not in text
    assert "Old mill" in seen
    seqs = [e["seq"] for e in table.log(table.narrator)]
    again = table.client.patch(f"{base}/pins/{pin['id']}", headers={**table.narrator, **key}, json=change)
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert [e["seq"] for e in table.log(table.narrator)] == seqs
    assert table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"]


def test_delete_hides_the_picture_and_the_log_still_verifies(table: Table, tmp_path: Path) -> None:
    h = upload(table, pictures.photo(640, 480)).json()
    table.client.post(f"/api/campaigns/{table.id}/handouts/{h['id']}/show", headers=table.narrator, json={"to": "all"})
    table.client.put(f"/api/campaigns/{table.id}/scene", headers=table.narrator, json={"handout_id": h["id"]})
    assert table.client.delete(f"/api/campaigns/{table.id}/handouts/{h['id']}", headers=table.player).status_code == 403
    assert (
        table.client.delete(f"/api/campaigns/{table.id}/handouts/{h['id']}", headers=table.narrator).status_code == 204
    )
    for who in (table.narrator, table.player):
        assert table.client.get(h["url"], headers=who).status_code == 404
        assert table.client.get(f"/api/campaigns/{table.id}/handouts", headers=who).json() == {"handouts": []}
    assert table.client.get(f"/api/campaigns/{table.id}/scene", headers=table.player).json()["handout"] is None
    kinds = [e["kind"] for e in table.log(table.narrator)]
    assert kinds == ["handout", "scene", "scene"]  # shown, set, taken away by the delete
    assert table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"]
    assert media_files(tmp_path) == []  # no other handout uses these bytes


def test_writes_replay_with_the_same_idempotency_key(table: Table) -> None:
    h = upload(table, pictures.photo(64, 64)).json()
    base = f"/api/campaigns/{table.id}"
    key = {**table.narrator, "Idempotency-Key": "show-1"}
    first = table.client.post(f"{base}/handouts/{h['id']}/show", headers=key, json={"to": "all"})
    again = table.client.post(f"{base}/handouts/{h['id']}/show", headers=key, json={"to": "all"})
    assert first.status_code == again.status_code == 201
    assert (first.json()["replayed"], again.json()["replayed"]) == (False, True)
    assert again.json()["seq"] == first.json()["seq"]
    other = table.client.post(f"{base}/handouts/{h['id']}/show", headers=key, json={"to": [999]})
    assert other.status_code == 422 and other.json()["field"] == "idempotency_key"
    table.client.put(f"{base}/scene", headers=table.narrator, json={"handout_id": h["id"]})
    pin_key = {**table.narrator, "Idempotency-Key": "pin-1"}
    body = {"x": 0.1, "y": 0.2, "label": "Well", "visible": False}
    made = table.client.post(f"{base}/scene/pins", headers=pin_key, json=body)
    repeat = table.client.post(f"{base}/scene/pins", headers=pin_key, json=body)
    assert made.status_code == repeat.status_code == 201
    assert repeat.json() == {**made.json(), "replayed": True}
    gone = {**table.narrator, "Idempotency-Key": "del-1"}
    url = f"{base}/scene/pins/{made.json()['id']}"
    assert table.client.delete(url, headers=gone).status_code == 204
    assert table.client.delete(url, headers=gone).status_code == 204  # the retry: the first answer again
    assert len(table.client.get(f"{base}/scene", headers=table.narrator).json()["pins"]) == 0
    kinds = [(e["kind"], e["action"]) for e in table.log(table.narrator)]
    assert kinds == [("handout", "show"), ("scene", "set"), ("pin", "create"), ("pin", "delete")]


def test_a_body_without_a_length_is_cut_off_as_it_streams_in(table: Table, tmp_path: Path) -> None:
    """No Content-Length (chunked): the route counts the bytes as they arrive and stops past the limit."""
    boundary = "fateboardboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBig\r\n--{boundary}\r\n'
        f'Content-Disposition: form-data; name="file"; filename="big.png"\r\n'
        f"Content-Type: image/png\r\n\r\n"
    ).encode()
    sent = {"bytes": 0}

    def body():
        yield head + pictures.png(32, 32, "RGB")
        for _ in range(30):  # 30 MiB, if the server read it all
            sent["bytes"] += 1 << 20
            yield b"\x00" * (1 << 20)
        yield f"\r\n--{boundary}--\r\n".encode()

    r = table.client.post(
        f"/api/campaigns/{table.id}/handouts",
        content=body(),
        headers={**table.narrator, "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert r.status_code == 413, r.text
    assert media_files(tmp_path) == []


def test_the_title_is_checked_like_any_text(table: Table, tmp_path: Path) -> None:
    r = upload(table, pictures.photo(64, 64), title="Map\x00of the mill")
    assert (r.status_code, r.json()["field"]) == (422, "title")
    r = upload(table, pictures.photo(64, 64), title="x" * 121)
    assert (r.status_code, r.json()["field"]) == (422, "title")
    assert media_files(tmp_path) == []
    # the upload paths alone skip the body check: NUL in another multipart form is still refused up front
    r = table.client.post(
        f"/api/campaigns/{table.id}/characters", headers=table.narrator, files={"file": ("a", b"\x00", "image/png")}
    )
    assert r.status_code == 422
