"""After the roll: Fate, "Deeper understanding", "Of course!", settling a versus tie (the narrator's twist or
condition on a failure is narrator.py). Each names the roll it follows up (`entry_seq`): it must be the rabbit's
latest roll.

rabbits.en.md, "Rewards", "Checks", "Tests"; RULINGS.md, "Rabbits" (Fate;
ties, in order: give the tie away with a trait, then Fate, then a tiebreaker roll).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, join, msg, render, rule_message
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import counts, outcome
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.play import faces_text, judge_independent, result_words
from app.systems.rabbits.pools import PoolChoices, plan_pool
from app.systems.rabbits.sheet import (
    RabbitSheet,
    ability_word,
    find_trait,
    find_wise,
    settings_of,
    start_rewards,
)
from app.systems.rabbits.versus import judge


class FollowUp(BaseModel):
    entry_seq: int = Field(ge=1)
    opponent_id: int | None = None
    wise: str = Field(default="", max_length=60)
    trait: str = Field(default="", max_length=60)
    ability: str = Field(default="", max_length=10)


# --- finding the roll and its other side -------------------------------------------------------------------


def latest_roll(sheet: RabbitSheet, seq: int) -> dict[str, Any]:
    last = sheet.last_test
    if not last or last.get("seq") != seq:
        raise ActionError(
            _("Entry #{seq} is not this rabbit's latest roll: only the latest can be followed up.").format(seq=seq),
            field="entry_seq",
        )
    return last


def _other_side(
    last: dict[str, Any], params: FollowUp, ctx: Context[RabbitSheet]
) -> tuple[int, RabbitSheet, dict[str, Any]] | None:
    """The opposing rabbit's sheet and its memory of the same roll, when the roll was against a rabbit."""
    their_id = (last.get("opponent") or {}).get("character_id")
    if their_id is None:
        return None
    if params.opponent_id != their_id:
        raise ActionError(_("Name the opposing rabbit of this versus test."), field="opponent_id")
    other = ctx.others[their_id]
    mirror = other.last_test
    if not mirror or mirror.get("seq") != last["seq"]:
        raise ActionError(
            _("{opponent} has rolled since: this versus test is settled.").format(opponent=ctx.other_names[their_id]),
            field="entry_seq",
        )
    return their_id, other, mirror


def _rejudge(
    sheet: RabbitSheet,
    last: dict[str, Any],
    side: tuple[int, RabbitSheet, dict[str, Any]] | None,
) -> tuple[list[Text], dict[int, RabbitSheet]]:
    """Read the roll again on both sheets and re-apply its result; returns notes and the other sheet."""
    if last["kind"] == "versus":
        judge(last)
    else:
        judge_independent(last)
        if last["kind"] == "recovery":
            condition = last["condition"]
            if last["passed"]:
                sheet.conditions = [c for c in sheet.conditions if c != condition]
            elif condition not in sheet.conditions:
                sheet.conditions = [c for c in rabbits.CONDITIONS if c in {*sheet.conditions, condition}]
    notes = outcome.apply(sheet, last)
    sheet.last_test = last
    others: dict[int, RabbitSheet] = {}
    if side is not None:
        their_id, other, mirror = side
        mirror["opponent"]["faces"] = list(last["faces"])
        mirror.update({k: last.get(f"mirror_{k}") for k in ("conceded", "conceded_to") if f"mirror_{k}" in last})
        if last.get("tiebreak"):
            mirror["tiebreak"] = {**last["tiebreak"], "won": not last["tiebreak"]["won"]}
        judge(mirror)
        notes += [
            msg("{name}: {note}", name=last["opponent"]["name"], note=note) for note in outcome.apply(other, mirror)
        ]
        other.last_test = mirror
        others[their_id] = other
    return notes, others


def _verdict(last: dict[str, Any]) -> Text:
    if last["kind"] == "versus":
        ours, theirs = last["successes"], last["opponent"]["successes"]
        if last["passed"] is None:
            return msg("{ours} to {theirs}: still a tie", ours=ours, theirs=theirs)
        return msg(
            N_("{ours} to {theirs}: won") if last["passed"] else N_("{ours} to {theirs}: lost"),
            ours=ours,
            theirs=theirs,
        )
    return result_words(last)


def _follow(
    sheet: RabbitSheet,
    params: FollowUp,
    ctx: Context[RabbitSheet],
    change: Callable[[RabbitSheet, dict[str, Any]], Text],
) -> Resolution[RabbitSheet]:
    start_rewards(sheet, ctx.campaign_settings)
    last = latest_roll(sheet, params.entry_seq)
    side = _other_side(last, params, ctx)
    before = list(last["faces"])
    words = change(sheet, last)
    notes, others = _rejudge(sheet, last, side)
    summary = join(
        [msg("{change} on #{seq}: {verdict}", change=words, seq=params.entry_seq, verdict=_verdict(last)), *notes], "; "
    )
    return Resolution(
        request=params.model_dump(),
        sheet=sheet,
        others=others,
        summary=summary,
        outcome={
            "before": before,
            "faces": list(last["faces"]),
            "successes": last["successes"],
            "passed": last["passed"],
            "effects": notes,
        },
    )


# --- Fate and the wises ---------------------------------------------------------------------------------


def spend_fate(sheet: RabbitSheet, last: dict[str, Any], dice: Dice, field: str = "entry_seq") -> Text:
    """rabbits.en.md, "Rewards": 1 Fate rerolls every 6, and new 6s again (once per roll). Changes `last` (a roll's
    memory, play.record) and the sheet; also used after a conflict roll (conflict/fate.py)."""
    if last["fate_used"]:
        raise ActionError(_("Fate has already been spent on this roll."), field=field)
    if sheet.fate < 1:
        raise ActionError(_("This rabbit has no Fate left."), field=field)
    if 6 not in last["faces"]:
        raise ActionError(_("There is no 6 to reroll."), field=field)
    old = len(last["faces"])
    last["faces"] = list(rabbits.fate_reroll(dice, last["faces"]))
    last["fate_used"] = True
    sheet.fate -= 1
    sheet.fate_spent += 1
    return msg("spent Fate: rerolled the 6s {faces}", faces=faces_text(last["faces"][old:]))


def resolve_fate(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Rewards": 1 Fate rerolls every 6, and new 6s again (once per roll)."""
    return _follow(sheet, params, ctx, lambda sheet, last: spend_fate(sheet, last, dice))


def _wise_for_reroll(sheet: RabbitSheet, last: dict[str, Any], wise_name: str, field: str) -> str:
    if not wise_name.strip():
        raise ActionError(_("Choose the wise that backs the reroll."), field="wise")
    wise = find_wise(sheet, wise_name)
    if wise in last["wises_used"]:
        raise ActionError(_("{wise} has already backed a reroll of this roll.").format(wise=wise), field="wise")
    if all(face >= 4 for face in last["faces"]):
        raise ActionError(_("Every die is already a success."), field=field)
    return wise


POOL_WORDS = {"fate": N_("Fate"), "persona": N_("Persona")}
# The two wise rerolls (parent game): what each costs ("fate" or "persona", 1 point), its flag on the roll, its dice.
WISE_REROLLS: dict[str, dict[str, Any]] = {
    "deeper": {
        "name": N_("Deeper understanding"),
        "flag": "deeper_used",
        "pool": "fate",
        "reroll": rabbits.deeper_understanding,
        "what": N_("a failed die"),
    },
    "of_course": {
        "name": N_("Of course!"),
        "flag": "of_course_used",
        "pool": "persona",
        "reroll": rabbits.of_course,
        "what": N_("the failed dice"),
    },
}


def wise_reroll(
    sheet: RabbitSheet, last: dict[str, Any], dice: Dice, kind: str, wise_name: str, field: str = "entry_seq"
) -> Text:
    """Deeper understanding or Of course!: the pool pays 1 point, an unused wise backs it, once per roll. Changes
    `last` and the sheet; also used after a conflict roll (conflict/fate.py)."""
    how = WISE_REROLLS[kind]
    name, flag, pool = how["name"], how["flag"], how["pool"]
    if last[flag]:
        raise ActionError(_("{name} has already been used on this roll.").format(name=_(name)), field=field)
    wise = _wise_for_reroll(sheet, last, wise_name, field)
    if getattr(sheet, pool) < 1:
        raise ActionError(
            _("{name} costs 1 {pool}; this rabbit has none.").format(name=_(name), pool=_(POOL_WORDS[pool])),
            field="wise",
        )
    last["faces"] = list(how["reroll"](dice, last["faces"]))
    last[flag] = True
    last["wises_used"].append(wise)
    setattr(sheet, pool, getattr(sheet, pool) - 1)
    setattr(sheet, f"{pool}_spent", getattr(sheet, f"{pool}_spent") + 1)
    return msg(
        "{name} ({wise}, 1 {pool}): rerolled {what} {faces}",
        name=msg(name),
        wise=wise,
        pool=msg(POOL_WORDS[pool]),
        what=msg(how["what"]),
        faces=faces_text(last["faces"]),
    )


def open_follow_ups(sheet: RabbitSheet, last: dict[str, Any]) -> list[str]:
    """What could still follow this roll up: "fate" (a 6, Fate in hand, not yet spent on it), "deeper" and
    "of_course" (a failed die, a wise that has not backed a reroll of it, the point to pay, not yet used)."""
    found = []
    if not last["fate_used"] and 6 in last["faces"] and sheet.fate >= 1:
        found.append("fate")
    wise_left = any(w not in last["wises_used"] for w in sheet.wises)
    if wise_left and any(face < 4 for face in last["faces"]):
        found += [
            kind for kind, how in WISE_REROLLS.items() if not last[how["flag"]] and getattr(sheet, how["pool"]) >= 1
        ]
    return found


def _wise_reroll(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet], kind: str
) -> Resolution[RabbitSheet]:
    return _follow(sheet, params, ctx, lambda sheet, last: wise_reroll(sheet, last, dice, kind, params.wise))


def resolve_deeper(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Parent game, "Deeper understanding": 1 Fate and an unused wise reroll one failed die."""
    return _wise_reroll(sheet, params, dice, ctx, "deeper")


def resolve_of_course(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Parent game, "Of course!": 1 Persona and an unused wise reroll every failed die."""
    return _wise_reroll(sheet, params, dice, ctx, "of_course")


# --- versus ties ------------------------------------------------------------------------------------------


def _tied(last: dict[str, Any]) -> None:
    if last["kind"] != "versus" or not last.get("tie"):
        raise ActionError(_("That roll is not a tied versus test."), field="entry_seq")


def resolve_concede(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """rabbits.en.md, "Checks": a trait lets the opponent win a tie, for 2 checks (the narrator's turn)."""

    def change(sheet: RabbitSheet, last: dict[str, Any]) -> Text:
        _tied(last)
        if settings_of(ctx.campaign_settings)["turn"] == "players":
            raise ActionError(_("Checks are earned in the narrator's turn only."), field="trait")
        if not params.trait.strip():
            raise ActionError(_("Choose the trait that gives the tie away."), field="trait")
        trait = find_trait(sheet, params.trait)
        last["conceded"] = True
        last["mirror_conceded_to"] = True
        earned = rabbits.CHECKS_EARNED["concede_tie"]
        sheet.checks += earned
        return counts.gave_away(trait=trait.name, n=earned)

    return _follow(sheet, params, ctx, change)


def resolve_tiebreak(
    sheet: RabbitSheet, params: FollowUp, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """RULINGS.md, "Rabbits": a skill tie is broken with Will or Health, a Will or Health tie with Nature."""
    others_sheets = ctx.others

    def change(sheet: RabbitSheet, last: dict[str, Any]) -> Text:
        _tied(last)
        allowed = rabbits.tiebreak_ability(last["tiebreak_kind"])
        if not allowed:
            raise ActionError(_("A Nature tie has no tiebreaker: the narrator rules."), field="ability")
        ability = params.ability.strip().lower() or allowed[0]
        if ability not in allowed:
            raise ActionError(
                _("This tie is broken with {abilities}.").format(
                    abilities=_(" or ").join(render(ability_word(a)) for a in allowed)
                ),
                field="ability",
            )
        ours = _ability_pool(sheet, ability, "ability")
        their_id = last["opponent"]["character_id"]
        if their_id is not None:
            theirs = _ability_pool(others_sheets[their_id], ability, "opponent_id")
        else:
            theirs = int(last["opponent"].get("tiebreak_pool") or last["opponent"]["dice"])
        a = rabbits.roll_pool(dice, ours)
        b = rabbits.roll_pool(dice, theirs)
        result = rabbits.judge_versus(a, b)
        last["tiebreak_kind"] = ability
        if result.winner is None:
            return msg(
                "tiebreaker on {ability}: {ours} {our_successes} to {theirs} {their_successes}, tied again",
                ability=ability_word(ability),
                ours=faces_text(list(a)),
                our_successes=result.a_successes,
                theirs=faces_text(list(b)),
                their_successes=result.b_successes,
            )
        last["tiebreak"] = {
            "ability": ability,
            "faces": list(a),
            "opponent_faces": list(b),
            "won": result.winner == "a",
        }
        return msg(
            "tiebreaker on {ability}: {ours} {our_successes} to {theirs} {their_successes}",
            ability=ability_word(ability),
            ours=faces_text(list(a)),
            our_successes=result.a_successes,
            theirs=faces_text(list(b)),
            their_successes=result.b_successes,
        )

    return _follow(sheet, params, ctx, change)


def _ability_pool(sheet: RabbitSheet, ability: str, field: str) -> int:
    try:
        plan = plan_pool(
            sheet,
            PoolChoices(skill=ability),
            settings={},
            session=None,
            helper_conditions=[],
            actor_is_narrator=True,
            versus=True,
        )
    except ActionError as exc:
        raise ActionError(rule_message(exc), field=field) from exc
    return plan.pool.dice
