"""Salted hash commitments: a value is fixed now and shown later, and anyone can check that what is shown is
what was fixed (docs/LOG_FORMAT.md, "Commitments"). Pure; shared by the rule systems that keep a choice
secret until a reveal (the rabbits' scripted volleys) and by the log's verifier (app/rolls/chain.py).

    commitment = hex(SHA-256(ascii(salt) ‖ canonical_json(value)))

The salt (32 random hex characters, kept secret until the reveal) keeps a value with few possibilities
(four actions, three members) from being guessed from its commitment.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

SCHEME = "sha256(salt|canonical_json)"


def canonical_json(value: Any) -> bytes:
    """The same canonical form as the log's bodies (app/rolls/chain.py)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def new_salt() -> str:
    return secrets.token_hex(16)


def commit(salt: str, value: Any) -> str:
    return hashlib.sha256(salt.encode("ascii") + canonical_json(value)).hexdigest()


def opens(commitment: str, salt: object, value: Any) -> bool:
    """Whether `value` with `salt` is what `commitment` fixed (False for anything malformed)."""
    if not isinstance(salt, str) or not isinstance(commitment, str) or not salt.isascii():
        return False
    try:
        return hmac.compare_digest(commit(salt, value), commitment)
    except (TypeError, ValueError):
        return False
