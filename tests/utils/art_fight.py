"""Builders for ART combat tests: a combat set up through the rules service on `Play`'s table (Maren, Tom, a
Goblin), each step with the encounter's current version, and the die faces that roll a wanted column."""

from __future__ import annotations

from typing import Any

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.models import Character
from app.characters.service import create_character
from app.encounters.models import Encounter
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from utils.art import NARRATOR, OTTO, PIA, Play


def face(row: int, level: str) -> int:
    """The lowest percentile face that reads `level` on `row` of the default table."""
    found = [f for f in range(1, 101) if art.DEFAULT_TABLE.read(row, f) is Level[level]]
    assert found, f"row {row} cannot roll {level}"
    return found[0]


class Fight:
    """A combat on `play`'s table: `setup` makes it; `step` acts as a seat (0 narrator, 1 Pia, 2 Otto) for a
    character with scripted dice and returns the log entry's body."""

    def __init__(self, play: Play) -> None:
        self.play = play
        self.encounter_id = 0

    def add(self, name: str, sheet: dict[str, Any], who: int = NARRATOR, kind: str = "npc") -> int:
        with self.play.factory() as db:
            acc = campaigns.access(db, db.get(User, self.play.user_ids[who]), self.play.campaign_id)
            cid = create_character(db, acc, name=name, system="art", sheet=sheet, kind=kind).id
            db.commit()
            return cid

    def request(
        self,
        who: int,
        action: str,
        params: dict[str, Any],
        faces: list[int] | None = None,
        character: int | None = None,
    ) -> rolls.ActionResult:
        with self.play.factory() as db:
            acc = campaigns.access(db, db.get(User, self.play.user_ids[who]), self.play.campaign_id)
            req = rolls.ActionRequest(system="art", action=action, character_id=character, params=params)
            return rolls.perform_action(db, acc, req, dice=ScriptedDice(faces or []))

    def setup(self, **params: Any) -> dict[str, Any]:
        defaults = {
            "adventurers": [self.play.hero, self.play.friend],
            "foes": [self.play.foe],
            "bands": 8,
            "adventurer_band": 2,
            "foe_band": 2,
        }
        result = self.request(NARRATOR, "combat_setup", {**defaults, **params})
        assert result.encounter_id is not None, "combat_setup makes an encounter"
        self.encounter_id = result.encounter_id
        return dict(result.entry.body)

    def encounter(self) -> Encounter:
        with self.play.factory() as db:
            enc = db.get_one(Encounter, self.encounter_id)
            db.expunge(enc)
            return enc

    def state(self) -> dict[str, Any]:
        return dict(self.encounter().state)

    def step(
        self, who: int, action: str, character: int | None, faces: list[int] | None = None, **params: Any
    ) -> dict[str, Any]:
        enc = self.encounter()
        result = self.request(who, action, {"encounter_id": enc.id, "version": enc.version, **params}, faces, character)
        return dict(result.entry.body)

    def fighter(self, cid: int) -> dict[str, Any]:
        fighters: list[dict[str, Any]] = self.state()["fighters"]
        return next(f for f in fighters if f["id"] == cid)

    def turn(self) -> int | None:
        order: list[int] = self.state()["order"]
        return order[0] if order else None

    def sheet(self, cid: int) -> dict[str, Any]:
        with self.play.factory() as db:
            return dict(db.get_one(Character, cid).sheet)

    def set_sheet(self, cid: int, **changes: Any) -> None:
        with self.play.factory() as db:
            ch = db.get_one(Character, cid)
            ch.sheet = {**ch.sheet, **changes}
            db.commit()


SWORD = {"name": "Sword", "slot": "ready", "type": "weapon", "cost": "Struggling", "weapon": "melee_1h"}


def sword_fight(play: Play, initiative: tuple[int, int], **setup: Any) -> Fight:
    """Maren and Tom, each with a sword, against the table's foe (or `setup`'s foes), all in band 2; the two
    initiative faces are Maren's and Tom's rolls."""
    play.act(PIA, "add_item", SWORD)
    play.act(OTTO, "add_item", SWORD, character=play.friend)
    fight = Fight(play)
    fight.setup(adventurer_band=2, foe_band=2, **setup)
    fight.step(PIA, "combat_initiative", play.hero, [initiative[0]])
    fight.step(OTTO, "combat_initiative", play.friend, [initiative[1]])
    return fight
