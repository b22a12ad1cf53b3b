"""A tiny test-only rule system with an encounter (a coin-flipping duel), for testing the core without a
real game: challenge creates the encounter, flip advances it, four flips end it."""

from __future__ import annotations

from pydantic import BaseModel

from app.rules.dice import Dice
from app.systems import Action, ActionError, Context, Resolution, RuleSystem
from app.systems.base import Sheets, action_table
from app.systems.kinds import EncounterKind, kind_table
from app.systems.stored import Stored


class CoinDuelState(Stored):
    turn: str = "a"
    flips: int = 0
    heads: dict[str, int] = {}


class Sheet(BaseModel):
    notes: str = ""


class Challenge(BaseModel):
    opponent_id: int


class Flip(BaseModel):
    encounter_id: int
    version: int


def challenge(sheet: Sheet, params: Challenge, dice: Dice, ctx: Context[Sheet]) -> Resolution[Sheet]:
    name_b = ctx.other_names[params.opponent_id]
    participants = [
        {"character_id": ctx.character_id, "side": "a", "name": ctx.character_name},
        {"character_id": params.opponent_id, "side": "b", "name": name_b},
    ]
    return Resolution(
        request={"opponent_id": params.opponent_id},
        outcome={},
        summary=f"challenges {name_b}",
        encounter={
            "kind": "coin-duel",
            "title": f"{ctx.character_name} vs {name_b}",
            "participants": participants,
            "state": CoinDuelState(turn="a", flips=0, heads={"a": 0, "b": 0}),
        },
    )


def flip(sheet: Sheet, params: Flip, dice: Dice, ctx: Context[Sheet]) -> Resolution[Sheet]:
    assert ctx.encounter is not None
    state = ctx.encounter["state"].model_copy(deep=True)
    assert isinstance(state, CoinDuelState)
    side = next(p["side"] for p in ctx.encounter["participants"] if p["name"] == ctx.character_name)
    if side != state.turn:
        raise ActionError("It is not your turn.", field="character_id")
    heads = dice.roll(2) == 2
    state.put(heads={**state.heads, side: state.heads[side] + heads}, flips=state.flips + 1)
    state.turn = "b" if side == "a" else "a"
    return Resolution(
        request={},
        outcome={"heads": heads},
        summary="flips",
        encounter={"state": state, "over": state.flips >= 4},
    )


FLIP_DUEL = RuleSystem(
    id="flipduel",
    name="Flip duel",
    sheet=Sheet,
    actions=action_table(
        (
            Action("challenge", "Challenge", Challenge, challenge, involves=("opponent_id",), encounter="create"),
            Action("flip", "Flip", Flip, flip, encounter="step"),
        )
    ),
    encounters=kind_table((EncounterKind("coin-duel", CoinDuelState),)),
    sheets=Sheets(Sheet.model_validate, lambda sheet: sheet.model_dump(mode="json")),
)
