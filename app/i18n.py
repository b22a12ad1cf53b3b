"""gettext for every user-facing string. English is the source language; catalogs live in app/locale/.

The locale is chosen per request (the user's setting, else the browser's Accept-Language) and kept in a
context variable, so templates and Python code (`_()`) translate without passing it around.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel.support import NullTranslations, Translations

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
    return default if default in SUPPORTED else DEFAULT
