"""Rabbits' own leak tests (tests/utils/leak_world.py): a conflict team's script before every team has locked
(ruling 9), and whispers and a conflict team's talk (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from utils.dice import scripted
from utils.leak import Case
from utils.leak_world import (
    ROLES,
    World,
    assert_same,
    normalise,
    shows,
)
from utils.web import csrf_of

from app.campaigns import service as campaigns
from app.rolls import chain

# --- rabbit conflicts: a team's script before the reveal (ruling 9) -----------------------------------------

CONFLICT_CASE = Case("rabbits-conflict", "rabbits", "conflict_roll", {}, [], [], changes_sheet=False)


class ConflictWorld(World):
    """A conflict through the web forms: nora sets it up, pia's Clover is team A, otto's Hazel team B."""

    def encounter_post(self, who: str, action: str, data: dict[str, str], status: int = 200) -> str:
        eid = self.encounters[0]
        with self.factory() as db:
            from app.encounters.models import Encounter

            version = db.get(Encounter, eid).version
        return self.post_form(
            who,
            f"/campaigns/{self.campaign_id}/encounters/{eid}/act/{action}",
            {"version": str(version), **data},
            status,
        )

    def start(self) -> None:
        before = self.last_seq()
        self.post_form(
            "nora",
            f"/campaigns/{self.campaign_id}/systems/rabbits/act/conflict_setup",
            {
                "conflict": "fight",
                "a_name": "Warren",
                "a_goal": "Keep the burrow",
                "a_members": str(self.ids["mine"]),
                "b_name": "Raiders",
                "b_goal": "Take the field",
                "b_members": str(self.ids["theirs"]),
            },
        )
        assert self.last_seq() == before + 1
        self.encounters.append(int(self.entry(self.last_seq()).body["request"]["encounter_id"]))
        with scripted([5, 5]):
            self.encounter_post(
                "pia", "conflict_disposition", {"character_id": str(self.ids["mine"]), "base": "health"}
            )
        with scripted([5, 5]):
            self.encounter_post(
                "otto", "conflict_disposition", {"character_id": str(self.ids["theirs"]), "base": "health"}
            )

    def script(self, who: str, key: str, actions: tuple[str, ...], lock: bool) -> str:
        data = {"character_id": str(self.ids[key]), "lock": "true" if lock else "false"}
        for n, action in enumerate(actions, start=1):
            data[f"action_{n}"] = action
            data[f"member_{n}"] = str(self.ids[key])
        return self.encounter_post(who, "conflict_script", data)


SCRIPTS = {
    "A1": ("attack", "defend", "feint"),
    "A2": ("maneuver", "maneuver", "defend"),
    "B1": ("defend", "defend", "attack"),
    "B2": ("feint", "attack", "maneuver"),
}


def test_a_teams_script_reaches_no_one_outside_it_before_every_team_has_locked(
    database_url: str, tmp_path: Path, leak_worlds: list[World]
) -> None:
    """Three worlds: team A (pia) locked its script and team B (otto) saved one without locking. Worlds 1 and 2
    differ only in A's script: nora (the narrator) and otto must not tell them apart on any route; worlds 1
    and 3 differ only in B's: nora and pia must not. Then B locks, and the first actions are there for all."""
    plays = {"1": ("A1", "B1"), "2": ("A2", "B1"), "3": ("A1", "B2")}
    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for name, (a, b) in plays.items():
        world = ConflictWorld(database_url, tmp_path, f"conflict-{name}", CONFLICT_CASE)
        leak_worlds.append(world)
        world.start()
        fragments = {"pia": world.script("pia", "mine", SCRIPTS[a], lock=False)}
        fragments["pia"] += world.script("pia", "mine", SCRIPTS[a], lock=True)
        fragments["otto"] = world.script("otto", "theirs", SCRIPTS[b], lock=False)
        snapshots[name] = {viewer: world.snapshot(viewer) for viewer in ROLES}
        for viewer, text in fragments.items():  # the scripting fragment shows the team its own script
            snapshots[name][viewer]["POST script"] = normalise(text)
        state = world.encounter_state()
        assert [s["action"] for s in state["teams"]["a"]["script"]] == list(SCRIPTS[a])
        for seq in range(1, world.last_seq() + 1):  # no log body holds a choice before the reveal
            body = json.dumps(world.entry(seq).body)
            assert not any(f'"{word}"' in body for word in ("attack", "defend", "feint", "maneuver")), seq
        if name == "1":
            with scripted([]):
                world.script("otto", "theirs", SCRIPTS[b], lock=True)
            page = world.browsers["nora"].get(f"/campaigns/{world.campaign_id}/encounters/{world.encounters[0]}")
            assert "Attack</strong> — Clover" in page.text and "Defend</strong> — Hazel" in page.text
            export = world.api.get(f"/api/campaigns/{world.campaign_id}/export", headers=world.tokens["otto"]).json()
            checked = chain.verify_entries(export["entries"], head=export["head"])
            assert checked.ok and checked.commitments_checked == 2, checked.problems
        world.close()
    for viewer in ("nora", "otto"):
        assert_same(snapshots["1"][viewer], snapshots["2"][viewer], viewer, "team A's script")
    for viewer in ("nora", "pia"):
        assert_same(snapshots["1"][viewer], snapshots["3"][viewer], viewer, "team B's script")
    # The comparison can fail: the team itself sees its own script, which differs between the worlds.
    assert snapshots["1"]["pia"] != snapshots["2"]["pia"] and snapshots["1"]["otto"] != snapshots["3"]["otto"]


# --- table talk: whispers and team talk (issue 24) ----------------------------------------------------------

TALK_CASE = Case("talk", "rabbits", "conflict_roll", {}, [], [], changes_sheet=False)
TALK_ROLES = (*ROLES, "ida", "uma")  # two more players: a whisper's other recipient, and a bystander


class TalkWorld(ConflictWorld):
    """The conflict world (team A: pia's Clover, team B: otto's Hazel) with two more players, ida and uma."""

    def __init__(self, database_url: str, tmp_path: Path, name: str, case: Case) -> None:
        super().__init__(database_url, tmp_path, name, case)
        from app.accounts.service import create_user

        with self.factory() as db:
            for extra in ("ida", "uma"):
                user = create_user(db, extra, "correct horse")
                db.flush()
                campaigns.accept_invite(db, user, campaigns.create_invite(db, self.acc(db, "nora")).code)
                self.user_ids[extra] = user.id
            db.commit()
        for extra in ("ida", "uma"):
            browser = self.browsers[extra] = self._client()
            r = browser.post(
                "/signin",
                data={"username": extra, "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text
            r = self.api.post("/api/tokens", json={"username": extra, "password": "correct horse"})
            self.tokens[extra] = {"Authorization": f"Bearer {r.json()['token']}"}

    def say(self, who: str, data: dict[str, str | list[str]], panel: str = "") -> str:
        browser = self.browsers[who]
        headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
        r = browser.post(f"/campaigns/{self.campaign_id}/talk", data={**data, "panel": panel}, headers=headers)
        assert r.status_code == 200, r.text[:2000]
        return r.text


# World A and world B differ only in the words and the recipients of what pia says.
TALK = {
    "a": {
        "to": ("otto",),
        "whisper": "The key is under the mat @otto",
        "edit": "The key is in the well",
        "withdrawn": "Forget the lantern",
        "team": "We feint at the gate first",
    },
    "b": {
        "to": ("ida", "otto"),
        "whisper": "Meet me at the mill at dawn @ida",
        "edit": "Meet me at the ford",
        "withdrawn": "Bring rope and salt",
        "team": "Hold the burrow and wait",
    },
}


def play_talk(world: TalkWorld, words: dict[str, Any]) -> dict[str, str]:
    """pia whispers (and edits it), whispers again and withdraws it, and talks to her team in the conflict —
    each through the composer's form or the line's edit and withdraw forms."""
    fragments = {}
    to = [str(world.user_ids[n]) for n in words["to"]]
    fragments["whisper"] = world.say(
        "pia", {"text": words["whisper"], "audience": "whisper", "to": to, "as": str(world.ids["mine"])}
    )
    seq = world.last_seq()
    fragments["edit"] = world.post_form(
        "pia", f"/campaigns/{world.campaign_id}/talk/{seq}/edit", {"text": words["edit"]}
    )
    world.say("pia", {"text": words["withdrawn"], "audience": "whisper", "to": to})
    fragments["retract"] = world.post_form("pia", f"/campaigns/{world.campaign_id}/talk/{world.last_seq()}/retract", {})
    eid = world.encounters[0]
    fragments["team"] = world.say(
        "pia", {"text": words["team"], "audience": f"team:{eid}", "encounter": str(eid)}, panel="team"
    )
    return fragments


def test_whispers_and_team_talk_reach_no_one_else(database_url: str, tmp_path: Path, leak_worlds: list[World]) -> None:
    """Two worlds that differ only in the words and the recipients: nora (the narrator, named in no whisper
    and on no players' team) and uma (a bystander) must not tell them apart on any route, stream, the API,
    the export or a search — nor find a word of it. otto reads the whispers (and not team A's talk)."""
    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for name, words in TALK.items():
        world = TalkWorld(database_url, tmp_path, f"talk-{name}", TALK_CASE)
        leak_worlds.append(world)
        world.start()
        fragments = play_talk(world, words)
        snapshots[name] = {viewer: world.snapshot(viewer, viewer in ("nora", "uma")) for viewer in TALK_ROLES}
        for viewer in ("nora", "uma", "otto"):  # the search finds words of talk only for its readers
            for word in ("mat", "mill", "well", "ford", "lantern", "rope", "feint", "burrow"):
                r = world.browsers[viewer].get(f"/campaigns/{world.campaign_id}", params={"q": word})
                snapshots[name][viewer][f"SEARCH {word}"] = normalise(r.text)
        kinds = [world.entry(seq).kind for seq in range(1, world.last_seq() + 1)][-5:]
        assert kinds == ["message", "edit", "message", "retract", "message"], kinds
        export = world.api.get(f"/api/campaigns/{world.campaign_id}/export", headers=world.tokens["uma"]).json()
        checked = chain.verify_entries(export["entries"], head=export["head"])
        assert checked.ok, checked.problems
        # Readers read it: otto the whispers (not the withdrawn words on a page), pia everything.
        otto = snapshots[name]["otto"]
        assert shows(otto[f"GET /campaigns/{world.campaign_id}"], words["edit"])
        assert not shows(otto[f"GET /campaigns/{world.campaign_id}"], words["withdrawn"])
        assert shows(otto[f"GET /api/campaigns/{world.campaign_id}/export"], words["whisper"])
        assert not shows(otto[f"GET /api/campaigns/{world.campaign_id}/export"], words["team"])
        assert shows(fragments["team"], words["team"])
        ida_log = snapshots[name]["ida"][f"GET /api/campaigns/{world.campaign_id}/log"]
        assert shows(ida_log, words["whisper"]) == (name == "b")  # ida is a recipient in world B only
        world.close()
    secrets = [w for words in TALK.values() for k, w in words.items() if k != "to"]
    for viewer in ("nora", "uma"):
        for name in TALK:
            for key, text in snapshots[name][viewer].items():
                for secret in secrets:
                    assert not shows(text, secret), f"{viewer} sees {secret!r} in {key} (world {name})"
        assert_same(snapshots["a"][viewer], snapshots["b"][viewer], viewer, "a whisper's words and readers")
    # The comparison can fail: the readers' renderings differ between the worlds.
    assert snapshots["a"]["otto"] != snapshots["b"]["otto"] and snapshots["a"]["pia"] != snapshots["b"]["pia"]
