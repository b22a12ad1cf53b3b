"""Coins' encounter: a toss-up between two teams, Heads and Tails, set up by the narrator; each team's players talk
among themselves (team talk) while it lasts, and the narrator flips the deciding coin. Its kind is declared here
(app/systems/kinds.py: the typed state, its teams); the core's team talk reads only that declaration."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from app.i18n import msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.coin.sheet import CoinSheet
from app.systems.kinds import EncounterKind, Team
from app.systems.stored import Stored


class TossTeam(Stored):
    name: str
    members: list[int] = []


class TossState(Stored):
    teams: dict[str, TossTeam] = {}
    winner: str | None = None


def teams(state: TossState) -> Sequence[Team]:
    return [Team(key, team.name, tuple(team.members)) for key, team in sorted(state.teams.items())]


TOSS = EncounterKind("toss", TossState, teams=teams, title=lambda state: msg("Toss-up"))


class StartParams(BaseModel):
    heads: list[int] = Field(min_length=1, max_length=6, title="Heads")
    tails: list[int] = Field(min_length=1, max_length=6, title="Tails")


class DecideParams(BaseModel):
    encounter_id: int
    version: int


def start(sheet: CoinSheet, params: StartParams, dice: Dice, ctx: Context[CoinSheet]) -> Resolution[CoinSheet]:
    if set(params.heads) & set(params.tails):
        raise ActionError("A coin has two sides: nobody is on both.", field="tails")
    state = TossState(
        teams={
            "heads": TossTeam(name="Heads", members=list(params.heads)),
            "tails": TossTeam(name="Tails", members=list(params.tails)),
        }
    )
    participants = [
        {"character_id": cid, "side": side, "name": ctx.other_names[cid]}
        for side, ids in (("heads", params.heads), ("tails", params.tails))
        for cid in ids
    ]
    return Resolution(
        request=params.model_dump(),
        outcome={},
        summary=msg("calls a toss-up"),
        encounter={"kind": "toss", "title": "Toss-up", "participants": participants, "state": state, "over": False},
    )


def decide(sheet: CoinSheet, params: DecideParams, dice: Dice, ctx: Context[CoinSheet]) -> Resolution[CoinSheet]:
    assert ctx.encounter is not None
    state = ctx.encounter["state"].model_copy(deep=True)
    assert isinstance(state, TossState)
    state.winner = "heads" if dice.roll(2) == 2 else "tails"
    return Resolution(
        request={"version": params.version},
        outcome={"winner": state.winner},
        summary=msg("the coin decides: {side}", side=state.teams[state.winner].name),
        encounter={"state": state, "over": True},
    )
