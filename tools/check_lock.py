"""Does uv.lock still lock what pyproject.toml asks for? Offline and deterministic (`make lint`; docs/DEVELOPING.md).

uv records the project's own requirements in the lock (`[package.metadata] requires-dist`, `provides-extras`). This
compares them with pyproject.toml's `dependencies` and `optional-dependencies` and names every difference, so an edit
without `make lock` fails the gate with a sentence that says what changed. (`uv lock --check --offline` runs after
it and is the authority; on a machine whose uv cache lacks a changed package it can only say the cache is missing
something — this check says which requirement moved.) Exit 0 when they agree, 1 otherwise."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _key(name: str, extras: list[str], specifier: str, marker: str) -> str:
    extra = f"[{','.join(sorted(extras))}]" if extras else ""
    spec = ",".join(sorted(s for s in specifier.split(",") if s))
    return f"{canonicalize_name(name)}{extra}{spec}" + (f" ; {marker}" if marker else "")


def wanted(pyproject: dict) -> tuple[set[str], set[str]]:
    project = pyproject["project"]
    keys = set()
    groups = {None: project.get("dependencies", [])} | dict(project.get("optional-dependencies", {}))
    for extra, requirements in groups.items():
        for text in requirements:
            req = Requirement(text)
            marker = f"extra == '{extra}'" if extra else ""
            keys.add(_key(req.name, list(req.extras), str(req.specifier), marker))
    return keys, set(project.get("optional-dependencies", {}))


def locked(lock: dict, name: str) -> tuple[set[str], set[str]]:
    package = next(p for p in lock["package"] if p["name"] == name)
    metadata = package.get("metadata", {})
    keys = {
        _key(r["name"], r.get("extras", []), r.get("specifier", ""), r.get("marker", ""))
        for r in metadata.get("requires-dist", [])
    }
    return keys, set(metadata.get("provides-extras", []))


def differences(root: Path = ROOT) -> list[str]:
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    lock = tomllib.loads((root / "uv.lock").read_text())
    want, want_extras = wanted(pyproject)
    have, have_extras = locked(lock, pyproject["project"]["name"])
    found = [f"pyproject.toml asks for {k}, uv.lock does not lock it" for k in sorted(want - have)]
    found += [f"uv.lock locks {k}, pyproject.toml no longer asks for it" for k in sorted(have - want)]
    if want_extras != have_extras:
        found.append(f"extras differ: pyproject.toml {sorted(want_extras)}, uv.lock {sorted(have_extras)}")
    return found


def main() -> int:
    found = differences()
    for line in found:
        print(line, file=sys.stderr)
    if found:
        print("uv.lock is out of date: run `make lock`, then `make test`, and commit uv.lock", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
