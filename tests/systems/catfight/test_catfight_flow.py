"""A duel's flow on its pages (issue 21, item 13): "What happened" from the challenge on, a finished duel's next
step (back to the campaign, rest or healing, a rematch while both cats can fight), and the challenged player's
toast (the campaign's prompts panel lists the challenge like a roll prompt)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from utils.catfight import MIMI, TECKA
from utils.tables import seat_table
from utils.web import csrf_of, form_post

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.service import create_character
from app.encounters.models import Encounter
from app.i18n import render
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice
from app.systems.catfight.duel import RECENT_MAX


class Duel:
    def __init__(self, app: Any) -> None:
        self.factory = app.state.sessionmaker
        with self.factory() as db:
            campaign, users = seat_table(db, systems=("catfight",), name="The Wall")
            db.commit()
            self.cid, self.users = campaign.id, {n: u.id for n, u in users.items()}
            self.tecka = create_character(db, self.acc(db, "pia"), name="Tecka", system="catfight", sheet=TECKA).id
            self.mimi = create_character(db, self.acc(db, "otto"), name="Mimi", system="catfight", sheet=MIMI).id
            db.commit()
        self.eid = 0

    def acc(self, db: Any, who: str) -> campaigns.Access:
        return campaigns.access(db, db.get(User, self.users[who]), self.cid)

    def act(self, who: str, action: str, character: int | None, faces: list[int] | None = None, **params: Any) -> Any:
        with self.factory() as db:
            req = rolls.ActionRequest(system="catfight", action=action, character_id=character, params=params)
            done = rolls.perform_action(db, self.acc(db, who), req, dice=ScriptedDice(faces or []))
            if done.encounter_id:
                self.eid = done.encounter_id
            return done

    def move(self, who: str, cat: int, move: str, faces: list[int]) -> None:
        self.act(who, "move", cat, faces, encounter_id=self.eid, version=self.state_version(), move=move)

    def state_version(self) -> int:
        with self.factory() as db:
            return db.get(Encounter, self.eid).version

    def state(self) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get(Encounter, self.eid).state)

    def knockout(self) -> None:
        """Tecka challenges Mimi and is knocked out (tests/systems/catfight/test_catfight_service.py's duel)."""
        self.act("pia", "challenge", self.tecka, opponent_id=self.mimi)
        for who, cat, move, faces in (
            ("pia", self.tecka, "begin", [3, 3, 5, 2]),
            ("pia", self.tecka, "sneak", [1, 2]),
            ("otto", self.mimi, "attack", [6, 6]),
            ("otto", self.mimi, "attack", [4]),
            ("pia", self.tecka, "defend", [6, 6]),
            ("pia", self.tecka, "attack", [5, 5]),
            ("otto", self.mimi, "attack", [4]),
            ("pia", self.tecka, "defend", [2]),
            ("otto", self.mimi, "attack", [2]),
            ("pia", self.tecka, "defend", [5, 5]),
        ):
            self.move(who, cat, move, faces)


@pytest.fixture
def duel(app: Any) -> Duel:
    return Duel(app)


def _signed_in(new_client: Any, username: str) -> Any:
    browser = new_client()
    token = csrf_of(browser, "/signin")
    r = browser.post(
        "/signin", data={"username": username, "password": "correct horse", "csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return browser


def test_what_happened_keeps_the_opening_steps(duel: Duel) -> None:
    duel.knockout()
    recent = duel.state()["recent"]
    assert len(recent) == 11  # the challenge and ten moves: nothing lost
    assert render(recent[-1]["text"], "en") == "Tecka challenges Mimi to a duel."
    assert "Who starts?" in render(recent[-2]["text"], "en")
    assert "knocked out" in render(recent[0]["text"], "en")


def test_a_long_duel_keeps_its_opening_and_stays_bounded(duel: Duel) -> None:
    duel.act("pia", "challenge", duel.tecka, opponent_id=duel.mimi)
    duel.move("pia", duel.tecka, "begin", [6, 1])
    duel.move("pia", duel.tecka, "sneak", [2, 1])  # Tecka attacks
    for _ in range(RECENT_MAX):  # Tecka attacks, Mimi jumps clear, Mimi attacks, Tecka jumps clear, …
        state = duel.state()
        cat, who = (duel.tecka, "pia") if state["to_move"] == "a" else (duel.mimi, "otto")
        if state["phase"] == "attack":
            duel.move(who, cat, "attack", [2])
        else:
            duel.move(who, cat, "jump", [6, 1])  # the jumping cat 6, the attacker 1: dodged
    recent = duel.state()["recent"]
    assert len(recent) == RECENT_MAX
    assert render(recent[-1]["text"], "en") == "Tecka challenges Mimi to a duel."
    assert "Who starts?" in render(recent[-2]["text"], "en")


def test_a_finished_duel_offers_the_next_step(duel: Duel, new_client: Any) -> None:
    duel.knockout()
    url = f"/campaigns/{duel.cid}/encounters/{duel.eid}"
    pia, nora = _signed_in(new_client, "pia"), _signed_in(new_client, "nora")
    page = html.unescape(pia.get(url).text)
    assert 'id="catfight-next"' in page and f'href="/campaigns/{duel.cid}"' in page
    assert "Tecka is knocked out: a narrator can heal it." in page
    assert 'id="catfight-rematch"' not in page  # a knocked-out cat cannot fight
    page = html.unescape(nora.get(url).text)
    assert f'href="/campaigns/{duel.cid}/characters/{duel.tecka}#catfight-heal"' in page
    duel.act("nora", "heal", duel.tecka)
    page = html.unescape(pia.get(url).text)
    assert 'id="catfight-rematch"' in page and "Rematch: Tecka against Mimi" in page
    r = form_post(
        pia,
        f"/campaigns/{duel.cid}/systems/catfight/act/challenge",
        {"character_id": str(duel.tecka), "opponent_id": str(duel.mimi)},
    )
    assert r.status_code == 200 and "Open the duel" in r.text


def test_the_challenged_player_gets_the_challenge_like_a_roll_prompt(duel: Duel, new_client: Any) -> None:
    otto, pia = _signed_in(new_client, "otto"), _signed_in(new_client, "pia")
    duel.act("pia", "challenge", duel.tecka, opponent_id=duel.mimi)
    panel = html.unescape(otto.get(f"/campaigns/{duel.cid}/panels/prompts").text)
    assert f'data-prompt-id="challenge-{duel.eid}"' in panel
    assert 'data-toast="Tecka challenges Mimi to a duel: open it"' in panel
    assert f'href="/campaigns/{duel.cid}/encounters/{duel.eid}"' in panel
    assert "challenge-" not in pia.get(f"/campaigns/{duel.cid}/panels/prompts").text  # the challenger gets none
    page = otto.get(f"/campaigns/{duel.cid}").text
    assert 'data-live="prompts characters encounter"' in page  # the panel follows new duels live
    duel.move("pia", duel.tecka, "begin", [6, 1])  # once the duel has begun, it is no longer new
    assert "duel-" not in otto.get(f"/campaigns/{duel.cid}/panels/prompts").text
