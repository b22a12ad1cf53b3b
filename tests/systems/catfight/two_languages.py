"""Cat fight at the two-languages table (tests/test_two_languages_table.py, tests/utils/two_languages.py): Greta
plays a duel to the knockout against the narrator's cat (attacks, a defense, jumps, a critical hit), every tap
through the duel page's form."""

from __future__ import annotations

import re

from utils.catfight import MIMI
from utils.dice import scripted
from utils.two_languages import Played, Step, TwoLanguages, percentages

from app.systems.catfight.rules import STATS, TECKA

# The duel's values: German players say ATTACK, DEFEND, JUMP (catfight.de.md uses them), Danish ones do not. They
# reach a log line as values, not as msgids, so the catalog measure alone would not see them in a Danish line.
DUEL_VALUES = {"ATTACK", "DEFEND", "JUMP", "SNEAK", "QUICKNESS"}

# (who taps, whose cat, the move, the dice). Tecka (a): ATTACK 16, DEFEND 12, JUMP 15, SNEAK 15; Mimi (b):
# ATTACK 12, DEFEND 16, JUMP 14, SNEAK 14. Even faces add, odd faces subtract (catfight.de.md).
DUEL = [
    ("greta", "tecka", "begin", [5, 2]),  # 5 beats 2: Tecka starts
    ("greta", "tecka", "sneak", [4, 1]),  # 19 vs 13: Tecka sneaks up
    ("greta", "tecka", "attack", [4]),  # 20
    ("nora", "mimi", "defend", [2]),  # 18 < 20: a hit, Mimi 2
    ("greta", "tecka", "attack", [2]),  # 18
    ("nora", "mimi", "jump", [6, 1]),  # 20 vs 14: Mimi jumps clear and attacks
    ("nora", "mimi", "attack", [1]),  # 11
    ("greta", "tecka", "defend", [4]),  # 16 >= 11: parried
    ("nora", "mimi", "attack", [3]),  # 9
    ("greta", "tecka", "jump", [2, 1]),  # 17 vs 13: Tecka jumps clear and attacks
    ("greta", "tecka", "attack", [6, 6]),  # a confirmed 6: CRITICAL HIT, Mimi 1
    ("greta", "tecka", "attack", [4]),  # 20
    ("nora", "mimi", "defend", [1]),  # 15 < 20: a hit, Mimi 0: knocked out
]


def _view(table: TwoLanguages, who: str, encounter: int) -> str:
    r = table.browsers[who].get(f"{table.base}/encounters/{encounter}/view")
    assert r.status_code == 200, r.text
    return str(r.text)


def _tap(table: TwoLanguages, who: str, encounter: int, cat: int, move: str, faces: list[int]) -> None:
    page = _view(table, who, encounter)
    assert f'name="move" value="{move}"' in page, (who, move, re.findall(r'name="move" value="(\w+)"', page))
    version = re.search(r'name="version" value="(\d+)"', page).group(1)  # type: ignore[union-attr]
    with scripted(faces):
        r = table.post(
            who,
            f"{table.base}/encounters/{encounter}/act/move",
            {"character_id": cat, "version": version, "move": move, "idempotency_key": f"duel-{version}"},
        )
    assert r.status_code == 200, r.text


def play(t: TwoLanguages) -> Played:
    """Greta challenges from her cat's sheet, then plays every move on the duel page."""
    cats = {
        "tecka": t.character("greta", "Tecka", "catfight", {s: TECKA[s] for s in STATS}),
        "mimi": t.character("nora", "Mimi", "catfight", MIMI, kind="npc"),
    }
    odds: list[str] = []
    r = t.post(
        "greta",
        f"{t.base}/characters/{cats['tecka']}/act/challenge",
        {"opponent_id": cats["mimi"], "idempotency_key": "challenge"},
    )
    assert r.status_code == 200, r.text
    encounter = int(re.search(r"/encounters/(\d+)", r.text).group(1))  # type: ignore[union-attr]
    for who, cat, move, faces in DUEL:
        if who == "greta" and move in ("defend", "jump"):  # her buttons show her chances
            odds += percentages(_view(t, "greta", encounter))
        _tap(t, who, encounter, cats[cat], move, faces)
    assert t.sheet(cats["mimi"])["health"] == 0 and t.sheet(cats["tecka"])["health"] == 3
    assert not re.findall(r'name="move" value="(\w+)"', _view(t, "greta", encounter))  # the duel is over
    return Played(entries=1 + len(DUEL), odds=odds, typed={"Tecka", "Mimi"}, never={"da": DUEL_VALUES})


STEP = Step(play)
