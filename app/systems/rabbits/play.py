"""Rolling: independent tests, recovery tests and versus tests (rabbits.en.md, "Tests", "Conditions").

Each action loads the sheet, starts its rewards (ruling 1), plans the pool (pools.py), rolls with the server's
dice, records the roll as the sheet's `last_test` (so Fate and the wise rerolls can follow it up) and applies
its result (outcome.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from app.i18n import N_, Text, _, join, msg, percent, render, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Odds, Resolution
from app.systems.rabbits import outcome
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.pools import (
    Plan,
    PoolChoices,
    breakdown,
    breakdown_text,
    helper_conditions,
    helper_names,
    plan_pool,
    spend,
)
from app.systems.rabbits.sheet import RabbitSheet, condition_word, settings_of, start_rewards

OB_MAX = 20


class TestParams(PoolChoices):
    ob: int = Field(ge=0, le=OB_MAX, title=N_("Obstacle"))


class RecoverParams(PoolChoices):
    skill: str = Field(default="", max_length=40)
    condition: str = Field(min_length=1, max_length=20)


def faces_text(faces: list[int]) -> str:
    return "[" + " ".join(str(face) for face in faces) + "]"


def record(
    sheet: RabbitSheet, plan: Plan, ctx: Context[RabbitSheet], faces: tuple[int, ...], ob: int | None, **extra: Any
) -> dict[str, Any]:
    """The sheet's memory of this roll, for the follow-ups."""
    return {
        "seq": ctx.seq,
        "kind": "test",
        "label": plan.label,
        "rolled": plan.rolled,
        "tally": list(plan.tally),
        "tiebreak_kind": plan.tiebreak_kind,
        "faces": list(faces),
        "ob": ob,
        "dice": plan.pool.dice,
        "breakdown": breakdown(plan),
        "nature_used": plan.nature_used,
        "within_nature": plan.within_nature,
        "fate_used": False,
        "deeper_used": False,
        "of_course_used": False,
        "wises_used": [],
        "before": outcome.snapshot(sheet, plan.tally),
        "consequence": None,
        **extra,
    }


def judge_independent(last: dict[str, Any]) -> rabbits.IndependentResult:
    result = rabbits.judge_test(last["faces"], last["ob"])
    last.update(successes=result.successes, passed=result.passed, margin=result.margin)
    return result


def _plan(sheet: RabbitSheet, params: PoolChoices, ctx: Context[RabbitSheet], **kw: Any) -> Plan:
    conditions = helper_conditions(params.helpers, ctx.others, ctx.other_names, kw.pop("exclude", None))
    return plan_pool(
        sheet,
        params,
        settings=ctx.campaign_settings,
        session=ctx.session_number,
        helper_conditions=conditions,
        helper_names=helper_names(params.helpers, ctx.other_names),
        actor_is_narrator=ctx.actor_is_narrator,
        **kw,
    )


def result_words(last: dict[str, Any]) -> Text:
    """An independent test's result in words: "3 vs Ob 2: passed"."""
    return msg(
        N_("{successes} vs Ob {ob}: passed") if last["passed"] else N_("{successes} vs Ob {ob}: failed"),
        successes=last["successes"],
        ob=last["ob"],
    )


def resolve_test(
    sheet: RabbitSheet, params: TestParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Tests": an independent test, at least as many successes as the Ob."""
    start_rewards(sheet, ctx.campaign_settings)
    plan = _plan(sheet, params, ctx)
    faces = rabbits.roll_pool(dice, plan.pool.dice)
    last = record(sheet, plan, ctx, faces, params.ob)
    judge_independent(last)
    spend(sheet, plan, ctx.session_number)
    notes = outcome.apply(sheet, last)
    sheet.last_test = last
    summary = msg(
        "tested {label} ({dice}D) {faces} {result}",
        label=plan.label,
        dice=plan.pool.dice,
        faces=faces_text(list(faces)),
        result=result_words(last),
    )
    return Resolution(
        request=params.model_dump(),
        sheet=sheet,
        outcome={
            "faces": list(faces),
            "successes": last["successes"],
            "ob": params.ob,
            "passed": last["passed"],
            "margin": last["margin"],
            "pool": plan.pool.dice,
            "breakdown": last["breakdown"],
            "checks_spent": plan.checks_spent,
            "checks_earned": plan.pool.checks_earned,
            "effects": notes,
        },
        summary=join([summary, *notes], "; "),
    )


def resolve_recover(
    sheet: RabbitSheet, params: RecoverParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Conditions" and "Checks": the test in brackets removes the condition; in the narrator's
    turn a player pays 2 checks for it (in the players' turn, 1 like any test)."""
    start_rewards(sheet, ctx.campaign_settings)
    try:
        test = rabbits.recovery_test(params.condition)
    except rabbits.RabbitRuleError as exc:
        raise ActionError(rule_message(exc), field="condition") from exc
    if test.condition not in sheet.conditions:
        raise ActionError(
            _("This rabbit is not {condition}.").format(condition=render(condition_word(test.condition))),
            field="condition",
        )
    if test.ability is None or test.ob is None:
        raise ActionError(
            _("{condition} {note}: the narrator lifts it.").format(
                condition=render(condition_word(test.condition)), note=_(test.note)
            ),
            field="condition",
        )
    turn = settings_of(ctx.campaign_settings)["turn"]
    extra = rabbits.CHECKS_SPENT["recovery_in_gm_turn"] if turn == "gm" and not ctx.actor_is_narrator else 0
    choices = params.model_copy(update={"skill": test.ability})
    plan = _plan(sheet, choices, ctx, extra_checks=extra)
    faces = rabbits.roll_pool(dice, plan.pool.dice)
    last = record(sheet, plan, ctx, faces, test.ob, kind="recovery", condition=test.condition)
    judge_independent(last)
    spend(sheet, plan, ctx.session_number)
    notes = outcome.apply(sheet, last)
    if last["passed"]:
        sheet.conditions = [c for c in sheet.conditions if c != test.condition]
        notes.append(msg("no longer {condition}", condition=condition_word(test.condition)))
    sheet.last_test = last
    summary = msg(
        "tried to recover from {condition}: {label} ({dice}D) {faces} {result}",
        condition=condition_word(test.condition),
        label=plan.label,
        dice=plan.pool.dice,
        faces=faces_text(list(faces)),
        result=result_words(last),
    )
    return Resolution(
        request=params.model_dump(),
        sheet=sheet,
        outcome={
            "faces": list(faces),
            "successes": last["successes"],
            "ob": test.ob,
            "passed": last["passed"],
            "condition": test.condition,
            "breakdown": last["breakdown"],
            "checks_spent": plan.checks_spent,
            "effects": notes,
        },
        summary=join([summary, *notes], "; "),
    )


def _percent(chance: float) -> str:
    return percent(chance)


def _odds_plan(sheet: RabbitSheet, params: PoolChoices, settings: Mapping[str, Any], **kw: Any) -> Plan:
    start_rewards(sheet, settings)
    # The odds page cannot see the helpers' sheets: each counts +1D here; the roll itself checks them.
    return plan_pool(
        sheet,
        params,
        settings=settings,
        session=None,
        helper_conditions=[[] for _ in params.helpers],
        actor_is_narrator=False,
        **kw,
    )


def pass_odds(plan: Plan, ob: int) -> Odds:
    plain = float(rabbits.exact_pass_chance(plan.pool.dice, ob))
    fate = float(rabbits.exact_pass_chance(plan.pool.dice, ob, with_fate=True))
    lines = breakdown_text(breakdown(plan))
    return Odds(
        chance=plain,
        text=_("{dice}D vs Ob {ob}: {plain} to pass, {fate} with Fate").format(
            dice=plan.pool.dice, ob=ob, plain=_percent(plain), fate=_percent(fate)
        ),
        details={
            "label": _("Pool and chance:"),
            "pool": plan.pool.dice,
            "breakdown": lines,
            "with_fate": fate,
            "checks": plan.checks_spent,
            "persona": plan.pool.persona_spent,
        },
    )


def test_odds(sheet: RabbitSheet, params: TestParams, ctx: Context[RabbitSheet]) -> Odds:
    return pass_odds(_odds_plan(sheet, params, ctx.campaign_settings), params.ob)


def recover_odds(sheet: RabbitSheet, params: RecoverParams, ctx: Context[RabbitSheet]) -> Odds:
    test = rabbits.recovery_test(params.condition)
    if test.ability is None or test.ob is None:
        raise ActionError(
            _("{condition} {note}.").format(condition=render(condition_word(test.condition)), note=_(test.note)),
            field="condition",
        )
    plan = _odds_plan(sheet, params.model_copy(update={"skill": test.ability}), ctx.campaign_settings)
    return pass_odds(plan, test.ob)
