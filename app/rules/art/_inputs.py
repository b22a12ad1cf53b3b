"""Input checks shared by the chapter 4-5 rules: rolled results and character names.

Not part of the package's public names; the refusals are ArtRuleError, as everywhere in app.rules.art.
"""

from __future__ import annotations

from collections.abc import Iterable

from .levels import ArtRuleError, Level


def rolled(field: str, level: Level) -> Level:
    """A rolled result: a column of the ART, Catastrophic..Awesome. Extreme is never rolled (ch. 3,
    "Using the ART"); only a foe's rating can be Extreme."""
    level = Level(level)
    if level is Level.EX:
        raise ArtRuleError(field, "a roll lands Catastrophic to Awesome; only a foe's rating is Extreme")
    return level


def unique_names(field: str, names: Iterable[str]) -> tuple[str, ...]:
    """The names as a tuple, refusing any name given twice (names are unique within a call)."""
    listed = tuple(names)
    seen: set[str] = set()
    for name in listed:
        if name in seen:
            raise ArtRuleError(field, f"{name!r} is listed twice; character names are unique")
        seen.add(name)
    return listed
