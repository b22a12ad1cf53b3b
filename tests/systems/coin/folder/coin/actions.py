"""Coins' actions: flip; a toss-up between two teams (toss.py)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import msg
from app.rules.dice import Dice
from app.systems.base import Action, Context, Odds, Resolution
from app.systems.coin import rules, toss
from app.systems.coin.sheet import CoinSheet


class FlipParams(BaseModel):
    coins: int = Field(3, ge=1, le=10, title="Coins")
    needed: int = Field(2, ge=0, le=10, title="Heads needed")


def resolve(sheet: CoinSheet, params: FlipParams, dice: Dice, ctx: Context[CoinSheet]) -> Resolution[CoinSheet]:
    result = rules.flip(dice, params.coins, params.needed)  # the rules service records what is rolled
    new_sheet = sheet.model_copy(update={"luck": sheet.luck + 1}) if result.success else None
    summary = msg(
        "{name} flips {coins} coins: {heads} heads, {result}",
        name=ctx.character_name or "",
        coins=params.coins,
        heads=result.heads,
        result=msg("success") if result.success else msg("failure"),
    )
    return Resolution(
        request=params.model_dump(),
        outcome={"faces": result.faces, "heads": result.heads, "success": result.success},
        summary=summary,
        sheet=new_sheet,
    )


def odds(sheet: CoinSheet, params: FlipParams, ctx: Context[CoinSheet]) -> Odds:
    chance = float(rules.chance(params.coins, params.needed))
    return Odds(chance=chance, text=f"{chance:.1%}")


ACTIONS: tuple[Action[CoinSheet, Any], ...] = (
    Action("flip", "Flip", FlipParams, resolve, odds=odds),
    Action(
        "toss",
        "Call a toss-up",
        toss.StartParams,
        toss.start,
        narrator_only=True,
        needs_character=False,
        involves=("heads", "tails"),
        encounter="create",
    ),
    Action(
        "decide",
        "Flip the deciding coin",
        toss.DecideParams,
        toss.decide,
        narrator_only=True,
        needs_character=False,
        encounter="step",
    ),
)
