"""Trait rolls (and a henchman's), against a difficulty, a foe or another adventurer, and their odds; what
every roll shares (its choices, the difficulty an opponent sets, the chance). Defense rolls and attacks are
combat.py.

art-engine.md, ch. 3 "Opposed Rolls", "Player vs. Player", "Henchman", "Adjusting Difficulty",
"Assist Rolls", "Impede Rolls", "Sustained Actions", "Insanity".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, Field

from app.i18n import N_, Text, _, join, msg, percent
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import ATTRIBUTES, Level
from app.systems.base import ActionError, Context, Odds, Resolution

from . import complex as complex_
from . import core, wording
from .sheet import FOE_TRAITS, ArtSheet, attr, level_name, level_word, table_of

Adjust = Field(default=0, ge=-3, le=3)


class RollChoices(BaseModel):
    """What every roll shares: the player's skills, Fame before, taking 25; the narrator's modifiers."""

    skills: list[str] = Field(default_factory=list, max_length=2)
    modifiers: int = Field(default=0, ge=-20, le=20)
    fame_before: int = Field(default=0, ge=0, le=50)
    take25: bool = False
    adjust: int = Adjust


class TraitRollParams(RollChoices):
    attribute: str = ""
    difficulty: str | None = None
    opponent_id: int | None = None
    opponent_attribute: str | None = None
    untrained: bool = False
    helper_id: int | None = None
    help: Literal["assist", "impede"] = "assist"
    goal: int | None = Field(default=None, ge=5, le=30)
    failure_goal: int | None = Field(default=None, ge=5, le=30)
    purpose: Literal["", "sanity"] = ""
    outside_complex: bool = False  # a roll that is not a step of the open complex action
    # For the odds only (the roll itself reads the opponent's sheet on the server): the opponent's level, given
    # outright, or the narrator's sheet page's map of each foe's levels ("<id>:STR=PR,AGI=IN,…").
    foe_level: str | None = None
    foe_levels: list[str] = Field(default_factory=list, max_length=200)


ODDS_ONLY = {"foe_level", "foe_levels"}


class HenchmanParams(BaseModel):
    henchman_id: int
    attribute: str = ""
    difficulty: str | None = None
    adjust: int = Adjust
    take25: bool = False


# --- difficulty from an opponent ---------------------------------------------------------------------------


def opponent(ctx: Context[ArtSheet], opponent_id: int | None) -> tuple[ArtSheet, str] | None:
    if opponent_id is None:
        return None
    return ctx.others[opponent_id], ctx.other_names.get(opponent_id, "the opponent")


def difficulty_against(
    other: tuple[ArtSheet, str] | None,
    trait: str,
    given: str | None,
    field_name: str = "difficulty",
    what: str = N_("the difficulty"),
) -> tuple[Level, Text | str]:
    """A foe's level is the difficulty (ch. 3, "Opposed Rolls"); against an adventurer, their last roll's
    result is (ch. 3, "Player vs. Player"); otherwise the narrator's difficulty."""
    if other is None:
        return core.parse_level(given, field_name, what), ""
    sheet, name = other
    if sheet.kind == "foe":
        code = sheet.levels.get(trait)
        if code is None:
            raise ActionError(
                _("{name} has no {trait} level.").format(name=name, trait=FOE_TRAITS.get(trait, trait)),
                field="opponent_id",
            )
        if sheet.checked and all(sheet.checked):
            raise ActionError(_("{name} is already defeated.").format(name=name), field="opponent_id")
        return Level[code], msg("{name}'s {trait}", name=name, trait=msg(FOE_TRAITS.get(trait, trait)))
    last = sheet.last_roll
    if not last:
        raise ActionError(
            _("{name} has not rolled yet: their result is the difficulty.").format(name=name), field="opponent_id"
        )
    return Level[last["result"]], msg("{name}'s roll #{seq}", name=name, seq=last["seq"])


def concealed(other: tuple[ArtSheet, str] | None, ctx: Context[ArtSheet], against: Text | str) -> Text | str | None:
    """A player rolling against a foe does not learn its level: the text names the foe's trait instead."""
    if other is not None and other[0].kind == "foe" and not ctx.actor_is_narrator:
        return against
    return None


def _help(
    ctx: Context[ArtSheet], helper_id: int | None, mode: str, seq: int | None
) -> tuple[int, Text | str, dict[int, ArtSheet]]:
    """An assist adds the helper's successes to the trait; an impede subtracts them (ch. 3)."""
    if helper_id is None:
        return 0, "", {}
    helper = ctx.others[helper_id]
    name = ctx.other_names.get(helper_id, "the helper")
    last = helper.last_roll
    if not last or last.get("used_for"):
        raise ActionError(
            _("{name} has no fresh roll to {mode} with: they roll first.").format(name=name, mode=mode),
            field="helper_id",
        )
    successes = max(0, int(last["successes"]))
    last["used_for"] = seq
    sign = 1 if mode == "assist" else -1
    how = (
        N_("assisted by {name} (#{seq}, {change})") if mode == "assist" else N_("impeded by {name} (#{seq}, {change})")
    )
    note: Text = msg(how, name=name, seq=last["seq"], change=f"{sign * successes:+d}")
    if last["result"] == "CT":
        note = join([note, msg(": Catastrophic — the effort ends in disaster")], "")
    return sign * successes, note, {helper_id: helper}


def _sustained(sheet: ArtSheet, params: TraitRollParams, successes: int, spec: core.RollSpec) -> Text | str:
    """Keep the running tally of a sustained action (ch. 3, "Sustained Actions")."""
    if params.goal is None:
        return ""
    key = {
        "attribute": spec.attribute,
        "difficulty": spec.difficulty.name,
        "goal": params.goal,
        "failure_goal": params.failure_goal or params.goal,
    }
    tally = sheet.sustained
    if not tally or tally.get("finished") or {k: tally.get(k) for k in key} != key:
        tally = {**key, "outcomes": []}
    tally["outcomes"] = [*tally["outcomes"], successes]
    result = art.sustained_action(tally["outcomes"], goal=params.goal, failure_goal=params.failure_goal or params.goal)
    tally.update(
        successes=result.successes, failures=result.failures, finished=result.finished, succeeded=result.succeeded
    )
    sheet.sustained = tally
    return wording.sustained(
        successes=result.successes,
        failures=result.failures,
        goal=key["goal"],
        done=None if not result.finished else result.succeeded,
    )


def _complex_step(sheet: ArtSheet, params: TraitRollParams) -> dict[str, Any] | None:
    """The open complex action this roll is a step of (its running modifier applies), unless the player says
    the roll is something else."""
    running = None if params.outside_complex else complex_.open_complex(sheet)
    if running and params.goal is not None:
        raise ActionError(
            _(
                "A step of “{title}” cannot also be a sustained roll: mark the roll as not a step, or "
                "leave the goal empty."
            ).format(title=running["title"]),
            field="goal",
        )
    return running


# --- the actions -------------------------------------------------------------------------------------------


def resolve_trait_roll(
    sheet: ArtSheet, params: TraitRollParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    code = core.attribute_code(params.attribute)
    core.require_adventurer(sheet)
    other = opponent(ctx, params.opponent_id)
    versus = core.attribute_code(params.opponent_attribute or code, "opponent_attribute")
    difficulty, against = difficulty_against(other, versus, params.difficulty)
    running = _complex_step(sheet, params)
    help_mod, help_note, helped = _help(ctx, params.helper_id, params.help, ctx.seq)
    step_mod = running["modifier"] if running else 0
    spec = core.RollSpec(
        label=msg(ATTRIBUTES[code]),
        base=attr(sheet, code),
        attribute=code,
        difficulty=core.adjusted(difficulty, params.adjust),
        skills=params.skills,
        modifiers=params.modifiers + help_mod + step_mod,
        fame_before=params.fame_before,
        take25=params.take25,
        untrained=params.untrained,
    )
    rolled = core.roll_trait(sheet, spec, dice, table_of(ctx.campaign_settings))
    hide = concealed(other, ctx, against)
    outcome = core.outcome_of(rolled)
    if hide:
        outcome = core.conceal(outcome)
    step_note = complex_.record_step(sheet, ctx.seq, rolled.roll.result, rolled.roll.successes) if running else ""
    if running:
        outcome["complex"] = dict(sheet.complex or {})
    notes: list[Any] = [n for n in (step_note, help_note, _sustained(sheet, params, rolled.roll.successes, spec)) if n]
    if params.purpose == "sanity":
        label, text = art.sanity_check(rolled.roll.successes)
        outcome["sanity"] = text
        notes.append(msg("sanity: {text}", text=msg(text)))
    if against and not hide:
        notes.insert(0, msg("against {who}", who=against))
    core.remember(
        sheet,
        ctx.seq,
        "trait_roll",
        spec,
        rolled,
        opponent_id=params.opponent_id,
        purpose=params.purpose,
        complex_step=bool(running),
        concealed=bool(hide),
    )
    summary = msg("rolls {roll}", roll=join([core.describe(spec, rolled, against=hide), *notes], "; "))
    return Resolution(
        request=params.model_dump(exclude=ODDS_ONLY),
        outcome=outcome,
        summary=summary,
        sheet=sheet,
        others=helped,
    )


def resolve_henchman_roll(
    sheet: ArtSheet, params: HenchmanParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The player rolls for a henchman: its level converted to an adventurer trait (ch. 3, "Henchman")."""
    core.require_adventurer(sheet)
    henchman = ctx.others[params.henchman_id]
    name = ctx.other_names.get(params.henchman_id, "the henchman")
    if henchman.kind != "foe" or not henchman.henchman:
        raise ActionError(_("{name} is not a henchman.").format(name=name), field="henchman_id")
    code = (params.attribute or "").upper()
    if code not in henchman.levels:
        raise ActionError(_("Choose one of the henchman's traits."), field="attribute")
    trait = art.henchman_trait(Level[henchman.levels[code]])
    difficulty = core.adjusted(core.parse_level(params.difficulty, "difficulty"), params.adjust)
    roll = art.trait_roll(
        dice, trait, difficulty, take25=params.take25, henchman=True, table=table_of(ctx.campaign_settings)
    )
    label, meaning = art.interpret(roll.successes)
    rolled = msg("takes 25") if roll.took25 else msg("rolled {roll}", roll=f"{roll.roll:02d}")
    summary = msg(
        "rolls for {name}: {trait_name} {level} = trait {trait} against {difficulty}: {rolled} → {result} ({label})",
        name=name,
        trait_name=msg(FOE_TRAITS[code]),
        level=level_word(henchman.levels[code]),
        trait=trait,
        difficulty=level_word(difficulty),
        rolled=rolled,
        result=level_word(roll.result),
        label=wording.outcome_words(roll.successes),
    )
    return Resolution(
        request=params.model_dump(),
        outcome={
            "trait": trait,
            "row": roll.row,
            "roll": roll.roll,
            "kicker": roll.kicker,
            "result": roll.result.name,
            "successes": roll.successes,
            "label": label,
            "meaning": meaning,
            "total": roll.result.name,
        },
        summary=summary,
    )


# --- odds --------------------------------------------------------------------------------------------------


def chance_of(sheet: ArtSheet, spec: core.RollSpec, settings: Mapping[str, Any]) -> Odds:
    uses = core.skill_uses(sheet, spec.skills, untrained=spec.untrained)
    core.check_fame_before(sheet, spec.fame_before)
    trait = core.trait_of(sheet, spec, uses)
    table = table_of(settings)
    row = art.effective_row(trait, fame_before=spec.fame_before)
    if spec.take25:
        result = table.read(row, 25)
        chance = 1.0 if art.count(spec.difficulty, result) > 0 else 0.0
        text = _("row {row}, taking 25: {result} against {difficulty}").format(
            row=row, result=_(level_name(result)), difficulty=_(level_name(spec.difficulty))
        )
    else:
        chance = float(art.exact_chance(trait, spec.difficulty, table, fame_before=spec.fame_before))
        text = _("row {row} against {difficulty}").format(row=row, difficulty=_(level_name(spec.difficulty)))
    if sheet.fatigue:
        text += _(" (fatigue −{n})").format(n=sheet.fatigue)
    return Odds(
        chance=chance,
        text=f"{percent(chance)} — {text}",
        details={"row": row, "trait": trait, "label": _("Chance of success:")},
    )


def no_chance(what: str) -> Odds:
    return Odds(text=_("against {what}: the narrator knows the level").format(what=_(what)))


def _foe_level(params: TraitRollParams, trait: str) -> Level | None:
    """The opponent's level for the odds: given outright, or read from the page's map for the chosen foe.
    Anything unreadable means no chance is shown (never an error: the roll itself reads the real sheet)."""
    code = params.foe_level
    if not code:
        prefix = f"{params.opponent_id}:"
        entry = next((e for e in params.foe_levels if e.startswith(prefix)), "")
        pairs = dict(p.split("=", 1) for p in entry[len(prefix) :].split(",") if "=" in p)
        code = pairs.get(trait)
    try:
        return Level.parse(code) if code else None
    except art.ArtRuleError:
        return None


def trait_roll_odds(sheet: ArtSheet, params: TraitRollParams, ctx: Context[ArtSheet]) -> Odds:
    code = core.attribute_code(params.attribute)
    core.require_adventurer(sheet)
    if params.helper_id is not None:
        return no_chance(N_("a helper's result"))
    difficulty = None
    if params.opponent_id is not None:
        difficulty = _foe_level(params, core.attribute_code(params.opponent_attribute or code, "opponent_attribute"))
        if difficulty is None:
            return no_chance(N_("your opponent"))
    running = _complex_step(sheet, params)
    step_mod = running["modifier"] if running else 0
    if difficulty is None:
        difficulty = core.parse_level(params.difficulty, "difficulty")
    spec = core.RollSpec(
        label=code,
        base=attr(sheet, code),
        attribute=code,
        difficulty=core.adjusted(difficulty, params.adjust),
        skills=params.skills,
        modifiers=params.modifiers + step_mod,
        fame_before=params.fame_before,
        take25=params.take25,
        untrained=params.untrained,
    )
    odds = chance_of(sheet, spec, ctx.campaign_settings)
    if step_mod:
        title = running["title"]  # type: ignore[index]
        odds = replace(
            odds,
            text=_("{text} ({n} from the last step of {title})").format(
                text=odds.text, n=f"{step_mod:+d}", title=title
            ),
        )
    return odds
