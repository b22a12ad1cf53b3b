"""Counts read in real plural forms (issue 21, point 11): a log line stores a plural msgid and its count
(`i18n.msgn`) and each reader gets their language's form; the catalogs hold no "scar(s)"-style pseudo-plural and
no doubled full stop; entries stored before a count got its forms still read correctly."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from starlette.testclient import TestClient
from utils.dice import scripted
from utils.tables import Table

from app import i18n
from app.i18n import LOCALE_DIR, msg, msgn, render

LANGS = ("en", "de", "da")
# A letter, then a bracketed ending: "scar(s)", "Narbe(n)", "uge(r)", "eine(n)", "batch(es)", "Schritt(en)";
# "%(n)s" has no letter before its bracket.
PSEUDO_PLURAL = re.compile(r"[^\W\d_]\((?:s|es|e|n|en|er|r|ne|ene|erne)\)")
DOUBLED_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")


def _catalogs() -> list[tuple[str, Catalog]]:
    found = [("pot", LOCALE_DIR / "messages.pot")]
    found += [(lang, LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po") for lang in i18n.SUPPORTED if lang != "en"]
    out = []
    for name, path in found:
        with open(path, "rb") as f:
            out.append((name, read_po(f)))
    return out


def _texts(catalog: Catalog) -> list[str]:
    texts: list[str] = []
    for m in [*catalog, *catalog.obsolete.values()]:
        for part in (m.id, m.string):
            texts += [part] if isinstance(part, str) else [p for p in (part or ()) if p]
    return texts


def test_the_patterns_find_what_they_should() -> None:
    for bad in ("3 scar(s) to place", "1 even(s)", "Narbe(n)", "uge(r)", "batch(es)", "Schritt(en)", "route.."):
        assert PSEUDO_PLURAL.search(bad) or DOUBLED_STOP.search(bad), bad
    for good in ("%(n)s phases", "Round %(n)s", "wait…", "and so on...", "d%", "(%(n)s left)"):
        assert not PSEUDO_PLURAL.search(good) and not DOUBLED_STOP.search(good), good


@pytest.mark.parametrize("name", ["pot", "de", "da"])
def test_no_pseudo_plural_and_no_doubled_stop_in_the_catalogs(name: str) -> None:
    catalog = dict(_catalogs())[name]
    bad = sorted({t for t in _texts(catalog) if PSEUDO_PLURAL.search(t) or DOUBLED_STOP.search(t)})
    assert bad == [], f"{name}: give the count real plural forms (msgn / ngettext / trans count=…): {bad[:10]}"


def test_babel_cfg_extracts_counted_log_lines_with_both_forms() -> None:
    """`msgn(singular, plural, n)` is a keyword in babel.cfg: the .pot holds both forms as one plural entry."""
    assert "msgn:1,2" in (Path(__file__).resolve().parent.parent / "babel.cfg").read_text(encoding="utf-8")
    pot = dict(_catalogs())["pot"]
    assert pot.get("{n} scar").id == ("{n} scar", "{n} scars")
    assert pot.get("{name} keeps the roll ({n} success)").id[1] == "{name} keeps the roll ({n} successes)"
    for lang, catalog in _catalogs()[1:]:
        entry = catalog.get("{n} phase ({time})")
        assert isinstance(entry.string, tuple) and all(entry.string), lang


def test_a_counted_message_is_stored_with_its_count() -> None:
    line = msgn("{name} keeps the roll ({n} success)", "{name} keeps the roll ({n} successes)", 2, name="Hazel")
    assert line == {
        "msg": "{name} keeps the roll ({n} success)",
        "plural": "{name} keeps the roll ({n} successes)",
        "n": 2,
        "args": {"n": 2, "name": "Hazel"},
    }
    with pytest.raises(TypeError):
        msgn("{n} scar", "{n} scars", True)


# Each line for one and for two, in each language (the committed catalogs).
CASES: list[tuple[Any, Any, dict[str, tuple[str, str]]]] = [
    (
        lambda n: msgn("{name} keeps the roll ({n} success)", "{name} keeps the roll ({n} successes)", n, name="Hazel"),
        None,
        {
            "en": ("Hazel keeps the roll (1 success)", "Hazel keeps the roll (2 successes)"),
            "de": ("Hazel behält den Wurf (1 Erfolg)", "Hazel behält den Wurf (2 Erfolge)"),
            "da": ("Hazel beholder slaget (1 succes)", "Hazel beholder slaget (2 succeser)"),
        },
    ),
    (
        lambda n: msgn(", {n} scar to place", ", {n} scars to place", n),
        None,
        {
            "en": (", 1 scar to place", ", 2 scars to place"),
            "de": (", 1 Narbe zu verteilen", ", 2 Narben zu verteilen"),
            "da": (", 1 ar at placere", ", 2 ar at placere"),
        },
    ),
    (
        lambda n: msgn("{n} phase ({time})", "{n} phases ({time})", n, time=msgn("{n} minute", "{n} minutes", 5 * n)),
        None,
        {
            "en": ("1 phase (5 minutes)", "2 phases (10 minutes)"),
            "de": ("1 Phase (5 Minuten)", "2 Phasen (10 Minuten)"),
            "da": ("1 fase (5 minutter)", "2 faser (10 minutter)"),
        },
    ),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("lang", LANGS)
def test_a_counted_line_reads_in_the_readers_plural_form(case: int, lang: str) -> None:
    build, _unused, expected = CASES[case]
    assert (render(build(1), lang), render(build(2), lang)) == expected[lang]


@pytest.mark.parametrize("lang", LANGS)
def test_an_entry_stored_before_the_plural_forms_reads_in_them(lang: str) -> None:
    """Log bodies are kept for good: an old entry's "(n successes)" msgid reads with the new forms."""
    import app.systems  # noqa: F401  (the systems register the msgids they retired)

    old = {"msg": "{name} keeps the roll ({n} successes)", "args": {"name": "Hazel", "n": 1}}
    new = msgn("{name} keeps the roll ({n} success)", "{name} keeps the roll ({n} successes)", 1, name="Hazel")
    assert render(old, lang) == render(new, lang)
    fight = {
        "msg": "{a} ({a_weapon}, {a_evens} even(s)) vs {b} ({b_weapon}, {b_evens} even(s)): {result}; {a} takes "
        "{a_scars} scar(s), {b} takes {b_scars}",
        "args": {
            "a": "Tom",
            "a_weapon": {"msg": "Claws"},
            "a_evens": 2,
            "b": "Mia",
            "b_weapon": {"msg": "Fangs"},
            "b_evens": 1,
            "result": {"msg": "{name} wins", "args": {"name": "Tom"}},
            "a_scars": 1,
            "b_scars": 2,
        },
    }
    assert (
        render(fight, lang)
        == {
            "en": "Tom (Claws, 2 evens) vs Mia (Fangs, 1 even): Tom wins; Tom takes 1 scar, Mia takes 2 scars",
            "de": "Tom (Krallen, 2 gerade) gegen Mia (Zähne, 1 gerade): Tom gewinnt; "
            "Tom bekommt 1 Narbe, Mia bekommt 2 Narben",
            "da": "Tom (Kløer, 2 lige) mod Mia (Hugtænder, 1 lige): Tom vinder; Tom får 1 ar, Mia får 2 ar",
        }[lang]
    )


def test_a_typed_sentence_keeps_one_full_stop() -> None:
    """ "route..": a sentence ending on what a person typed ("No safe route.") does not add a second stop."""
    line = msg(
        "The narrator called the conflict off: {reason}. Nobody wins and no compromise is owed.",
        reason="No safe route.",
    )
    assert (
        render(line, "en") == "The narrator called the conflict off: No safe route. Nobody wins and no "
        "compromise is owed."
    )
    for lang in ("de", "da"):
        assert not DOUBLED_STOP.search(render(line, lang))
    assert render(msg("{a}.", a="wait..."), "en") == "wait...."  # an ellipsis is not a full stop


@pytest.mark.parametrize(
    "faces,en,de,da",
    [
        ([5, 1], "(1 success)", "(1 Erfolg)", "(1 succes)"),
        ([5, 6], "(2 successes)", "(2 Erfolge)", "(2 succeser)"),
    ],
)
def test_a_roll_counting_successes_reads_in_each_language(
    client: TestClient, faces: list[int], en: str, de: str, da: str
) -> None:
    """Through the service and the API: the stored summary carries the count, each reader their plural form."""
    t = Table(client)
    with scripted(faces):
        r = t.roll(t.player, "2d6>=4", character_id=t.pia_char)
    assert r.status_code == 201, r.text
    seq = r.json()["seq"]
    for lang, expected in (("en", en), ("de", de), ("da", da)):
        got = client.get(f"/api/campaigns/{t.id}/log", headers={**t.other, "Accept-Language": lang}).json()["entries"]
        entry = next(e for e in got if e["seq"] == seq)
        assert expected in entry["text"], (lang, entry["text"])
        assert "(s)" not in entry["text"]


@pytest.mark.parametrize(
    "faces,en,de,da",
    [
        (
            [2, 1, 3, 5],
            ("4 dice", "1 even of 2 needed", "1 scar to place"),
            ("4 Würfel", "1 gerade von 2 nötigen", "1 Narbe zu verteilen"),
            ("4 terninger", "1 lige af 2 nødvendige", "1 ar at placere"),
        ),
        (
            [2, 3, 5, 3],
            ("4 dice", "1 even of 2 needed", "3 scars to place"),
            ("4 Würfel", "1 gerade von 2 nötigen", "3 Narben zu verteilen"),
            ("4 terninger", "1 lige af 2 nødvendige", "3 ar at placere"),
        ),
    ],
)
def test_a_failed_risk_counts_its_evens_and_scars_in_each_language(
    app: Any, faces: list[int], en: tuple[str, ...], de: tuple[str, ...], da: tuple[str, ...]
) -> None:
    """The issue's "1 even(s) of 2" and "3 scar(s) to place", through the rules service."""
    from utils.cat import CatTable

    t = CatTable(app)
    cat = t.cat()
    body = t.act("pia", "test_fate", cat, faces, trait="legs", difficulty="moderate", dangerous=True).entry.body
    for lang, parts in (("en", en), ("de", de), ("da", da)):
        text = i18n.log_line(body, lang)
        assert all(part in text for part in parts), (lang, text)
        assert not PSEUDO_PLURAL.search(text), text


@pytest.mark.parametrize(
    "lang,one,two",
    [
        ("en", "Band 5 is beyond the range (1 band).", "Band 5 is beyond the range (2 bands)."),
        ("de", "Band 5 liegt außer Reichweite (1 Band).", "Band 5 liegt außer Reichweite (2 Bänder)."),
        ("da", "Bælte 5 er uden for rækkevidden (1 bælte).", "Bælte 5 er uden for rækkevidden (2 bælter)."),
    ],
)
def test_a_refusal_with_a_count_reads_in_the_readers_plural_form(lang: str, one: str, two: str) -> None:
    """Python strings (`ngettext` now, not stored): the ART's "(1 bands)"."""
    from app.systems.art import wording

    i18n.set_locale(lang)
    try:
        assert (wording.beyond_range(5, 1), wording.beyond_range(5, 2)) == (one, two)
    finally:
        i18n.set_locale("en")
