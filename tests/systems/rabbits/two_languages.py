"""Rabbits at the two-languages table (tests/test_two_languages_table.py, tests/utils/two_languages.py): Dorte
makes a test with Greta's rabbit helping and a Persona die, spends Fate, and gets a condition from the narrator."""

from __future__ import annotations

from utils.rabbits import NEW_RABBIT
from utils.two_languages import Played, Step, TwoLanguages


def play(t: TwoLanguages) -> Played:
    """Scout 3 + Hazel's help + 1 Persona = 5 dice against Ob 3; Fate rerolls the 6; still a failure, and the
    narrator gives her rabbit a condition."""
    hazel = t.character("greta", "Hazel", "rabbits", NEW_RABBIT)
    clover = t.character("dorte", "Clover", "rabbits", NEW_RABBIT)
    odds_page = t.browsers["dorte"].get(
        f"{t.base}/characters/{clover}/odds/test",
        params={"skill": "Scout", "ob": "3", "helpers": str(hazel), "persona": "1"},
    )
    assert odds_page.status_code == 200, odds_page.text
    t.act("dorte", clover, "test", [6, 1, 2, 3, 1], skill="Scout", ob="3", helpers=str(hazel), persona="1")
    tested = t.log()[-1]
    assert tested["action"] == "test" and tested["outcome"]["pool"] == 5 and tested["outcome"]["passed"] is False
    t.act("dorte", clover, "fate", [2], entry_seq=str(tested["seq"]))
    # The narrator answers on the rabbit's sheet page (its narrator block, then the sheet with the condition).
    r = t.act("nora", clover, "consequence", [], entry_seq=str(tested["seq"]), choice="condition", condition="angry")
    assert 'id="sheet"' in r.text
    assert t.browsers["nora"].get(f"{t.base}/characters/{clover}").status_code == 200
    sheet = t.sheet(clover)
    assert sheet["conditions"] == ["angry"] and sheet["fate"] == 1 and sheet["persona"] == 0
    return Played(entries=3, typed={"Hazel", "Clover", "Fox-wise", "Quick"})


STEP = Step(play)
