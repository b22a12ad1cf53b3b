"""The ART Engine at the two-languages table (tests/test_two_languages_table.py, tests/utils/two_languages.py):
Greta and Dorte each make a hero through the creation page and a trait roll from its sheet; Greta reads its odds
first."""

from __future__ import annotations

from utils.art import balanced
from utils.two_languages import Played, Step, TwoLanguages, percentages


def _hero(t: TwoLanguages, who: str, name: str) -> int:
    """Through the ART creation page (the balanced picker)."""
    browser = t.browsers[who]
    r = browser.post(
        f"{t.base}/characters/new/art",
        follow_redirects=False,
        data={**balanced(name), "csrf_token": browser.headers["X-CSRF-Token"]},
    )
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def play(t: TwoLanguages) -> Played:
    odds: list[str] = []
    for who, name in (("greta", "Maren"), ("dorte", "Tom")):
        hero = _hero(t, who, name)
        page = t.browsers[who].get(
            f"{t.base}/characters/{hero}/odds/trait_roll", params={"attribute": "STR", "difficulty": "PR"}
        )
        assert page.status_code == 200, page.text
        if who == "greta":
            odds += percentages(page.text)
        t.act(who, hero, "trait_roll", [55, 55, 55, 55], attribute="STR", difficulty="PR")
    return Played(entries=2, odds=odds, typed={"Maren", "Tom"})


STEP = Step(play)
