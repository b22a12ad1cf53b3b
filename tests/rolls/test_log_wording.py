"""A log that reads like a book (issue 21, point 12): a line does not name its character twice, a session's title
does not say "Session 1" twice, the ART's abbreviations ("Passable, 1f", "row 12 vs Good", "kicker 5") are said
in words with the number beside them, and a German or Danish reader meets no English in ART combat lines."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.art import PIA, Play
from utils.art_fight import sword_fight
from utils.english import english_words
from utils.tables import Table
from utils.web import csrf_of

from app import i18n
from app.i18n import msg, render, session_own_title, session_title
from app.rolls.faces import entry_total
from app.web import ENV

ABBREVIATION = re.compile(r"\b\d+[sf]\b")  # the text's "2s", "1f"


def _entry_html(body: dict[str, Any], lang: str = "en", **extra: Any) -> str:
    entry = SimpleNamespace(
        seq=7,
        kind="action",
        visibility="public",
        character_id=3,
        actor_id=2,
        game_session_id=None,
        system=body.get("system", "art"),
        target_seq=None,
        campaign_id=1,
        actor_name="juno",
        shown_actor="juno",
        created_at=datetime(2026, 11, 28, 9, 0, tzinfo=UTC),
        body=body,
    )
    i18n.set_locale(lang)
    try:
        context = {"entry": entry, "view": "full", "voided": False, "faces": [], "details": [], "is_narrator": False}
        context["total"] = entry_total(body, entry.system)  # what app/rolls/log.py hands the template
        return ENV.get_template("rolls/entry.html").render(**{**context, **extra})
    finally:
        i18n.set_locale("en")


def _summary_of(html: str) -> str:
    found = re.search(r'<p class="summary">(.*?)</p>', html, re.S)
    assert found
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found[1])).strip()


def test_a_line_that_starts_with_the_character_does_not_name_it_twice() -> None:
    body = {
        "character": "Vex Marlow",
        "summary": msg("{name} rolls to move: {roll}", name="Vex Marlow", roll="Agility (row 9): rolled 55"),
    }
    assert _summary_of(_entry_html(body)) == "juno · Vex Marlow rolls to move: Agility (row 9): rolled 55"
    duel = {
        "character": "Pepper (fight)",
        "system": "catfight",
        "summary": msg("%(a)s challenges %(b)s to a duel.", a="Pepper (fight)", b="Mimi"),
    }
    assert _summary_of(_entry_html(duel, "de")).startswith("juno · Pepper (fight) ")
    assert "(Pepper (fight))" not in _entry_html(duel)
    # A line about the character that does not start with its name keeps it beside the player.
    risk = {"character": "Smoke", "system": "cat", "summary": msg("updates the notes")}
    assert _summary_of(_entry_html(risk)) == "juno (Smoke) updates the notes"


def test_the_kicker_badge_says_what_the_number_is() -> None:
    body = {"character": "Maren", "summary": msg("rolls {roll}", roll="55")}
    kicker = {"mark": "kicker", "label": "kicker: %(k)s", "value": 5}
    html = _entry_html(body, faces=[{"face": 55, "sides": 100, "marks": [], "labels": [], "badges": [kicker]}])
    assert "kicker: 5" in html


@pytest.mark.parametrize(
    "title,en,de,da",
    [
        ("Session 1: Alley", "Session 1: Alley", "Sitzung 1: Alley", "Spilgang 1: Alley"),
        ("Alley", "Session 1: Alley", "Sitzung 1: Alley", "Spilgang 1: Alley"),
        ("sitzung 1 – Gasse", "Session 1: Gasse", "Sitzung 1: Gasse", "Spilgang 1: Gasse"),
        (
            "Session 12 finale",
            "Session 1: Session 12 finale",
            "Sitzung 1: Session 12 finale",
            "Spilgang 1: Session 12 finale",
        ),
        ("", "Session 1", "Sitzung 1", "Spilgang 1"),
    ],
)
def test_a_session_title_does_not_say_session_twice(title: str, en: str, de: str, da: str) -> None:
    assert (session_title(1, title, "en"), session_title(1, title, "de"), session_title(1, title, "da")) == (en, de, da)


def test_a_session_typed_as_session_1_shows_once_on_the_page_and_in_the_log(table: Table, new_client: Any) -> None:
    browser = new_client()
    browser.post(
        "/signin", data={"username": "nora", "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")}
    )
    headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
    r = browser.post(f"/campaigns/{table.id}/sessions/start", data={"title": "Session 1: Alley"}, headers=headers)
    assert r.status_code == 200 and "Session 1: Alley" in r.text and "Session 1: Session 1" not in r.text
    page = browser.get(f"/campaigns/{table.id}").text
    assert "Session 1: Alley" in page and "Session 1: Session 1" not in page
    assert "started session 1: Alley" in page
    assert session_own_title(1, "Session 1: Alley") == "Alley"


# --- the ART's abbreviations in words ------------------------------------------------------------------------------


@pytest.fixture
def play(app: Any) -> Play:
    return Play(app)


@pytest.mark.parametrize(
    "lang,words",
    [
        ("en", ("(row 9) against Good", "→ Poor (2 failures)")),
        ("de", ("(Zeile 9) gegen Gut", "→ Dürftig (2 Fehlschläge)")),
        ("da", ("(række 9) mod God", "→ Ringe (2 fiaskoer)")),
    ],
)
def test_a_trait_roll_says_its_successes_in_words(play: Play, lang: str, words: tuple[str, str]) -> None:
    _seq, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GD"}, [55])  # row 9: Poor, 2f
    text = render(body["summary"], lang)
    assert all(w in text for w in words), text
    assert not ABBREVIATION.search(text) and " vs " not in text


@pytest.mark.parametrize(
    "lang,expected",
    [
        ("en", "rolls Strength (row 9) against Good: rolled 55 → Poor (1 failure)"),
        ("de", "würfelt Stärke (Zeile 9) gegen Gut: würfelt 55 → Dürftig (1 Fehlschlag)"),
        ("da", "slår Styrke (række 9) mod God: slog 55 → Ringe (1 fiasko)"),
    ],
)
def test_an_entry_logged_with_the_abbreviation_reads_in_words(lang: str, expected: str) -> None:
    import app.systems  # noqa: F401  (the ART registers the msgids it retired)

    old = {
        "msg": "rolls {roll}",
        "args": {
            "roll": {
                "msg": "{head} ({extras}) vs {against}: {dice} → {result}, {label}",
                "args": {
                    "head": {"join": [{"msg": "Strength"}], "sep": " + "},
                    "extras": {"join": [{"msg": "row {row}", "args": {"row": 9}}], "sep": ", "},
                    "against": {"msg": "Good"},
                    "dice": {"msg": "rolled {roll}", "args": {"roll": "55"}},
                    "result": {"msg": "Poor"},
                    "label": "1f",
                },
            }
        },
    }
    assert render(old, lang) == expected


def test_a_kicker_fires_in_words(play: Play) -> None:
    old = {"msg": "; kicker {kicker} fires {fired}", "args": {"kicker": 5, "fired": "Backstab"}}
    assert render(old, "en") == "; a kicker of 5 fires Backstab"


@pytest.mark.parametrize("lang", ["de", "da"])
def test_the_combat_start_reads_without_english_in_german_and_danish(play: Play, lang: str) -> None:
    """The issue's Danish initiative line kept the English "rolls": every line of a combat's start, checked with
    the English-word detector (tests/utils/english.py)."""
    fight = sword_fight(play, (55, 72))
    with fight.play.factory() as db:
        from sqlalchemy import select

        from app.rolls.models import LogEntry

        bodies = [e.body for e in db.scalars(select(LogEntry).where(LogEntry.campaign_id == play.campaign_id))]
    lines = [i18n.log_line(b, lang) for b in bodies]
    assert any("initiativ" in line.lower() for line in lines)
    typed = {"Maren", "Tom", "Goblin", "Sword", "Climbing", "Rock", "climbing"}
    left = {line: english_words(line, lang, typed) for line in lines}
    assert {line: words for line, words in left.items() if words} == {}
    assert not [line for line in lines if ABBREVIATION.search(line)]


def test_logged_as_is_translated(table: Table, client: TestClient) -> None:
    """ "Logged as #…" after a correction: in the reader's language (tests/rolls/test_table_page.py checks the page)."""
    assert i18n.translations("de").gettext("Logged as #{seq}.") == "Als #{seq} protokolliert."
    assert i18n.translations("da").gettext("Logged as #{seq}.") == "Logget som #{seq}."


@pytest.mark.parametrize(
    "lang,expected",
    [
        ("en", "sustained: 5 successes, 1 failure (goal 10)"),
        ("de", "anhaltend: 5 Erfolge, 1 Fehlschlag (Ziel 10)"),
        ("da", "vedvarende: 5 succeser, 1 fiasko (mål 10)"),
    ],
)
def test_a_sustained_tally_says_successes_and_failures_in_words(lang: str, expected: str) -> None:
    from app.systems.art import wording

    assert render(wording.sustained(successes=5, failures=1, goal=10), lang) == expected
    old = {"msg": "sustained: {successes}s/{failures}f of {goal}", "args": {"successes": 5, "failures": 1, "goal": 10}}
    assert render(old, lang) == expected


@pytest.mark.parametrize("lang,word", [("en", "Good"), ("de", "Gut"), ("da", "God")])
def test_an_art_total_is_its_level_in_words(lang: str, word: str) -> None:
    """The big total under an ART roll was the level's code ("GD")."""
    body = {
        "character": "Maren",
        "system": "art",
        "summary": msg("rolls {roll}", roll="73"),
        "outcome": {"total": "GD", "result": "GD"},
    }
    html = _entry_html(body, lang)
    total = i18n.translations(lang).gettext("Total")
    assert f'<p class="total"><span class="sr-only">{total}: </span>{word}</p>' in html
    dice = _entry_html(
        {"system": "dice", "summary": msg("rolled {detail}", detail="2d6 [3, 4] = 7"), "outcome": {"total": 7}}
    )
    assert ">7</p>" in dice
