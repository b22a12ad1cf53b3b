"""The hash chain (docs/LOG_FORMAT.md). Pure: used by the server, the /verify route and `python -m app.verify`.

    body_hash = SHA-256(salt ‖ canonical JSON of the body)
    hash      = SHA-256(prev_hash ‖ "\\n" ‖ canonical JSON of the header + body_hash)

The header is everything a page or the API shows of an entry to every member, hidden or not (seq, time,
actor, kind, system, action, character, visibility, target, subject), so changing any displayed field of a
row breaks the chain. The salt keeps a hidden entry's body from being guessed from its hash (a d6 has only
six outcomes); the chain links only hashes, so a player can check it without seeing hidden bodies.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.rules.commitment import opens
from app.rules.text import N_, RuleText

FORMAT = "fateboard-log/2"
GENESIS_HASH = "0" * 64
HIDDEN_FIELDS = ("request", "dice", "outcome", "summary", "note")
# What every member sees of every entry (hidden or not): all of it is in the hash.
HEADER_FIELDS = (
    "seq",
    "created_at",
    "actor",
    "actor_id",
    "character_id",
    "system",
    "action",
    "kind",
    "visibility",
    "target_seq",
    "subject_id",
)


def canonical_json(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def new_salt() -> str:
    return secrets.token_hex(16)


def body_hash(salt: str, body: Mapping[str, Any]) -> str:
    return hashlib.sha256(salt.encode("ascii") + canonical_json(body)).hexdigest()


def entry_hash(prev_hash: str, header: Mapping[str, Any], body_digest: str) -> str:
    """The link: the previous hash, this entry's header (HEADER_FIELDS) and its body's hash."""
    material = {name: header.get(name) for name in HEADER_FIELDS}
    material["body_hash"] = body_digest
    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + canonical_json(material)).hexdigest()


class Problem(RuleText):
    """One failed check: an English template marked N_ and its values (the reader's language where shown)."""

    def __init__(self, template: str, values: dict[str, Any]) -> None:
        self._set_text(template, values)

    def __str__(self) -> str:
        return self.message


@dataclass
class Verification:
    ok: bool = True
    count: int = 0
    head: str = GENESIS_HASH
    bodies_checked: int = 0
    reveals_checked: int = 0
    commitments_checked: int = 0
    problems: list[str] = field(default_factory=list)  # in English (the command line, tests)
    # The same problems, translatable where they are shown (`app.i18n.rule_message(problem)`).
    details: list[Problem] = field(default_factory=list)

    def fail(self, template: str, **values: Any) -> None:
        self.ok = False
        problem = Problem(template, values)
        self.problems.append(problem.message)
        self.details.append(problem)


def verify_entries(
    entries: Iterable[Mapping[str, Any]],
    *,
    head: Mapping[str, Any] | None = None,
    trusted: tuple[int, str] | None = None,
) -> Verification:
    """Check entries in order: seq 1, 2, 3…; each hash links to the previous and recomputes from the entry's
    readable header; every published body matches its body_hash and every readable field equals the body's;
    every reveal matches the body_hash of the entry it reveals. `head` ({seq, hash}, the campaign's head)
    catches a deleted or rolled-back tail; `trusted` (seq, hash noted earlier) catches a rewritten history."""
    result = Verification()
    revealed_hashes: dict[int, str] = {}
    reveals: list[tuple[int, Mapping[str, Any]]] = []
    prev = GENESIS_HASH
    trusted_seen = False
    commitments: dict[str, tuple[int, str]] = {}
    openings: list[tuple[int, Mapping[str, Any]]] = []
    talk = _TalkHistory()
    for entry in entries:
        _check_entry(entry, result, prev)
        talk.check(entry, result)
        seq = entry.get("seq")
        if isinstance(seq, int):
            revealed_hashes[seq] = str(entry.get("body_hash"))
            if trusted is not None and seq == trusted[0]:
                trusted_seen = True
                if entry.get("hash") != trusted[1]:
                    result.fail(
                        N_("entry {seq}: hash differs from the trusted head you noted ({noted}…)"),
                        seq=seq,
                        noted=trusted[1][:12],
                    )
        body = entry.get("body")
        if isinstance(body, Mapping) and body.get("kind") == "reveal":
            reveals.append((seq if isinstance(seq, int) else -1, body))
        if isinstance(body, Mapping):
            _collect_commitments(seq if isinstance(seq, int) else -1, body, commitments, openings, result)
        prev = str(entry.get("hash"))
        result.count += 1
    result.head = prev
    for seq, body in reveals:
        _check_reveal(seq, body, revealed_hashes, result)
    for seq, found in openings:
        _check_opening(seq, found, commitments, result)
    if head is not None:
        _check_head(head, result)
    if trusted is not None and not trusted_seen:
        result.fail(N_("entry {seq} (your trusted head) is missing: the log was cut short"), seq=trusted[0])
    return result


def _check_entry(entry: Mapping[str, Any], result: Verification, prev: str) -> None:
    seq = entry.get("seq")
    expected_seq = result.count + 1
    if seq != expected_seq:
        result.fail(N_("entry {seq}: expected seq {expected} (a gap or a reordering)"), seq=seq, expected=expected_seq)
    if entry.get("prev_hash") != prev:
        result.fail(
            N_("entry {seq}: prev_hash does not match the hash of entry {previous}"), seq=seq, previous=expected_seq - 1
        )
    try:
        recomputed = entry_hash(str(entry.get("prev_hash")), entry, str(entry.get("body_hash")))
    except (TypeError, ValueError, UnicodeEncodeError):
        recomputed = ""
    if recomputed != entry.get("hash"):
        result.fail(N_("entry {seq}: hash does not match its fields (seq, time, actor, kind, visibility, …)"), seq=seq)
    body, salt = entry.get("body"), entry.get("salt")
    if isinstance(body, Mapping) and isinstance(salt, str):
        result.bodies_checked += 1
        if body_hash(salt, body) != entry.get("body_hash"):
            result.fail(N_("entry {seq}: body does not match body_hash"), seq=seq)
        for name in HEADER_FIELDS:  # the ones the body repeats: the readable copy must equal the body's
            if name in body and body.get(name) != entry.get(name):
                result.fail(N_("entry {seq}: '{name}' differs from the hashed body"), seq=seq, name=name)
        for name in HIDDEN_FIELDS:
            if entry.get(name) is not None and entry.get(name) != body.get(name):
                result.fail(N_("entry {seq}: '{name}' differs from the hashed body"), seq=seq, name=name)


class _TalkHistory:
    """Table talk's edits and withdrawals, from the headers every reader has (docs/LOG_FORMAT.md, "Table talk"):
    each points at an earlier message with the same visibility; only its author edits it; a message is withdrawn
    once, and never edited after that."""

    def __init__(self) -> None:
        self.messages: dict[int, tuple[Any, Any]] = {}  # seq -> (author id, visibility)
        self.withdrawn: set[int] = set()

    def check(self, entry: Mapping[str, Any], result: Verification) -> None:
        kind, seq = entry.get("kind"), entry.get("seq")
        if kind == "message" and isinstance(seq, int):
            self.messages[seq] = (entry.get("actor_id"), entry.get("visibility"))
        if kind not in ("edit", "retract"):
            return
        target = entry.get("target_seq")
        message = self.messages.get(target) if isinstance(target, int) else None
        if message is None or not isinstance(target, int):
            result.fail(
                N_("entry {seq}: {kind} of entry {target}, which is no earlier message"),
                seq=seq,
                kind=kind,
                target=target,
            )
            return
        if entry.get("visibility") != message[1]:
            result.fail(N_("entry {seq}: its visibility differs from message {target}'s"), seq=seq, target=target)
        if target in self.withdrawn:
            result.fail(N_("entry {seq}: message {target} was already withdrawn"), seq=seq, target=target)
        if kind == "edit" and entry.get("actor_id") != message[0]:
            result.fail(N_("entry {seq}: edits message {target}, which someone else wrote"), seq=seq, target=target)
        if kind == "retract":
            self.withdrawn.add(target)


def _check_reveal(seq: int, body: Mapping[str, Any], hashes: Mapping[int, str], result: Verification) -> None:
    revealed = body.get("revealed") or {}
    target = revealed.get("seq", -1)
    if target not in hashes:
        result.fail(N_("entry {seq}: reveals entry {target}, which is not in the export"), seq=seq, target=target)
        return
    if revealed.get("salt") is None:
        return  # withheld from this reader (a hidden action's held sheet changes): nothing to check it with
    result.reveals_checked += 1
    if body_hash(str(revealed.get("salt", "")), revealed.get("body") or {}) != hashes[target]:
        result.fail(
            N_("entry {seq}: the revealed body does not match entry {target}'s body_hash"), seq=seq, target=target
        )


def _check_head(head: Mapping[str, Any], result: Verification) -> None:
    seq, digest = head.get("seq"), head.get("hash")
    if seq != result.count:
        result.fail(
            N_(
                "the campaign's head is entry {seq} but the log has {count} entries "
                "(entries missing at the end, or added)"
            ),
            seq=seq,
            count=result.count,
        )
    elif digest != result.head:
        result.fail(
            N_("the campaign's head hash {digest}… does not match the last entry's hash"), digest=str(digest)[:12]
        )


def _collect_commitments(
    seq: int,
    body: Mapping[str, Any],
    commitments: dict[str, tuple[int, str]],
    openings: list[tuple[int, Mapping[str, Any]]],
    result: Verification,
) -> None:
    """Commitments (docs/LOG_FORMAT.md, "Commitments"): `outcome.commitments` fixes a value under a key, once;
    `outcome.openings` publishes it later with its salt."""
    outcome = body.get("outcome")
    if not isinstance(outcome, Mapping):
        return
    for item in outcome.get("commitments") or ():
        if not isinstance(item, Mapping):
            continue
        key = str(item.get("key"))
        if key in commitments:
            result.fail(
                N_("entry {seq}: commits {key} again (first committed in entry {first})"),
                seq=seq,
                key=key,
                first=commitments[key][0],
            )
            continue
        commitments[key] = (seq, str(item.get("hash")))
    for item in outcome.get("openings") or ():
        if isinstance(item, Mapping):
            openings.append((seq, item))


def _check_opening(
    seq: int, found: Mapping[str, Any], commitments: Mapping[str, tuple[int, str]], result: Verification
) -> None:
    key = str(found.get("key"))
    if key not in commitments:
        result.fail(N_("entry {seq}: opens {key}, which no earlier entry committed"), seq=seq, key=key)
        return
    committed_seq, digest = commitments[key]
    value = found.get("value")
    if committed_seq > seq or found.get("seq") != committed_seq:
        result.fail(
            N_("entry {seq}: opens {key} against entry {against}, but entry {committed} committed it"),
            seq=seq,
            key=key,
            against=found.get("seq"),
            committed=committed_seq,
        )
        return
    result.commitments_checked += 1
    if not isinstance(value, Mapping) or value.get("key") != key or not opens(digest, found.get("salt"), value):
        result.fail(
            N_("entry {seq}: the opening of {key} does not open the commitment logged in entry {committed}"),
            seq=seq,
            key=key,
            committed=committed_seq,
        )
