"""What counts as English UI text in a German or Danish page or log line (issue 15), one definition for the
browser pass (tests/browser/test_languages_browser.py) and the table test (tests/test_two_languages_table.py).

An "English word" is a word of the source strings (the .pot's msgids) that no translation in that language uses
(so words both languages share — "Name", "Start" — do not count), outside the names and texts people typed and a
small allow-list of proper nouns (ALLOWED)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from babel.messages.pofile import read_po

from app.i18n import LOCALE_DIR

# Proper nouns and notation that stay as they are in every language.
ALLOWED = {
    "Fateboard",
    "ART",
    "Engine",
    "API",
    "CSV",
    "UTC",
    "Ob",
    "D",
    "d6",
    "d20",
    "d100",
    "HTMX",
    "JSON",
    "Bearer",
    "OpenAPI",
    "SSE",
    "Tecka",
    "Mimi",
    "GitHub",
    "Authorization",
    "fb",
    "OK",
    "xp",
    "CT",
    "PT",
    "FB",
    "IN",
    "PR",
    "PS",
    "GD",
    "GT",
    "SP",
    "AW",
    "EX",
    "ATK",
    "DEF",
    "AGI",
    "ALE",
    "CHA",
    "CRA",
    "CUN",
    "DEX",
    "INT",
    "STA",
    "STR",
    "WIL",
    "Deutsch",
    "Dansk",
    "English",
}
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{2,}")


def words(text: str) -> set[str]:
    return {w.strip("'’-") for w in WORD.findall(text)}


@cache
def _catalog_words(lang: str, _stamp: tuple[float, ...]) -> tuple[frozenset[str], frozenset[str]]:
    with open(LOCALE_DIR / "messages.pot", "rb") as f:
        pot = read_po(f)
    english: set[str] = set()
    for m in pot:
        for text in [m.id] if isinstance(m.id, str) else list(m.id or []):
            english |= words(re.sub(r"%\(\w+\)\w|\{[^}]*\}", " ", text or ""))
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    translated: set[str] = set()
    if po.is_file():
        with open(po, "rb") as f:
            for m in read_po(f):
                for text in [m.string] if isinstance(m.string, str) else list(m.string or []):
                    translated |= words(text or "")
    return frozenset(english), frozenset(translated)


def catalog_words(lang: str) -> tuple[set[str], set[str]]:
    """(words of the English msgids, words the language's translations use)."""
    files = (LOCALE_DIR / "messages.pot", LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po")
    stamp = tuple(p.stat().st_mtime if p.is_file() else 0.0 for p in files)
    english, translated = _catalog_words(lang, stamp)
    return set(english), set(translated)


def english_words(text: str, lang: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words left in `text` for a `lang` reader (sorted), besides ALLOWED and `allowed` (names)."""
    english, translated = catalog_words(lang)
    ok = ALLOWED | set(allowed)
    return sorted(w for w in words(text) if w in english and w not in translated and w not in ok)
