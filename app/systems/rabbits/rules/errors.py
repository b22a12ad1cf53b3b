"""The Rabbits game's domain errors, and the argument checks every module of the package shares."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from app.rules.text import N_, RuleText, Word

# A roll budget, so a typo ("4000 help dice") is a clear error instead of a slow request.
MAX_POOL = 100
# Fate rerolls every new 6 again; honest dice stop long before this, broken dice never would.
FATE_REROLL_LIMIT = 100


class RabbitRuleError(RuleText, ValueError):
    """A request the Rabbits rules do not allow; `field` names the input at fault."""

    def __init__(self, field: str, message: str, **values: Any) -> None:
        super().__init__(self._set_text(message, values))
        self.field = field


class FateRerollLimitError(RuntimeError):
    """Fate kept rolling 6s past the limit: the dice are broken (an honest d6 never gets this far)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Fate rolled more than {limit} extra dice in a row of 6s; the dice look broken.")
        self.limit = limit


def check_count(value: object, field: str, low: int = 0, high: int | None = None) -> int:
    """A whole number (not a bool) in low..high, or a RabbitRuleError naming `field`."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise RabbitRuleError(field, N_("{name} must be a whole number, not {value!r}."), name=field, value=value)
    if value < low or (high is not None and value > high):
        if high is None:
            raise RabbitRuleError(
                field, N_("{name} must be at least {low}, not {value}."), name=field, low=low, value=value
            )
        raise RabbitRuleError(
            field,
            N_("{name} must be between {low} and {high}, not {value}."),
            name=field,
            low=low,
            high=high,
            value=value,
        )
    return value


def check_choice(value: object, choices: Collection[str], field: str, what: str) -> str:
    """`value` lower-cased and stripped if it is one of `choices`, else a RabbitRuleError naming `field`;
    `what` (the kind of thing, e.g. "kind of roll") is marked N_ by the caller and translated where shown."""
    key = value.strip().lower() if isinstance(value, str) else None
    if key is None or key not in choices:
        raise RabbitRuleError(
            field,
            N_("Unknown {what} {value!r}; choose one of: {choices}."),
            what=Word(what),
            value=value,
            choices=", ".join(choices),
        )
    return key
