"""E-mail addresses as SMTP carries them (no web stack, no network): used where an address is typed
(app/accounts/recovery.py) and where a mail is sent (app/notify/deliver.py: mail_handler)."""

from __future__ import annotations


def smtp_address(address: str) -> str:
    """The address as SMTP carries it: the domain in IDNA (ASCII, `xn--…`), so any server takes it; a non-ASCII
    local part stays as it is (only a server offering SMTPUTF8 takes that). ValueError: not an address, or a
    domain IDNA cannot encode."""
    local, at, domain = address.strip().rpartition("@")
    if not at or not local or not domain or any(c in address for c in "\r\n<>,;\x00"):
        raise ValueError("not an address")
    try:
        ascii_domain = domain.lower().encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ValueError("the domain cannot be written in IDNA") from exc
    return f"{local}@{ascii_domain}"
