"""The ART Engine in German and Danish: a roll's log line names the attribute and the outcome in the reader's
language, a perk's notice in a combat log line is translated, and the sheet, the ART page and a combat's
encounter page show no English attribute, perk, level or feature names."""

from __future__ import annotations

import html as htmllib
import re
from typing import Any

import pytest
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight, sword_fight
from utils.english import english_words
from utils.web import signed_in

from app.i18n import render
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.art.sheet import load, weapon_stats

# Names this test's fixtures typed (characters, foes, items, features), besides tests/utils/english.ALLOWED.
TYPED = {
    "Maren",
    "Tom",
    "Goblin",
    "Sword",
    "Climbing",
    "Rock",
    "climbing",
    "Cliffs",
    "nora",
    "pia",
    "otto",
    "Table",
    "Am",
    "Tor",
    "door",
    "fire",
    "pit",
    "rubble",
}


def _visible(page: str) -> str:
    """The text a reader sees: the body's text, option labels, placeholders, aria-labels and titles."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    attrs = re.findall(r'(?:placeholder|aria-label|title)="([^"]*)"', page)
    text = re.sub(r"<[^>]+>", " ", page)
    return htmllib.unescape(text + "\n" + "\n".join(attrs))


def english_left(page: str, lang: str) -> list[str]:
    return english_words(_visible(page), lang, TYPED)


def _kface(row: int, level: str, kicker: int) -> int:
    """A percentile face reading `level` (or better, with a "+") on `row` whose kicker is `kicker`."""
    low = Level[level.rstrip("+")]
    found = [
        f
        for f in range(1, 101)
        if f % 10 == kicker
        and (art.DEFAULT_TABLE.read(row, f) is low or (level.endswith("+") and art.DEFAULT_TABLE.read(row, f) > low))
    ]
    return found[0]


def _busy_fight(play: Play) -> Fight:
    """Maren and Tom (swords) against the Goblin on a track with an exit, rough ground and a hazard; Maren has
    Flurry, Combat Tactics and Breakfall, and her hit's kicker 0 fires the first two (she is to choose)."""
    fight = sword_fight(
        play,
        (_kface(7, "GD", 3), _kface(7, "PR", 3)),
        title="Am Tor",
        features="0 exit door\n4 rough rubble\n7 hazard fire pit",
    )
    sheet = fight.sheet(play.hero)
    fight.set_sheet(
        play.hero,
        perks={"Flurry": 1, "Combat Tactics": 1, "Breakfall": 1},
        attributes={**sheet["attributes"], "DEX": 5, "INT": 5},
    )
    loaded = load(fight.sheet(play.hero))
    row = art.effective_row(int(weapon_stats(loaded, loaded.gear[0])["attack"]))
    fight.last = fight.step(PIA, "combat_attack", play.hero, [_kface(row, "PS+", 0)], target=play.foe)  # type: ignore[attr-defined]
    return fight


def test_a_trait_roll_reads_its_attribute_and_levels_in_the_readers_language(play: Play) -> None:
    _seq, body = play.act(PIA, "trait_roll", {"attribute": "STR", "difficulty": "GD"}, [55])  # row 9: Poor
    english = render(body["summary"], "en")
    assert "Strength" in english and "Poor" in english and "Good" in english
    german = render(body["summary"], "de")
    assert "Stärke" in german and "Dürftig" in german and "Gut" in german
    assert "Strength" not in german and "Poor" not in german
    danish = render(body["summary"], "da")
    assert "Styrke" in danish and "Ringe" in danish and "Strength" not in danish


def test_a_sanity_check_reads_in_german(play: Play) -> None:
    _seq, body = play.act(PIA, "trait_roll", {"attribute": "STA", "difficulty": "PR", "purpose": "sanity"}, [99])
    assert "coughed up scarier things" in render(body["summary"], "en")
    assert "Du hast schon Schlimmeres hochgewürgt" in render(body["summary"], "de")


def test_a_perk_in_a_combat_log_line_reads_in_the_readers_language(play: Play) -> None:
    fight = _busy_fight(play)
    body = fight.last  # type: ignore[attr-defined]
    assert "chooses one of Flurry / Combat Tactics" in render(body["summary"], "en")
    assert "Schlaghagel / Kampftaktik" in render(body["summary"], "de")
    assert "Slagregn / Kamptaktik" in render(body["summary"], "da")
    body = fight.step(PIA, "combat_perk_choose", play.hero, perk="Flurry")
    assert "Schlaghagel" in render(body["summary"], "de") and "Flurry" not in render(body["summary"], "de")
    # A perk whose requirement is unmet is named, with what it still needs, in the reader's language.
    fight.step(PIA, "combat_end_turn", play.hero)
    fight.step(OTTO, "combat_end_turn", play.friend)
    fight.step(NARRATOR, "combat_end_turn", play.foe)
    sheet = fight.sheet(play.hero)
    fight.set_sheet(play.hero, perks={"Advanced Flurry": 1}, attributes={**sheet["attributes"], "DEX": 7})
    loaded = load(fight.sheet(play.hero))
    row = art.effective_row(int(weapon_stats(loaded, loaded.gear[0])["attack"]))
    body = fight.step(PIA, "combat_attack", play.hero, [_kface(row, "PS+", 1)], target=play.foe)
    assert "would fire Advanced Flurry, but it needs the Flurry perk" in render(body["summary"], "en")
    assert "würde Verbesserter Schlaghagel auslösen, aber es braucht den Vorteil Schlaghagel" in render(
        body["summary"], "de"
    )


def test_the_combat_page_shows_no_english_names(play: Play, new_client: Any) -> None:
    fight = _busy_fight(play)
    for lang, who in (("da", "nora"), ("da", "pia"), ("de", "pia")):
        page = (
            signed_in(new_client, who, lang=lang)
            .get(f"/campaigns/{play.campaign_id}/encounters/{fight.encounter_id}")
            .text
        )
        assert english_left(page, lang) == [], (lang, who)
    page = (
        signed_in(new_client, "pia", lang="da")
        .get(f"/campaigns/{play.campaign_id}/encounters/{fight.encounter_id}")
        .text
    )
    assert "Slagregn" in page and "Kamptaktik" in page and "Udgang" in page  # the perk choice, the exit


@pytest.mark.parametrize("lang", ["de", "da"])
def test_the_sheet_create_form_and_art_page_show_no_english_names(play: Play, new_client: Any, lang: str) -> None:
    _busy_fight(play)
    play.act(PIA, "armor", {"armor": "Poor"})
    base = f"/campaigns/{play.campaign_id}"
    pia, nora = signed_in(new_client, "pia", lang=lang), signed_in(new_client, "nora", lang=lang)
    pages = {
        "sheet": pia.get(f"{base}/characters/{play.hero}").text,
        "foe": nora.get(f"{base}/characters/{play.foe}").text,
        "create": pia.get(f"{base}/characters/new/art").text,
        "create foe": nora.get(f"{base}/characters/new/art?what=foe").text,
        "system": nora.get(f"{base}/systems/art").text,
    }
    assert {name: english_left(page, lang) for name, page in pages.items()} == {name: [] for name in pages}
    words = {"de": ("Gewandtheit", "Schlaghagel", "Abrollen"), "da": ("Smidighed", "Slagregn", "Faldteknik")}[lang]
    assert all(w in pages["sheet"] for w in words)
