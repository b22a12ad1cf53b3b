"""Every kind of conflict in the table (argument, speech, negotiation, fight, fight animal, chase, war, journey,
other) runs from its set-up to its end through the rules service: dispositions from the listed skill and
ability, scripted volleys, the revealed actions rolled with each kind's skills, a team at 0, the compromise
written on the log — and the log's chain and every commitment verify (issue 13's "a conflict of each kind")."""

from __future__ import annotations

from typing import Any

import pytest
from utils.rabbits_conflict import Conflict, warren

from app.errors import FateboardError
from app.rolls import chain
from app.rolls.models import LogEntry
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import conflict_state
from app.systems.rabbits.conflict.state import disposition_bases, skill_options

KINDS = sorted(rabbits.DISPOSITION_TABLE)
WINNER, LOSER = "Clover", "Hazel"
OWNER = {"Clover": "pia", "Hazel": "otto"}


def _faces(name: str) -> list[int]:
    """Clover's dice all succeed (5: no 6 for Fate, no failed die for a wise), Hazel's all fail (1)."""
    return [5 if name == WINNER else 1] * 40


def _step(table: Conflict, who: str, action: str, character: str | None, **params: Any) -> LogEntry | None:
    """One step with enough scripted dice (the pool sizes differ by kind); None when the rules refuse it now."""
    try:
        return table.act(who, action, character, _faces(character or ""), exact=False, **params)
    except FateboardError:
        return None


@pytest.mark.parametrize("kind", KINDS)
def test_a_conflict_of_each_kind_runs_to_its_end(app: Any, kind: str) -> None:
    table = warren(app)
    assert table.setup(kind, **({"other_skill": "Scout"} if kind == "other" else {})) is not None
    state = table.state()
    base = disposition_bases(conflict_state(state))[0]
    for name in (WINNER, LOSER):
        assert _step(table, OWNER[name], "conflict_disposition", name, base=base) is not None, (kind, name)
    assert table.state()["phase"] == "script", table.state()["phase"]
    for _volley in range(1, 6):
        for name, actions in ((WINNER, ["attack"] * 3), (LOSER, ["defend", "attack", "feint"])):
            assert table.script(OWNER[name], name, actions, [name] * 3) is not None
        for _ in range(12):  # the three actions of the volley, each side's roll
            state = table.state()
            if state["phase"] != "resolve":
                break
            rolled = False
            for name in (WINNER, LOSER):
                current = state.get("current") or {}
                options = [
                    skill_options(conflict_state(state), side["action"])
                    for side in (current.get("sides") or {}).values()
                    if isinstance(side, dict) and side.get("action")
                ]
                skills = [s for opts in options for s in opts] or ["Nature"]
                for skill in dict.fromkeys(skills):
                    if _step(table, OWNER[name], "conflict_roll", name, skill=skill) is not None:
                        rolled = True
                        break
            if not rolled:
                if table.state()["phase"] == "maneuver":
                    who = OWNER[WINNER]
                    assert _step(table, who, "conflict_maneuver", WINNER, effects=[]) is not None
                    continue
                pytest.fail(f"{kind}: nobody could roll in phase {state['phase']}: {state.get('current')}")
        if table.state()["phase"] == "end":
            break
    state = table.state()
    assert state["phase"] == "end", (kind, state["phase"], state["teams"]["b"]["disposition"])
    assert state["teams"]["b"]["disposition"] == 0 and state["teams"]["a"]["disposition"] > 0
    entry = table.act("nora", "conflict_end", None, words="The raiders go home", conditions=[])
    assert entry.body["outcome"] is not None
    assert table.encounter().status == "over"
    result = chain.verify_entries(table.export())
    assert result.ok and result.commitments_checked >= 6, result.problems
