"""RULINGS.md, "Rabbits", rulings 10–12 through the rules service: the weapon table of each conflict type, the
Halberd's mode scripted with each action, and a tied versus action settled as the parent game settles ties."""

from __future__ import annotations

import html
from typing import Any

import pytest
from utils.rabbits_conflict import Conflict, warren
from utils.web import csrf_of, form_post

from app.characters.models import Character
from app.errors import BadRequest, Forbidden
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import conflict_state
from app.systems.rabbits.conflict.weapons import weapon_table


@pytest.fixture
def conflict(app: Any) -> Conflict:
    return warren(app)


def dispositions(table: Conflict) -> tuple[int, int]:
    teams = table.state()["teams"]
    return teams["a"]["disposition"], teams["b"]["disposition"]


def start_fight(table: Conflict, kind: str = "fight") -> None:
    """Clover (team A) 3 + Health 4 = 7, Hazel (team B) 2 + Health 3 = 5."""
    table.setup(kind)
    table.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    table.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    assert dispositions(table) == (7, 5)


def tied_attack_against_defend(table: Conflict) -> None:
    """Clover attacks (Fighter 3), Hazel defends (Nature 3): versus, one success each."""
    start_fight(table)
    table.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    table.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    table.act("pia", "conflict_roll", "Clover", [5, 1, 1])
    table.act("pia", "conflict_fate", "Clover", [], spend=False)  # Clover's wise could reroll: Keep
    table.act("otto", "conflict_roll", "Hazel", [5, 1, 1])


def test_ruling_12_a_tie_is_not_settled_as_neither_side_gains(conflict: Conflict) -> None:
    """Ruling 12: "Ties in a conflict's versus action follow the parent-game tie rule above: a trait may give the
    tie away, then either side may spend Fate, then a tiebreaker roll". The tie waits for the first step."""
    tied_attack_against_defend(conflict)
    current = conflict.state()["current"]
    assert current["tie"]["step"] == "trait" and current["result"] is None
    assert conflict.state()["index"] == 0  # the action is not over
    with pytest.raises(BadRequest, match="next step"):
        conflict.act("pia", "conflict_tie", "Clover", [], choice="tiebreak")
    with pytest.raises(Forbidden):  # only the roller's player (or the narrator) answers for a side
        conflict.act("otto", "conflict_tie", "Clover", [], choice="keep")


def test_ruling_12_a_trait_gives_the_tie_away_for_two_checks(conflict: Conflict) -> None:
    """Ruling 12: "a trait may give the tie away" (the parent-game rule: "a player may give the tie away with a
    trait (2 checks)"). Clover defends, Hazel attacks; Clover gives the tie away: Hazel's attack wins by one."""
    start_fight(conflict)
    conflict.script("pia", "Clover", ["defend", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1, 1])  # Nature 4: 1 success
    conflict.act("pia", "conflict_fate", "Clover", [], spend=False)
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1])  # Fighter 2: 1 success
    checks = conflict.sheet("Clover")["checks"]
    with pytest.raises(BadRequest, match="trait"):
        conflict.act("pia", "conflict_tie", "Clover", [], choice="concede")
    entry = conflict.act("pia", "conflict_tie", "Clover", [], choice="concede", trait="Quick")
    assert conflict.sheet("Clover")["checks"] == checks + 2
    assert dispositions(conflict) == (6, 5)
    state = conflict.state()
    assert state["index"] == 1  # the next action is revealed
    assert "gives the tie away" in str(entry.body["summary"])


def test_ruling_12_fate_after_the_traits(conflict: Conflict) -> None:
    """Ruling 12: "then either side may spend Fate" — on the tied roll, if Fate was not yet used on it."""
    start_fight(conflict)
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["defend", "attack", "attack"], ["Hazel"] * 3)
    conflict.act("pia", "conflict_roll", "Clover", [6, 1, 1])
    conflict.act("pia", "conflict_fate", "Clover", [], spend=False)  # keeps it for now
    conflict.act("otto", "conflict_roll", "Hazel", [5, 1, 1])
    conflict.act("pia", "conflict_tie", "Clover", [], choice="keep")
    with pytest.raises(BadRequest, match="already kept"):
        conflict.act("pia", "conflict_tie", "Clover", [], choice="keep")
    conflict.act("otto", "conflict_tie", "Hazel", [], choice="keep")
    tie = conflict.state()["current"]["tie"]
    assert tie["step"] == "fate" and tie["fate"] == {"a": True, "b": False}  # Hazel has no 6
    with pytest.raises(BadRequest, match="cannot spend Fate"):
        conflict.act("otto", "conflict_tie", "Hazel", [], choice="fate")
    fate = conflict.sheet("Clover")["fate"]
    conflict.act("pia", "conflict_tie", "Clover", [4], choice="fate")  # the 6 rerolled: a 4, 2 successes
    assert conflict.sheet("Clover")["fate"] == fate - 1
    assert dispositions(conflict) == (7, 4)  # Clover's attack wins by 2 − 1 = 1


def test_ruling_12_the_tiebreaker_rolls_health_in_a_fight(conflict: Conflict) -> None:
    """Ruling 12: "a tiebreaker roll — […] Health for Fight, Fight Animal, Chase and Journey"."""
    tied_attack_against_defend(conflict)
    conflict.act("pia", "conflict_tie", "Clover", [], choice="keep")
    conflict.act("otto", "conflict_tie", "Hazel", [], choice="keep")
    tie = conflict.state()["current"]["tie"]
    assert tie["step"] == "tiebreak" and tie["ability"] == "health"  # no 6: nobody can spend Fate
    # Health 4 for Clover, Health 3 for Hazel, rolled together: 2 against 1.
    entry = conflict.act("otto", "conflict_tie", "Hazel", [5, 5, 1, 1, 5, 1, 1], choice="tiebreak")
    assert entry.body["summary"]["join"][0]["args"]["ability"] == {"msg": "Health"}
    assert dispositions(conflict) == (7, 4)
    assert conflict.state()["index"] == 1


def test_ruling_12_only_a_tied_tiebreaker_changes_no_disposition(conflict: Conflict) -> None:
    """Ruling 12: "Only when the tiebreaker ties too does the action change no disposition." """
    tied_attack_against_defend(conflict)
    conflict.act("pia", "conflict_tie", "Clover", [], choice="keep")
    conflict.act("otto", "conflict_tie", "Hazel", [], choice="keep")
    conflict.act("pia", "conflict_tie", "Clover", [5, 1, 1, 1, 5, 1, 1], choice="tiebreak")
    assert dispositions(conflict) == (7, 5)
    state = conflict.state()
    assert state["index"] == 1 and state["phase"] == "resolve"


def _skills(table: Conflict, name: str, skills: dict[str, int]) -> None:
    with table.factory() as db:
        ch = db.get(Character, table.ids[name])
        ch.sheet = {
            **ch.sheet,
            "skills": {**ch.sheet["skills"], **{k: {"rating": n, "passes": 0, "fails": 0} for k, n in skills.items()}},
        }
        db.commit()


def test_ruling_10_speech_and_negotiation_take_the_argument_weapons(conflict: Conflict) -> None:
    """Ruling 10: "the sample weapons for Fight, Fight Animal and War; the argument "weapons" for Argument,
    Speech and Negotiation; none for Chase and Journey; for Other, the narrator picks one of the two tables, or
    none, at set-up." """
    conflict.act("nora", "conflict_settings", None, weapons=True)
    _skills(conflict, "Clover", {"Orator": 3})
    _skills(conflict, "Hazel", {"Orator": 2})
    conflict.setup("speech")
    assert weapon_table(conflict_state(conflict.state())) == rabbits.ARGUMENT_WEAPONS
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="will")
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="will")
    conflict.script("pia", "Clover", ["attack", "attack", "attack"], ["Clover"] * 3)
    conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    with pytest.raises(BadRequest, match="Choose a weapon"):
        conflict.act("pia", "conflict_roll", "Clover", [], weapon="Axe")
    entry = conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1], weapon="Evidence")  # +1s
    assert entry.body["outcome"]["successes"] == 2
    conflict.encounter_id = None
    conflict.setup("chase")
    assert weapon_table(conflict_state(conflict.state())) == ()
    conflict.encounter_id = None
    with pytest.raises(BadRequest, match="weapon table"):
        conflict.setup("other", other_skill="Scout")
    conflict.setup("other", other_skill="Scout", weapon_table="argument", tiebreak="health")
    assert weapon_table(conflict_state(conflict.state())) == rabbits.ARGUMENT_WEAPONS
    assert conflict.state()["tiebreak"] == "health"


def test_ruling_11_the_halberds_mode_is_scripted_with_each_action(conflict: Conflict) -> None:
    """Ruling 11: "The Halberd's mode (axe or spear) is chosen for each scripted action, with the action, and
    revealed with it: axe mode gives its Attack, Defend and Feint modifiers, spear mode its Maneuver
    modifier." """
    conflict.act("nora", "conflict_settings", None, weapons=True)
    start_fight(conflict)
    with pytest.raises(BadRequest, match="axe or spear"):
        conflict.act(
            "pia",
            "conflict_script",
            "Clover",
            action_1="attack",
            action_2="attack",
            action_3="attack",
            member_1=conflict.ids["Clover"],
            member_2=conflict.ids["Clover"],
            member_3=conflict.ids["Clover"],
            mode_1="sword",
            lock=True,
        )
    conflict.act(
        "pia",
        "conflict_script",
        "Clover",
        action_1="attack",
        action_2="attack",
        action_3="attack",
        member_1=conflict.ids["Clover"],
        member_2=conflict.ids["Clover"],
        member_3=conflict.ids["Clover"],
        mode_1="spear",
        mode_2="axe",
        lock=True,
    )
    entry = conflict.script("otto", "Hazel", ["attack", "attack", "attack"], ["Hazel"] * 3)
    opened = {o["team"]: o["value"] for o in entry.body["outcome"]["openings"]}
    assert opened["a"]["mode"] == "spear" and "mode" not in opened["b"]  # revealed with the action
    roll = conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1], weapon="Halberd")
    assert roll.body["outcome"]["successes"] == 1  # spear mode: the Attack's +1s (axe) does not count
    conflict.act("pia", "conflict_fate", "Clover", [], spend=False)
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    roll = conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1], weapon="Halberd")
    assert roll.body["outcome"]["successes"] == 2  # axe mode: +1s
    conflict.act("pia", "conflict_fate", "Clover", [], spend=False)
    conflict.act("otto", "conflict_roll", "Hazel", [1, 1])
    with pytest.raises(BadRequest, match="Halberd mode"):
        conflict.act("pia", "conflict_roll", "Clover", [], weapon="Halberd")


def _signed_in(new_client: Any, username: str) -> Any:
    browser = new_client()
    token = csrf_of(browser, "/signin")
    r = browser.post(
        "/signin", data={"username": username, "password": "correct horse", "csrf_token": token}, follow_redirects=False
    )
    assert r.status_code == 303, r.text
    return browser


def test_the_conflict_page_offers_the_ties_choices_in_order(conflict: Conflict, new_client: Any) -> None:
    """Ruling 12 on the page: each tied side's roller gets "Give the tie away" (with a trait) or "Keep the tie";
    then (nobody can spend Fate here) the tiebreaker button."""
    tied_attack_against_defend(conflict)
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    pia, otto = _signed_in(new_client, "pia"), _signed_in(new_client, "otto")
    page = pia.get(url).text
    assert 'id="rc-tie-concede-a"' in page and 'id="rc-tie-keep-a"' in page  # Clover has a trait
    assert 'id="rc-tie-keep-b"' not in page  # Hazel's side is Otto's to answer
    page = otto.get(url).text
    assert 'id="rc-tie-keep-b"' in page and 'id="rc-tie-concede-b"' not in page  # Hazel has no trait
    version = conflict.encounter().version
    r = form_post(
        pia,
        f"{url}/act/conflict_tie",
        {"character_id": str(conflict.ids["Clover"]), "version": str(version), "choice": "keep", "front": "0"},
    )
    assert r.status_code == 200, r.text
    assert 'id="rc-tie-keep-a"' not in r.text and "Waiting for Hazel" in html.unescape(r.text)
    conflict.act("otto", "conflict_tie", "Hazel", [], choice="keep")
    page = otto.get(url).text
    assert 'id="rc-tie-roll"' in page


def test_help_states_rulings_10_to_12_and_no_longer_the_contrary_decision(client: Any) -> None:
    """/help: the old "a tied versus test changes no disposition" is gone; rulings 10, 11 and 12 are there."""
    text = html.unescape(client.get("/help").text)
    assert "a tied versus test changes no disposition" not in text
    assert "Conflicts, ruling 12" in text and "Conflicts, ruling 10" in text and "Conflicts, ruling 11" in text


def test_the_roll_forms_odds_read_the_halberds_scripted_mode(conflict: Conflict, new_client: Any) -> None:
    """Ruling 11 in the chance shown on the roll button: axe mode's +1s counts on an Attack, spear mode's does not,
    and a Halberd without a mode adds nothing (the roll refuses it) instead of failing."""
    conflict.act("nora", "conflict_settings", None, weapons=True)
    pia = _signed_in(new_client, "pia")
    url = f"/campaigns/{conflict.campaign_id}/characters/{conflict.ids['Clover']}/odds/conflict_roll"
    base = {
        "encounter_id": 1,
        "version": 1,
        "skill": "Fighter",
        "ob": 3,
        "conflict_action": "attack",
        "weapon": "Halberd",
    }
    axe = pia.get(url, params={**base, "mode": "axe"})
    spear = pia.get(url, params={**base, "mode": "spear"})
    none = pia.get(url, params=base)
    assert axe.status_code == spear.status_code == none.status_code == 200
    assert axe.text != spear.text and spear.text == none.text  # +1s in axe mode only
    evidence = pia.get(url, params={**base, "weapon": "Evidence"})  # an argument "weapon" is found too
    assert evidence.status_code == 200 and evidence.text == axe.text
