"""gettext for every user-facing string. English is the source language; catalogs live in app/locale/.

The locale is chosen per request (the user's setting, else the browser's Accept-Language) and kept in a
context variable, so templates and Python code (`_()`) translate without passing it around.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date, format_time
from babel.numbers import format_decimal, format_percent
from babel.support import NullTranslations, Translations

from app.rules.text import RuleText, Word

LOCALE_DIR = Path(__file__).parent / "locale"
# The languages with a catalog, each named in itself (the account and new-campaign forms list them).
LANGUAGES = {"en": "English", "de": "Deutsch", "da": "Dansk"}
SUPPORTED = tuple(LANGUAGES)
DEFAULT = "en"  # the source language (no catalog), and the fallback unless Settings.default_locale says otherwise

_current: ContextVar[str] = ContextVar("locale", default=DEFAULT)


@cache
def translations(locale: str) -> NullTranslations:
    if locale == DEFAULT:
        return NullTranslations()
    return Translations.load(str(LOCALE_DIR), [locale], domain="messages")


def set_locale(locale: str) -> None:
    _current.set(locale if locale in SUPPORTED else DEFAULT)


def get_locale() -> str:
    return _current.get()


def gettext(message: str) -> str:
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(_current.get()).ngettext(singular, plural, n)


_ = gettext


def accepted(accept_language: str | None) -> str | None:
    """The language of ours the browser asks for most, or None."""
    found = negotiate(accept_language, default="")
    return found if found in SUPPORTED and found else None


def negotiate(accept_language: str | None, preferred: str | None = None, default: str = DEFAULT) -> str:
    """The user's own choice first, then the best match from Accept-Language, then `default`
    (Settings.default_locale; English unless configured)."""
    if preferred is not None and preferred in SUPPORTED:
        return preferred
    weighted: list[tuple[float, str]] = []
    for part in (accept_language or "").split(","):
        lang, _sep, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            continue
        weighted.append((weight, lang.split("-")[0].lower()))
    for _weight, lang in sorted(weighted, key=lambda w: -w[0]):
        if lang in SUPPORTED:
            return lang
    return default if default in SUPPORTED or default == "" else DEFAULT


def N_(message: str) -> str:
    """Marks a string for extraction without translating it here (a table of trait names, an outcome word):
    it is translated where it is shown — in a log line through `msg(...)`, elsewhere with `_()`."""
    return message


# --- log lines in the reader's language -----------------------------------------------------------------
#
# A log entry stores its summary language-neutral: the English msgid and its arguments, e.g.
#     {"msg": "%(cat)s tests %(trait)s", "args": {"cat": "Tom", "trait": {"msg": "Legs"}}}
# An argument is a plain value (a name, a number, what a player typed: shown as it is), a nested message
# (a translatable word or phrase: translated too) or a join of parts. `render` turns it into text in one
# language when someone reads it, so a German and a Danish player read the same entry in their own language,
# and the hashed body never depends on who was acting. Old entries hold a plain string: shown as it is.

Text = dict[str, Any]
Summary = str | Text


def msg(message: str, /, **args: Any) -> Text:
    """A message to be translated when it is read: `msg("{name} tests {trait}", name=name, trait=msg(N_("Legs")))`.
    `message` uses `{name}` or `%(name)s` placeholders (not both); `make messages` extracts it (keyword msg)."""
    text: Text = {"msg": message}
    if args:
        text["args"] = {key: _neutral(value) for key, value in args.items()}
    return text


def msgn(singular: str, plural: str, n: int, /, **args: Any) -> Text:
    """A message with a count, read in the reader's plural form (their language's ngettext):
    `msgn("{n} even", "{n} evens", evens)`, stored as `{"msg": singular, "plural": plural, "n": evens, "args":
    {"n": evens, …}}`. `n` is an argument too unless `args` names it; a sentence with several counts nests one
    `msgn` per count. `make messages` extracts both forms (keyword `msgn:1,2` in babel.cfg)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"msgn needs a whole number as its count, not {n!r}")
    text: Text = {"msg": singular, "plural": plural, "n": n}
    text["args"] = {key: _neutral(value) for key, value in {"n": n, **args}.items()}
    return text


# Log lines are stored for good, so a message whose wording changes (a count that got real plural forms) keeps
# its old msgid readable: `retire(old_msgid, build)` names how an entry stored with it reads now, `build` making
# the new message from the stored arguments. Systems register theirs next to the message that replaced it.
_RETIRED: dict[str, Callable[[Mapping[str, Any]], Text]] = {}


# A system's reader of the lines its entries kept before they were language-neutral (body, locale → the line or None):
# registered by the system (e.g. old duels' German copy), so this module reads no key of a system's outcome.
_OLD_LINES: list[Callable[[Mapping[str, Any], str], str | None]] = []


def old_lines(read: Callable[[Mapping[str, Any], str], str | None]) -> None:
    _OLD_LINES.append(read)


def retire(old: str, build: Callable[[Mapping[str, Any]], Text]) -> None:
    _RETIRED[old] = build


def _retired(value: Mapping[str, Any]) -> Text | None:
    build = _RETIRED.get(value["msg"]) if "plural" not in value else None
    if build is None:
        return None
    try:
        newer = build(value.get("args") or {})
    except (KeyError, TypeError, ValueError):
        return None  # an argument missing or of another kind: the old text, as it was
    return newer if newer != value else None  # the same again (a message retired into itself): read it


def join(parts: Iterable[Any], sep: Any = ", ") -> Text:
    """Parts (plain values or messages) joined by `sep` (itself plain or a message) when read."""
    return {"join": [_neutral(p) for p in parts], "sep": _neutral(sep)}


def _neutral(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping) and ("msg" in value or "join" in value):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return join(value, ", ")
    return str(value)


def is_text(value: object) -> bool:
    return isinstance(value, Mapping) and ("msg" in value or "join" in value)


def render(value: Any, locale: str | None = None) -> str:
    """A summary (a plain string, or msg/join) as text in `locale` (default: the request's)."""
    loc = locale if locale in SUPPORTED else get_locale()
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return number(value, loc)
    if isinstance(value, int):
        return str(value)  # a list's part (dice faces): plain, so "1234, 5" stays unambiguous
    if isinstance(value, Mapping):
        if "join" in value:
            parts = value.get("join") or []
            return render(value.get("sep", ", "), loc).join(render(p, loc) for p in parts)
        if isinstance(value.get("msg"), str):
            if (newer := _retired(value)) is not None:
                return render(newer, loc)
            plural, n = value.get("plural"), value.get("n")
            if isinstance(plural, str) and isinstance(n, int) and not isinstance(n, bool):
                return _format(value["msg"], value.get("args") or {}, loc, (plural, n))
            return _format(value["msg"], value.get("args") or {}, loc)
    return str(value)


# Arguments that name an entry, a session or a position: shown as they are ("#1234"), never grouped.
_NOT_GROUPED = frozenset(
    {
        "seq",
        "target",
        "head",
        "first",
        "against",
        "committed",
        "expected",
        "previous",
        "number",
        "session",
        "band",
        "square",
        "row",
        "year",
    }
)


class _Grouped(int):
    """A whole number in a log line: grouped in the reader's format where it is printed plainly (`{n}`,
    `%(n)s`: 12345 → "12,345" en, "12.345" de/da); a format spec (`{n:+d}`, `%(n)d`) keeps the plain digits."""

    loc: str

    def __format__(self, spec: str) -> str:
        return number(int(self), self.loc, 0) if not spec else int(self).__format__(spec)

    def __str__(self) -> str:
        return number(int(self), self.loc, 0)


def _format(message: str, args: Mapping[str, Any], loc: str, plural: tuple[str, int] | None = None) -> str:
    """`message` in `loc` with its arguments; with `plural` (the plural msgid, the count) the reader's plural
    form of it (English: the singular for 1, else the plural)."""
    values = (
        {key: _grouped(value, loc) if key not in _NOT_GROUPED else _arg(value, loc) for key, value in args.items()}
        if isinstance(args, Mapping)
        else {}
    )
    if plural is None:
        templates = (translations(loc).gettext(message), message)
    else:
        other, n = plural
        templates = (translations(loc).ngettext(message, other, n), message if n == 1 else other)
    for template in templates:
        try:
            if "%(" in message:
                return template % _one_stop(template, values)
            if values or "{" in message:
                return template.format(**_one_stop(template, values))
            return template
        except (KeyError, ValueError, IndexError, TypeError, AttributeError):
            continue  # a broken translation: the English text rather than an error page
    return message


def _one_stop(template: str, values: dict[str, Any]) -> dict[str, Any]:
    """A sentence that ends on a value itself ending with a full stop (what a person typed: "We found the
    route.", a rule's sentence) keeps one stop, not "route..": the value's own is dropped there."""

    def stops(key: str) -> bool:
        return any(mark in template for mark in (f"{{{key}}}.", f"%({key})s."))

    return {
        key: value[:-1]
        if isinstance(value, str) and value.endswith(".") and not value.endswith("..") and stops(key)
        else value
        for key, value in values.items()
    }


def _grouped(value: Any, loc: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1000:
        grouped = _Grouped(value)
        grouped.loc = loc
        return grouped
    return _arg(value, loc)


def _arg(value: Any, loc: str) -> Any:
    """Numbers stay numbers for `%(n)d` and `{n:+d}`; floats get the reader's decimal sign."""
    if isinstance(value, bool) or value is None:
        return render(value, loc)
    if isinstance(value, int):
        return value
    return render(value, loc)


# --- numbers, percentages, dates in the reader's format (Babel) ----------------------------------------------


def number(value: float | int, locale: str | None = None, digits: int = 1) -> str:
    """1234.5 → "1,234.5" (en), "1.234,5" (de, da); at most `digits` decimals."""
    pattern = "#,##0" + ("." + "#" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=locale or get_locale())


def percent(chance: float, locale: str | None = None, digits: int = 1) -> str:
    """A chance 0..1 → "2.8%" (en), "2,8 %" (de), "2,8 %" (da): Babel's percent pattern per language."""
    loc = locale or get_locale()
    pattern = Locale.parse(loc).percent_formats[None].pattern  # "#,##0%" (en), "#,##0 %" (de, da)
    if digits:
        pattern = pattern.replace("0%", "0." + "0" * digits + "%").replace("0\xa0%", "0." + "0" * digits + "\xa0%")
    return format_percent(chance, format=pattern, locale=loc)


def time_of(dt: datetime | None, locale: str | None = None) -> str:
    """A log line's time (hours and minutes, UTC), in the reader's format."""
    if dt is None:
        return ""
    return format_time(_utc(dt), format="short", tzinfo=UTC, locale=locale or get_locale())


def datetime_of(dt: datetime | None, locale: str | None = None) -> str:
    """A date and time (UTC), in the reader's format, with "UTC" after it."""
    if dt is None:
        return ""
    loc = locale or get_locale()
    return f"{format_date(_utc(dt), format='medium', locale=loc)} {time_of(dt, loc)} UTC"


def date_of(dt: datetime | date | None, locale: str | None = None) -> str:
    if dt is None:
        return ""
    return format_date(dt, format="medium", locale=locale or get_locale())


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def log_line(body: Mapping[str, Any] | None, locale: str | None = None) -> str:
    """A log entry's summary in `locale` (default: the reader's, i.e. the request's). The body keeps it
    language-neutral (`msg`); entries written before that hold an English string, or a copy per language a system
    reads back itself (`old_lines`)."""
    if not body:
        return ""
    loc = locale if locale in SUPPORTED else get_locale()
    for read in _OLD_LINES:
        found = read(body, loc)
        if found:
            return found
    return render(body.get("summary"), loc)


_SESSION = N_("Session %(n)s")
_SESSION_WORDS = ("Session", "Sitzung", "Spilgang")  # "Session %(n)s" in each of our languages


def session_own_title(number: int, title: str | None) -> str:
    """A session's title without a "Session 3" of its own in front ("Session 3: Alley" → "Alley"): the app
    numbers the sessions already, so it is never said twice."""
    text = (title or "").strip()
    for name in _SESSION_WORDS:
        head = f"{name} {number}".casefold()
        if text.casefold().startswith(head) and not text[len(head) : len(head) + 1].isdigit():
            return text[len(head) :].lstrip(" :.-–—·").strip()
    return text


def session_title(number: int, title: str | None = None, locale: str | None = None) -> str:
    """ "Session 3: Alley" in the reader's language, never "Session 3: Session 3: Alley"."""
    loc = locale if locale in SUPPORTED else get_locale()
    word = translations(loc).gettext(_SESSION) % {"n": number}
    own = session_own_title(number, title)
    return f"{word}: {own}" if own else word


def rule_message(exc: BaseException | RuleText) -> str:
    """A rule error (app/rules/text.py: an English template marked N_, and its values) in the reader's language,
    values wrapped in `app.rules.text.Word` translated too; any other error's message as it is."""
    template, values = getattr(exc, "template", None), getattr(exc, "values", None)
    if isinstance(template, str):
        try:
            words = {key: gettext(value) if isinstance(value, Word) else value for key, value in (values or {}).items()}
            return gettext(template).format(**words)
        except (KeyError, IndexError, ValueError, AttributeError):
            pass
    message = getattr(exc, "message", None)
    return message if isinstance(message, str) else str(exc)


def sentence(text: str) -> str:
    """A rule's lower-case phrase as a sentence: capitalised, with a full stop."""
    return (text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")) if text else text
