"""Versus tests: against another rabbit (Action.involves) or a pool the narrator sets (rabbits.en.md, "Tests":
whoever rolls the most successes wins). Ties are settled in followups.py (RULINGS.md, "Rabbits", ties).

Against another rabbit, its side rolls its own rating in the named skill or ability (beginner's luck if it has
none), with its conditions; both sheets remember the roll under the same entry, so either side may follow it up.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.i18n import Text, _, join, msg, percent, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, Resolution
from app.systems.rabbits import outcome
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.play import _odds_plan, _plan, faces_text, record
from app.systems.rabbits.pools import Plan, PoolChoices, breakdown, breakdown_text, plan_pool, spend
from app.systems.rabbits.sheet import RabbitSheet, start_rewards

POOL_MAX = 30


class VersusParams(PoolChoices):
    opponent_id: int | None = None
    opponent_skill: str = Field(default="", max_length=40)
    opponent_pool: int | None = Field(default=None, ge=0, le=POOL_MAX)
    opponent_label: str = Field(default="", max_length=60)
    opponent_tiebreak_pool: int | None = Field(default=None, ge=0, le=POOL_MAX)


def judge(last: dict[str, Any]) -> None:
    """Re-read a versus roll after any change: winner, margin, and the tie until something settles it."""
    result = rabbits.judge_versus(last["faces"], last["opponent"]["faces"])
    last["successes"], last["opponent"]["successes"] = result.a_successes, result.b_successes
    last["margin"] = result.margin
    if last.get("conceded"):
        last["passed"], last["tie"] = False, False
    elif last.get("conceded_to"):
        last["passed"], last["tie"] = True, False
    elif result.winner is None and last.get("tiebreak"):
        last["passed"], last["tie"] = last["tiebreak"]["won"], False
    else:
        last["passed"] = None if result.winner is None else result.winner == "a"
        last["tie"] = result.winner is None


def _opponent_plan(other: RabbitSheet, skill: str, name: str, aided: bool) -> Plan:
    try:
        return plan_pool(
            other,
            PoolChoices(skill=skill),
            settings={},
            session=None,
            helper_conditions=[],
            actor_is_narrator=True,
            versus=True,
            opponent_trait=aided,
        )
    except ActionError as exc:
        raise ActionError(
            _("{name}: {message}").format(name=name, message=rule_message(exc)), field="opponent_skill"
        ) from exc


def _words(last: dict[str, Any]) -> Text:
    if last["passed"] is None:
        return msg("a tie")
    return msg("won") if last["passed"] else msg("lost")


def resolve_versus(
    sheet: RabbitSheet, params: VersusParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    if (params.opponent_id is None) == (params.opponent_pool is None):
        raise ActionError(
            _("Choose an opposing rabbit or give the opposing pool — one of the two."), field="opponent_id"
        )
    start_rewards(sheet, ctx.campaign_settings)
    plan = _plan(sheet, params, ctx, versus=True, exclude=params.opponent_id)
    aided = plan.trait_use == "aids_opponent"
    other: RabbitSheet | None = None
    if params.opponent_id is not None:
        other = ctx.others[params.opponent_id]
        start_rewards(other, {})
        name: str | Text = ctx.other_names[params.opponent_id]
        other_plan = _opponent_plan(
            other, params.opponent_skill or params.skill, ctx.other_names[params.opponent_id], aided
        )
        their_dice = other_plan.pool.dice
        their_label: str | Text = other_plan.label
        tiebreak_pool = None
    else:
        name = params.opponent_label.strip() or msg("the opposition")
        their_dice = (params.opponent_pool or 0) + (rabbits.TRAIT_USES["aids_opponent"].opponent_dice if aided else 0)
        their_label = f"{their_dice}D"
        tiebreak_pool = params.opponent_tiebreak_pool
    ours = rabbits.roll_pool(dice, plan.pool.dice)
    theirs = rabbits.roll_pool(dice, their_dice)
    last = record(
        sheet,
        plan,
        ctx,
        ours,
        None,
        kind="versus",
        tie=False,
        opponent={
            "character_id": params.opponent_id,
            "name": name,
            "label": their_label,
            "faces": list(theirs),
            "dice": their_dice,
            "tiebreak_pool": tiebreak_pool if tiebreak_pool is not None else their_dice,
        },
    )
    judge(last)
    spend(sheet, plan, ctx.session_number)
    notes = outcome.apply(sheet, last)
    sheet.last_test = last
    others: dict[int, RabbitSheet] = {}
    if other is not None and params.opponent_id is not None:
        mirror = record(
            other,
            other_plan,
            ctx,
            theirs,
            None,
            kind="versus",
            tie=False,
            opponent={
                "character_id": ctx.character_id,
                "name": ctx.character_name,
                "label": plan.label,
                "faces": list(ours),
                "dice": plan.pool.dice,
                "tiebreak_pool": None,
            },
        )
        judge(mirror)
        notes += [msg("{name}: {note}", name=name, note=note) for note in outcome.apply(other, mirror)]
        other.last_test = mirror
        others[params.opponent_id] = other
    summary = msg(
        "versus {name}: {label} ({dice}D) {faces} {successes} against {their_label} {their_faces} "
        "{their_successes}: {result}",
        name=name,
        label=plan.label,
        dice=plan.pool.dice,
        faces=faces_text(list(ours)),
        successes=last["successes"],
        their_label=their_label,
        their_faces=faces_text(list(theirs)),
        their_successes=last["opponent"]["successes"],
        result=_words(last),
    )
    return Resolution(
        request=params.model_dump(),
        sheet=sheet,
        others=others,
        outcome={
            "faces": list(ours),
            "successes": last["successes"],
            "opponent_faces": list(theirs),
            "opponent_successes": last["opponent"]["successes"],
            "passed": last["passed"],
            "tie": last["tie"],
            "margin": last["margin"],
            "breakdown": last["breakdown"],
            "checks_spent": plan.checks_spent,
            "checks_earned": plan.pool.checks_earned,
            "effects": notes,
        },
        summary=join([summary, *notes], "; "),
    )


def versus_odds(sheet: RabbitSheet, params: VersusParams, ctx: Context[RabbitSheet]) -> Odds:
    """Exact chances of winning, tying and losing against a known pool (without Fate)."""
    plan = _odds_plan(sheet, params, ctx.campaign_settings, versus=True)
    if params.opponent_pool is None:
        return Odds(
            text=_("{dice}D against the other rabbit's pool").format(dice=plan.pool.dice),
            details={"label": _("Pool:"), "breakdown": _lines(plan)},
        )
    theirs = params.opponent_pool + (2 if plan.trait_use == "aids_opponent" else 0)
    win, tie = _versus_chances(plan.pool.dice, theirs)
    text = _("{dice}D vs {theirs}D: win {win}, tie {tie}").format(
        dice=plan.pool.dice, theirs=theirs, win=percent(win), tie=percent(tie)
    )
    return Odds(chance=win, text=text, details={"label": _("Pool and chance:"), "breakdown": _lines(plan), "tie": tie})


def _lines(plan: Plan) -> str:
    return breakdown_text(breakdown(plan))


def _versus_chances(ours: int, theirs: int) -> tuple[float, float]:
    from math import comb

    def dist(n: int) -> list[float]:
        return [comb(n, k) / 2**n for k in range(n + 1)]

    a, b = dist(ours), dist(theirs)
    win = sum(pa * sum(b[:i]) for i, pa in enumerate(a))
    tie = sum(pa * (b[i] if i < len(b) else 0.0) for i, pa in enumerate(a))
    return win, tie
