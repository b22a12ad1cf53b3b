"""Getting back in and leaving (issue 28), against a real SMTP server on 127.0.0.1 (aiosmtpd): an address changes
only through a link sent to it; "forgot my password" answers the same whoever asks, mails a single-use link that
expires, signs every session out and keeps API tokens; the admin's link; the data download holds exactly what the
user may read; deleting an account keeps every chain verifying and shows "a former member"."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, update
from starlette.testclient import TestClient
from utils.settings import app_settings
from utils.tables import Table
from utils.web import csrf_of, signed_in

from app.accounts.models import AccountToken, User
from app.admin import main as admin_main
from app.config import Settings
from app.types import utcnow

aiosmtpd = pytest.importorskip("aiosmtpd", reason="the SMTP tests need aiosmtpd (pip install -e '.[dev]')")


@pytest.fixture
def mailbox() -> Iterator[Any]:
    from utils.smtp import MailBox

    box = MailBox()
    yield box
    box.close()


@pytest.fixture
def settings(database_url: str, tmp_path: Path, mailbox: Any) -> Settings:
    return app_settings(
        database_url,
        tmp_path,
        smtp_url=mailbox.url,
        base_url="http://testserver",
        mail_from="Fateboard <table@example.org>",
    )


def confirm_address(client: TestClient, mailbox: Any, email: str) -> None:
    before = len(mailbox.messages)
    r = client.post("/account/email", data={"email": email}, follow_redirects=False)
    assert r.status_code == 200 and "We sent a link to" in r.text
    message = mailbox.wait(before + 1)[-1]
    assert message["To"] == email
    path = urlsplit(mailbox.link(message)).path
    assert client.get(path, follow_redirects=False).status_code == 303


def test_an_address_changes_only_through_the_link_sent_to_it(
    client: TestClient, new_client: Any, mailbox: Any, app: Any
) -> None:
    Table(client)  # nora, pia, otto
    pia = signed_in(new_client, "pia")
    r = pia.post("/account/email", data={"email": "not an address"})
    assert r.status_code == 422 and "name@example.org" in r.text
    long_label = pia.post("/account/email", data={"email": "pia@" + "x" * 70 + ".org"})  # no DNS label is > 63
    assert long_label.status_code == 422 and "name@example.org" in long_label.text
    pia.post("/account/language", data={"locale": "de"})
    pia.post("/account/email", data={"email": "pia@example.org"})
    message = mailbox.wait(1)[0]
    assert message["Subject"] == "Bestätige deine E-Mail-Adresse für Fateboard"  # the user's language
    with app.state.sessionmaker() as db:
        assert db.scalar(select(User.email).where(User.username == "pia")) is None  # not before the link
    link = urlsplit(mailbox.link(message)).path
    assert pia.get(link, follow_redirects=False).status_code == 303
    with app.state.sessionmaker() as db:
        assert db.scalar(select(User.email).where(User.username == "pia")) == "pia@example.org"
    assert pia.get(link).status_code == 404  # single use


def test_forgot_answers_the_same_and_mails_a_single_use_link_that_signs_everyone_out(
    client: TestClient, new_client: Any, mailbox: Any, app: Any
) -> None:
    table = Table(client)
    pia = signed_in(new_client, "pia")
    confirm_address(pia, mailbox, "pia@example.org")
    other_browser = signed_in(new_client, "pia")
    sent = len(mailbox.messages)
    stranger = new_client()
    answers = []
    for who in ("nobody-here", "otto", "pia@example.org"):  # unknown; known without an address; known
        r = stranger.post("/forgot", data={"who": who, "csrf_token": csrf_of(stranger, "/forgot")})
        assert r.status_code == 200
        answers.append(r.text.split('<div id="forgot-form">')[1].split("</div>")[0])
    assert answers[0] == answers[1] == answers[2]  # no enumeration
    message = mailbox.wait(sent + 1)[-1]
    assert len(mailbox.messages) == sent + 1 and message["To"] == "pia@example.org"
    path = urlsplit(mailbox.link(message)).path
    page = stranger.get(path)
    assert page.status_code == 200 and "pia" in page.text
    weak = stranger.post(path, data={"password": "short", "password2": "short", "csrf_token": csrf_of(stranger, path)})
    assert weak.status_code == 422  # the password rule, next to the field; the link still works
    r = stranger.post(
        path,
        data={"password": "a new long secret", "password2": "a new long secret", "csrf_token": csrf_of(stranger, path)},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/campaigns"
    assert stranger.get("/account").status_code == 200  # this browser is signed in
    for browser in (pia, other_browser):  # every other session is signed out
        assert browser.get("/account", follow_redirects=False).status_code == 303
    assert client.get(f"/api/campaigns/{table.id}", headers=table.player).status_code == 200  # tokens stay
    assert stranger.get(path).status_code == 404  # single use
    fresh = new_client()
    ok = fresh.post(
        "/signin",
        data={"username": "pia", "password": "a new long secret", "csrf_token": csrf_of(fresh), "next": "/"},
        follow_redirects=False,
    )
    assert ok.status_code == 303


def test_a_reset_link_expires(client: TestClient, new_client: Any, mailbox: Any, app: Any) -> None:
    Table(client)
    pia = signed_in(new_client, "pia")
    confirm_address(pia, mailbox, "pia@example.org")
    stranger = new_client()
    stranger.post("/forgot", data={"who": "pia", "csrf_token": csrf_of(stranger, "/forgot")})
    path = urlsplit(mailbox.link(mailbox.wait(2)[-1])).path
    with app.state.sessionmaker() as db:
        db.execute(update(AccountToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.commit()
    assert "expired" in stranger.get(path).text
    with app.state.sessionmaker() as db:
        assert db.scalar(select(AccountToken.token_hash).limit(1)) not in path  # only the hash is stored


def test_forgot_is_throttled(client: TestClient, new_client: Any, mailbox: Any) -> None:
    stranger = new_client()
    token = csrf_of(stranger, "/forgot")
    codes = [stranger.post("/forgot", data={"who": "pia", "csrf_token": token}).status_code for _ in range(7)]
    assert codes[:5] == [200] * 5 and codes[5] == 429


def test_a_domain_in_another_script_is_confirmed_through_its_idna_form(
    client: TestClient, new_client: Any, mailbox: Any, app: Any
) -> None:
    """pia@bücher.example is taken as typed and mailed to pia@xn--bcher-kva.example (issue 35)."""
    Table(client)
    pia = signed_in(new_client, "pia")
    r = pia.post("/account/email", data={"email": "pia@bücher.example"})
    assert r.status_code == 200 and "We sent a link to" in r.text
    message = mailbox.wait(1)[0]
    assert message["To"] == "pia@xn--bcher-kva.example" and mailbox.envelopes[0] == ["pia@xn--bcher-kva.example"]
    assert pia.get(urlsplit(mailbox.link(message)).path, follow_redirects=False).status_code == 303
    with app.state.sessionmaker() as db:
        assert db.scalar(select(User.email).where(User.username == "pia")) == "pia@bücher.example"


def test_address_changes_are_throttled_per_account_and_per_address(
    client: TestClient, new_client: Any, mailbox: Any
) -> None:
    """Each accepted request mails a link: 5 per account and 5 per address in 15 minutes, then 429 with the
    reason next to the field (in the user's language); a refused request mails nothing."""
    Table(client)
    pia, otto, nora = (signed_in(new_client, name) for name in ("pia", "otto", "nora"))
    codes = [pia.post("/account/email", data={"email": f"pia{i}@example.org"}).status_code for i in range(5)]
    assert codes == [200] * 5
    refused = pia.post("/account/email", data={"email": "pia9@example.org"})
    assert refused.status_code == 429
    assert "Too many confirmation e-mails. Wait 15 minutes and try again." in refused.text
    assert 'id="email-error"' in refused.text
    for who in (otto, otto, otto, nora, nora):  # two accounts, one victim's address: 3 + 2 mails
        assert who.post("/account/email", data={"email": "victim@example.org"}).status_code == 200
    assert nora.post("/account/email", data={"email": "Victim@Example.org"}).status_code == 429  # nora's 3rd
    assert nora.post("/account/email", data={"email": "nora@example.org"}).status_code == 200
    assert len(mailbox.wait(11)) == 11
    time.sleep(0.3)
    assert len(mailbox.messages) == 11  # nothing for the refused requests
    otto.post("/account/language", data={"locale": "de"})
    german = otto.post("/account/email", data={"email": "victim@example.org"})
    assert german.status_code == 429 and "Zu viele Bestätigungs-E-Mails" in german.text


def test_the_admin_prints_a_one_time_link(
    client: TestClient,
    new_client: Any,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    Table(client)
    monkeypatch.setenv("FATEBOARD_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("FATEBOARD_BASE_URL", "http://testserver")
    assert admin_main(["reset-password", "otto"]) == 0
    path = urlsplit(capsys.readouterr().out.strip()).path
    browser = new_client()
    r = browser.post(
        path,
        data={
            "password": "a brand new secret",
            "password2": "a brand new secret",
            "csrf_token": csrf_of(browser, path),
        },
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert admin_main(["reset-password", "nobody"]) == 1


def test_the_download_holds_exactly_what_the_user_may_read(client: TestClient, new_client: Any) -> None:
    table = Table(client)
    mine = [table.roll(table.player, "2d6", v).json()["seq"] for v in ("public", "blind", "self")]
    theirs = [table.roll(table.other, "3d6", v).json()["seq"] for v in ("public", "narrator")]
    pia = signed_in(new_client, "pia")
    r = pia.get("/account/export.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    data = json.loads(r.text)
    assert data["account"]["username"] == "pia"
    assert [m["role"] for m in data["memberships"]] == ["player"]
    assert [c["name"] for c in data["characters"]] == ["Pia's hero"]
    entries = {e["seq"]: e for e in data["entries"]}
    assert set(entries) >= set(mine) and not set(entries) & set(theirs)
    blind = entries[mine[1]]
    assert blind["request"] and blind["outcome"] is None and blind["dice"] is None  # what I asked, not the result
    assert entries[mine[2]]["outcome"] is not None  # my own self roll: mine to read


def test_deleting_an_account_keeps_every_chain_verifying(client: TestClient, new_client: Any, app: Any) -> None:
    table = Table(client)
    seq = table.roll(table.player, "2d6").json()["seq"]
    nora = signed_in(new_client, "nora")
    refused = nora.post("/account/delete", data={"password": "correct horse"})
    assert refused.status_code == 422 and "Night Watch" in refused.text  # the only narrator of a campaign
    pia = signed_in(new_client, "pia")
    wrong = pia.post("/account/delete", data={"password": "not it"})
    assert wrong.status_code == 422
    gone = pia.post("/account/delete", data={"password": "correct horse"}, follow_redirects=False)
    assert gone.status_code == 303
    assert pia.get("/account", follow_redirects=False).status_code == 303
    check = client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()
    assert check["ok"] is True
    page = nora.get(f"/campaigns/{table.id}")
    assert "a former member" in page.text
    entry = next(e for e in table.log(table.narrator) if e["seq"] == seq)
    assert entry["text"] and entry["actor"] == "pia"  # the entry stays as written (the chain covers it)
    with app.state.sessionmaker() as db:
        from app.characters.models import Character

        assert db.scalar(select(Character.owner_id).where(Character.name == "Pia's hero")) is None
