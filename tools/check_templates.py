"""The template part of `make lint`: no line of a template under templates/ longer than 160 characters.

A long line is where a template stops being readable: break a tag between its attributes, and text or Jinja tags
where Jinja's whitespace control (`{%-`, `-%}`) keeps the rendered page the same. Standard library only, no
network; prints each offending line as path:line: length and exits 1 when there is one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

MAX_LINE = 160
SUFFIXES = (".html", ".js", ".txt", ".xml")


def long_lines(root: Path, limit: int = MAX_LINE) -> Iterator[tuple[Path, int, int]]:
    """(path, line number, length) of every line over `limit` characters in the templates under `root`."""
    for path in sorted(root.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if len(line) > limit:
                yield path, number, len(line)


def template_roots(repo: Path) -> list[Path]:
    """templates/ and every templates folder inside app/ (a rule system's own, app/systems/<x>/templates)."""
    return [repo / "templates", *sorted(p for p in (repo / "app").rglob("templates") if p.is_dir())]


def main(argv: list[str]) -> int:
    roots = [Path(arg) for arg in argv] or template_roots(Path(__file__).resolve().parent.parent)
    found = [hit for root in roots for hit in long_lines(root)]
    for path, number, length in found:
        print(f"{path}:{number}: {length} characters (at most {MAX_LINE})")
    if found:
        print(f"{len(found)} template line(s) over {MAX_LINE} characters", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
