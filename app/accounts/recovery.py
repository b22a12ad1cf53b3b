"""Getting back in and leaving: an e-mail address confirmed by a link, a password reset by a single-use,
short-lived link (hashed at rest), the admin's one-time link, everything about me as JSON, and deleting my account.

Mail goes through the durable outbox (app/notify/outbox.py, channel "email"), written in the same transaction as
the token it carries.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import AccountToken, ApiToken, LoginSession, User
from app.accounts.passwords import check_new_password
from app.accounts.throttle import Throttle
from app.campaigns.models import Campaign, Membership
from app.campaigns.service import access
from app.characters.models import Character
from app.characters.service import visible_sheet
from app.errors import BadRequest
from app.i18n import _, get_locale, set_locale
from app.notify.mail import smtp_address
from app.notify.models import OutboxItem
from app.rolls.models import LogEntry
from app.rolls.present import entry_json, viewer_view
from app.rolls.visibility import RECIPIENTS, TEAM, WHISPER, View
from app.types import utcnow

RESET_FOR = timedelta(minutes=30)
CONFIRM_FOR = timedelta(hours=24)
MAIL_DEADLINE = timedelta(hours=24)
EMAIL_RE = re.compile(r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9.-]{1,190}\.[A-Za-z]{2,63}$")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _new_token(db: Session, user: User, purpose: str, lifetime: timedelta, email: str | None = None) -> str:
    token = secrets.token_urlsafe(32)
    db.add(
        AccountToken(
            user_id=user.id, purpose=purpose, token_hash=_digest(token), email=email, expires_at=utcnow() + lifetime
        )
    )
    return token


def queue_mail(db: Session, *, to: str, subject: str, body: str) -> None:
    now = utcnow()
    db.add(
        OutboxItem(
            channel="email",
            payload={"to": to, "subject": subject, "body": body},
            tag="mail",
            due_at=now,
            deadline_at=now + MAIL_DEADLINE,
        )
    )


class _Speaking:
    def __init__(self, locale: str | None) -> None:
        self.locale, self.before = locale, get_locale()

    def __enter__(self) -> None:
        if self.locale:
            set_locale(self.locale)

    def __exit__(self, *exc: object) -> None:
        set_locale(self.before)


# --- e-mail address ------------------------------------------------------------------------------------------


def _sendable(email: str) -> bool:
    """An address of the usual shape whose domain SMTP can carry: a domain in another script (bücher.example) is
    checked, and later sent, in IDNA (xn--bcher-kva.example); a label IDNA cannot write is refused here."""
    try:
        return EMAIL_RE.match(smtp_address(email)) is not None
    except ValueError:
        return False


def request_email_change(db: Session, throttle: Throttle, user: User, email: str, base_url: str) -> None:
    """Send a confirmation link to the new address; the account's address changes only when it is followed.
    Throttled per account and per address (TooManyRequests), so it cannot flood anyone's mailbox."""
    email = email.strip()
    if not _sendable(email):
        raise BadRequest(_("Enter an e-mail address like name@example.org."), field="email")
    throttle.begin_email_change(str(user.id), email)
    token = _new_token(db, user, "email", CONFIRM_FOR, email=email)
    with _Speaking(user.locale):
        queue_mail(
            db,
            to=email,
            subject=_("Confirm your e-mail address for Fateboard"),
            body=_(
                "Hello {name},\n\nfollow this link to use this address for your Fateboard account (it works for 24 "
                "hours):\n\n{link}\n\nIf you did not ask for this, ignore this message."
            ).format(name=user.username, link=f"{base_url}/account/email/{token}"),
        )
    db.commit()


def confirm_email(db: Session, token: str) -> User:
    row = _usable(db, token, "email")
    user = db.get(User, row.user_id)
    assert user is not None and row.email is not None
    user.email = row.email
    row.used_at = utcnow()
    db.commit()
    return user


# --- password reset ------------------------------------------------------------------------------------------


def request_reset(db: Session, throttle: Throttle, who: str, *, address: str, base_url: str) -> None:
    """Forgot your password: the same answer whether or not the account (or its address) exists. Throttled like
    sign-in (per account and address), so it cannot flood anyone's mailbox."""
    key = who.strip().lower()
    throttle.begin_reset(key, address)
    user = db.scalar(select(User).where((User.username_key == key) | (func.lower(User.email) == key)))
    if user is None or not user.email:
        return
    token = _new_token(db, user, "reset", RESET_FOR)
    with _Speaking(user.locale):
        queue_mail(
            db,
            to=user.email,
            subject=_("Reset your Fateboard password"),
            body=_(
                "Hello {name},\n\nfollow this link to choose a new password (it works once, for 30 minutes):\n\n"
                "{link}\n\nIf you did not ask for this, ignore this message: your password stays as it is."
            ).format(name=user.username, link=f"{base_url}/reset/{token}"),
        )
    db.commit()


def admin_reset_link(db: Session, username: str, base_url: str) -> str:
    """For self-hosters (python -m app.admin reset-password USER): a one-time link, printed, not mailed."""
    user = db.scalar(select(User).where(User.username_key == username.strip().lower()))
    if user is None:
        raise BadRequest(_("No such account."), field="username")
    token = _new_token(db, user, "reset", RESET_FOR)
    db.commit()
    return f"{base_url}/reset/{token}"


def _usable(db: Session, token: str, purpose: str) -> AccountToken:
    row = db.scalar(
        select(AccountToken).where(AccountToken.token_hash == _digest(token or ""), AccountToken.purpose == purpose)
    )
    if row is None or row.used_at is not None or row.expires_at <= utcnow():
        raise BadRequest(_("This link has expired or was used already. Ask for a new one."), field="token")
    return row


def check_reset(db: Session, token: str) -> User:
    row = _usable(db, token, "reset")
    user = db.get(User, row.user_id)
    assert user is not None
    return user


def reset_password(db: Session, token: str, password: str, password2: str, hasher: Any) -> User:
    """A new password: the link is used up, every session of the account is signed out (the caller signs this
    browser in); API tokens and everything else stay."""
    row = _usable(db, token, "reset")
    user = db.get(User, row.user_id)
    assert user is not None
    if password != password2:
        raise BadRequest(_("The two passwords differ."), field="password2")
    check_new_password(password, user.username)
    done = cast(
        CursorResult[Any],
        db.execute(
            update(AccountToken)
            .where(AccountToken.id == row.id, AccountToken.used_at.is_(None))
            .values(used_at=utcnow())
        ),
    ).rowcount
    if not done:  # used by a concurrent request a moment ago
        raise BadRequest(_("This link has expired or was used already. Ask for a new one."), field="token")
    user.password_hash = hasher.hash(password)
    db.execute(delete(LoginSession).where(LoginSession.user_id == user.id))
    db.execute(
        update(AccountToken)
        .where(AccountToken.user_id == user.id, AccountToken.purpose == "reset", AccountToken.used_at.is_(None))
        .values(used_at=utcnow())
    )
    db.commit()
    return user


# --- everything about me -------------------------------------------------------------------------------------


def export_chunks(db: Session, user: User) -> Iterator[str]:
    """Everything about me as JSON, in pieces (bounded memory however long the logs): the account, my memberships,
    my characters as I may read them, my log entries as I may read them (a blind roll of mine: what I asked,
    not the result), and what was addressed to me (`received`: whispers, team talk, pictures shown to chosen
    players) — through the same functions every page uses (visible_sheet, present.entry_json)."""
    yield json.dumps(
        {
            "account": {
                "username": user.username,
                "email": user.email,
                "locale": user.locale,
                "created_at": user.created_at.isoformat(),
            },
            "exported_at": utcnow().isoformat(),
        },
        ensure_ascii=False,
    )[:-1]
    rows = db.execute(
        select(Membership, Campaign)
        .join(Campaign, Campaign.id == Membership.campaign_id)
        .where(Membership.user_id == user.id)
        .order_by(Campaign.id)
    ).all()
    yield ', "memberships": ' + json.dumps(
        [
            {"campaign_id": c.id, "campaign": c.name, "role": m.role, "joined_at": m.joined_at.isoformat()}
            for m, c in rows
        ],
        ensure_ascii=False,
    )
    accesses = {c.id: access(db, user, c.id) for _m, c in rows}
    characters = db.scalars(select(Character).where(Character.owner_id == user.id).order_by(Character.id)).all()
    yield ', "characters": ' + json.dumps(
        [
            {
                "id": ch.id,
                "campaign_id": ch.campaign_id,
                "name": ch.name,
                "system": ch.system,
                "sheet": visible_sheet(accesses[ch.campaign_id], ch),
            }
            for ch in characters
            if ch.campaign_id in accesses
        ],
        ensure_ascii=False,
        default=str,
    )
    yield ', "entries": ['
    first = True
    for campaign_id, acc in accesses.items():
        query = (
            select(LogEntry)
            .where(LogEntry.campaign_id == campaign_id, LogEntry.actor_id == user.id)
            .order_by(LogEntry.seq)
            .execution_options(yield_per=500)
        )
        for entry in db.scalars(query):
            shown = {
                "campaign_id": campaign_id,
                **entry_json(entry, viewer_view(entry, user.id, acc.is_narrator), narrator=acc.is_narrator),
            }
            yield ("" if first else ", ") + json.dumps(shown, ensure_ascii=False, default=str)
            first = False
    # What others addressed to me alone or a few: whispers, my team's talk, pictures shown to chosen players — the
    # entries whose readers (fixed in their bodies) name me, read as a member (a narrator reads every picture
    # shown, but only those shown to them are theirs).
    yield '], "received": ['
    first = True
    for campaign_id, acc in accesses.items():
        query = (
            select(LogEntry)
            .where(
                LogEntry.campaign_id == campaign_id,
                LogEntry.actor_id.is_distinct_from(user.id),
                LogEntry.visibility.in_((WHISPER, TEAM, RECIPIENTS)),
            )
            .order_by(LogEntry.seq)
            .execution_options(yield_per=500)
        )
        for entry in db.scalars(query):
            if viewer_view(entry, user.id, False) != View.FULL:
                continue
            shown = {"campaign_id": campaign_id, **entry_json(entry, View.FULL, narrator=acc.is_narrator)}
            yield ("" if first else ", ") + json.dumps(shown, ensure_ascii=False, default=str)
            first = False
    yield "]}"


# --- leaving ---------------------------------------------------------------------------------------------------


def sole_narrated(db: Session, user: User) -> list[Campaign]:
    """Campaigns this user narrates with no other narrator: handed over or deleted before the account goes."""
    mine = select(Membership.campaign_id).where(Membership.user_id == user.id, Membership.role == "narrator")
    others = select(Membership.campaign_id).where(Membership.role == "narrator", Membership.user_id != user.id)
    return list(
        db.scalars(select(Campaign).where(Campaign.id.in_(mine), Campaign.id.not_in(others)).order_by(Campaign.id))
    )


def delete_account(db: Session, user: User) -> None:
    """The account, its sessions, tokens, devices and memberships go; its characters stay with their campaigns
    (without an owner: the narrators play them); its log entries stay — the chain must still verify — and pages
    show their author as "a former member" (docs/TRUST.md)."""
    blocking = sole_narrated(db, user)
    if blocking:
        raise BadRequest(
            _("First hand over or delete the campaigns you narrate alone: {names}.").format(
                names=", ".join(c.name for c in blocking)
            ),
            field="password",
        )
    db.execute(update(Character).where(Character.owner_id == user.id).values(owner_id=None))
    db.execute(delete(ApiToken).where(ApiToken.user_id == user.id))
    db.delete(user)
    db.commit()
