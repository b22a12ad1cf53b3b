"""The schedule through the JSON API as ../shared/contracts/BETWEEN-SESSIONS-API.md (sections 2 and 5) names it:
proposals, answers, cancellations that tell who was coming, the .ics and the secret feed, reminders once each."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select, update
from starlette.testclient import TestClient
from utils.settings import app_settings
from utils.tables import Table
from utils.web import signed_in

from app.accounts.models import User
from app.between.models import PlannedSession
from app.between.reminders import digest, sweep
from app.between.schedule import Mail
from app.campaigns.models import Membership
from app.main import create_app
from app.models import Base
from app.notify.models import OutboxItem, PushSubscription
from app.rolls.models import LogEntry

pytestmark = pytest.mark.engines


@pytest.fixture
def quiet_app(database_url: str, tmp_path: Path) -> Iterator[FastAPI]:
    """No outbox sender (the queued deliveries stay to be read) and mail on (an SMTP URL nobody contacts)."""
    application = create_app(app_settings(database_url, tmp_path, outbox_sender=False, smtp_url="smtp://127.0.0.1:9"))
    Base.metadata.create_all(application.state.engine)
    yield application
    application.state.engine.dispose()


def later(**delta: float) -> str:
    return (datetime.now(UTC) + timedelta(**delta)).replace(microsecond=0).isoformat()


def plan(t: Table, who: dict[str, str], key: str | None = None, **body: Any) -> Any:
    headers = {**who, **({"Idempotency-Key": key} if key else {})}
    return t.client.post(f"/api/campaigns/{t.id}/schedule", json=body, headers=headers)


def uid(t: Table, name: str) -> int:
    members = t.client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]
    return int(next(m["id"] for m in members if m["username"] == name))


def test_a_narrator_proposes_and_the_answer_has_the_contract_shape(t: Table) -> None:
    start = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    berlin = start.astimezone(tz=__import__("zoneinfo").ZoneInfo("Europe/Berlin")).isoformat()
    r = plan(t, t.narrator, starts_at=berlin, title="The Keep")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body == {
        "id": body["id"],
        "starts_at": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "duration_minutes": 180,
        "title": "The Keep",
        "rsvps": [],
        "mine": None,
    }
    assert plan(t, t.player, starts_at=later(days=1)).status_code == 403
    assert plan(t, t.outsider, starts_at=later(days=1)).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"starts_at": "2030-01-01T19:00:00"}, "starts_at"),  # no offset
        ({"starts_at": "2020-01-01T19:00:00Z"}, "starts_at"),  # the past
        ({"starts_at": "tomorrow"}, "starts_at"),
        ({"starts_at": "2030-01-01T19:00:00Z", "duration_minutes": 14}, "duration_minutes"),
        ({"starts_at": "2030-01-01T19:00:00Z", "duration_minutes": 1441}, "duration_minutes"),
        ({"starts_at": "2030-01-01T19:00:00Z", "duration_minutes": "60"}, "duration_minutes"),
        ({"starts_at": "2030-01-01T19:00:00Z", "title": "x" * 121}, "title"),
        ({"duration_minutes": 60}, "starts_at"),
    ],
)
def test_bad_proposals_are_422_and_change_nothing(t: Table, body: dict[str, Any], field: str) -> None:
    r = plan(t, t.narrator, **body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and r.json()["detail"]
    assert t.client.get(f"/api/campaigns/{t.id}/schedule", headers=t.narrator).json() == {"upcoming": []}


def test_answers_replace_and_the_list_is_in_time_order(t: Table) -> None:
    second = plan(t, t.narrator, starts_at=later(days=9)).json()["id"]
    soon = later(days=2)
    first = plan(t, t.narrator, starts_at=soon, duration_minutes=240, key="p1").json()["id"]
    replay = plan(t, t.narrator, starts_at=soon, duration_minutes=240, key="p1")
    assert replay.status_code == 201 and replay.json()["replayed"] is True and replay.json()["id"] == first
    rsvp = f"/api/campaigns/{t.id}/schedule/{first}/rsvp"
    r = t.client.put(rsvp, json={"answer": "maybe"}, headers=t.player)
    assert r.status_code == 200 and r.json()["mine"] == "maybe"
    r = t.client.put(rsvp, json={"answer": "yes"}, headers=t.player)
    assert r.status_code == 200
    assert r.json()["rsvps"] == [{"user_id": uid(t, "pia"), "answer": "yes"}] and r.json()["mine"] == "yes"
    assert t.client.put(rsvp, json={"answer": "no"}, headers=t.other).status_code == 200
    assert t.client.put(rsvp, json={"answer": "perhaps"}, headers=t.other).status_code == 422
    assert t.client.put(rsvp, json={"answer": "yes"}, headers=t.outsider).status_code == 404
    missing = f"/api/campaigns/{t.id}/schedule/999999/rsvp"
    assert t.client.put(missing, json={"answer": "yes"}, headers=t.player).status_code == 404
    listed = t.client.get(f"/api/campaigns/{t.id}/schedule", headers=t.other)
    assert listed.status_code == 200
    upcoming = listed.json()["upcoming"]
    assert [s["id"] for s in upcoming] == [first, second]
    assert upcoming[0]["mine"] == "no" and upcoming[1]["mine"] is None
    assert sorted(a["answer"] for a in upcoming[0]["rsvps"]) == ["no", "yes"]


def subscribe(t: Table, app: FastAPI, *names: str, email: bool = True) -> None:
    with app.state.sessionmaker() as db:
        for name in names:
            user = db.scalar(select(User).where(User.username == name))
            assert user is not None
            db.add(
                PushSubscription(user_id=user.id, endpoint=f"http://127.0.0.1:9/{name}", p256dh="p" * 87, auth="a" * 22)
            )
            if email:
                user.email = f"{name}@example.org"
        db.commit()


def outbox(app: FastAPI) -> list[tuple[str, str, dict[str, Any]]]:
    with app.state.sessionmaker() as db:
        return [(o.channel, o.tag, dict(o.payload)) for o in db.scalars(select(OutboxItem).order_by(OutboxItem.id))]


def test_a_cancellation_tells_yes_and_maybe_in_their_language_and_leaves_the_calendar(
    t: Table, quiet_app: FastAPI
) -> None:
    subscribe(t, quiet_app, "nora", "pia", "otto")
    with quiet_app.state.sessionmaker() as db:
        db.execute(update(User).where(User.username == "pia").values(locale="de"))
        db.commit()
    sid = plan(t, t.narrator, starts_at=later(days=4), title="Siege").json()["id"]
    t.client.put(f"/api/campaigns/{t.id}/schedule/{sid}/rsvp", json={"answer": "maybe"}, headers=t.player)
    t.client.put(f"/api/campaigns/{t.id}/schedule/{sid}/rsvp", json={"answer": "no"}, headers=t.other)
    assert t.client.delete(f"/api/campaigns/{t.id}/schedule/{sid}", headers=t.player).status_code == 403
    r = t.client.delete(f"/api/campaigns/{t.id}/schedule/{sid}", headers=t.narrator)
    assert r.status_code == 204 and r.content == b""
    sent = outbox(quiet_app)
    pia = uid(t, "pia")
    assert [(channel, tag) for channel, tag, _p in sent] == [("push", f"cancel-{sid}-{pia}"), ("email", "mail")]
    push, mail = sent[0][2], sent[1][2]
    assert push["title"] == "Abgesagt: Siege" and push["url"] == f"/campaigns/{t.id}"
    assert mail["to"] == "pia@example.org" and mail["subject"] == "Abgesagt: Siege"
    assert t.client.get(f"/api/campaigns/{t.id}/schedule", headers=t.player).json() == {"upcoming": []}
    assert "VEVENT" not in t.client.get(f"/api/campaigns/{t.id}/calendar.ics", headers=t.player).text
    assert t.client.delete(f"/api/campaigns/{t.id}/schedule/{sid}", headers=t.narrator).status_code == 404


def vevents(text: str) -> list[dict[str, str]]:
    events, current = [], {}
    for line in text.split("\r\n"):
        if line == "BEGIN:VEVENT":
            current = {}
        elif line == "END:VEVENT":
            events.append(current)
        elif ":" in line:
            name, _sep, value = line.partition(":")
            current[name] = value
    return events


def test_the_campaign_calendar_is_rfc_5545(t: Table) -> None:
    start = (datetime.now(UTC) + timedelta(days=5)).replace(microsecond=0, second=0)
    sid = plan(t, t.narrator, starts_at=start.isoformat(), duration_minutes=90, title="Bells; and, more").json()["id"]
    r = t.client.get(f"/api/campaigns/{t.id}/calendar.ics", headers=t.player)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/calendar")
    text = r.text
    assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:") and text.endswith("END:VCALENDAR\r\n")
    assert "\n" not in text.replace("\r\n", "")
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    (event,) = vevents(text)
    assert event["DTSTART"] == start.strftime("%Y%m%dT%H%M%SZ")
    assert event["DTEND"] == (start + timedelta(minutes=90)).strftime("%Y%m%dT%H%M%SZ")
    assert event["SUMMARY"] == "Night Watch: Bells\\; and\\, more"
    assert event["URL"] == f"http://testserver/campaigns/{t.id}"
    assert event["UID"] == f"fateboard-session-{sid}@testserver" and event["DTSTAMP"].endswith("Z")
    assert t.client.get(f"/api/campaigns/{t.id}/calendar.ics", headers=t.outsider).status_code == 404
    assert t.client.get(f"/api/campaigns/{t.id}/calendar.ics").status_code == 401


def test_the_secret_feed_answers_without_sign_in_rotates_and_is_revoked(t: Table) -> None:
    sid = plan(t, t.narrator, starts_at=later(days=6)).json()["id"]
    r = t.client.post("/api/me/calendar-feed", headers=t.player)
    assert r.status_code == 201
    url = r.json()["url"]
    secret = url.rsplit("/", 1)[1].removesuffix(".ics")
    assert len(secret) >= 22  # at least 128 bits in base64url
    path = url.removeprefix("http://testserver")
    feed = t.client.get(path)
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("text/calendar")
    campaign_ics = t.client.get(f"/api/campaigns/{t.id}/calendar.ics", headers=t.player).text
    assert [e["UID"] for e in vevents(feed.text)] == [e["UID"] for e in vevents(campaign_ics)]
    assert vevents(feed.text)[0]["UID"] == f"fateboard-session-{sid}@testserver"
    rotated = t.client.post("/api/me/calendar-feed", headers=t.player).json()["url"]
    assert rotated != url
    assert t.client.get(path).status_code == 404
    new_path = rotated.removeprefix("http://testserver")
    assert t.client.get(new_path).status_code == 200
    assert t.client.delete("/api/me/calendar-feed", headers=t.player).status_code == 204
    assert t.client.get(new_path).status_code == 404
    assert t.client.post("/api/me/calendar-feed").status_code == 401


def test_reminders_24_and_1_hour_before_once_each_to_everyone_but_no(t: Table, quiet_app: FastAPI) -> None:
    subscribe(t, quiet_app, "nora", "pia", "otto")
    sid = plan(t, t.narrator, starts_at=later(days=3)).json()["id"]
    t.client.put(f"/api/campaigns/{t.id}/schedule/{sid}/rsvp", json={"answer": "yes"}, headers=t.player)
    t.client.put(f"/api/campaigns/{t.id}/schedule/{sid}/rsvp", json={"answer": "no"}, headers=t.other)
    mail = Mail(on=True, base_url="http://testserver")
    with quiet_app.state.sessionmaker() as db:
        assert sweep(db, mail) == 0
        db.execute(
            update(PlannedSession)
            .where(PlannedSession.id == sid)
            .values(starts_at=datetime.now(UTC) + timedelta(hours=23))
        )
        db.commit()
        assert sweep(db, mail) == 1
        assert sweep(db, mail) == 0  # once
    tags = sorted(tag for channel, tag, _p in outbox(quiet_app) if channel == "push")
    # nora (no answer) and pia (yes) are reminded; otto said no.
    assert tags == sorted(f"reminder-{sid}-24h-{uid(t, n)}" for n in ("nora", "pia"))
    mails = sorted(p["to"] for channel, _t, p in outbox(quiet_app) if channel == "email")
    assert mails == ["nora@example.org", "pia@example.org"]
    with quiet_app.state.sessionmaker() as db:
        db.execute(
            update(PlannedSession)
            .where(PlannedSession.id == sid)
            .values(starts_at=datetime.now(UTC) + timedelta(minutes=50))
        )
        db.commit()
        assert sweep(db, mail) == 1
        assert sweep(db, mail) == 0
    one_hour = [
        tag for channel, tag, _p in outbox(quiet_app) if channel == "push" and tag.startswith(f"reminder-{sid}-1h")
    ]
    assert len(one_hour) == 2


def test_the_digest_is_opt_in_daily_and_says_no_word_of_the_log(t: Table, quiet_app: FastAPI) -> None:
    with quiet_app.state.sessionmaker() as db:
        db.execute(update(User).where(User.username.in_(["pia", "otto"])).values(email=User.username + "@example.org"))
        db.commit()
    pia = signed_in(lambda: TestClient(quiet_app, base_url="http://testserver"), "pia")
    r = pia.post(f"/campaigns/{t.id}/between/digest", data={"on": "1"}, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "Daily digest by e-mail while you are away: on." in r.text
    t.client.post(f"/api/campaigns/{t.id}/messages", json={"text": "hello all"}, headers=t.narrator)
    whisper = {"text": "zebra crossing", "visibility": "whisper", "to": [uid(t, "otto")]}
    t.client.post(f"/api/campaigns/{t.id}/messages", json=whisper, headers=t.narrator)
    mail = Mail(on=True, base_url="http://testserver")
    with quiet_app.state.sessionmaker() as db:
        assert digest(db, mail) == 0  # the lines are fresh: she is not away yet
        db.execute(update(LogEntry).values(created_at=datetime.now(UTC) - timedelta(hours=13)))
        db.execute(update(Membership).values(joined_at=datetime.now(UTC) - timedelta(days=2)))  # joined before them
        db.commit()
        assert digest(db, mail) == 1  # pia only: otto did not ask for it
        assert digest(db, mail) == 0  # once a day
    (sent,) = [p for channel, _t, p in outbox(quiet_app) if channel == "email"]
    assert sent["to"] == "pia@example.org" and "Night Watch" in sent["subject"]
    assert "2 new lines in Night Watch" in sent["body"]
    assert "zebra" not in sent["body"] and "hello" not in sent["body"]
    off = pia.post(f"/campaigns/{t.id}/between/digest", data={}, headers={"HX-Request": "true"})
    assert "Daily digest by e-mail while you are away: off." in off.text


def test_a_retried_cancellation_answers_as_the_first_and_tells_once(t: Table, quiet_app: FastAPI) -> None:
    subscribe(t, quiet_app, "pia", email=False)
    sid = plan(t, t.narrator, starts_at=later(days=4)).json()["id"]
    t.client.put(f"/api/campaigns/{t.id}/schedule/{sid}/rsvp", json={"answer": "yes"}, headers=t.player)
    headers = {**t.narrator, "Idempotency-Key": "cancel-1"}
    assert t.client.delete(f"/api/campaigns/{t.id}/schedule/{sid}", headers=headers).status_code == 204
    assert t.client.delete(f"/api/campaigns/{t.id}/schedule/{sid}", headers=headers).status_code == 204
    assert [tag for _c, tag, _p in outbox(quiet_app)] == [f"cancel-{sid}-{uid(t, 'pia')}"]
