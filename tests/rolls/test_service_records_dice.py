"""The rules service, not the system, records the dice (issue 23 §3): it wraps the dice it hands to `resolve`, and
the entry's `dice` are exactly the faces rolled, in order — a roll a system makes in a helper and never mentions is
in the log all the same, and an action that rolls nothing logs no dice."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from starlette.testclient import TestClient
from utils.dice import scripted
from utils.web import api_token

from app import systems
from app.rules.dice import Dice
from app.systems.base import Action, Context, Resolution, RuleSystem, action_table


class _Nothing(BaseModel):
    pass


def _quietly(dice: Dice) -> int:
    """A helper that rolls and tells no one."""
    return dice.roll(6) + dice.roll(8)


def sneak_roll(sheet: dict[str, Any], params: _Nothing, dice: Dice, ctx: Context) -> Resolution:
    total = _quietly(dice) + dice.roll(20)
    return Resolution(request={}, outcome={"total": total}, summary="rolls")


def think(sheet: dict[str, Any], params: _Nothing, dice: Dice, ctx: Context) -> Resolution:
    return Resolution(request={}, outcome={}, summary="thinks")


QUIET = RuleSystem(
    id="quiet",
    name="Quiet",
    sheet=_Nothing,
    actions=action_table(
        (Action("sneak_roll", "Sneak roll", _Nothing, sneak_roll), Action("think", "Think", _Nothing, think))
    ),
)


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(systems.SYSTEMS, "quiet", QUIET)


def _entry(client: TestClient, action: str) -> dict[str, Any]:
    nora = api_token(client, "nora")
    cid = client.post("/api/campaigns", json={"name": "Quiet", "systems": ["quiet"]}, headers=nora).json()["id"]
    char = client.post(f"/api/campaigns/{cid}/characters", json={"name": "Mo", "system": "quiet"}, headers=nora)
    answer = client.post(
        f"/api/campaigns/{cid}/actions",
        headers=nora,
        json={"system": "quiet", "action": action, "character_id": char.json()["id"]},
    )
    assert answer.status_code == 201, answer.text
    seq = answer.json()["seq"]
    log = client.get(f"/api/campaigns/{cid}/log", headers=nora).json()
    entries = log["entries"] if isinstance(log, dict) else log
    return next(e for e in entries if e["seq"] == seq)


def test_every_face_rolled_is_logged_in_order(client: TestClient, quiet: None) -> None:
    with scripted([5, 7, 19]):
        entry = _entry(client, "sneak_roll")
    assert entry["dice"] == [{"sides": 6, "face": 5}, {"sides": 8, "face": 7}, {"sides": 20, "face": 19}]
    assert entry["outcome"]["total"] == 31


def test_an_action_that_rolls_nothing_logs_no_dice(client: TestClient, quiet: None) -> None:
    assert _entry(client, "think")["dice"] == []
