"""Campaigns, invites, members and game sessions."""

from __future__ import annotations

from datetime import timedelta

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import api_token, csrf_of, signup

from app.campaigns.models import Invite
from app.types import utcnow


def test_invite_link_joins_a_signed_in_user_as_player(client: TestClient, new_client) -> None:
    nora = api_token(client, "nora")
    cid = client.post("/api/campaigns", json={"name": "Lanterns", "systems": ["dice"]}, headers=nora).json()["id"]
    invite = client.post(f"/api/campaigns/{cid}/invites", json={"max_uses": 1}, headers=nora).json()
    assert invite["url"].endswith(f"/join/{invite['code']}")
    browser = new_client()
    # Signed out: the invite names the campaign and its narrator, and sign-in/sign-up lead back to it.
    r = browser.get(f"/join/{invite['code']}", follow_redirects=False)
    assert r.status_code == 200 and "Join Lanterns" in r.text and "Narrated by nora" in r.text
    assert f"/signin?next=/join/{invite['code']}" in r.text and f"/signup?next=/join/{invite['code']}" in r.text
    assert "Join as a player" not in r.text
    signup(browser, "pia")
    page = browser.get(f"/join/{invite['code']}")
    assert "Join Lanterns" in page.text
    r = browser.post(
        f"/join/{invite['code']}", data={"csrf_token": csrf_of(browser, "/account")}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"] == f"/campaigns/{cid}"
    assert "Lanterns" in browser.get("/campaigns").text
    members = client.get(f"/api/campaigns/{cid}", headers=nora).json()["members"]
    assert {m["username"]: m["role"] for m in members} == {"nora": "narrator", "pia": "player"}
    # used up: a third person cannot join
    otto = api_token(client, "otto")
    r = client.post(f"/api/invites/{invite['code']}/accept", headers=otto)
    assert r.status_code == 404 and "used up" in r.json()["detail"]


def test_expired_and_revoked_invites_say_why(table: Table) -> None:
    c = table.client
    inv = c.post(f"/api/campaigns/{table.id}/invites", json={"expires_in_hours": 1}, headers=table.narrator).json()
    with c.app.state.sessionmaker() as db:
        row = db.get(Invite, inv["id"])
        row.expires_at = utcnow() - timedelta(minutes=1)
        db.commit()
    r = c.post(f"/api/invites/{inv['code']}/accept", headers=table.outsider)
    assert r.status_code == 404 and "expired" in r.json()["detail"]
    bad = c.post(f"/api/campaigns/{table.id}/invites", json={"expires_in_hours": 0}, headers=table.narrator)
    assert bad.status_code == 422 and "Expiry" in bad.json()["detail"]
    assert c.post("/api/invites/nonsense/accept", headers=table.outsider).status_code == 404


def test_campaign_validation_errors(client: TestClient) -> None:
    nora = api_token(client, "nora")
    r = client.post("/api/campaigns", json={"name": "  "}, headers=nora)
    assert r.status_code == 422 and r.json()["field"] == "name"
    r = client.post("/api/campaigns", json={"name": "X", "systems": ["chess"]}, headers=nora)
    assert r.status_code == 422 and "chess" in r.json()["detail"]
    r = client.post("/api/campaigns", json={"systems": []}, headers=nora)
    assert r.status_code == 422 and r.json()["field"] == "name" and r.json()["detail"] == "Name is required."
    assert client.get("/api/campaigns", headers=nora).json()["campaigns"] == []


def test_the_last_narrator_cannot_be_removed_and_co_narrators_can_be_promoted(table: Table, new_client) -> None:
    browser = new_client()
    token = csrf_of(browser, "/signin")
    browser.post("/signin", data={"username": "nora", "password": "correct horse", "csrf_token": token})
    members = table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    ids = {m["username"]: m["id"] for m in members}
    headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
    r = browser.post(f"/campaigns/{table.id}/members/{ids['nora']}/remove", headers=headers)
    assert r.status_code == 409 and "at least one narrator" in r.text
    assert browser.post(f"/campaigns/{table.id}/members/{ids['pia']}/promote", headers=headers).status_code == 200
    assert browser.post(f"/campaigns/{table.id}/members/{ids['otto']}/remove", headers=headers).status_code == 200
    members = table.client.get(f"/api/campaigns/{table.id}", headers=table.player).json()["members"]
    assert {m["username"]: m["role"] for m in members} == {"nora": "narrator", "pia": "narrator"}
    # Otto is out: his campaign is gone for him, by every route.
    assert table.client.get(f"/api/campaigns/{table.id}/log", headers=table.other).status_code == 404


def test_sessions_number_the_log(table: Table, new_client) -> None:
    browser = new_client()
    browser.post(
        "/signin", data={"username": "nora", "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")}
    )
    headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
    r = browser.post(f"/campaigns/{table.id}/sessions/start", data={"title": "The bridge"}, headers=headers)
    assert r.status_code == 200 and "Session 1" in r.text
    assert browser.post(f"/campaigns/{table.id}/sessions/start", headers=headers).status_code == 409
    table.roll(table.player, "1d6")
    assert browser.post(f"/campaigns/{table.id}/sessions/end", headers=headers).status_code == 200
    table.roll(table.player, "1d6")
    export = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.narrator).json()["entries"]
    assert [(e["body"]["kind"], e["body"]["session"]) for e in export] == [
        ("session", 1),
        ("action", 1),
        ("session", 1),
        ("action", None),
    ]
    assert browser.post(f"/campaigns/{table.id}/sessions/end", headers=headers).status_code == 409
    assert len(table.log(table.narrator)) == 4  # the refused end wrote nothing
