"""The cat fight through the rules service with scripted dice: every special rule, health written back to the
sheets, not-your-move refusals, the version race and regeneration over (faked) real time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from utils.catfight import MIMI, TECKA
from utils.said import said
from utils.tables import seat_table

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.models import Character
from app.characters.service import create_character
from app.encounters.models import Encounter
from app.errors import BadRequest, Conflict, Forbidden
from app.rolls import service as rolls
from app.rolls.models import LogEntry
from app.rules.dice import ScriptedDice

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


class World:
    def __init__(self, app: Any) -> None:
        self.factory = app.state.sessionmaker
        with self.factory() as db:
            campaign, users = seat_table(db, systems=("catfight",), name="The Wall")
            db.commit()
            self.campaign_id = campaign.id
            self.users = {n: u.id for n, u in users.items()}
            self.tecka = create_character(db, self.acc(db, "pia"), name="Tecka", system="catfight", sheet=TECKA).id
            self.mimi = create_character(db, self.acc(db, "otto"), name="Mimi", system="catfight", sheet=MIMI).id
            db.commit()
        self.encounter: int | None = None

    def acc(self, db: Any, who: str) -> campaigns.Access:
        return campaigns.access(db, db.get(User, self.users[who]), self.campaign_id)

    def act(
        self,
        who: str,
        action: str,
        character: int | None,
        faces: list[int] | None = None,
        key: str | None = None,
        **params: Any,
    ) -> LogEntry:
        with self.factory() as db:
            dice = ScriptedDice(faces or [])
            req = rolls.ActionRequest(system="catfight", action=action, character_id=character, params=params)
            entry = rolls.perform_action(db, self.acc(db, who), req, dice=dice, idempotency_key=key).entry
            assert dice.remaining == 0, f"{action}: {dice.remaining} scripted faces left over"
            if entry in db:  # a replayed entry is read from the session; a new one comes back detached
                db.refresh(entry)
                db.expunge(entry)
            return entry

    def challenge(self, who: str = "pia", a: int | None = None, b: int | None = None) -> LogEntry:
        entry = self.act(who, "challenge", a or self.tecka, opponent_id=b or self.mimi)
        self.encounter = entry.body["request"]["encounter_id"]
        return entry

    def duel(self) -> Encounter:
        with self.factory() as db:
            enc = db.get(Encounter, self.encounter)
            db.expunge(enc)
            return enc

    def move(self, who: str, cat: int, move: str, faces: list[int], **extra: Any) -> LogEntry:
        return self.act(
            who, "move", cat, faces, encounter_id=self.encounter, version=self.duel().version, move=move, **extra
        )

    def sheet(self, character: int) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get(Character, character).sheet)


@pytest.fixture
def world(app: Any) -> World:
    return World(app)


def _results(entry: LogEntry) -> list[tuple[str, str]]:
    return [(e["kind"], e["result"]) for e in entry.body["outcome"]["events"]]


def test_a_duel_to_the_knockout_with_every_attack_and_defend_critical(world: World) -> None:
    start = world.challenge()
    assert said(start.body) == "Tecka challenges Mimi to a duel."
    assert said(start.body, "de") == "Tecka fordert Mimi zum Duell heraus."
    assert world.sheet(world.tecka)["fighting"] and world.sheet(world.mimi)["fighting"]
    duel = world.duel()
    assert duel.state["to_move"] == "a" and duel.state["legal"] == ["begin"]

    # BEGINNING: a tie (3 and 3) rolls again; then 5 beats 2.
    e = world.move("pia", world.tecka, "begin", [3, 3, 5, 2])
    assert _results(e) == [("begin", "starts")]
    assert "tie, again" in said(e.body) and "Tecka starts" in said(e.body)
    assert [d["face"] for d in e.body["dice"]] == [3, 3, 5, 2]
    # SNEAK: 15-1 = 14 against 14+2 = 16: Mimi notices and attacks.
    e = world.move("pia", world.tecka, "sneak", [1, 2])
    assert _results(e) == [("sneak", "noticed")] and world.duel().state["to_move"] == "b"
    # CRITICAL HIT (6-6): Tecka loses 1 at once, no DEFEND/JUMP choice; Mimi attacks again.
    e = world.move("otto", world.mimi, "attack", [6, 6])
    assert _results(e) == [("attack", "critical_hit")]
    assert "CRITICAL HIT" in said(e.body) and "KRITISCHER TREFFER" in said(e.body, "de")
    assert world.sheet(world.tecka)["health"] == 2  # written back on the step
    # An ordinary attack: 12+4 = 16; Tecka sees the value and the exact chances before choosing.
    world.move("otto", world.mimi, "attack", [4])
    state = world.duel().state
    assert state["phase"] == "respond" and state["to_move"] == "a" and state["legal"] == ["defend", "jump"]
    assert state["chances"]["attack"] == 16
    assert state["chances"]["defend"] == {"num": 1, "den": 3, "percent": 33.3}  # 12+4 or 12+6 (or 6-6) ≥ 16
    # LUCKY FATE (6-6): parried, Tecka attacks now.
    e = world.move("pia", world.tecka, "defend", [6, 6])
    assert _results(e) == [("defend", "lucky_fate")] and world.duel().state["attacker"] == "a"
    assert "GLÜCKLICHE FÜGUNG" in said(e.body, "de")
    # CRITICAL GOOF (5-5): the paw misses, Mimi attacks.
    e = world.move("pia", world.tecka, "attack", [5, 5])
    assert _results(e) == [("attack", "critical_goof")] and world.duel().state["attacker"] == "b"
    # A failed DEFEND: 12+2 = 14 < 12+4 = 16 → a hit, Mimi keeps the upper hand.
    world.move("otto", world.mimi, "attack", [4])
    e = world.move("pia", world.tecka, "defend", [2])
    assert _results(e) == [("defend", "hit")] and world.sheet(world.tecka)["health"] == 1
    # UNLUCKY CAT (5-5) at 1 point: knocked out; Mimi wins and the duel is over.
    world.move("otto", world.mimi, "attack", [2])
    e = world.move("pia", world.tecka, "defend", [5, 5])
    assert _results(e) == [("defend", "unlucky_cat"), ("knockout", "knocked_out")]
    assert "PECHVOGEL" in said(e.body, "de") and "Mimi wins" in said(e.body)
    duel = world.duel()
    assert duel.status == "over" and duel.state["winner"] == "b" and duel.state["outcome"] == "knockout"
    assert world.sheet(world.tecka) == {**TECKA, "health": 0, "fighting": False, "escaped_at": None}
    assert world.sheet(world.mimi) == {**MIMI, "health": 3, "fighting": False, "escaped_at": None}
    # A knocked-out cat cannot fight until a narrator heals it.
    with pytest.raises(BadRequest, match="knocked out"):
        world.challenge("otto", world.mimi, world.tecka)
    with pytest.raises(Forbidden):
        world.act("pia", "heal", world.tecka)
    world.act("nora", "heal", world.tecka)
    assert world.sheet(world.tecka)["health"] == 3


def test_jump_dodges_and_hits(world: World) -> None:
    world.challenge()
    world.move("pia", world.tecka, "begin", [6, 1])
    world.move("pia", world.tecka, "sneak", [2, 1])  # 17 against 13: Tecka sneaks up and attacks
    world.move("pia", world.tecka, "attack", [2])  # 18
    chances = world.duel().state["chances"]
    assert chances["jump"]["num"] / chances["jump"]["den"] == pytest.approx(chances["jump"]["percent"] / 100, abs=1e-3)
    e = world.move("otto", world.mimi, "jump", [2, 1])  # Mimi 14+2 = 16 against Tecka 15-1 = 14: dodged
    assert _results(e) == [("jump", "dodged")] and world.duel().state["attacker"] == "b"
    world.move("otto", world.mimi, "attack", [2])
    e = world.move("pia", world.tecka, "jump", [1, 2])  # Tecka 14 against Mimi 16: Mimi follows, a hit
    assert _results(e) == [("jump", "hit")] and world.sheet(world.tecka)["health"] == 2


@pytest.mark.parametrize(
    ("faces", "result", "health", "over"),
    [
        ([6, 6, 2], "escaped", (3, 3), True),  # the fleeing cat's 6-6: away at once
        ([2, 6, 6], "caught", (3, 3), False),  # the chaser's 6-6: caught, the chaser attacks
        ([5, 5, 2], "stumbled", (2, 3), False),  # the fleeing cat's 5-5: loses 1 and is caught
        ([2, 5, 5], "chaser_injured", (3, 2), True),  # the chaser's 5-5: loses 1, the fleeing cat escapes
        ([6, 6, 6, 6], "caught", (3, 3), False),  # both 6-6 cancel: 12+6 = 18 against 14+6 = 20
        ([1, 3, 4, 1], "escaped", (3, 3), True),  # 12-1 = 11 against 14-3 = 11 ties: again, 16 against 13
    ],
)
def test_fleeing_criticals(world: World, faces: list[int], result: str, health: tuple[int, int], over: bool) -> None:
    world.challenge()
    world.move("pia", world.tecka, "begin", [6, 1])
    world.move("pia", world.tecka, "sneak", [2, 1])
    assert "flee" in world.duel().state["legal"]
    e = world.move("pia", world.tecka, "flee", faces)
    assert _results(e)[0] == ("flee", result)
    duel = world.duel()
    assert (duel.state["a"]["health"], duel.state["b"]["health"]) == health
    assert (duel.status == "over") is over
    tecka = world.sheet(world.tecka)
    assert (tecka["health"], world.sheet(world.mimi)["health"]) == health
    assert tecka["fighting"] is not over
    assert (tecka["escaped_at"] is not None) is over
    if faces == [6, 6, 6, 6]:
        assert e.body["outcome"]["events"][0]["criticals_cancelled"]
        assert "cancel" in said(e.body)


def test_only_the_cat_to_move_may_move_and_only_legal_moves(world: World) -> None:
    world.challenge()
    version = world.duel().version
    with pytest.raises(BadRequest, match="Tecka's move"):  # Mimi is not to move
        world.act("otto", "move", world.mimi, encounter_id=world.encounter, version=version, move="begin")
    with pytest.raises(Forbidden):  # Otto cannot move Pia's cat
        world.act("otto", "move", world.tecka, [5, 2], encounter_id=world.encounter, version=version, move="begin")
    with pytest.raises(BadRequest, match="not possible"):  # FLEE only with the upper hand
        world.act("pia", "move", world.tecka, encounter_id=world.encounter, version=version, move="flee")
    with pytest.raises(BadRequest):
        world.act("pia", "move", world.tecka, encounter_id=world.encounter, version=version, move="pounce")
    world.act("nora", "move", world.tecka, [5, 2], encounter_id=world.encounter, version=version, move="begin")
    # The same move again from the state seen before: already resolved, and nothing was written.
    with pytest.raises(Conflict, match="Already resolved"):
        world.act("pia", "move", world.tecka, [5, 2], encounter_id=world.encounter, version=version, move="begin")
    # The same tap replayed with its idempotency key gives the first entry back.
    first = world.act(
        "pia", "move", world.tecka, [2, 1], key="tap-1", encounter_id=world.encounter, version=version + 1, move="sneak"
    )
    again = world.act(
        "pia", "move", world.tecka, [], key="tap-1", encounter_id=world.encounter, version=version + 1, move="sneak"
    )
    assert again.seq == first.seq
    with world.factory() as db:
        assert db.scalar(select(Encounter.version).where(Encounter.id == world.encounter)) == version + 2


def test_a_cat_fights_one_duel_at_a_time(world: World) -> None:
    world.challenge()
    with world.factory() as db:
        third = create_character(
            db,
            world.acc(db, "nora"),
            name="Rex",
            system="catfight",
            kind="npc",
            sheet={"attack": 14, "defend": 14, "jump": 14, "sneak": 14, "quickness": 14},
        ).id
        db.commit()
    with pytest.raises(BadRequest, match="already in a duel"):
        world.challenge("nora", third, world.mimi)
    world.act("nora", "call_off", None, encounter_id=world.encounter, version=world.duel().version)
    assert world.duel().status == "over" and world.duel().state["outcome"] == "called_off"
    assert not world.sheet(world.tecka)["fighting"] and not world.sheet(world.mimi)["fighting"]
    world.challenge("nora", third, world.mimi)  # a brawl: the narrator pairs the next duel


def test_an_escaped_cat_regenerates_with_real_time(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    t0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    clock = {"now": t0}
    monkeypatch.setattr(rolls, "utcnow", lambda: clock["now"])
    world.act("nora", "settings", None, regen_minutes=4)
    world.challenge()
    world.move("pia", world.tecka, "begin", [5, 2])
    world.move("pia", world.tecka, "sneak", [1, 2])  # Mimi notices
    world.move("otto", world.mimi, "attack", [4])  # 16
    world.move("pia", world.tecka, "defend", [2])  # 14: hit, Tecka 2
    world.move("otto", world.mimi, "attack", [5, 5])  # goof: Tecka attacks, and flees instead
    world.move("pia", world.tecka, "flee", [6, 6, 2])
    tecka = world.sheet(world.tecka)
    assert tecka["health"] == 2 and tecka["escaped_at"] == t0.timestamp() and not tecka["fighting"]

    from app.systems.catfight.rest import rest_view

    settings = {"regen_minutes": 4}
    assert rest_view(tecka, settings, t0.timestamp() + 239)["health"] == 2
    assert rest_view(tecka, settings, t0.timestamp() + 240)["health"] == 3
    # Back into a duel 3 minutes later: still 2 (the narrator's interval is 4 minutes)...
    clock["now"] = t0 + timedelta(minutes=3)
    world.challenge("otto", world.mimi, world.tecka)
    assert world.duel().state["b"]["health"] == 2
    world.act("nora", "call_off", None, encounter_id=world.encounter, version=world.duel().version)
    # ...and the health it rejoined with is the new start: a cat set aside without escaping does not regenerate.
    clock["now"] = t0 + timedelta(hours=1)
    assert world.sheet(world.tecka)["escaped_at"] is None
    world.challenge()
    assert world.duel().state["a"]["health"] == 2


def test_regeneration_setting_is_the_narrators(world: World) -> None:
    with pytest.raises(Forbidden):
        world.act("pia", "settings", None, regen_minutes=1)
    with pytest.raises(BadRequest):
        world.act("nora", "settings", None, regen_minutes=0)
    world.act("nora", "settings", None, regen_minutes=7)
    with world.factory() as db:
        assert world.acc(db, "nora").campaign.settings["catfight"] == {"regen_minutes": 7}


def test_creating_a_cat_checks_the_sum(world: World) -> None:
    with world.factory() as db:
        acc = world.acc(db, "pia")
        with pytest.raises(BadRequest, match="add up to 71") as bad:
            create_character(db, acc, name="Greedy", system="catfight", sheet={**TECKA, "attack": 17})
        assert bad.value.field == "total"
        with pytest.raises(BadRequest, match="at least 1") as bad:
            create_character(db, acc, name="Zero", system="catfight", sheet={**TECKA, "attack": 0, "defend": 28})
        assert bad.value.field == "attack"
        with pytest.raises(BadRequest, match="whole number") as bad:
            create_character(db, acc, name="Odd", system="catfight", sheet={**TECKA, "jump": "lots"})
        assert bad.value.field == "jump"
        cat = create_character(db, acc, name="Tecka II", system="catfight", sheet={k: str(v) for k, v in TECKA.items()})
        assert cat.sheet == {**TECKA, "health": 3, "fighting": False, "escaped_at": None}
