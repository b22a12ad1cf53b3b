"""The ART Engine's own leak tests (tests/utils/leak_world.py): a foe's levels and Fate rating are the
narrator's, in a roll against it and in a combat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from utils.dice import scripted
from utils.leak import Case
from utils.leak_world import (
    HIDDEN,
    ROLES,
    Played,
    World,
    assert_same,
    case_named,
    play,
    reveal,
)
from utils.said import said

from app.characters.models import Character


@pytest.mark.parametrize("visibility", ("public", *(v for v in HIDDEN if v != "self")))  # self: refused, above
def test_a_foes_level_never_reaches_the_players(
    visibility: str, database_url: str, tmp_path: Path, leak_worlds: list[World]
) -> None:
    """ART: the same roll against a foe whose Alertness is Inferior in one world and Poor in the other (both
    below the result, so success either way): the players' renderings are identical, before and after the
    reveal; the narrator's are not."""
    case = case_named("art-trait_roll-foe")
    results: dict[str, Played] = {}
    revealed: dict[str, dict[str, dict[str, str]]] = {}
    for level in ("IN", "PR"):
        world = World(database_url, tmp_path, f"foe-{visibility}-{level}", case)
        leak_worlds.append(world)
        with world.factory() as db:
            foe = db.get(Character, world.ids["foe"])
            foe.sheet = {**foe.sheet, "levels": {**foe.sheet["levels"], "ALE": level}}
            db.commit()
        played = results[level] = play(world, visibility, case.success, sheets_held=visibility != "public")
        assert world.entry(played.seq).body["outcome"]["concealed"]
        revealed[level] = played.snapshots
        if visibility != "public":
            reveal(played, visibility)
            revealed[level] = {viewer: world.snapshot(viewer) for viewer in ROLES}
        world.close()
    low, _high = results["IN"], results["PR"]
    mine = f"GET /campaigns/{low.world.campaign_id}/characters/{low.world.ids['mine']}"
    for when, shots in (
        ("before the reveal", {k: p.snapshots for k, p in results.items()}),
        ("after the reveal", revealed),
    ):
        for viewer in ("pia", "otto"):
            assert_same(shots["IN"][viewer], shots["PR"][viewer], viewer, f"foe level, {visibility}, {when}")
    assert revealed["IN"]["nora"][mine] != revealed["PR"]["nora"][mine], "the narrator sees the level"


# --- an ART combat's Fate rolls: a foe's Fate rating is the narrator's --------------------------------------

COMBAT_CASE = Case("art-combat", "art", "combat_aoe", {"band": "2", "weapon": "-1"}, [], [], setup="sword")


class CombatWorld(World):
    """The ART world's combat (initiative rolled) played on through the encounter's forms."""

    def step(self, who: str, action: str, key: str | None, faces: list[int], **data: Any) -> str:
        eid = self.encounters[0]
        with self.factory() as db:
            from app.encounters.models import Encounter

            version = db.get(Encounter, eid).version
        fields = {
            "version": str(version),
            **({"character_id": str(self.ids[key])} if key else {}),
            **{k: str(v) for k, v in data.items()},
        }
        with scripted(faces):
            return self.post_form(who, f"/campaigns/{self.campaign_id}/encounters/{eid}/act/{action}", fields)

    def row(self, key: str, code: str) -> int:
        from app.systems.art import rules as art
        from app.systems.art.sheet import load, weapon_stats

        sheet = load(self.sheet(key))
        if code == "ATTACK":
            return int(weapon_stats(sheet, sheet.gear[0])["attack"])
        return art.effective_row(art.trait_total(sheet.attributes[code] or 1, [], 0))

    def to_turn(self, key: str) -> None:
        """End turns until `key`'s character is on turn."""
        for _n in range(8):
            order = self.encounter_state()["order"]
            if order[0] == self.ids[key]:
                return
            who = next(k for k, v in self.ids.items() if v == order[0])
            self.step({"mine": "pia", "theirs": "otto", "foe": "nora"}[who], "combat_end_turn", who, [])
        pytest.fail(f"{key} never came on turn")


def test_a_foes_fate_rating_never_reaches_the_players_in_a_combat(
    database_url: str, tmp_path: Path, leak_worlds: list[World]
) -> None:
    """Two worlds that differ only in the Goblin's Fate rating (Poor, Good; both above the adventurers' lowest
    roll, so the same characters are hit): an AOE lands on everyone in a band and Tom attacks into Maren's
    grapple with the Goblin -- the Fate rolls decide who is hit. Every route renders identically for the
    players; the log names who is hit, never the Goblin's rating."""
    from utils.art_fight import face

    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for level in ("PR", "GD"):
        world = CombatWorld(database_url, tmp_path, f"combat-fate-{level}", COMBAT_CASE)
        leak_worlds.append(world)
        with world.factory() as db:
            foe = db.get(Character, world.ids["foe"])
            foe.sheet = {**foe.sheet, "levels": {**foe.sheet["levels"], "FAT": level}}
            tom = db.get(Character, world.ids["theirs"])
            tom.sheet = {**tom.sheet, "gear": world.sheet("mine")["gear"]}  # Tom has a sword too
            db.commit()
        world.step("nora", "combat_place", None, [], target=world.ids["foe"], band=2)
        # the AOE: Maren's grenade into her own band; Maren's Fate is Catastrophic, Tom's Awesome: Maren is hit
        world.to_turn("mine")
        world.step(
            "pia",
            "combat_aoe",
            "mine",
            [face(world.row("mine", "DEX"), "GD")],
            band=2,
            weapon=-1,
            damage="CT",
            targets=1,
        )
        world.step("pia", "combat_aoe_hit", "mine", [face(world.row("mine", "FAT"), "CT"), 100])
        text = said(world.entry(world.last_seq()).body)
        assert "Maren Catastrophic" in text and "Goblin (rating)" in text and "Goblin Poor" not in text, text
        assert world.entry(world.last_seq()).body["outcome"]["hit"] == [world.ids["mine"]]
        world.step("pia", "combat_end_turn", "mine", [])
        # the grapple, then Tom's attack into it: Maren's Fate is Catastrophic again, she is hit
        world.to_turn("mine")
        world.step(
            "pia",
            "combat_maneuver",
            "mine",
            [face(world.row("mine", "AGI"), "GD")],
            target=world.ids["foe"],
            maneuver="grapple",
        )
        world.step("pia", "combat_end_turn", "mine", [])
        world.to_turn("theirs")
        world.step(
            "otto",
            "combat_attack",
            "theirs",
            [face(world.row("mine", "FAT"), "CT"), face(world.row("theirs", "ATTACK"), "PS")],
            target=world.ids["foe"],
            weapon=0,
        )
        text = said(world.entry(world.last_seq()).body)
        assert "→ Maren is hit" in text and "Goblin (rating)" in text, text
        snapshots[level] = {viewer: world.snapshot(viewer) for viewer in ("pia", "otto")}
        world.close()
    for viewer in ("pia", "otto"):
        assert_same(snapshots["PR"][viewer], snapshots["GD"][viewer], viewer, "a foe's Fate rating in a combat")
