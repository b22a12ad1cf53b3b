"""The password rule (NIST SP 800-63B 5.1.1.2) and the gate that bounds argon2's memory.

The rule: 8 to 1024 characters, no composition rules (no "one digit, one symbol"), and not a common
password or one that contains the username. The gate: argon2id takes 64 MiB per hash, so at most
`concurrency` hashes run at once; a bounded number of requests wait, for a bounded time, and the rest get
HTTP 503 with Retry-After instead of the server's memory growing with the flood (docs/LIMITS.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

from app.errors import BadRequest, ServiceBusy
from app.i18n import _

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
COMMON_FILE = Path(__file__).with_name("common_passwords.txt")
# What people add to a common word to pass a composition rule: "monkey123!".
_DECORATION = "0123456789!@#$%^&*()-_=+.,;:?~ "

T = TypeVar("T")


@cache
def common_passwords() -> frozenset[str]:
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def is_common(password: str) -> bool:
    lowered = password.lower()
    common = common_passwords()
    return lowered in common or lowered.rstrip(_DECORATION) in common


def check_new_password(password: str, username: str) -> None:
    """Raise BadRequest (field "password") with a reason a person can act on."""
    if len(password) < MIN_PASSWORD:
        raise BadRequest(
            _("Use at least {min_password} characters.").format(min_password=MIN_PASSWORD), field="password"
        )
    if len(password) > MAX_PASSWORD:
        raise BadRequest(_("That password is too long (1024 characters at most)."), field="password")
    name = username.strip().lower()
    if name and name in password.lower():
        raise BadRequest(_("Your password must not contain your username."), field="password")
    if is_common(password):
        raise BadRequest(
            _(
                "That password is on a list of common passwords that attackers try first. "
                "A few unrelated words make a strong one."
            ),
            field="password",
        )


class Argon2Gate:
    """At most `concurrency` password hashes or checks at once, process-wide; at most `max_waiting` more
    wait, each for `max_wait` seconds at most. The waiting is bounded too because each waiter holds one
    of the server's worker threads."""

    def __init__(self, concurrency: int, *, max_waiting: int, max_wait: float) -> None:
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._waiting = 0
        self.max_waiting = max_waiting
        self.max_wait = max_wait

    def run(self, work: Callable[[], T]) -> T:
        if not self._slots.acquire(blocking=False):
            with self._lock:
                if self._waiting >= self.max_waiting:
                    raise self._busy()
                self._waiting += 1
            try:
                got = self._slots.acquire(timeout=self.max_wait)
            finally:
                with self._lock:
                    self._waiting -= 1
            if not got:
                raise self._busy()
        try:
            return work()
        finally:
            self._slots.release()

    @staticmethod
    def _busy() -> ServiceBusy:
        return ServiceBusy(_("The server is busy checking passwords. Try again in a few seconds."), retry_after=2)
