"""Input checks shared by the chapter 4-5 rules: character names.

Not part of the package's public names; the refusals are ArtRuleError, as everywhere in app.systems.art.rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.rules.text import N_

from .levels import ArtRuleError


def unique_names(field: str, names: Iterable[str]) -> tuple[str, ...]:
    """The names as a tuple, refusing any name given twice (names are unique within a call)."""
    listed = tuple(names)
    seen: set[str] = set()
    for name in listed:
        if name in seen:
            raise ArtRuleError(field, N_("{name!r} is listed twice; character names are unique"), name=name)
        seen.add(name)
    return listed
