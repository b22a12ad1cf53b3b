"""Offline verifier: `python -m app.verify export.json` checks a downloaded export's chain and revealed bodies."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.rolls.chain import verify_entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.verify", description=__doc__)
    parser.add_argument("export", type=Path, help="a file saved from GET /api/campaigns/{id}/export")
    args = parser.parse_args(argv)
    try:
        data = json.loads(args.export.read_text(encoding="utf-8"))
        entries = data["entries"] if isinstance(data, dict) else data
        result = verify_entries(entries)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"cannot read {args.export}: {exc}", file=sys.stderr)
        return 2
    for problem in result.problems:
        print(f"FAIL {problem}")
    verdict = "OK" if result.ok else "BROKEN"
    print(
        f"{verdict}: {result.count} entries, head {result.head}, "
        f"{result.bodies_checked} bodies and {result.reveals_checked} reveals checked"
    )
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
