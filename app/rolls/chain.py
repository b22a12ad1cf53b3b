"""The hash chain (docs/LOG_FORMAT.md). Pure: used by the server, the /verify route and `python -m app.verify`.

    body_hash = SHA-256(salt ‖ canonical JSON of the body)
    hash      = SHA-256(prev_hash ‖ "\\n" ‖ seq ‖ "\\n" ‖ visibility ‖ "\\n" ‖ body_hash)

The salt keeps a hidden entry's body from being guessed from its hash (a d6 has only six outcomes);
the chain links only hashes, so a player can check it without seeing hidden bodies.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

GENESIS_HASH = "0" * 64
HIDDEN_FIELDS = ("request", "dice", "outcome", "summary", "note")


def canonical_json(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def new_salt() -> str:
    return secrets.token_hex(16)


def body_hash(salt: str, body: Mapping[str, Any]) -> str:
    return hashlib.sha256(salt.encode("ascii") + canonical_json(body)).hexdigest()


def entry_hash(prev_hash: str, seq: int, visibility: str, body_digest: str) -> str:
    material = f"{prev_hash}\n{seq}\n{visibility}\n{body_digest}".encode("ascii")
    return hashlib.sha256(material).hexdigest()


@dataclass
class Verification:
    ok: bool = True
    count: int = 0
    head: str = GENESIS_HASH
    bodies_checked: int = 0
    reveals_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.ok = False
        self.problems.append(message)


def verify_entries(entries: Iterable[Mapping[str, Any]]) -> Verification:
    """Check an export: seq 1, 2, 3…; each hash links to the previous; every published body matches its
    body_hash; every reveal matches the body_hash of the entry it reveals."""
    result = Verification()
    by_seq: dict[int, Mapping[str, Any]] = {}
    prev = GENESIS_HASH
    for entry in entries:
        seq = entry["seq"]
        expected_seq = result.count + 1
        if seq != expected_seq:
            result.fail(f"entry {seq}: expected seq {expected_seq} (a gap or a reordering)")
        if entry["prev_hash"] != prev:
            result.fail(f"entry {seq}: prev_hash does not match the hash of entry {seq - 1}")
        recomputed = entry_hash(entry["prev_hash"], seq, entry["visibility"], entry["body_hash"])
        if recomputed != entry["hash"]:
            result.fail(f"entry {seq}: hash does not match its fields")
        body, salt = entry.get("body"), entry.get("salt")
        if body is not None and salt is not None:
            result.bodies_checked += 1
            if body_hash(salt, body) != entry["body_hash"]:
                result.fail(f"entry {seq}: body does not match body_hash")
        by_seq[seq] = entry
        prev = entry["hash"]
        result.count += 1
    result.head = prev
    for entry in by_seq.values():
        _check_reveal(entry, by_seq, result)
    return result


def _check_reveal(entry: Mapping[str, Any], by_seq: Mapping[int, Mapping[str, Any]], result: Verification) -> None:
    body = entry.get("body")
    if not body or body.get("kind") != "reveal":
        return
    revealed = body.get("revealed") or {}
    target = by_seq.get(revealed.get("seq", -1))
    if target is None:
        result.fail(f"entry {entry['seq']}: reveals entry {revealed.get('seq')}, which is not in the export")
        return
    result.reveals_checked += 1
    if body_hash(revealed.get("salt", ""), revealed.get("body", {})) != target["body_hash"]:
        result.fail(f"entry {entry['seq']}: the revealed body does not match entry {target['seq']}'s body_hash")
