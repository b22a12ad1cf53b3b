"""Offline verifier: `fateboard-verify export.json [--head SEQ:HASH]` (the console script installed with the
package, pyproject.toml [project.scripts]; the same as `python -m app.verify …` in a checkout) checks a
downloaded export.

It checks the chain (every hash recomputed from the entry's readable header and its body hash), every body
the export carries (and that the readable fields equal it), every reveal, and that the log ends at the
export's head, and every opened commitment (a conflict's scripted actions). With `--head` (a head you noted earlier, e.g. from the campaign page) it also checks that the
history up to that entry is the one you saw: a rewritten or truncated log fails. See docs/LOG_FORMAT.md for
what it cannot see (bodies of entries hidden from you).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.rolls.chain import verify_entries


def _head(text: str) -> tuple[int, str]:
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isascii() or not seq.isdigit() or len(digest) != 64:
        raise argparse.ArgumentTypeError("write the head as SEQ:HASH, e.g. 12:3f9a… (64 hex characters)")
    return int(seq), digest.lower()


def main(argv: list[str] | None = None) -> int:
    prog = "fateboard-verify" if Path(sys.argv[0]).stem == "fateboard-verify" else "python -m app.verify"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export", type=Path, help="a file saved with 'Export log' or GET /api/campaigns/{id}/export")
    parser.add_argument("--head", type=_head, default=None, help="SEQ:HASH of a head you noted earlier")
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.export.read_text(encoding="utf-8"))
        entries = data["entries"] if isinstance(data, dict) else data
        head = data.get("head") if isinstance(data, dict) else None
        result = verify_entries(entries, head=head, trusted=args.head)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"cannot read {args.export}: {exc}", file=sys.stderr)
        return 2
    for problem in result.problems:
        print(f"FAIL {problem}")
    if head is None:
        print("note: this export names no head, so a missing tail cannot be detected")
    verdict = "OK" if result.ok else "BROKEN"
    print(
        f"{verdict}: {result.count} entries, head {result.head}, "
        f"{result.bodies_checked} bodies and {result.reveals_checked} reveals checked, "
        f"{result.commitments_checked} commitments opened and checked"
    )
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
