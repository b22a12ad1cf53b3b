"""An ART exploration scene with three players on the phase track, played through the rules service with
scripted dice (art-engine.md ch. 4): declared actions timed by the time rule, the turn marker and whose turn it
is, a failed try raising the scale, a time limit aborting, influencing another's action, travel, shadowing and
tracking as complex actions, and the refusals (not your turn, not your character, a stale step)."""

from __future__ import annotations

from typing import Any

import pytest
from utils.art import FOE, balanced_fields
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
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.art.sheet import load


def face(row: int, level: Level) -> int:
    """The lowest percentile roll that lands on `level` on this row of the default table."""
    found = next((f for f in range(1, 101) if art.read_table(row, f) is level), None)
    assert found is not None, f"{level.name} cannot be rolled on row {row}"
    return found


# The balanced adventurer (tests/utils/art.py): STR 9, DEX 7, ALE 7, AGI 9, STA 10, INT 11.
STR, DEX, ALE, AGI, STA = 9, 7, 7, 9, 10


class Scene:
    def __init__(self, app: Any) -> None:
        self.factory = app.state.sessionmaker
        with self.factory() as db:
            campaign, users = seat_table(db, ("nora", "pia", "otto", "ulla"), systems=("art",), name="Caves")
            db.commit()
            self.campaign_id = campaign.id
            self.users = {n: u.id for n, u in users.items()}
            self.ids = {}
            for who, name in (("pia", "Maren"), ("otto", "Tom"), ("ulla", "Lia")):
                self.ids[name] = create_character(
                    db, self.acc(db, who), name=name, system="art", sheet=balanced_fields()
                ).id
            db.commit()
        self.encounter: int | None = None

    def acc(self, db: Any, who: str) -> campaigns.Access:
        return campaigns.access(db, db.get(User, self.users[who]), self.campaign_id)

    def act(
        self, who: str, action: str, character: str | None, faces: list[int] | None = None, **params: Any
    ) -> dict[str, Any]:
        with self.factory() as db:
            dice = ScriptedDice(faces or [])
            cid = self.ids[character] if character else None
            req = rolls.ActionRequest(system="art", action=action, character_id=cid, params=params)
            entry = rolls.perform_action(db, self.acc(db, who), req, dice=dice).entry
            assert dice.remaining == 0, f"{action}: {dice.remaining} scripted faces left over"
            return {**entry.body, "seq": entry.seq}

    def start(self, scale: str = "minutes") -> dict[str, Any]:
        body = self.act(
            "nora", "explore_start", None, participants=list(self.ids.values()), title="The caves", scale=scale
        )
        self.encounter = body["request"]["encounter_id"]
        return body

    def step(
        self, who: str, action: str, character: str | None, faces: list[int] | None = None, **params: Any
    ) -> dict[str, Any]:
        return self.act(who, action, character, faces, encounter_id=self.encounter, version=self.version(), **params)

    def declare(self, who: str, character: str, faces: list[int] | None = None, **params: Any) -> dict[str, Any]:
        return self.step(who, "explore_declare", character, faces, **params)

    def scene(self) -> Encounter:
        with self.factory() as db:
            found = db.get(Encounter, self.encounter)
            db.expunge(found)
            return found

    def version(self) -> int:
        return self.scene().version

    def state(self) -> dict[str, Any]:
        return dict(self.scene().state)

    def token(self, name: str) -> dict[str, Any]:
        return self.state()["tokens"][str(self.ids[name])]

    def to_act(self) -> list[str]:
        state = self.state()
        return [state["tokens"][k]["name"] for k in state["order"] if state["tokens"][k]["at"] == state["now"]]

    def sheet(self, name: str) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get(Character, self.ids[name]).sheet)

    def log(self) -> list[LogEntry]:
        with self.factory() as db:
            entries = list(db.query(LogEntry).filter_by(campaign_id=self.campaign_id).order_by(LogEntry.seq))
            for e in entries:
                db.expunge(e)
            return entries


@pytest.fixture
def scene(app: Any) -> Scene:
    return Scene(app)


def test_three_players_play_through_the_phase_track(scene: Scene) -> None:
    start = scene.start()
    assert "exploration scene 'The caves' begins" in said(start)
    state = scene.state()
    assert state["marker"] == 0 and state["now"] == 0 and state["scale"] == "minutes"
    assert [t["square"] for t in state["tokens"].values()] == [0, 0, 0]
    assert scene.to_act() == ["Maren", "Tom", "Lia"]

    # Rick's cliff (ch. 4): Feeble against Passable, 3 failures: Maren climbs 3 phases before she would fall.
    body = scene.declare(
        "pia", "Maren", [face(STR, Level.FB)], task="Climb the cliff", attribute="STR", difficulty="PS"
    )
    assert "fails, 3 phases (15 minutes), until phase 3" in said(body)
    assert scene.token("Maren")["square"] == 3 and scene.token("Maren")["action"]["outcome"] == "fails"
    assert scene.to_act() == ["Tom", "Lia"]  # the marker waits for everyone on its square

    # Shari's help: Great against Passable is 2 phases, before Maren's 3: the influence lands.
    body = scene.declare(
        "otto",
        "Tom",
        [face(STR, Level.GT)],
        task="Reach Maren's hand",
        attribute="STR",
        difficulty="PS",
        influence_id=scene.ids["Maren"],
        influence="help",
    )
    assert "succeeds, 2 phases (10 minutes)" in said(body)
    assert "reaches Maren at phase 2, before their action ends" in said(body)
    maren = scene.token("Maren")["action"]
    assert maren["outcome"] == "helped" and maren["influenced"] == {"by": "Tom", "mode": "help", "at": 2}

    # Lia lets a phase go by; nobody is left on square 1, so the marker moves on to the nearest token: Lia's.
    body = scene.declare("ulla", "Lia", kind="wait")
    assert "the turn marker moves to square 2 (phase 1): Lia to act" in said(body)
    assert scene.to_act() == ["Lia"]

    # A time limit: Feeble against Passable would take 3 phases; Lia gives it 2. Aborted, busy for 2.
    body = scene.declare(
        "ulla", "Lia", [face(DEX, Level.FB)], task="Pick the lock", attribute="DEX", difficulty="PS", limit=2
    )
    assert "aborted at the time limit of 2 (it would take 3)" in said(body)
    lia = scene.token("Lia")
    assert lia["at"] == 3 and lia["square"] == 3 and lia["action"]["outcome"] == "aborted"
    assert body["outcome"]["phases"] == 2
    assert scene.to_act() == ["Tom"] and scene.state()["now"] == 2

    # Turn order is the server's: Maren's token is on square 4, the marker on square 3.
    with pytest.raises(BadRequest, match="It is not Maren's turn"):
        scene.declare("pia", "Maren", [50], task="Look around", attribute="ALE", difficulty="PR")
    # A player acts only for their own character.
    with pytest.raises(Forbidden):
        scene.declare("pia", "Tom", [50], task="Look around", attribute="ALE", difficulty="PR")
    # A step made on a state that has moved on is "already resolved".
    stale = scene.version() - 1
    with pytest.raises(Conflict, match="Already resolved"):
        scene.act(
            "otto",
            "explore_declare",
            "Tom",
            [50],
            encounter_id=scene.encounter,
            version=stale,
            task="Look around",
            attribute="ALE",
            difficulty="PR",
        )

    # A failed try with no penalty: the narrator raises the task's scale; the retry waits for that scale.
    body = scene.declare("otto", "Tom", [face(DEX, Level.PR)], task="Open the safe", attribute="DEX", difficulty="PS")
    assert "fails, 1 phase (5 minutes)" in said(body)
    body = scene.step("nora", "explore_raise", None, token=scene.ids["Tom"], task="open the safe")
    assert "Tom's next try at 'Open the safe' takes hours" in said(body)
    with pytest.raises(BadRequest, match="already raised"):
        scene.step("nora", "explore_raise", None, token=scene.ids["Tom"], task="Open the safe")
    # Everyone on phase 3 now (Maren, Lia, Tom): the aborted lock waits for the next session.
    assert scene.to_act() == ["Maren", "Tom", "Lia"]
    with pytest.raises(BadRequest, match="cannot be tried again until the next gaming session"):
        scene.declare("ulla", "Lia", [50], task="pick the lock", attribute="DEX", difficulty="PS")
    with pytest.raises(BadRequest, match="now takes hours"):
        scene.declare("otto", "Tom", [50], task="Open the safe", attribute="DEX", difficulty="PS")
    scene.step("nora", "explore_scale", None, scale="hours")
    body = scene.declare("otto", "Tom", [face(DEX, Level.GD)], task="Open the safe", attribute="DEX", difficulty="PS")
    assert "succeeds, 3 phases (3 hours), until phase 6" in said(body)
    assert scene.token("Tom")["action"]["scale"] == "hours"

    log = scene.log()
    assert [e.action for e in log] == [
        "explore_start",
        "explore_declare",
        "explore_declare",
        "explore_declare",
        "explore_declare",
        "explore_declare",
        "explore_raise",
        "explore_scale",
        "explore_declare",
    ]
    assert all(e.body["request"]["encounter_id"] == scene.encounter for e in log)


def test_a_ten_phase_action_comes_back_to_its_square_one_lap_later(scene: Scene) -> None:
    scene.start()
    # Catastrophic against Extreme: 10 failures, 10 phases (ruling 31): square 1 again, but a lap later.
    body = scene.declare("pia", "Maren", [1], task="Move the boulder", attribute="STR", difficulty="EX")
    assert "fails, 10 phases" in said(body)
    assert scene.token("Maren")["square"] == 0 and scene.token("Maren")["at"] == 10
    scene.declare("otto", "Tom", kind="wait")  # a phase goes by
    scene.declare("ulla", "Lia", [face(DEX, Level.GD)], task="Climb", attribute="DEX", difficulty="PS")  # 3
    assert scene.state()["marker"] == 1 and scene.to_act() == ["Tom"]
    with pytest.raises(BadRequest, match="It is not Maren's turn"):
        scene.declare("pia", "Maren", [50], task="Push", attribute="STR", difficulty="PR")
    # Awesome: less than a phase; Tom acts again on the same phase.
    body = scene.declare("otto", "Tom", [100], task="Spot the exit", attribute="ALE", difficulty="PR")
    assert "in no time: acts again this phase" in said(body) and scene.to_act() == ["Tom"]
    scene.step(
        "nora", "explore_time", None, token=scene.ids["Tom"], phases=9, what="walks to the camp", place="the camp"
    )
    assert scene.token("Tom")["place"] == "the camp"
    assert scene.state()["now"] == 3 and scene.to_act() == ["Lia"]
    scene.declare("ulla", "Lia", [face(DEX, Level.PR)], task="Climb", attribute="DEX", difficulty="PS")  # 1 failure
    # Lia at 4, Maren at 10, Tom at 10: the marker goes past square 5 to Lia's and then all the way round.
    assert scene.to_act() == ["Lia"]
    scene.declare("ulla", "Lia", [face(DEX, Level.GD)], task="Climb higher", attribute="DEX", difficulty="PS")
    assert scene.state()["now"] == 7 and scene.to_act() == ["Lia"]
    scene.declare("ulla", "Lia", [face(DEX, Level.GD)], task="Reach the top", attribute="DEX", difficulty="PS")
    state = scene.state()
    assert state["now"] == 10 and state["marker"] == 0 and scene.to_act() == ["Maren", "Tom", "Lia"]
    body = scene.step("nora", "explore_end", None)
    assert scene.scene().status == "over" and "ends after 10 phases" in said(body)
    with pytest.raises(Conflict):
        scene.declare("pia", "Maren", kind="wait")


def test_travel_shadowing_and_tracking(scene: Scene) -> None:
    scene.start()
    with pytest.raises(BadRequest, match="hours, days or weeks"):
        scene.declare("otto", "Tom", [50], kind="travel", mode="mounted", destination="the mine")
    scene.step("nora", "explore_scale", None, scale="hours")
    # A mounted ride: Strength against Catastrophic; Passable is 4 columns under Awesome: 4 hours.
    body = scene.declare("otto", "Tom", [face(STR, Level.PS)], kind="travel", mode="mounted", destination="the mine")
    assert "Strength (row 9) against Catastrophic: rolled 63 → Passable (6 successes)" in said(
        body
    ) and "arrives at the mine, 4 phases (4 hours)" in said(body)
    assert scene.token("Tom")["place"] == "the mine"

    # Shadowing: Alertness against the courier's Stamina (Passable), then Agility against his Alertness.
    body = scene.declare("pia", "Maren", [face(ALE, Level.GD)], kind="shadow", task="the courier", difficulty="PS")
    assert "keeps the target in sight" in said(body) and scene.to_act()[0] == "Maren"
    running = scene.sheet("Maren")["complex"]
    assert running["title"] == "Shadowing: the courier" and running["done"] == 1 and running["modifier"] == 2
    with pytest.raises(BadRequest, match="make its second roll"):
        scene.declare("pia", "Maren", [50], task="Something else", attribute="INT", difficulty="PR")
    # The second roll carries +2 (row 11): Good against Poor is 3 successes, 3 phases following unnoticed.
    body = scene.declare("pia", "Maren", [face(AGI + 2, Level.GD)], kind="shadow", difficulty="PR")
    assert "(row 11, +2)" in said(body) and "follows unnoticed, 3 phases (3 hours)" in said(body)
    done = scene.sheet("Maren")["complex"]
    assert done["over"] and done["outcome"] == 3 and [r["successes"] for r in done["results"]] == [2, 3]
    assert scene.token("Maren")["action"]["outcome"] == "following"

    # Tracking: Good against Passable finds the tracks with 2 successes; Stamina against Super − 2 = Good.
    body = scene.declare("ulla", "Lia", [face(ALE, Level.GD)], kind="track", task="the thief", difficulty="PS")
    assert "finds the tracks" in said(body)
    assert scene.sheet("Lia")["complex"]["modifier"] == 0  # the successes lower the difficulty instead
    body = scene.declare("ulla", "Lia", [face(STA, Level.PR)], kind="track")
    assert "Stamina (row 10) against Good" in said(body) and "loses the scent, 2 phases" in said(body)
    assert scene.sheet("Lia")["complex"]["over"]
    assert scene.to_act() == ["Lia"]  # at phase 2, before Maren (3) and Tom (4)
    with pytest.raises(BadRequest, match="trail has grown cold"):
        scene.declare("ulla", "Lia", [50], kind="track", task="The thief", difficulty="PS")


def test_hindering_too_late_and_odds_before_the_roll(scene: Scene) -> None:
    scene.start()
    scene.declare("pia", "Maren", [face(STR, Level.GT)], task="Grab the idol", attribute="STR", difficulty="PS")
    with pytest.raises(BadRequest, match="help a failed roll, hinder a successful one"):
        scene.declare(
            "otto",
            "Tom",
            [50],
            task="Trip her",
            attribute="AGI",
            difficulty="PR",
            influence_id=scene.ids["Maren"],
            influence="help",
        )
    # Tom's Feeble is a failure: no hindering.
    body = scene.declare(
        "otto",
        "Tom",
        [face(AGI, Level.IN)],
        task="Trip her",
        attribute="AGI",
        difficulty="PR",
        influence_id=scene.ids["Maren"],
        influence="hinder",
    )
    assert "cannot hinder Maren" in said(body)
    # Its token has moved by the failure: Fame after rolling is not offered on a phase-track roll.
    with pytest.raises(BadRequest, match="already moved its token"):
        scene.act("otto", "fame_after", "Tom", entry_seq=body["seq"], columns=1)
    body = scene.declare(
        "ulla",
        "Lia",
        [face(AGI, Level.PS)],
        task="Block her",
        attribute="AGI",
        difficulty="PR",
        influence_id=scene.ids["Maren"],
        influence="hinder",
    )
    assert "too late to hinder Maren" in said(body)  # 4 phases against Maren's 2
    assert scene.token("Maren")["action"]["outcome"] == "succeeds"

    from app.systems import Context, get_action
    from app.systems.art.rules import exact_chance

    _system, action = get_action("art", "explore_declare")
    params = action.params.model_validate(
        {"encounter_id": 1, "version": 1, "task": "x", "attribute": "DEX", "difficulty": "PS"}
    )
    assert action.odds is not None
    odds = action.odds(load(scene.sheet("Lia")), params, Context())
    assert odds is not None and odds.chance == pytest.approx(float(exact_chance(DEX, Level.PS)))


def test_only_the_narrator_starts_a_scene_of_adventurers_and_steps_stay_in_exploration_scenes(scene: Scene) -> None:
    with pytest.raises(Forbidden):
        scene.act("pia", "explore_start", None, participants=[scene.ids["Maren"]])
    with pytest.raises(BadRequest, match="Tick the adventurers"):
        scene.act("nora", "explore_start", None, participants=[])
    with pytest.raises(BadRequest, match="Choose a time scale"):
        scene.act("nora", "explore_start", None, participants=[scene.ids["Maren"]], scale="fortnights")
    with scene.factory() as db:
        foe = create_character(db, scene.acc(db, "nora"), name="Goblin", system="art", kind="npc", sheet=dict(FOE)).id
        # Another kind of ART encounter (combat rounds): an exploration step is refused, not a crash.
        other = Encounter(
            campaign_id=scene.campaign_id,
            system="art",
            kind="combat",
            title="Fight",
            participants=[{"character_id": scene.ids["Maren"], "side": "a", "name": "Maren"}],
            state={"round": 1},
            status="active",
            created_by=scene.users["nora"],
        )
        db.add(other)
        db.commit()
        other_id = other.id
    with pytest.raises(BadRequest, match="not an adventurer with attributes"):
        scene.act("nora", "explore_start", None, participants=[scene.ids["Maren"], foe])
    with pytest.raises(BadRequest, match="not an exploration scene"):
        scene.act("pia", "explore_declare", "Maren", encounter_id=other_id, version=1, kind="wait")
    assert [e.action for e in scene.log()] == []  # nothing written by a refusal


def test_an_abort_and_a_raised_scale_last_until_the_next_gaming_session(scene: Scene) -> None:
    def new_session() -> None:
        with scene.factory() as db:
            acc = scene.acc(db, "nora")
            if campaigns.current_session(db, scene.campaign_id) is not None:
                campaigns.end_session(db, acc)
            campaigns.start_session(db, acc)
            db.commit()

    new_session()
    scene.start()
    scene.declare(
        "pia", "Maren", [face(DEX, Level.FB)], task="Pick the lock", attribute="DEX", difficulty="PS", limit=0
    )  # aborted at once: busy for 0 phases, acts again
    scene.declare("otto", "Tom", [face(DEX, Level.PR)], task="Open the safe", attribute="DEX", difficulty="PS")
    scene.step("nora", "explore_raise", None, token=scene.ids["Tom"], task="Open the safe")
    with pytest.raises(BadRequest, match="until the next gaming session"):
        scene.declare("pia", "Maren", [50], task="Pick the lock", attribute="DEX", difficulty="PS")
    new_session()
    body = scene.declare("pia", "Maren", [face(DEX, Level.GD)], task="Pick the lock", attribute="DEX", difficulty="PS")
    assert "succeeds, 3 phases (15 minutes)" in said(body)
    scene.declare("ulla", "Lia", kind="wait")
    assert scene.to_act() == ["Tom", "Lia"]  # phase 1: Tom after his 1-phase failure, Lia after waiting
    body = scene.declare("otto", "Tom", [face(DEX, Level.GD)], task="Open the safe", attribute="DEX", difficulty="PS")
    assert "(15 minutes)" in said(body)  # the raise to hours ended with the session


def test_a_combat_step_on_an_exploration_scene_is_refused(scene: Scene) -> None:
    """The two kinds of ART encounter share one action table: a combat step names a scene, not a combat."""
    scene.start()
    before = len(scene.log())
    for action, params in (
        ("combat_wait", {"after": scene.ids["Tom"]}),
        ("combat_end_turn", {}),
        ("combat_move_roll", {}),
    ):
        with pytest.raises(BadRequest, match="not a combat"):
            scene.step("pia", action, "Maren", **params)
    assert len(scene.log()) == before and scene.state()["scene"] == "exploration"
