"""E-mail through the outbox cannot be jammed by one address (issue 35, item 3), against a real SMTP server on
127.0.0.1 (aiosmtpd): every due e-mail row is claimed (they have no campaign to keep an order in), a permanent
failure (a 5xx, an address the server cannot take) is dropped at once, not retried for a day, the domain goes out
in IDNA and a non-ASCII local part only to a server that offers SMTPUTF8."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.recovery import queue_mail
from app.db import make_engine, make_sessionmaker
from app.models import Base
from app.notify.deliver import mail_handler
from app.notify.mail import smtp_address
from app.notify.models import OutboxItem
from app.notify.outbox import OutboxSender

aiosmtpd = pytest.importorskip("aiosmtpd", reason="the SMTP tests need aiosmtpd (pip install -e '.[dev]')")
pytestmark = pytest.mark.engines

SENDER = "Fateboard <table@example.org>"


@pytest.fixture
def factory(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    Base.metadata.create_all(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


def _queue(factory: sessionmaker[Session], *addresses: str) -> None:
    with factory() as db:
        for to in addresses:
            queue_mail(db, to=to, subject="Reset", body=f"Hello {to}")
        db.commit()


def _rows(factory: sessionmaker[Session]) -> list[OutboxItem]:
    with factory() as db:
        return list(db.scalars(select(OutboxItem).order_by(OutboxItem.id)))


def _drain(factory: sessionmaker[Session], box: Any, expected: int) -> list[list[str]]:
    """Run a sender until `expected` messages arrived and the outbox is empty (or 10 s); its envelopes."""
    sender = OutboxSender(factory, {"email": mail_handler(box.url, SENDER)}, poll_seconds=0.05)
    sender.start()
    try:
        box.wait(expected)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with factory() as db:
                if db.scalar(select(func.count()).select_from(OutboxItem)) == 0:
                    break
            time.sleep(0.05)
    finally:
        sender.stop()
    return sorted(box.envelopes)


def test_every_due_mail_is_claimed_not_only_the_oldest(factory: sessionmaker[Session]) -> None:
    _queue(factory, "a@example.org", "b@example.org", "c@example.org")
    sender = OutboxSender(factory, {})
    assert [row.payload["to"] for row in sender.claim()] == ["a@example.org", "b@example.org", "c@example.org"]


def test_one_address_the_server_cannot_take_jams_nothing(factory: sessionmaker[Session]) -> None:
    """The server offers no SMTPUTF8 and refuses ghost@ with a 550: jörg@ and ghost@ are dropped after one try
    each, and the mails queued after them arrive at once — the IDN domain in IDNA."""
    from utils.smtp import MailBox

    box = MailBox(refuse=("ghost@example.org",))
    try:
        _queue(factory, "jörg@example.org", "ghost@example.org", "pia@bücher.example", "otto@example.org")
        envelopes = _drain(factory, box, 2)
    finally:
        box.close()
    assert envelopes == [["otto@example.org"], ["pia@xn--bcher-kva.example"]]
    assert _rows(factory) == []  # dropped, not waiting for a retry


def test_a_server_with_smtputf8_gets_the_address_as_typed(factory: sessionmaker[Session]) -> None:
    from utils.smtp import MailBox

    box = MailBox(smtputf8=True)
    try:
        _queue(factory, "jörg@bücher.example")
        envelopes = _drain(factory, box, 1)
    finally:
        box.close()
    assert envelopes == [["jörg@xn--bcher-kva.example"]]
    assert box.messages[0]["To"] == "jörg@xn--bcher-kva.example"


@pytest.mark.parametrize(("code", "kind"), [(451, "retry"), (550, "drop")])
def test_a_temporary_refusal_is_retried_a_permanent_one_dropped(
    monkeypatch: pytest.MonkeyPatch, code: int, kind: str
) -> None:
    """A 4xx keeps the row for the backoff; a 5xx drops it at once (the handler's rule, the server's answer)."""
    import asyncio

    import aiosmtplib

    async def refused(*_args: Any, **_kwargs: Any) -> None:
        raise aiosmtplib.SMTPRecipientsRefused([aiosmtplib.SMTPRecipientRefused(code, "no", "x@example.org")])

    monkeypatch.setattr(aiosmtplib, "send", refused)
    item = OutboxItem(channel="email", payload={"to": "x@example.org", "subject": "s", "body": "b"})
    outcome = asyncio.run(mail_handler("smtp://127.0.0.1:9", SENDER)(item, None, None))  # type: ignore[arg-type]
    assert outcome.kind == kind


@pytest.mark.parametrize(
    ("address", "sent"),
    [
        ("pia@example.org", "pia@example.org"),
        ("pia@Bücher.Example", "pia@xn--bcher-kva.example"),
        ("jörg@example.org", "jörg@example.org"),
    ],
)
def test_smtp_address(address: str, sent: str) -> None:
    assert smtp_address(address) == sent


@pytest.mark.parametrize(
    "address", ["no-at-sign", "@example.org", "pia@", "a@b\r\nBcc: x@y", "pia@" + "x" * 70 + ".org"]
)
def test_smtp_address_refuses(address: str) -> None:
    with pytest.raises(ValueError):
        smtp_address(address)
