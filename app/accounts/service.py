"""Accounts: sign-up, sign-in with a throttle (throttle.py), login sessions, personal API tokens."""

from __future__ import annotations

import hashlib
import re
import secrets

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.models import ApiToken, LoginSession, User
from app.accounts.passwords import MAX_PASSWORD, Argon2Gate, check_new_password
from app.accounts.throttle import Throttle
from app.errors import BadRequest, NotFound
from app.i18n import _
from app.types import utcnow

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
TOKEN_PREFIX = "fb_"


def make_password_hasher() -> PasswordHash:
    """argon2id with pwdlib's defaults (64 MiB, 3 passes)."""
    return PasswordHash((Argon2Hasher(),))


password_hasher = make_password_hasher()
# A real hash to compare against when the account does not exist, so timing does not reveal usernames.
_DUMMY_HASH = password_hasher.hash("not-a-real-password")


def username_key(username: str) -> str:
    return username.strip().lower()


def check_new_account(db: Session, username: str, password: str) -> str:
    """The username (stripped) if it is well-formed and free and the password follows the rule; else
    BadRequest naming the field."""
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise BadRequest(_("Use 3–40 letters, digits, dots, dashes or underscores."), field="username")
    check_new_password(password, username)
    if db.scalar(select(User.id).where(User.username_key == username_key(username))) is not None:
        raise BadRequest(_("That username is taken."), field="username")
    return username


def _add_user(db: Session, username: str, password_hash: str) -> User:
    user = User(username=username, username_key=username_key(username), password_hash=password_hash)
    db.add(user)
    try:
        db.flush()
    except IntegrityError as exc:  # taken meanwhile by a concurrent sign-up
        db.rollback()
        raise BadRequest(_("That username is taken."), field="username") from exc
    return user


def create_user(db: Session, username: str, password: str) -> User:
    """A user, flushed (for the demo and service-level code: no throttle, no gate)."""
    username = check_new_account(db, username, password)
    return _add_user(db, username, password_hasher.hash(password))


def register(db: Session, throttle: Throttle, gate: Argon2Gate, username: str, password: str, *, address: str) -> User:
    """A sign-up from the web or the API: checked, then counted against the address's hourly sign-ups (so
    a typo costs nothing), then hashed through the gate. Committed, and the address is known to the account
    (app/accounts/throttle.py)."""
    username = check_new_account(db, username, password)
    throttle.begin_signup(address)
    try:
        user = _add_user(db, username, gate.run(lambda: password_hasher.hash(password)))
        db.commit()
    except Exception:
        db.rollback()
        throttle.cancel_signup(address)
        raise
    throttle.remember(user.username_key, address)  # after the commit: SQLite has one writer at a time
    return user


def authenticate(
    db: Session, throttle: Throttle, gate: Argon2Gate, username: str, password: str, *, address: str
) -> User:
    """Check a password under the throttle (app/accounts/throttle.py): TooManyRequests before the check
    when this account, address or pair has failed too often; ServiceBusy when the gate is full."""
    key = username_key(username)
    if not USERNAME_RE.match(key) or len(password) > MAX_PASSWORD:
        raise BadRequest(_("Wrong username or password."), field="password")  # no such account can exist
    throttle.begin_signin(key, address)
    try:
        user = db.scalar(select(User).where(User.username_key == key))
        digest = user.password_hash if user else _DUMMY_HASH  # unknown names cost the same time
        valid = gate.run(lambda: password_hasher.verify(password, digest))
    except Exception:
        throttle.cancel_signin(key, address)
        raise
    if user is None or not valid:
        raise BadRequest(_("Wrong username or password."), field="password")
    throttle.signin_succeeded(key, address)
    return user


def start_login_session(db: Session, user: User) -> str:
    sid = secrets.token_urlsafe(32)
    db.add(LoginSession(id=sid, user_id=user.id))
    return sid


def end_login_session(db: Session, sid: str) -> None:
    db.execute(delete(LoginSession).where(LoginSession.id == sid))


def user_for_session(db: Session, sid: str | None) -> User | None:
    if not sid:
        return None
    return db.scalar(select(User).join(LoginSession, LoginSession.user_id == User.id).where(LoginSession.id == sid))


def _token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


token_digest = _token_digest  # how a live stream names the token it was opened with (re-checked per entry)


def create_token(db: Session, user: User, name: str) -> tuple[ApiToken, str]:
    name = name.strip() or "API token"
    if len(name) > 80:
        raise BadRequest(_("Keep the token's name under 80 characters."), field="name")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(user_id=user.id, name=name, token_hash=_token_digest(token), prefix=token[:10])
    db.add(row)
    db.flush()
    return row, token


def revoke_token(db: Session, user: User, token_id: int) -> None:
    row = db.get(ApiToken, token_id)
    if row is None or row.user_id != user.id:
        raise NotFound(_("No such token."))
    if row.revoked_at is None:
        row.revoked_at = utcnow()


def list_tokens(db: Session, user: User) -> list[ApiToken]:
    return list(db.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id.desc())))


# Built once (every API request runs it): SQLAlchemy then reuses its compiled form and cache key.
_USER_FOR_TOKEN = (
    select(User)
    .join(ApiToken, ApiToken.user_id == User.id)
    .where(ApiToken.token_hash == bindparam("digest"), ApiToken.revoked_at.is_(None))
)


def user_for_token(db: Session, token: str) -> User | None:
    return db.scalar(_USER_FOR_TOKEN, {"digest": _token_digest(token)})


def count_users(db: Session) -> int:
    return db.scalar(select(func.count(User.id))) or 0
