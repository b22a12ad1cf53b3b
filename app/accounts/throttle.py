"""The sign-in and sign-up throttle. Counters live in the database (table auth_counters), so every process of a
deployment shares them, on SQLite and PostgreSQL alike. The rules (docs/LIMITS.md):

- pair, one account from one address: `max_failures` failed sign-ins per window, then 429 for that pair.
  Exact under any concurrency: an attempt takes its slot with one atomic upsert *before* the password is
  checked, and gives it back when the password was right (or the check never ran).
- address, all accounts: 4x that (password spraying from one place).
- account, all addresses: 20x that (guessing from many places; NIST SP 800-63B asks for at most 100).
  These two never refuse a *known* address — one this account signed in from, or signed up at, in the last
  90 days — so other people's failures alone never lock the owner out of the places they use.
- sign-up: `signups_per_hour` new accounts per address per hour.
- password reset: `max_failures` per account and address, 4x that per address; e-mail address change (each sends
  a confirmation mail): `max_failures` per account and per address mailed to.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NoReturn, cast

from sqlalchemy import Table, case, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.models import AuthCounter
from app.errors import TooManyRequests
from app.i18n import ngettext
from app.types import utcnow

KNOWN_FOR = timedelta(days=90)
ADDRESS_FACTOR = 4
ACCOUNT_FACTOR = 20
# The declarative stubs type __table__ as a FromClause; a mapped class's __table__ is its Table.
_TABLE = cast(Table, AuthCounter.__table__)


@dataclass(frozen=True)
class Count:
    key: str
    count: int
    expires_at: datetime


@dataclass(frozen=True)
class SigninKeys:
    pair: str
    account: str
    address: str
    known: str

    @classmethod
    def of(cls, account: str, address: str) -> SigninKeys:
        return cls(
            pair=f"signin:pair:{account}|{address}",
            account=f"signin:account:{account}",
            address=f"signin:address:{address}",
            known=f"signin:known:{account}|{address}",
        )


def _bump(db: Session, key: str, now: datetime, window: timedelta, *, extend: bool = False) -> Count:
    """count + 1 (or 1 in a new window), atomically, returning the new count: the row lock serialises
    concurrent bumps on PostgreSQL, the write lock on SQLite. `extend` restarts the window every time."""
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(_TABLE).values(key=key, count=1, expires_at=now + window)
    expired = _TABLE.c.expires_at <= now
    upsert = stmt.on_conflict_do_update(
        index_elements=[_TABLE.c.key],
        set_={
            "count": case((expired, 1), else_=_TABLE.c.count + 1),
            "expires_at": stmt.excluded.expires_at
            if extend
            else case((expired, stmt.excluded.expires_at), else_=_TABLE.c.expires_at),
        },
    ).returning(_TABLE.c.count, _TABLE.c.expires_at)
    count, expires_at = db.execute(upsert).one()
    return Count(key, count, expires_at)


def _give_back(db: Session, keys: Iterable[str]) -> None:
    db.execute(update(_TABLE).where(_TABLE.c.key.in_(list(keys)), _TABLE.c.count > 0).values(count=_TABLE.c.count - 1))


class Throttle:
    def __init__(
        self, factory: sessionmaker[Session], *, max_failures: int, window_seconds: int, signups_per_hour: int
    ) -> None:
        self._factory = factory
        self.max_failures = max_failures
        self.window = timedelta(seconds=window_seconds)
        self.signups_per_hour = signups_per_hour

    # Sign-in --------------------------------------------------------------------------------------------

    def begin_signin(self, account: str, address: str) -> None:
        """Take a slot for one password check, or raise TooManyRequests. Every slot taken is a failure
        unless signin_succeeded or cancel_signin gives it back."""
        keys = SigninKeys.of(account, address)
        now = utcnow()
        # Its own short transaction, committed before the (slow) password check, so others count it.
        with self._factory.begin() as db:
            pair = _bump(db, keys.pair, now, self.window)
            account_count = _bump(db, keys.account, now, self.window)
            address_count = _bump(db, keys.address, now, self.window)
            if pair.count > self.max_failures:
                self._refuse(
                    pair,
                    now,
                    lambda n: ngettext(
                        "Too many failed sign-ins. Wait {n} minute and try again.",
                        "Too many failed sign-ins. Wait {n} minutes and try again.",
                        n,
                    ),
                )
            known = db.scalar(select(_TABLE.c.count).where(_TABLE.c.key == keys.known, _TABLE.c.expires_at > now))
            if not known:
                if account_count.count > self.max_failures * ACCOUNT_FACTOR:
                    self._refuse(
                        account_count,
                        now,
                        lambda n: ngettext(
                            "Too many failed sign-ins for this account. Wait {n} minute, or sign in from a network "
                            "you have used before.",
                            "Too many failed sign-ins for this account. Wait {n} minutes, or sign in from a network "
                            "you have used before.",
                            n,
                        ),
                    )
                if address_count.count > self.max_failures * ADDRESS_FACTOR:
                    self._refuse(
                        address_count,
                        now,
                        lambda n: ngettext(
                            "Too many failed sign-ins from your network. Wait {n} minute and try again.",
                            "Too many failed sign-ins from your network. Wait {n} minutes and try again.",
                            n,
                        ),
                    )
            if pair.count == 1:
                db.execute(delete(_TABLE).where(_TABLE.c.expires_at < now))  # now and then: forget old windows

    def signin_succeeded(self, account: str, address: str) -> None:
        """The right password: not a failure; this pair starts afresh, and the address becomes known."""
        keys = SigninKeys.of(account, address)
        now = utcnow()
        with self._factory.begin() as db:
            db.execute(delete(_TABLE).where(_TABLE.c.key == keys.pair))
            _give_back(db, (keys.account, keys.address))
            self._remember(db, keys, now)

    def cancel_signin(self, account: str, address: str) -> None:
        """The password was never checked (the server was busy): the slot was no failure."""
        keys = SigninKeys.of(account, address)
        with self._factory.begin() as db:
            _give_back(db, (keys.pair, keys.account, keys.address))

    def remember(self, account: str, address: str) -> None:
        with self._factory.begin() as db:
            self._remember(db, SigninKeys.of(account, address), utcnow())

    @staticmethod
    def _remember(db: Session, keys: SigninKeys, now: datetime) -> None:
        _bump(db, keys.known, now, KNOWN_FOR, extend=True)

    # Password reset -------------------------------------------------------------------------------------

    def begin_reset(self, account: str, address: str) -> None:
        """Count one "forgot my password" request (each counts, found or not, so the answer reveals nothing):
        as many per account and address as failed sign-ins, 4x that per address over all accounts."""
        now = utcnow()
        with self._factory.begin() as db:
            pair = _bump(db, f"reset:pair:{account}|{address}", now, self.window)
            per_address = _bump(db, f"reset:address:{address}", now, self.window)
            for count, limit in ((pair, self.max_failures), (per_address, self.max_failures * ADDRESS_FACTOR)):
                if count.count > limit:
                    self._refuse(
                        count,
                        now,
                        lambda n: ngettext(
                            "Too many reset requests. Wait {n} minute and try again.",
                            "Too many reset requests. Wait {n} minutes and try again.",
                            n,
                        ),
                    )

    # E-mail address change ------------------------------------------------------------------------------

    def begin_email_change(self, account: str, email: str) -> None:
        """Count one confirmation mail (each accepted request sends one): as many per account and per address
        it goes to (over all accounts) as failed sign-ins per window, so no one can flood a mailbox with them."""
        now = utcnow()
        with self._factory.begin() as db:
            per_account = _bump(db, f"email:account:{account}", now, self.window)
            per_address = _bump(db, f"email:to:{email.strip().lower()}", now, self.window)
            for count in (per_account, per_address):
                if count.count > self.max_failures:
                    self._refuse(
                        count,
                        now,
                        lambda n: ngettext(
                            "Too many confirmation e-mails. Wait {n} minute and try again.",
                            "Too many confirmation e-mails. Wait {n} minutes and try again.",
                            n,
                        ),
                    )

    # Sign-up --------------------------------------------------------------------------------------------

    def begin_signup(self, address: str) -> None:
        """Take one of the address's sign-ups for this hour, or raise TooManyRequests."""
        now = utcnow()
        with self._factory.begin() as db:
            count = _bump(db, f"signup:address:{address}", now, timedelta(hours=1))
            if count.count > self.signups_per_hour:
                self._refuse(
                    count,
                    now,
                    lambda n: ngettext(
                        "Too many new accounts from your network. Wait {n} minute and try again.",
                        "Too many new accounts from your network. Wait {n} minutes and try again.",
                        n,
                    ),
                )

    def cancel_signup(self, address: str) -> None:
        with self._factory.begin() as db:
            _give_back(db, (f"signup:address:{address}",))

    @staticmethod
    def _refuse(count: Count, now: datetime, message: Callable[[int], str]) -> NoReturn:
        """Raised inside the transaction, so it rolls back: a refused attempt counts nowhere."""
        retry = max(1, math.ceil((count.expires_at - now).total_seconds()))
        minutes = max(1, (retry + 59) // 60)
        raise TooManyRequests(message(minutes).format(n=minutes), retry_after=retry)
