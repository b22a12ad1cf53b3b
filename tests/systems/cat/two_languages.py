"""Cats at the two-languages table (tests/test_two_languages_table.py, tests/utils/two_languages.py): Greta and
Dorte each make a test of fate from their own cat's sheet; Greta reads its odds first."""

from __future__ import annotations

from utils.cat import NEW_CAT
from utils.english import words
from utils.two_languages import Played, Step, TwoLanguages, percentages


def play(t: TwoLanguages) -> Played:
    smoke = t.character("greta", "Smoke", "cat", NEW_CAT)
    tiger = t.character("dorte", "Tiger", "cat", {**NEW_CAT, "cat_name": "Tiger", "secret_name": "Nightpaw"})
    odds: list[str] = []
    for who, cat in (("greta", smoke), ("dorte", tiger)):
        query = {"trait": "legs", "difficulty": "moderate", "advantage": "0", "style_points": "0"}
        page = t.browsers[who].get(f"{t.base}/characters/{cat}/odds/test_fate", params=query)
        assert page.status_code == 200, page.text
        if who == "greta":
            odds += percentages(page.text)
        t.act(who, cat, "test_fate", [2, 4, 6, 1, 3, 2, 4, 6, 2, 4, 6, 2], trait="legs", difficulty="moderate")
    # the Cats' names and Reputations, as typed
    typed = {"Smoke", "Tiger"} | words(" ".join(str(v) for v in NEW_CAT.values()))
    return Played(entries=2, odds=odds, typed=typed)


STEP = Step(play)
