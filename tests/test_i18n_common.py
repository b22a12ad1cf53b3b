"""Issue 15, what every system shares: the help page (system names, descriptions, rulings), the campaign list and
pages (system names, visibility labels) and the dice notation's errors, each in the reader's language.

A known German and Danish catalog stands in for the committed one (it falls back to it), so these tests check
that the words reach the reader through `_()` / `rule_message`; tests/test_i18n.py checks the catalogs are
complete. One test extracts the notation's messages, so an error raised without `N_` is caught here.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app import i18n
from app.rolls.visibility import VISIBILITY_LABELS, Visibility
from app.rules import notation
from app.systems import SYSTEMS

ROOT = Path(__file__).resolve().parent.parent
_real_translations = i18n.translations

DICE_RULING = SYSTEMS["dice"].rulings[0]
CAT_RULING = SYSTEMS["cat"].rulings[1]
NO_SIDES_END = "at column {column}: expected a number of sides (or %), found the end"
KEEP_TOO_MANY = "at column {column}: cannot keep {number} of {count} dice"
WORDS = {
    "de": {
        DICE_RULING: "NdS würfelt N Würfel mit S Seiten (ohne N: 1); d% bedeutet einen einzelnen W100.",
        CAT_RULING: "Entscheidung 1: Narben werden pro Eigenschaft gezählt.",
        "Dice": "Würfel",
        "Cat": "Katze",
        SYSTEMS["cat"].description: "Katzen fordern das Schicksal heraus.",
        "Blind (narrators only)": "Verdeckt (nur die Spielleitung)",
        "Only me": "Nur ich",
        "Me and the narrators": "Ich und die Spielleitung",
        "Everyone": "Alle",
        "blind": "verdeckt",
        "private": "privat",
        "({n} successes)": "({n} Erfolge)",
        "rolled {detail}": "würfelte {detail}",
        NO_SIDES_END: "an Stelle {column}: erwartet: eine Seitenzahl (oder %), aber der Ausdruck endet hier",
        KEEP_TOO_MANY: "an Stelle {column}: kann nicht {number} von {count} Würfeln behalten",
    },
    "da": {
        DICE_RULING: "NdS slår N terninger med S sider (uden N: 1); d% betyder én d100.",
        "Dice": "Terninger",
        "Blind (narrators only)": "Blindt (kun spillederne)",
        "Only me": "Kun mig",
        NO_SIDES_END: "ved tegn {column}: forventede et antal sider (eller %), men udtrykket slutter her",
        KEEP_TOO_MANY: "ved tegn {column}: kan ikke beholde {number} af {count} terninger",
    },
}


class _Catalog:
    def __init__(self, locale: str) -> None:
        self.words, self.real = WORDS.get(locale, {}), _real_translations(locale)

    def gettext(self, message: str) -> str:
        return self.words.get(message) or self.real.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.real.ngettext(singular, plural, n)


@pytest.fixture
def catalogs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "translations", _Catalog)


# --- the help page and the system names ------------------------------------------------------------------


def test_help_page_shows_rulings_names_and_descriptions_in_the_readers_language(
    client: TestClient, catalogs: None
) -> None:
    de = client.get("/help", headers={"Accept-Language": "de"}).text
    assert WORDS["de"][DICE_RULING] in de and WORDS["de"][CAT_RULING] in de
    assert DICE_RULING not in de and CAT_RULING not in de
    assert "<h2>Würfel</h2>" in de and "<h2>Katze</h2>" in de and WORDS["de"][SYSTEMS["cat"].description] in de
    da = client.get("/help", headers={"Accept-Language": "da"}).text
    assert WORDS["da"][DICE_RULING] in da and "<h2>Terninger</h2>" in da
    en = client.get("/help", headers={"Accept-Language": "en"}).text
    assert DICE_RULING in en and "<h2>Dice</h2>" in en


def _extracted(tmp_path: Path, *paths: str) -> set[str]:
    """The msgids `make messages` would extract from `paths` (keyword N_ as in the Makefile)."""
    out = tmp_path / "part.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-k", "N_", "-o", str(out), *paths],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with open(out, "rb") as f:
        return {m.id for m in read_po(f) if isinstance(m.id, str) and m.id}


def test_every_ruling_name_and_description_is_marked_for_extraction(tmp_path: Path) -> None:
    """What /help shows is in the extracted catalog (N_ where it is defined), so it can be translated."""
    ids = _extracted(tmp_path, "app/systems")
    shown = [text for s in SYSTEMS.values() for text in (s.name, s.description, *s.rulings) if text]
    assert len(shown) > 70
    assert [text for text in shown if text not in ids] == []


def test_campaign_list_and_page_name_the_systems_in_the_readers_language(
    table: Table, new_client: Any, catalogs: None
) -> None:
    nora = signed_in(new_client, "nora", lang="de")
    assert "Katzen fordern das Schicksal heraus." in nora.get("/campaigns").text
    page = nora.get(f"/campaigns/{table.id}").text
    assert '<option value="dice">Würfel</option>' in page  # the new character's system, and the log filter
    sheet = signed_in(new_client, "pia", lang="da").get(f"/campaigns/{table.id}/characters/{table.pia_char}").text
    assert '<span class="badge">Terninger</span>' in sheet


# --- visibility labels -------------------------------------------------------------------------------------


def test_visibility_labels_are_english_msgids_shown_translated(table: Table, new_client: Any, catalogs: None) -> None:
    assert VISIBILITY_LABELS[Visibility.BLIND] == "Blind (narrators only)"  # stored/compared in English
    page = signed_in(new_client, "pia", lang="de").get(f"/campaigns/{table.id}").text
    for english in VISIBILITY_LABELS.values():
        assert f">{WORDS['de'][english]}</option>" in page
        assert f">{english}</option>" not in page
    da = signed_in(new_client, "otto", lang="da").get(f"/campaigns/{table.id}").text
    assert ">Blindt (kun spillederne)</option>" in da and ">Kun mig</option>" in da


def test_a_log_entrys_visibility_badge_is_translated(table: Table, new_client: Any, catalogs: None) -> None:
    assert table.roll(table.narrator, "1d20", visibility="blind").status_code == 201
    assert table.roll(table.narrator, "1d6", visibility="self").status_code == 201
    page = signed_in(new_client, "nora", lang="de").get(f"/campaigns/{table.id}").text
    assert '<span class="badge vis">verdeckt</span>' in page and '<span class="badge vis">privat</span>' in page
    assert '<span class="badge vis">blind</span>' not in page


# --- the dice notation's errors ----------------------------------------------------------------------------

BAD = [
    "3d",
    "2d6+",
    "d0",
    "4d6kh5",
    "1d6kh2",
    "1d6dl2",
    "abc",
    "",
    "0d6",
    "2d6 @",
    "2d6x",
    "2d6!x",
    "2d6kh1x",
    "2d6>3x",
    "3d6d7",
    "3d6d",
    "3d6kh",
    "3d6dl",
    "1d6>=",
    "2d6+*1",
    "1d1!",
    "4d6kh3kh2",
    "2d6f1",
    "1101d6",
    "2d1001",
    "+".join(["1"] * 65),
    "1" * 201,
    "+".join(["d%!k1>=1"] * 34),
    "2d6 5",
    "2d6!!p",
    "1d6r<6",
    "{1d6*2}k1",
    "(" * 9 + "1" + ")" * 9,
    "2d6**2",
    "1d20+5[",
    "1d6mi4ma2",
    "2d6 d4",
    "1d6!>1",
    "(1d6",
    "{1d6,2",
]


def _error(text: str) -> notation.NotationError:
    with pytest.raises(notation.NotationError) as caught:
        notation.parse(text)
    return caught.value


def test_every_notation_error_is_a_marked_rule_text(tmp_path: Path) -> None:
    ids = _extracted(tmp_path, "app/rules/notation")
    templates = set()
    for text in BAD:
        error = _error(text)
        assert error.template in ids, (text, error.template)
        assert str(error) == error.template.format(**error.values) == f"at column {error.column}: {error.detail}"
        templates.add(error.template)
    assert len(templates) >= 25


def test_a_notation_error_keeps_its_template_across_processes() -> None:
    for text in ("3d", "4d6kh5", "1101d6"):
        error = _error(text)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (copy.template, copy.values, str(copy), copy.expected) == (
            error.template,
            error.values,
            str(error),
            error.expected,
        )
    assert pickle.loads(pickle.dumps(_error("1101d6"))).limit == 1100


def test_a_notation_error_in_danish_through_the_api(client: TestClient, catalogs: None) -> None:
    t = Table(client)
    r = client.post(
        f"/api/campaigns/{t.id}/actions",
        json={"system": "dice", "action": "roll", "params": {"expression": "3d"}, "visibility": "public"},
        headers={**t.player, "Accept-Language": "da"},
    )
    assert r.status_code == 422, r.text
    assert "ved tegn 3: forventede et antal sider (eller %), men udtrykket slutter her" in r.text
    en = t.roll(t.player, "4d6kh5")
    assert "at column 6: cannot keep 5 of 4 dice" in en.text


def test_a_notation_error_in_german_on_the_page_and_in_the_odds(table: Table, new_client: Any, catalogs: None) -> None:
    pia = signed_in(new_client, "pia", lang="de")
    hx = {"HX-Request": "true"}
    r = pia.post(f"/campaigns/{table.id}/roll", data={"expression": "4d6kh5"}, headers=hx)
    assert r.status_code == 422
    assert "an Stelle 6: kann nicht 5 von 4 Würfeln behalten" in r.text
    odds = pia.get(f"/campaigns/{table.id}/odds", params={"expression": "3d"}, headers=hx).text
    assert "an Stelle 3: erwartet: eine Seitenzahl (oder %), aber der Ausdruck endet hier" in odds


def test_a_success_count_in_the_log_in_the_readers_language(client: TestClient, catalogs: None) -> None:
    t = Table(client)
    r = t.roll(t.player, "3d6>=1+2")
    assert r.status_code == 201, r.text
    detail = r.json()["outcome"]["detail"]
    assert detail.endswith(" (3 successes) + 2 = 5")  # the outcome keeps the English line
    texts = {
        lang: next(
            e
            for e in client.get(f"/api/campaigns/{t.id}/log", headers={**t.other, "Accept-Language": lang}).json()[
                "entries"
            ]
            if e["seq"] == r.json()["seq"]
        )["text"]
        for lang in ("en", "de")
    }
    assert texts["en"] == f"rolled {detail}"
    assert texts["de"] == "würfelte " + detail.replace("(3 successes)", "(3 Erfolge)")
    plain = t.roll(t.player, "2d6")  # no words: the summary's detail stays plain text
    assert plain.json()["summary"] == {"msg": "rolled {detail}", "args": {"detail": plain.json()["outcome"]["detail"]}}
