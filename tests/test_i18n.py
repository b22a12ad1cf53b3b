"""Every user-facing string is translated, and log lines are read in the reader's language.

The catalog tests fail until the catalogs are complete; they name what is missing:
- the committed .pot matches the code (extraction run into a temporary file, msgids compared);
- every msgid has a non-empty, non-fuzzy `de` and `da` translation;
- placeholders (`{name}`, `%(name)s`) are the same in each msgid and its translation;
- the committed .mo files match their .po files.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from app import i18n
from app.i18n import LOCALE_DIR, join, msg, render

ROOT = Path(__file__).resolve().parent.parent
POT = LOCALE_DIR / "messages.pot"
LANGS = [code for code in i18n.SUPPORTED if code != i18n.DEFAULT]


def _read(path: Path) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f)


def _ids(catalog: Catalog) -> set[object]:
    return {m.id for m in catalog if m.id}


def _key(message_id: object) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]  # type: ignore[index]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    out = tmp_path_factory.mktemp("pot") / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-o", str(out), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )  # babel.cfg names the keywords (msg, N_, msgn)
    return _read(out)


def test_the_pot_matches_the_code(extracted: Catalog) -> None:
    committed = _ids(_read(POT))
    fresh = _ids(extracted)
    new = sorted(map(_key, fresh - committed))
    gone = sorted(map(_key, committed - fresh))
    assert not new and not gone, (
        f"run `make messages messages-update`: new in the code {new[:40]} "
        f"({len(new)}), no longer in the code {gone[:40]} ({len(gone)})"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_every_msgid_has_a_translation(lang: str, extracted: Catalog) -> None:
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    assert po.is_file(), f"no catalog for {lang}: run `make messages messages-update`"
    catalog = _read(po)
    translated = {
        m.id
        for m in catalog
        if m.id and not m.fuzzy and (all(m.string) if isinstance(m.string, tuple | list) else m.string)
    }
    missing = sorted(_key(m) for m in _ids(extracted) - translated)
    assert not missing, f"{len(missing)} msgids without a {lang} translation, e.g. {missing[:60]}"


_PLACEHOLDER = re.compile(r"%\((\w+)\)[-+ #0]*\d*(?:\.\d+)?[sdifgr%]|\{(\w*)(?:![rsa])?(?::[^{}]*)?\}")


def placeholders(text: str) -> list[str]:
    return sorted(a or b for a, b in _PLACEHOLDER.findall(text))


def test_placeholders_are_found() -> None:
    assert placeholders("%(cat)s %(value)+d {name} {n:+d} {value!r}") == ["cat", "n", "name", "value", "value"]


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_match(lang: str) -> None:
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if not po.is_file():
        pytest.fail(f"no catalog for {lang}")
    wrong = []
    for m in _read(po):
        if not m.id or not m.string or m.fuzzy:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        expected = set(placeholders(ids[-1])) | set(placeholders(ids[0]))
        for s in strings:
            if (
                s
                and set(placeholders(s)) - expected
                or (s and not isinstance(m.id, tuple) and set(placeholders(s)) != expected)
            ):
                wrong.append((ids[0], s))
    assert not wrong, f"{lang}: placeholders differ in {len(wrong)} translations, e.g. {wrong[:10]}"


def _mo_messages(path: Path) -> dict[object, object]:
    with open(path, "rb") as f:
        catalog = read_mo(f)
    return {
        (tuple(m.id) if isinstance(m.id, list | tuple) else m.id): (
            tuple(m.string) if isinstance(m.string, list | tuple) else m.string
        )
        for m in catalog
        if m.id and m.string
    }


@pytest.mark.parametrize("lang", LANGS)
def test_the_committed_mo_matches_the_po(lang: str, tmp_path: Path) -> None:
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    mo = po.with_suffix(".mo")
    assert po.is_file() and mo.is_file(), f"run `make messages-compile` for {lang} and commit messages.mo"
    fresh = tmp_path / "messages.mo"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "compile", "-i", str(po), "-o", str(fresh), "-l", lang],
        check=True,
        capture_output=True,
    )
    assert _mo_messages(mo) == _mo_messages(fresh), f"{lang}: messages.mo is older than messages.po"


# --- the mechanism (passes whatever the catalogs hold) ----------------------------------------------------------


def test_a_message_is_stored_neutral_and_rendered_per_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    class German:
        def gettext(self, message: str) -> str:
            return {
                "{name} tests {trait}": "{name} prüft {trait}",
                "Legs": "Beine",
                "%(cat)s rolls %(face)s": "%(cat)s würfelt %(face)s",
            }.get(message, message)

    monkeypatch.setattr(i18n, "translations", lambda loc: German() if loc == "de" else i18n.NullTranslations())
    line = msg("{name} tests {trait}", name="Tom", trait=msg("Legs"))
    assert line == {"msg": "{name} tests {trait}", "args": {"name": "Tom", "trait": {"msg": "Legs"}}}
    assert render(line, "en") == "Tom tests Legs" and render(line, "de") == "Tom prüft Beine"
    both = join([line, msg("%(cat)s rolls %(face)s", cat="Mia", face=3)], "; ")
    assert render(both, "de") == "Tom prüft Beine; Mia würfelt 3"
    assert render("rolled 2d6 [4, 5] = 9", "de") == "rolled 2d6 [4, 5] = 9"  # an old entry: shown as it is
    assert render(None) == ""


def test_a_broken_translation_falls_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def gettext(self, message: str) -> str:
            return "{nom} teste"

    monkeypatch.setattr(i18n, "translations", lambda loc: Broken())
    assert render(msg("{name} tests", name="Tom"), "de") == "Tom tests"


def test_numbers_percentages_and_times_in_the_readers_format() -> None:
    assert i18n.percent(0.028, "en") == "2.8%" and i18n.percent(0.72, "en") == "72.0%"
    assert i18n.percent(0.028, "de") == "2,8\xa0%" and i18n.percent(0.028, "da") == "2,8\xa0%"
    assert i18n.number(1234.5, "de") == "1.234,5" and i18n.number(1234.5, "en") == "1,234.5"
    moment = datetime(2026, 1, 2, 13, 5)
    assert i18n.time_of(moment, "de") == "13:05" and i18n.time_of(moment, "da") == "13.05"
    assert i18n.datetime_of(moment, "de") == "02.01.2026 13:05 UTC"
    assert render(msg("{chance} chance", chance=0.5), "de") == "0,5 chance"  # floats get the decimal sign


def test_a_float_argument_keeps_its_format_spec_in_percent_style() -> None:
    assert render(msg("%(n)d left", n=3), "en") == "3 left"


def test_the_language_names_are_in_their_own_language() -> None:
    assert i18n.LANGUAGES == {"en": "English", "de": "Deutsch", "da": "Dansk"}


def test_accept_language_picks_ours_or_nothing() -> None:
    assert i18n.accepted("da-DK,da;q=0.9,en;q=0.5") == "da"
    assert i18n.accepted("fr-FR") is None and i18n.accepted(None) is None
    assert i18n.negotiate("fr, de;q=0.5") == "de"
