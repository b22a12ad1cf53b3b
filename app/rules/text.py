"""Rule errors a person reads, kept translatable without the rules importing the app (app/rules stays pure).

A rule error carries its English template (marked with `N_`, so `make messages` extracts it) and the values
for it; `message` is the English text. Where the error is shown, `app.i18n.rule_message(exc)` translates the
template into the reader's language and fills it in:

    raise RabbitRuleError("helpers", N_("An Afraid rabbit cannot help (ruling 3)."))
    raise CatRuleError(field, N_("{name} must be between {low} and {high}, not {value}."), name=field, ...)

A value that is itself a word of ours (not what a person typed) is wrapped in `Word`, marked N_ too, and is
translated with the template: `check_choice(kind, TIEBREAK, "kind", Word(N_("kind of roll")))`.
"""

from __future__ import annotations

from typing import Any


def N_(message: str) -> str:
    """Marks a string for extraction; it is translated where it is shown."""
    return message


class Word(str):
    """A rule error's value that is an English word or phrase of ours (marked N_): `rule_message` translates it."""

    __slots__ = ()


class RuleText:
    """Mixed into a rule error: `template` (English, `{name}` placeholders), `values`, and `message`."""

    template: str
    values: dict[str, Any]
    message: str

    def _set_text(self, template: str, values: dict[str, Any]) -> str:
        self.template, self.values = template, values
        try:
            self.message = template.format(**values) if values else template
        except (KeyError, IndexError, ValueError):
            self.message = template
        return self.message
