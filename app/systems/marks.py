"""What a log line may say about a roll, as the systems declare it (issue 38): the marks a die or a result carries,
each with its words, and a system's total and details. The core (app/rolls/faces.py, templates/rolls/entry.html,
rolls/_marks.html) renders what is declared and reads no key of a system's outcome.

A face, as a system's `die_marks` hands it back: {face, sides, marks: [mark…], values?: {mark: value}, label?, was?}.
`marks` mark the die (its class `die-<mark>`, its title, its screen-reader words); `values` are marks with a number
(ART's kicker), shown as a badge beside the die. A result's flags (`result_marks`): [{mark, value?}].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.i18n import N_, Summary


@dataclass(frozen=True)
class Mark:
    """One mark: its words (an English msgid marked N_, translated where shown; `%(k)s` stands for a value's
    number), whether it shows as a badge beside the die, and whether a die marked so flags the result too (a
    critical on any die is the roll's critical)."""

    label: str
    badge: bool = False
    flag: bool = False


# The marks every system may use: the dice notation's (app/rules/notation: dropped, exploded, counted as a success or
# a failure, rerolled) and the default die marks' (base.critical_marks: critical, a natural 1). A system adds its own
# (RuleSystem.marks); the order here, then the system's, is the order a result's flags are shown in.
CORE_MARKS: Mapping[str, Mark] = {
    "critical": Mark(N_("critical"), badge=True, flag=True),
    "fumble": Mark(N_("a natural 1"), flag=True),
    "dropped": Mark(N_("dropped")),
    "exploded": Mark(N_("exploded, rolled again")),
    "success": Mark(N_("counts")),
    "failure": Mark(N_("counts against")),
    "rerolled": Mark(N_("rerolled")),
}

# The result's total as the log line shows it (e.g. ART's level in words), or None: no total line.
ResultTotal = Callable[[Mapping[str, Any]], Summary | None]
# The helpers and modifiers a roll counted, in words (e.g. a Rabbits pool's breakdown): the entry's outcome → lines.
ResultDetails = Callable[[Mapping[str, Any]], list[str]]


def no_total(outcome: Mapping[str, Any]) -> Summary | None:
    return None


def no_details(outcome: Mapping[str, Any]) -> list[str]:
    return []
