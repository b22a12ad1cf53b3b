"""Salted commitments (app/rules/commitment.py; docs/LOG_FORMAT.md, "Commitments")."""

from __future__ import annotations

import hashlib
import json

from app.rules import commitment


def test_a_commitment_is_sha256_of_salt_and_canonical_json() -> None:
    value = {"key": "k", "member": 3, "action": "feint"}
    salt = "ab" * 16
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert commitment.commit(salt, value) == hashlib.sha256(salt.encode() + canonical).hexdigest()


def test_only_the_same_value_and_salt_open_it() -> None:
    salt = commitment.new_salt()
    assert len(salt) == 32 and salt != commitment.new_salt()
    fixed = commitment.commit(salt, {"action": "attack"})
    assert commitment.opens(fixed, salt, {"action": "attack"})
    assert not commitment.opens(fixed, salt, {"action": "defend"})
    assert not commitment.opens(fixed, commitment.new_salt(), {"action": "attack"})
    assert not commitment.opens(fixed, None, {"action": "attack"})
    assert not commitment.opens(fixed, "ü" * 32, {"action": "attack"})
    assert not commitment.opens(None, salt, {"action": "attack"})  # type: ignore[arg-type]


def test_the_salt_hides_a_value_with_few_possibilities() -> None:
    """Four actions: without the salt, the commitment could be matched against all four; with it, two
    commitments of the same choice differ."""
    value = {"action": "attack"}
    assert commitment.commit(commitment.new_salt(), value) != commitment.commit(commitment.new_salt(), value)
