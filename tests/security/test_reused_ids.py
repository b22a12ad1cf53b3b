"""A new account never inherits a deleted member's secrets (issue 35, item 1), on both engines.

vic joins by an invite, is whispered to and shown a handout, and deletes his account; mallory signs up, accepts the
same invite and walks every route and both streams (tests/utils/leak_world.py): neither whisper nor the handout's
title or picture reaches her. On SQLite without AUTOINCREMENT mallory got vic's id and read all of it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select
from utils.leak_world import World, case_named, shows
from utils.web import csrf_of

from app.accounts.models import User
from app.systems import ROLLER

pytestmark = pytest.mark.engines

WHISPERS = ("The key is under the third barrel", "Meet me at the drowned mill at midnight")
TITLE = "The duke's secret letter"


def _join(world: World, name: str, code: str) -> None:
    """`name` signs up (API), accepts the invite `code`, signs in with a browser of their own and takes a token:
    the world walks its routes for them as for anyone else."""
    api = world.api
    assert api.post("/api/users", json={"username": name, "password": "correct horse"}).status_code == 201
    r = api.post("/api/tokens", json={"username": name, "password": "correct horse"})
    assert r.status_code == 201, r.text
    world.tokens[name] = {"Authorization": f"Bearer {r.json()['token']}"}
    assert api.post(f"/api/invites/{code}/accept", headers=world.tokens[name]).status_code == 200
    browser = world.browsers[name] = world._client()
    r = browser.post(
        "/signin",
        data={"username": name, "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    with world.factory() as db:
        world.user_ids[name] = db.scalar(select(User.id).where(User.username == name))


def _picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (640, 480), (120, 20, 140)).save(out, "PNG")
    return out.getvalue()


def test_a_new_account_reads_nothing_addressed_to_a_deleted_one(
    database_url: str, tmp_path: Path, leak_worlds: list[World]
) -> None:
    world = World(database_url, tmp_path, "reused-ids", case_named(f"{ROLLER}-roll"))
    leak_worlds.append(world)
    cid, nora, pia = world.campaign_id, world.tokens["nora"], world.tokens["pia"]
    invite = world.api.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora)
    assert invite.status_code == 201, invite.text
    code = invite.json()["code"]
    _join(world, "vic", code)
    vic = world.user_ids["vic"]
    assert vic == max(world.user_ids.values())  # the newest account: the id SQLite would hand out again
    for author, text in zip((pia, nora), WHISPERS, strict=True):
        r = world.api.post(
            f"/api/campaigns/{cid}/messages", json={"text": text, "visibility": "whisper", "to": [vic]}, headers=author
        )
        assert r.status_code == 201, r.text
    handout = world.api.post(
        f"/api/campaigns/{cid}/handouts",
        headers=nora,
        data={"title": TITLE},
        files={"file": ("letter.png", _picture(), "image/png")},
    )
    assert handout.status_code == 201, handout.text
    shown = world.api.post(
        f"/api/campaigns/{cid}/handouts/{handout.json()['id']}/show", headers=nora, json={"to": [vic]}
    )
    assert (shown.status_code, shown.json()["visibility"]) == (201, "recipients"), shown.text
    image = f"/api/campaigns/{cid}/handouts/{handout.json()['id']}/image"
    # vic reads all of it while he is a member …
    log = world.api.get(f"/api/campaigns/{cid}/log", params={"limit": 500}, headers=world.tokens["vic"]).text
    assert all(text in log for text in WHISPERS) and TITLE in log
    assert world.api.get(image, headers=world.tokens["vic"]).status_code == 200
    # … and deletes his account.
    browser = world.browsers.pop("vic")
    r = browser.post(
        "/account/delete",
        data={"password": "correct horse"},
        headers={"X-CSRF-Token": csrf_of(browser, "/account")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    del world.tokens["vic"]
    _join(world, "mallory", code)
    assert world.user_ids["mallory"] > vic
    snapshot = world.snapshot("mallory")
    assert snapshot, "the walk reached nothing"
    assert snapshot[f"GET /api/campaigns/{cid}/log"].startswith("200\n")
    assert world.api.get(image, headers=world.tokens["mallory"]).status_code == 404
    for key, text in snapshot.items():
        for secret in (*WHISPERS, TITLE, handout.json()["sha256"]):
            assert not shows(text, secret), f"mallory reads {secret!r} in {key}"
    # What she may read she does: the walk is not blind (pia's public line).
    r = world.api.post(f"/api/campaigns/{cid}/messages", json={"text": "Welcome, stranger"}, headers=pia)
    assert r.status_code == 201, r.text
    assert "Welcome, stranger" in world.api.get(f"/api/campaigns/{cid}/log", headers=world.tokens["mallory"]).text
