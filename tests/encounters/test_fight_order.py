"""One order for every log view (issue 14): a Cat fight's rounds and the duel's "What happened" read oldest
first, like the main log."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient
from utils.cat import CatTable
from utils.catfight import TECKA
from utils.tables import seat_table
from utils.web import signed_in

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.service import create_character
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice


def _section(page: str, marker: str) -> str:
    start = page.index(marker)
    return page[start : page.index("</ol>", start)]


def test_a_cat_fights_rounds_read_oldest_first(app: Any, new_client: Callable[[], TestClient]) -> None:
    t = CatTable(app)
    smoke, dog = t.cat(), t.foe()
    eid = t.act("nora", "start_foe_fight", dog, cat_id=smoke, foe_trait="fangs").encounter_id
    t.act(
        "pia", "foe_round", smoke, [2, 4, 6, 1, 2, 2, 1, 1, 1], encounter_id=eid, version=1, foe_id=dog, weapon="claws"
    )
    t.act("pia", "place_scars", smoke, claws=2, reason="the dog's teeth")
    t.act("nora", "place_scars", dog, fangs=3, reason="raked")
    t.act("pia", "foe_round", smoke, [2, 4, 1, 1, 2, 2, 2, 1], encounter_id=eid, version=2, foe_id=dog, weapon="legs")
    page = signed_in(new_client, "pia").get(f"/campaigns/{t.campaign_id}/encounters/{eid}")
    assert page.status_code == 200
    rounds = re.findall(r"<li>Round (\d+):", _section(page.text, 'class="plain cat-rounds"'))
    assert rounds == ["1", "2"]


def test_the_duels_what_happened_reads_oldest_first(app: Any, new_client: Callable[[], TestClient]) -> None:
    factory = app.state.sessionmaker
    with factory() as db:
        campaign, users = seat_table(db, systems=("catfight",), name="The Wall")
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}

        def acc(who: str) -> campaigns.Access:
            return campaigns.access(db, db.get(User, ids[who]), cid)

        tecka = create_character(db, acc("pia"), name="Tecka", system="catfight", sheet=TECKA).id
        mimi = create_character(db, acc("otto"), name="Mimi", system="catfight", sheet=TECKA).id
        db.commit()

    def act(who: str, action: str, character: int, faces: list[int], **params: Any) -> Any:
        with factory() as db:
            req = rolls.ActionRequest(system="catfight", action=action, character_id=character, params=params)
            user = db.get(User, ids[who])
            return rolls.perform_action(db, campaigns.access(db, user, cid), req, dice=ScriptedDice(faces))

    eid = act("pia", "challenge", tecka, [], opponent_id=mimi).encounter_id
    act("pia", "move", tecka, [3, 3, 5, 2], encounter_id=eid, version=1, move="begin")  # a tie, then Tecka starts
    act("pia", "move", tecka, [1, 2], encounter_id=eid, version=2, move="sneak")  # noticed: Mimi attacks
    page = signed_in(new_client, "pia").get(f"/campaigns/{cid}/encounters/{eid}")
    assert page.status_code == 200
    happened = re.findall(r"<li>(.*?)</li>", _section(page.text, 'class="catfight-recent"'))
    assert len(happened) == 3, happened
    assert "challenges Mimi" in happened[0]
    assert "Tecka starts" in happened[1]
    assert "notice" in happened[2].lower()
