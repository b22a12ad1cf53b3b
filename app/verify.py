"""Offline verifier: `fateboard-verify export.json [--head SEQ:HASH] [--media DIR]` (the console script installed
with the package, pyproject.toml [project.scripts]; the same as `python -m app.verify …` in a checkout) checks a
downloaded export.

It checks the chain (every hash recomputed from the entry's readable header and its body hash), every body the
export carries (and that the readable fields equal it), every reveal, and that the log ends at the export's head,
and every opened commitment (a conflict's scripted actions). With `--head` (a head you noted earlier, e.g. from the
campaign page) it also checks that the history up to that entry is the one you saw: a rewritten or truncated log
fails. See docs/LOG_FORMAT.md for what it cannot see (bodies of entries hidden from you).

With `--media DIR` it also checks the pictures saved beside the export: a file named after a handout's SHA-256
(any extension) or as the server names its download (`handout-<id>.png`, `.jpg`) must hash to the SHA-256 that
the log's handout and scene entries name — so the log proves which picture was shown.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.rolls.chain import verify_entries


def _head(text: str) -> tuple[int, str]:
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isascii() or not seq.isdigit() or len(digest) != 64:
        raise argparse.ArgumentTypeError("write the head as SEQ:HASH, e.g. 12:3f9a… (64 hex characters)")
    return int(seq), digest.lower()


def shown_pictures(entries: Iterable[dict[str, Any]]) -> dict[int, tuple[str, str, int]]:
    """handout id -> (SHA-256, title, the first entry's seq) from the handout and scene entries one may read."""
    found: dict[int, tuple[str, str, int]] = {}
    for entry in entries:
        if entry.get("kind") not in ("handout", "scene"):
            continue
        outcome = (entry.get("body") or {}).get("outcome") or entry.get("outcome") or {}
        hid, sha = outcome.get("handout_id"), outcome.get("sha256")
        if isinstance(hid, int) and isinstance(sha, str) and hid not in found:
            found[hid] = (sha.lower(), str(outcome.get("title", "")), int(entry.get("seq", 0)))
    return found


def check_media(entries: Iterable[dict[str, Any]], directory: Path) -> tuple[int, list[str]]:
    """(files that match, problems): every picture file in `directory` named for a handout of the log."""
    pictures = shown_pictures(entries)
    by_sha = {sha: hid for hid, (sha, _title, _seq) in pictures.items()}
    matched, problems = 0, []
    for path in sorted(p for p in directory.iterdir() if p.is_file()):
        stem = path.name.split(".", 1)[0].lower()
        hid = by_sha.get(stem)
        if hid is None and stem.startswith("handout-") and stem[8:].isdigit():
            hid = int(stem[8:]) if int(stem[8:]) in pictures else None
        if hid is None:
            continue
        sha, title, seq = pictures[hid]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest == sha:
            matched += 1
        else:
            problems.append(
                f"{path.name}: handout {hid} (\u201c{title}\u201d, entry #{seq}) has SHA-256 {sha} in the "
                f"log, but this file's bytes hash to {digest}"
            )
    return matched, problems


def main(argv: list[str] | None = None) -> int:
    prog = "fateboard-verify" if Path(sys.argv[0]).stem == "fateboard-verify" else "python -m app.verify"
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("export", type=Path, help="a file saved with 'Export log' or GET /api/campaigns/{id}/export")
    parser.add_argument("--head", type=_head, default=None, help="SEQ:HASH of a head you noted earlier")
    parser.add_argument(
        "--media", type=Path, default=None, help="a folder of handout pictures to check against the SHA-256 in the log"
    )
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.export.read_text(encoding="utf-8"))
        entries = data["entries"] if isinstance(data, dict) else data
        head = data.get("head") if isinstance(data, dict) else None
        result = verify_entries(entries, head=head, trusted=args.head)
        matched, media_problems = check_media(entries, args.media) if args.media else (0, [])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(
            f"cannot read {args.media if isinstance(exc, OSError) and args.media else args.export}: {exc}",
            file=sys.stderr,
        )
        return 2
    for problem in [*result.problems, *media_problems]:
        print(f"FAIL {problem}")
    if head is None:
        print("note: this export names no head, so a missing tail cannot be detected")
    if args.media:
        print(f"{matched} handout file(s) match the SHA-256 in the log, {len(media_problems)} do not")
    verdict = "OK" if result.ok and not media_problems else "BROKEN"
    print(
        f"{verdict}: {result.count} entries, head {result.head}, "
        f"{result.bodies_checked} bodies and {result.reveals_checked} reveals checked, "
        f"{result.commitments_checked} commitments opened and checked"
    )
    return 0 if result.ok and not media_problems else 1


if __name__ == "__main__":
    sys.exit(main())
