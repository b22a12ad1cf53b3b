"""The cat fight's pages: creating a cat (Tecka, the live sum, errors by their fields), the duel page with only
the viewer's legal buttons and the defender's chances, the race of two taps, the campaign page (pairing,
regeneration setting), German pages and log lines, and the demo."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.catfight import MIMI, TECKA
from utils.dice import scripted
from utils.tables import Table
from utils.web import csrf_of, signed_in

from app.systems.catfight.rules.odds import exact_defend_chance, exact_jump_chance


class Duel:
    def __init__(self, client: TestClient, new_client: Any, *, lang: str = "en") -> None:
        self.t = Table(client, systems=("catfight",))
        self.client = client
        self.tecka = self.t.character(self.t.player, "Tecka", "catfight", TECKA)
        self.mimi = self.t.character(self.t.other, "Mimi", "catfight", MIMI)
        self.pia = signed_in(new_client, "pia", lang=lang)
        self.otto = signed_in(new_client, "otto", lang=lang)
        self.nora = signed_in(new_client, "nora", lang=lang)
        self.base = f"/campaigns/{self.t.id}"

    def api(self, who: dict[str, str], action: str, character: int | None, **params: Any):
        return self.client.post(
            f"/api/campaigns/{self.t.id}/actions",
            headers=who,
            json={"system": "catfight", "action": action, "character_id": character, "params": params},
        )

    def start(self) -> int:
        r = self.api(self.t.player, "challenge", self.tecka, opponent_id=self.mimi)
        assert r.status_code == 201, r.text
        self.encounter = r.json()["request"]["encounter_id"]
        return self.encounter

    def view(self, who: TestClient) -> str:
        r = who.get(f"{self.base}/encounters/{self.encounter}/view")
        assert r.status_code == 200, r.text
        return r.text

    def version(self) -> int:
        return int(re.search(r'name="version" value="(\d+)"', self.view(self.nora)).group(1))  # type: ignore[union-attr]

    def tap(self, who: TestClient, cat: int, move: str, version: int | None = None, key: str | None = None):
        return who.post(
            f"{self.base}/encounters/{self.encounter}/act/move",
            headers={"HX-Request": "true"},
            data={
                "character_id": cat,
                "version": version or self.version(),
                "move": move,
                "idempotency_key": key or f"k-{move}-{version}-{id(who)}",
            },
        )

    def play_until(self, phase_moves: list[tuple[TestClient, int, str]]) -> None:
        for who, cat, move in phase_moves:
            r = self.tap(who, cat, move)
            assert r.status_code == 200, r.text


def buttons(html: str) -> list[str]:
    return re.findall(r'name="move" value="(\w+)"', html)


@pytest.fixture
def duel(client: TestClient, new_client: Any) -> Duel:
    return Duel(client, new_client)


def test_the_create_page_fills_in_tecka_counts_to_70_and_names_the_wrong_field(duel: Duel) -> None:
    page = duel.pia.get(f"{duel.base}/characters/new/catfight")
    assert page.status_code == 200 and "Use the example cat Tecka" in page.text
    link = re.search(r'id="catfight-tecka" href="([^"]+)"', page.text).group(1).replace("&amp;", "&")  # type: ignore[union-attr]
    filled = duel.pia.get(link).text
    assert 'value="Tecka"' in filled and 'id="cf-attack"' in filled and 'value="16"' in filled
    assert "Sum: 70 of 70" in filled and "just right" in filled
    # The live counter: the same page with the values so far (htmx takes #catfight-sum out of it).
    partial = duel.pia.get(f"{duel.base}/characters/new/catfight", params={"attack": 20, "defend": 20}).text
    assert "Sum: 40 of 70" in partial and "30 left to give" in partial
    assert "too many" in duel.pia.get(f"{duel.base}/characters/new/catfight", params={"attack": 80}).text

    token = csrf_of(duel.pia, "/account")
    bad = duel.pia.post(
        f"{duel.base}/characters/new/catfight",
        follow_redirects=False,
        data={"csrf_token": token, "name": "Greedy", **TECKA, "attack": 17},
    )
    assert bad.status_code == 422
    assert re.search(
        r'id="catfight-sum".*?</p>\s*<p class="error field-error" role="alert">The five values add up to 71',
        bad.text,
        re.S,
    )
    assert 'value="17"' in bad.text  # what was typed stays, to fix it
    zero = duel.pia.post(
        f"{duel.base}/characters/new/catfight",
        follow_redirects=False,
        data={"csrf_token": token, "name": "Zero", **TECKA, "jump": 0, "sneak": 30},
    )
    assert re.search(
        r'id="cf-jump"[^>]*>\s*<p class="error field-error" role="alert">JUMP must be at least 1', zero.text
    )
    ok = duel.pia.post(
        f"{duel.base}/characters/new/catfight",
        follow_redirects=False,
        data={"csrf_token": token, "name": "Tecka the Second", **TECKA},
    )
    assert ok.status_code == 303
    sheet = duel.pia.get(ok.headers["location"]).text
    assert "Tecka the Second" in sheet and "Sum: 70 of 70" in sheet and "3 / 3" in sheet


def test_each_viewer_sees_only_their_legal_buttons_and_the_defender_sees_the_chances(duel: Duel) -> None:
    duel.start()
    # BEGINNING: Tecka's owner rolls for both; Otto waits; the narrator controls every cat.
    assert buttons(duel.view(duel.pia)) == ["begin"]
    assert buttons(duel.view(duel.otto)) == [] and "Waiting for Tecka" in duel.view(duel.otto)
    assert buttons(duel.view(duel.nora)) == ["begin"]
    # Not Otto's move: the refusal is shown in the block, and nothing moves.
    refused = duel.tap(duel.otto, duel.mimi, "begin")
    assert refused.status_code == 422 and "Tecka&#39;s move" in refused.text
    refused = duel.tap(duel.otto, duel.tecka, "begin")
    assert refused.status_code == 403
    # Scripted dice (a = Tecka, the challenger): BEGINNING Tecka 6 against Mimi 1, Tecka sneaks; SNEAK 15+4 against
    # 14-1, Tecka keeps the upper hand.
    with scripted([6, 1]):
        assert duel.tap(duel.pia, duel.tecka, "begin").status_code == 200
    assert buttons(duel.view(duel.pia)) == ["sneak"] and buttons(duel.view(duel.otto)) == []
    with scripted([4, 1]):
        assert duel.tap(duel.pia, duel.tecka, "sneak").status_code == 200
    # FLEE only for the cat with the upper hand.
    assert buttons(duel.view(duel.pia)) == ["attack", "flee"]
    assert buttons(duel.view(duel.otto)) == []
    with scripted([4]):  # ATTACK 16+4 = 20, not a critical: Mimi must answer
        assert duel.tap(duel.pia, duel.tecka, "attack").status_code == 200
    html = duel.view(duel.otto)
    assert buttons(html) == ["defend", "jump"]
    assert "attacks with 20. Mimi chooses: DEFEND or JUMP" in html
    # The defender's exact chances: DEFEND 16 against 20 is 1/3, JUMP 14 against Tecka's 15 is 5/12.
    assert (exact_defend_chance(16, 20), exact_jump_chance(14, 15)) == (Fraction(1, 3), Fraction(5, 12))
    assert re.search(r"Defend <span class=\"catfight-chance\">1/3 · 33[\d.,]*\s?%</span>", html)
    assert re.search(r"Jump <span class=\"catfight-chance\">5/12 · 4[12][\d.,]*\s?%</span>", html)
    assert buttons(duel.view(duel.pia)) == []
    with scripted([2, 1]):  # JUMP: Mimi 14+2 against Tecka 15-1: dodged, Mimi has the upper hand
        assert duel.tap(duel.otto, duel.mimi, "jump").status_code == 200
    assert buttons(duel.view(duel.otto)) == ["attack", "flee"] and buttons(duel.view(duel.pia)) == []


def test_two_taps_racing_for_one_move_make_one_step(duel: Duel) -> None:
    duel.start()
    version = duel.version()
    first = duel.tap(duel.pia, duel.tecka, "begin", version, key="phone")
    second = duel.tap(duel.nora, duel.tecka, "begin", version, key="laptop")
    assert first.status_code == 200
    assert second.status_code == 409
    assert 'id="catfight-move-error"' in second.text and "Already resolved" in second.text
    assert 'id="encounter"' in second.text  # where things stand now, in the same block
    # The same tap sent twice (a double-tap through a bad connection) is one step too.
    version = duel.version()
    r1 = duel.tap(
        duel.nora,
        duel.tecka if f'name="character_id" value="{duel.tecka}"' in duel.view(duel.nora) else duel.mimi,
        "sneak",
        version,
        key="double",
    )
    assert r1.status_code == 200
    log = duel.t.log(duel.t.narrator)
    assert [e["action"] for e in log if e["system"] == "catfight"] == ["challenge", "move", "move"]


def test_the_campaign_page_pairs_cats_and_sets_regeneration(duel: Duel) -> None:
    page = duel.nora.get(f"{duel.base}/systems/catfight")
    assert page.status_code == 200 and "Pair two cats" in page.text and "No duel is running" in page.text
    assert "Pair two cats" not in duel.pia.get(f"{duel.base}/systems/catfight").text
    r = duel.nora.post(
        f"{duel.base}/systems/catfight/act/challenge",
        headers={"HX-Request": "true"},
        data={"character_id": duel.tecka, "opponent_id": duel.tecka, "idempotency_key": "x1"},
    )
    assert r.status_code == 422 and "its own opponent" in r.text
    r = duel.nora.post(
        f"{duel.base}/systems/catfight/act/challenge",
        headers={"HX-Request": "true"},
        data={"character_id": duel.tecka, "opponent_id": duel.mimi, "idempotency_key": "x2"},
    )
    assert r.status_code == 200, r.text
    assert "Open the duel" in r.text and "Tecka vs Mimi" in r.text
    assert re.search(r"Tecka</a>.*?fighting", r.text, re.S)
    r = duel.nora.post(
        f"{duel.base}/systems/catfight/act/settings",
        headers={"HX-Request": "true"},
        data={"regen_minutes": "0", "idempotency_key": "s1"},
    )
    assert r.status_code == 422 and 'role="alert"' in r.text
    r = duel.nora.post(
        f"{duel.base}/systems/catfight/act/settings",
        headers={"HX-Request": "true"},
        data={"regen_minutes": "3", "idempotency_key": "s2"},
    )
    assert r.status_code == 200 and 'value="3"' in r.text
    r = duel.pia.post(
        f"{duel.base}/systems/catfight/act/settings",
        headers={"HX-Request": "true"},
        data={"regen_minutes": "1", "idempotency_key": "s3"},
    )
    assert r.status_code == 403
    # The players' cats' sheets link to the duel.
    sheet = duel.otto.get(f"{duel.base}/characters/{duel.mimi}").text
    assert "In a duel right now" in sheet and "Tecka vs Mimi" in sheet


def test_a_player_challenges_from_the_sheet(duel: Duel) -> None:
    r = duel.pia.post(
        f"{duel.base}/characters/{duel.tecka}/act/challenge",
        headers={"HX-Request": "true"},
        data={"opponent_id": duel.mimi, "idempotency_key": "c1"},
    )
    assert r.status_code == 200, r.text
    assert "Tecka challenges Mimi to a duel." in r.text and "/encounters/" in r.text
    again = duel.pia.post(
        f"{duel.base}/characters/{duel.tecka}/act/challenge",
        headers={"HX-Request": "true"},
        data={"opponent_id": duel.mimi, "idempotency_key": "c2"},
    )
    assert again.status_code == 422 and "Tecka is already in a duel." in again.text
    assert "Finish the duel first" in again.text  # and the form is gone


def test_german_pages_and_log_lines(client: TestClient, new_client: Any) -> None:
    duel = Duel(client, new_client, lang="de")
    english = signed_in(new_client, "otto", lang="en")
    duel.start()
    html = duel.view(duel.pia)
    assert "Auswürfeln, wer beginnt" in html and "Beide Katzen würfeln" in html
    assert "Tecka fordert Mimi zum Duell heraus." in html
    with scripted([6, 1]):  # Tecka starts
        assert duel.tap(duel.pia, duel.tecka, "begin").status_code == 200
    with scripted([4, 1]):  # and keeps the upper hand
        assert duel.tap(duel.nora, duel.tecka, "sneak").status_code == 200
    html = duel.view(duel.nora)
    assert buttons(html) == ["attack", "flee"]
    assert "Attacke" in html and "Flucht" in html and "Oberhand" in html
    with scripted([4]):  # not a critical: Mimi must answer
        assert duel.tap(duel.nora, duel.tecka, "attack").status_code == 200
    html = duel.view(duel.nora)
    assert buttons(html) == ["defend", "jump"]
    assert "Verteidigung" in html and "Sprung" in html
    assert "entscheidet: Verteidigung (DEFEND) oder Sprung (JUMP)" in html
    # The log: German lines for German viewers, English for English ones (same entry).
    table_de = duel.pia.get(duel.base).text
    table_en = english.get(duel.base).text
    assert "fordert Mimi zum Duell heraus" in table_de and "challenges Mimi to a duel" not in table_de
    assert "challenges Mimi to a duel" in table_en and "fordert" not in table_en
    assert "Wer beginnt?" in table_de and "Who starts?" in table_en
    # The create page and the sheet.
    create = duel.pia.get(f"{duel.base}/characters/new/catfight").text
    assert "Neue Katze" in create and "Beispielkatze Tecka übernehmen" in create
    assert "Summe: 0 von 70" in create
    sheet = duel.pia.get(f"{duel.base}/characters/{duel.tecka}").text
    assert "Lebenspunkte" in sheet and "Kämpft gerade in einem Duell." in sheet
    campaign = duel.nora.get(f"{duel.base}/systems/catfight").text
    assert "Zwei Katzen gegeneinander" in campaign and "Katzenkampf" in campaign


def test_the_demo_has_two_cats_and_a_duel_ready_to_begin(tmp_path: Any) -> None:
    from sqlalchemy import select

    from app.characters.models import Character
    from app.config import Settings
    from app.db import make_engine, make_sessionmaker
    from app.demo import seed
    from app.encounters.models import Encounter
    from app.models import Base

    url = f"sqlite:///{tmp_path / 'demo.db'}"
    engine = make_engine(url)
    Base.metadata.create_all(engine)
    seed(Settings(database_url=url, secret_key="test-secret", secret_key_file=tmp_path / "key"))
    with make_sessionmaker(engine)() as db:
        cats = {c.name: c for c in db.scalars(select(Character).where(Character.system == "catfight"))}
        assert {"Tecka", "Mimi"} <= set(cats)
        assert cats["Tecka"].sheet["attack"] == 16 and cats["Tecka"].sheet["fighting"]
        duel = db.scalars(select(Encounter).where(Encounter.system == "catfight")).one()
        assert duel.status == "active" and duel.state["legal"] == ["begin"] and duel.title == "Tecka vs Mimi"
    engine.dispose()
