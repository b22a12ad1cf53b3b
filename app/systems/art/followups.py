"""What a player does after a roll, checked against the sheet's memory of it: spend Fame to raise the
result, take the inspiration that doubles give.

art-engine.md, ch. 3 "Using Fame After Rolling", "Regaining Fame"; ch. 6 "Inspiration Points",
"Creating Skills", "Increasing Attributes", "Improving Skills"; RULINGS.md, ART Engine ruling 6.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.i18n import N_, _, join, msg, rule_message, sentence
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, Level
from app.systems.base import ActionError, Context, Resolution

from . import wording
from .complex import revise_step
from .sheet import ArtSheet, Skill, fame_left, level_word
from .skirmish import apply_player_damage, damage_text, foe_damage_text, hit_foe, undo_player_damage


class FameAfterParams(BaseModel):
    entry_seq: int
    columns: int | None = Field(default=None, ge=1, le=10)
    opponent_id: int | None = None


class InspireParams(BaseModel):
    entry_seq: int
    choice: Literal["new_skill", "attribute", "skill"]
    skill: str = Field(default="", max_length=80)


def _last(sheet: ArtSheet, entry_seq: int) -> dict[str, Any]:
    last = sheet.last_roll
    if not last or last.get("seq") != entry_seq:
        raise ActionError(
            _("#{entry_seq} is not this character's latest roll.").format(entry_seq=entry_seq), field="entry_seq"
        )
    return last


def resolve_fame_after(
    sheet: ArtSheet, params: FameAfterParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """2 Fame per column, only below the difficulty, up to it; a Defense roll's damage and an attack's hit
    are worked out again from the new result."""
    last = _last(sheet, params.entry_seq)
    result, difficulty = Level[last["result"]], Level[last["difficulty"]]
    if last["action"] == "explore_declare":  # its phases are already on the phase track (explore/declare.py)
        raise ActionError(
            _("A roll on the phase track has already moved its token: spend Fame before rolling there."),
            field="columns",
        )
    if art.count(difficulty, result) > 0:
        raise ActionError(_("Fame after rolling only helps a result below the difficulty."), field="columns")
    if params.opponent_id is not None and params.opponent_id != last.get("opponent_id"):
        raise ActionError(
            _("#{entry_seq} was not against them.").format(entry_seq=params.entry_seq), field="opponent_id"
        )
    if last["action"] == "attack" and last.get("opponent_id") and params.opponent_id is None:
        raise ActionError(_("Name the foe that attack was against."), field="opponent_id")
    try:
        new, cost = art.fame_after(result, difficulty, fame_left(sheet), columns=params.columns)
    except art.ArtRuleError as exc:
        raise ActionError(sentence(rule_message(exc)), field="columns") from exc
    if cost == 0:
        raise ActionError(
            _("Raising a column costs 2 Fame; you have {fame_left} left.").format(fame_left=fame_left(sheet)),
            field="columns",
        )
    sheet.fame_spent += cost
    last.update(result=new.name, fame_after=last.get("fame_after", 0) + cost, successes=art.count(difficulty, new))
    others: dict[int, Any] = {}
    consequence: list[Any] = []
    if last["action"] == "defend" and last.get("damage"):
        undo_player_damage(sheet, last["damage"])
        failures = max(0, -last["successes"])
        last["damage"] = apply_player_damage(sheet, failures, last.get("damage_rating", 0)) if failures else None
        consequence.append(damage_text(last["damage"]) if last["damage"] else msg("avoids all damage"))
    elif (
        last["action"] == "attack"
        and params.opponent_id is not None
        and last["successes"] > 0
        and ctx.others[params.opponent_id].kind == "foe"
    ):
        foe = ctx.others[params.opponent_id]
        name = ctx.other_names.get(params.opponent_id, "the foe")
        last["foe_damage"] = hit_foe(foe, new)
        others[params.opponent_id] = foe
        consequence.append(foe_damage_text(name, last["foe_damage"]))
    if sheet.sustained and sheet.sustained.get("outcomes"):
        sheet.sustained["outcomes"][-1] = last["successes"]
    if last.get("complex_step"):
        step_text = revise_step(sheet, params.entry_seq, last["successes"])
        consequence += [step_text] if step_text else []
    sheet.last_roll = last
    label, meaning = art.interpret(last["successes"])
    summary = join(
        [
            msg(
                "improves #{seq} to {level} with {cost} Fame ({label})",
                seq=params.entry_seq,
                level=level_word(new),
                cost=cost,
                label=wording.outcome_words(last["successes"]),
            ),
            *consequence,
        ],
        "; ",
    )
    return Resolution(
        request=params.model_dump(),
        outcome={
            "entry_seq": params.entry_seq,
            "result": new.name,
            "fame": cost,
            "successes": last["successes"],
            "label": label,
            "meaning": meaning,
            "total": new.name,
        },
        summary=summary,
        sheet=sheet,
        others=others,
    )


def resolve_inspire(sheet: ArtSheet, params: InspireParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Doubles: create a skill, or a point next to the attribute (00 only) or a used skill (ch. 6)."""
    last = _last(sheet, params.entry_seq)
    options = last.get("options")
    if not options:
        raise ActionError(
            _("#{entry_seq} gave no inspiration (only doubles do).").format(entry_seq=params.entry_seq), field="choice"
        )
    if last.get("inspired"):
        raise ActionError(
            _("#{entry_seq}'s inspiration is already taken.").format(entry_seq=params.entry_seq), field="choice"
        )
    name = params.skill.strip()
    if params.choice == "new_skill":
        if not options["create_skill"]:
            raise ActionError(_("You used two skills on that roll: you cannot create one."), field="choice")
        if not name:
            raise ActionError(_("Name the new skill: the specific action you were performing."), field="skill")
        if any(s.name.lower() == name.lower() for s in sheet.skills):
            raise ActionError(
                _("You already have {name}; a new skill may be a narrower one.").format(name=name), field="skill"
            )
        sheet.skills.append(Skill(name=name, rating=1))
        text = msg("creates the skill {name} +1", name=name)
    elif params.choice == "attribute":
        code = options["attribute"]
        if not code:
            raise ActionError(_("Only a roll of 00 puts a point next to the attribute."), field="choice")
        sheet.attribute_inspiration[code] = sheet.attribute_inspiration.get(code, 0) + 1
        text = msg(
            "puts an inspiration point next to {name} ({points})",
            name=msg(ATTRIBUTES[code]),
            points=sheet.attribute_inspiration[code],
        )
    else:
        allowed = [s for s in options["skills"] if s.lower() == name.lower()]
        if not allowed:
            why = "the kicker must be above its rating, and it must be a skill you used, not capped"
            raise ActionError(
                _("{skill} cannot take the point: {why}.").format(skill=name or "That skill", why=why), field="skill"
            )
        skill = next(s for s in sheet.skills if s.name == allowed[0])
        skill.inspiration += 1
        text = msg(
            N_("puts an inspiration point next to {name} ({points}/4, capped)")
            if skill.inspiration >= 4
            else N_("puts an inspiration point next to {name} ({points}/4)"),
            name=skill.name,
            points=skill.inspiration,
        )
    last["inspired"] = params.choice
    sheet.last_roll = last
    return Resolution(
        request=params.model_dump(),
        outcome={"entry_seq": params.entry_seq, "choice": params.choice},
        summary=msg("{text} (doubles on #{seq})", text=text, seq=params.entry_seq),
        sheet=sheet,
    )
