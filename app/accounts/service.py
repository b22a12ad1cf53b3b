"""Accounts: sign-up, sign-in with a throttle, login sessions, personal API tokens."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.i18n import _, ngettext
from app.accounts.models import ApiToken, LoginSession, SigninFailure, User
from app.errors import BadRequest, NotFound, TooManyRequests
from app.types import utcnow

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
MIN_PASSWORD = 8
TOKEN_PREFIX = "fb_"

def make_password_hasher() -> PasswordHash:
    """argon2id with pwdlib's defaults (64 MiB, 3 passes)."""
    return PasswordHash((Argon2Hasher(),))


password_hasher = make_password_hasher()
# A real hash to compare against when the account does not exist, so timing does not reveal usernames.
_DUMMY_HASH = password_hasher.hash("not-a-real-password")


def username_key(username: str) -> str:
    return username.strip().lower()


def create_user(db: Session, username: str, password: str) -> User:
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise BadRequest(_("Use 3–40 letters, digits, dots, dashes or underscores."), field="username")
    if len(password) < MIN_PASSWORD:
        raise BadRequest(_("Use at least {min_password} characters.").format(min_password=MIN_PASSWORD), field="password")
    if len(password) > 1024:
        raise BadRequest(_("That password is too long (1024 characters at most)."), field="password")
    key = username_key(username)
    if db.scalar(select(User.id).where(User.username_key == key)) is not None:
        raise BadRequest(_("That username is taken."), field="username")
    user = User(username=username, username_key=key, password_hash=password_hasher.hash(password))
    db.add(user)
    db.flush()
    return user


def _check_throttle(db: Session, keys: list[tuple[str, int]], window: int) -> None:
    since = utcnow() - timedelta(seconds=window)
    for key, limit in keys:
        failures = db.scalars(
            select(SigninFailure.failed_at).where(SigninFailure.key == key, SigninFailure.failed_at >= since)
            .order_by(SigninFailure.failed_at)
        ).all()
        if len(failures) >= limit:
            retry = int((failures[-limit] + timedelta(seconds=window) - utcnow()).total_seconds()) + 1
            minutes = max(1, (retry + 59) // 60)
            raise TooManyRequests(
                ngettext("Too many failed sign-ins. Wait {n} minute and try again.",
                         "Too many failed sign-ins. Wait {n} minutes and try again.", minutes).format(n=minutes),
                retry_after=max(1, retry),
            )


def authenticate(db: Session, username: str, password: str, *, client: str, max_failures: int, window: int) -> User:
    """Check a password. Repeated failures for one account (or from one address) raise TooManyRequests."""
    key = username_key(username)[:100]  # the throttle's key column holds 120 characters; no username is longer
    keys = [(f"user:{key}", max_failures), (f"addr:{client}", max_failures * 4)]
    _check_throttle(db, keys, window)
    user = db.scalar(select(User).where(User.username_key == key))
    valid = password_hasher.verify(password, user.password_hash if user else _DUMMY_HASH)
    if user is None or not valid:
        now = utcnow()
        db.add_all([SigninFailure(key=k, failed_at=now) for k, _ in keys])
        db.execute(delete(SigninFailure).where(SigninFailure.failed_at < now - timedelta(seconds=window)))
        raise BadRequest(_("Wrong username or password."), field="password")
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


def user_for_token(db: Session, token: str) -> User | None:
    return db.scalar(select(User).join(ApiToken, ApiToken.user_id == User.id)
                     .where(ApiToken.token_hash == _token_digest(token), ApiToken.revoked_at.is_(None)))


def count_users(db: Session) -> int:
    return db.scalar(select(func.count(User.id))) or 0
