"""ART combat's state is typed at the boundary (issue 23 §3): the rules service validates the stored JSON into
CombatState before a step and stores the model the step returns, in the same shape — a stored state read and written
back is the same JSON, key for key; a key the state never had stays out; a key taken out (`unset`, the
dict's `pop`) is gone from the JSON; a state that is not a combat's shape is refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError
from utils.art import NARRATOR, OTTO, PIA, Play
from utils.art_fight import Fight

from app.systems import SYSTEMS
from app.systems.art.fight.models import CombatState
from app.systems.base import stored_state


def _same(state: dict[str, Any]) -> None:
    back = stored_state(SYSTEMS["art"].typed_state("combat", state))
    # Key for key and value for value (PostgreSQL's JSONB keeps keys in its own order, so the order is not compared).
    assert json.dumps(back, sort_keys=True) == json.dumps(state, sort_keys=True)


def test_every_stored_state_of_a_combat_reads_and_writes_back_unchanged(play: Play) -> None:
    fight = Fight(play)
    fight.setup()
    _same(fight.state())
    fight.step(PIA, "combat_initiative", play.hero, [50])
    _same(fight.state())
    fight.step(OTTO, "combat_initiative", play.friend, [20])
    state = fight.state()
    _same(state)
    assert state["phase"] == "rounds" and isinstance(SYSTEMS["art"].typed_state("combat", state), CombatState)
    fight.step(NARRATOR, "combat_end", None)
    _same(fight.state())
    assert fight.state()["phase"] == "over"


def test_a_key_the_state_never_had_stays_out_and_an_unset_one_is_gone() -> None:
    stored = {
        "phase": "rounds",
        "fighters": [{"id": 1, "name": "Maren", "side": "adventurer", "band": 2, "may_play_dead": True}],
        "order": [1],
    }
    state = CombatState.model_validate(stored)
    assert state.stored() == stored  # no default (recent, pending, perk_bonuses…) appears
    me = state.fighters[0]
    me.unset("may_play_dead")
    me.playing_dead = True
    state.fighters[0].perk_bonuses = [{"perk": "Combat Tactics", "on": "attack"}]
    fighter = state.stored()["fighters"][0]
    assert "may_play_dead" not in fighter and fighter["playing_dead"] is True and fighter["perk_bonuses"]
    assert me.may_play_dead is False  # back to its default for the rules


def test_a_state_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValidationError):
        CombatState.model_validate({"phase": "rounds", "fighters": [{"id": "x", "name": "?", "side": "dragon"}]})
