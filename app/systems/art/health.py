"""Damage without a Defense roll (falls, a narrator's hazard), first aid, natural healing, med-kits, fatigue.

art-engine.md, ch. 3 "Recording Damage", "Staggering", "Defeat", "First Aid", "Natural Healing",
"Med-Kits", "Fatigue", "Falling Damage"; ch. 6 "Breakfall".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.i18n import N_, _, join, msg, msgn, ngettext, render, retire
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Resolution

from . import core, wording
from .sheet import ArtSheet, attr, fame_left, level_name, level_word, table_of
from .skirmish import damage_text, foe_damage_text, mark_damage


class TakeDamageParams(BaseModel):
    source: Literal["hazard", "fall"] = "hazard"
    damage: str | None = None
    feet: int = Field(default=0, ge=0, le=10000)
    surface: int = Field(default=0, ge=-3, le=3)


class FirstAidParams(BaseModel):
    box: int = Field(ge=0, le=9)
    patient_id: int | None = None


class RestParams(BaseModel):
    skills: list[str] = Field(default_factory=list, max_length=2)
    modifiers: int = Field(default=0, ge=-20, le=20)


class MedKitParams(BaseModel):
    item: int = Field(ge=0, le=40)
    patient_id: int | None = None
    skills: list[str] = Field(default_factory=list, max_length=2)


class FatigueParams(BaseModel):
    change: int = Field(ge=-30, le=30)


def mark(sheet: ArtSheet, damage: Level) -> dict[str, Any]:
    """Mark damage on any sheet's track; a defeated adventurer loses 1 Fame and falls unconscious (ch. 3)."""
    return mark_damage(sheet, damage)


def resolve_take_damage(
    sheet: ArtSheet, params: TakeDamageParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if not sheet.health:
        raise ActionError(_("This sheet has no Health track yet."), field="damage")
    if params.source == "fall":
        breakfall = min(sheet.perks.get("Breakfall", 0), 2)
        damage = art.falling_damage(params.feet, params.surface, breakfall=breakfall)
        surface = msg(art.FALLING_SURFACES[params.surface])
        cause = (
            wording.falls(feet=params.feet, surface=surface, breakfall=breakfall)
            if breakfall
            else wording.falls(feet=params.feet, surface=surface)
        )
        if damage is None:
            return Resolution(
                request=params.model_dump(),
                outcome={"damage": None},
                summary=msg("{cause}: under 10 feet, no damage", cause=cause),
                sheet=sheet,
            )
    else:
        damage = core.parse_level(params.damage, "damage", N_("the damage"))
        cause = msg("is hurt")
    done = mark(sheet, damage)
    text = foe_damage_text(msg("it"), done) if sheet.kind == "foe" else damage_text(done)
    return Resolution(
        request=params.model_dump(),
        outcome=done,
        summary=msg("{cause}: {text}", cause=cause, text=text),
        sheet=sheet,
    )


def _patient(sheet: ArtSheet, ctx: Context[ArtSheet], patient_id: int | None) -> tuple[ArtSheet, Any, bool]:
    """The sheet healed, how a log line names its owner (a name, or a word translated when read), and whether it
    is the healer's own."""
    if patient_id is None:
        return sheet, msg(N_("themself")), True
    name = ctx.other_names.get(patient_id)
    return ctx.others[patient_id], name if name else msg(N_("them")), False


def _healed(patient: ArtSheet) -> None:
    if patient.unconscious and not all(patient.checked):
        patient.unconscious = False


def resolve_first_aid(
    sheet: ArtSheet, params: FirstAidParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """A conscious character pays Fame to uncheck a box: 1 for Inferior, +1 per level above (ch. 3)."""
    healer = sheet
    core.require_adventurer(healer)
    patient, name, itself = _patient(healer, ctx, params.patient_id)
    try:
        checked, cost = art.first_aid([Level[c] for c in patient.health], patient.checked, params.box)
    except art.ArtRuleError as exc:
        raise ActionError(_("Box {box} is not a checked Health box.").format(box=params.box + 1), field="box") from exc
    if cost > fame_left(healer):
        raise ActionError(
            _("Healing a {level} box costs {cost} Fame; you have {fame_left} left.").format(
                level=_(level_name(patient.health[params.box])), cost=cost, fame_left=fame_left(healer)
            ),
            field="box",
        )
    healer.fame_spent += cost
    patient.checked = list(checked)
    _healed(patient)
    summary = msg(
        "gives first aid to {name}: the {level} box is healed for {cost} Fame",
        name=name,
        level=level_word(patient.health[params.box]),
        cost=cost,
    )
    others = {} if params.patient_id is None else {params.patient_id: patient}  # None: itself
    return Resolution(
        request=params.model_dump(),
        outcome={"box": params.box, "fame": cost},
        summary=summary,
        sheet=patient if itself else healer,
        others=others,
    )


def _heal_roll(
    healer: ArtSheet, patient: ArtSheet, spec: core.RollSpec, dice: Dice, ctx: Context[ArtSheet], action: str
) -> tuple[core.Rolled, int | None]:
    rolled = core.roll_trait(healer, spec, dice, table_of(ctx.campaign_settings))
    before = list(patient.checked)
    after = art.natural_healing([Level[c] for c in patient.health], patient.checked, rolled.roll.result)
    patient.checked = list(after)
    healed = next((i for i, (old, new) in enumerate(zip(before, after)) if old and not new), None)
    _healed(patient)
    core.remember(healer, ctx.seq, action, spec, rolled)
    return rolled, healed


def resolve_rest(sheet: ArtSheet, params: RestParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """After a night's rest: a Stamina roll erases one box that does not exceed it (ch. 3, "Natural Healing")."""
    core.require_adventurer(sheet, awake=False)
    if not any(sheet.checked):
        raise ActionError(_("No checked Health box to heal."), field="rest")
    spec = core.RollSpec(
        label=msg("Stamina (healing)"),
        base=attr(sheet, "STA"),
        attribute="STA",
        roll_kind="healing",
        difficulty=Level.CT,
        skills=params.skills,
        modifiers=params.modifiers,
    )
    rolled, healed = _heal_roll(sheet, sheet, spec, dice, ctx, "rest")
    text = (
        msg("heals the {level} box", level=level_word(sheet.health[healed]))
        if healed is not None
        else msg("is below every wound: no healing tonight")
    )
    return Resolution(
        request=params.model_dump(),
        outcome={**core.outcome_of(rolled), "healed": healed},
        summary=msg("rests: {roll}; {text}", roll=core.describe(spec, rolled), text=text),
        sheet=sheet,
    )


def resolve_med_kit(sheet: ArtSheet, params: MedKitParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Using a med-kit: the one applying it rolls Intelligence (+ the kit's bonus); one use is spent (ch. 3)."""
    healer = sheet
    core.require_adventurer(healer)
    if not params.item < len(healer.gear) or healer.gear[params.item].type != "medkit":
        raise ActionError(_("Choose one of your med-kits."), field="item")
    kit = healer.gear[params.item]
    if not kit.uses:
        raise ActionError(_("{name} has no uses left.").format(name=kit.name), field="item")
    patient, name, itself = _patient(healer, ctx, params.patient_id)
    if not any(patient.checked):
        raise ActionError(
            _("{name} has no checked Health box.").format(name=render(name).capitalize()), field="patient_id"
        )
    kit.uses -= 1
    spec = core.RollSpec(
        label=msg("Intelligence with {name}", name=kit.name),
        base=attr(healer, "INT"),
        attribute="INT",
        difficulty=Level.CT,
        skills=params.skills,
        modifiers=kit.bonus,
        item_index=params.item,
    )
    target = healer if itself else patient
    rolled, healed = _heal_roll(healer, target, spec, dice, ctx, "med_kit")
    text = msgn(
        "{text} ({n} use left)",
        "{text} ({n} uses left)",
        kit.uses,
        text=msg("heals {name}'s {level} box", name=name, level=level_word(target.health[healed]))
        if healed is not None
        else msg("does not heal {name}", name=name),
    )
    return Resolution(
        request=params.model_dump(),
        outcome={**core.outcome_of(rolled), "healed": healed},
        summary=msg("uses {name}: {roll}; {text}", name=kit.name, roll=core.describe(spec, rolled), text=text),
        sheet=healer,
        others={} if params.patient_id is None else {params.patient_id: patient},
    )


def resolve_fatigue(sheet: ArtSheet, params: FatigueParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Each point of fatigue is −1 on all rolls until its source is removed (ch. 3, "Fatigue")."""
    if sheet.kind != "adventurer":
        raise ActionError(_("Only adventurers track fatigue."), field="change")
    if params.change == 0:
        raise ActionError(_("Add or remove at least one point."), field="change")
    if sheet.fatigue + params.change < 0:
        raise ActionError(
            ngettext(
                "There is only {fatigue} point of fatigue to remove.",
                "There are only {fatigue} points of fatigue to remove.",
                sheet.fatigue,
            ).format(fatigue=sheet.fatigue),
            field="change",
        )
    sheet.fatigue += params.change
    verb = (
        N_("takes {n} fatigue (now −{fatigue} on all rolls)")
        if params.change > 0
        else N_("recovers {n} fatigue (now −{fatigue} on all rolls)")
    )
    return Resolution(
        request=params.model_dump(),
        outcome={"fatigue": sheet.fatigue},
        summary=msg(verb, n=abs(params.change), fatigue=sheet.fatigue),
        sheet=sheet,
    )


# --- sustained damage (ch. 3, "Sustained Damage") ----------------------------------------------------------


class SustainedDamageParams(BaseModel):
    source: str = Field(default="", max_length=80)
    rounds: int | None = Field(default=None, ge=1, le=30)


class EndSustainedDamageParams(BaseModel):
    pass


def resolve_sustained_damage(
    sheet: ArtSheet, params: SustainedDamageParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The narrator applies the next round of fire or acid: Inferior on the first round, one level more each
    round (art.sustained_damage), marked like any damage. With a number of rounds (e.g. one per failure on the
    Defense roll) it stops by itself after the last; otherwise until the narrator ends it."""
    if not sheet.health:
        raise ActionError(_("This sheet has no Health track yet."), field="source")
    burning = dict(sheet.burning or {})
    source = " ".join(params.source.split()) or burning.get("source") or "fire"
    round_no = int(burning.get("round", 0)) + 1
    rounds = params.rounds if params.rounds is not None else burning.get("rounds")
    if rounds is not None and rounds < round_no:
        raise ActionError(
            ngettext(
                "This is round {round_no}: the damage cannot last only {rounds} round.",
                "This is round {round_no}: the damage cannot last only {rounds} rounds.",
                rounds,
            ).format(round_no=round_no, rounds=rounds),
            field="rounds",
        )
    damage = art.sustained_damage(round_no)[-1]
    done = mark(sheet, damage)
    text = foe_damage_text(msg("it"), done) if sheet.kind == "foe" else damage_text(done)
    over = rounds is not None and round_no >= rounds
    sheet.burning = None if over else {"source": source, "round": round_no, "rounds": rounds}
    head = (
        msg("{source}, round {n} of {rounds}", source=source, n=round_no, rounds=rounds)
        if rounds
        else msg("{source}, round {n}", source=source, n=round_no)
    )
    summary = join([msg("{head}: {text}", head=head, text=text), *([msg("; it dies out")] if over else [])], "")
    return Resolution(
        request={"source": source, "rounds": rounds},
        outcome={**done, "round": round_no, "rounds": rounds, "over": over},
        summary=summary,
        sheet=sheet,
    )


def resolve_end_sustained_damage(
    sheet: ArtSheet, params: EndSustainedDamageParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The source is put out (dropping and rolling, diving into water): no more rounds."""
    if not sheet.burning:
        raise ActionError(_("No sustained damage is under way."), field="end_sustained_damage")
    burning = sheet.burning
    sheet.burning = None
    return Resolution(
        request={},
        outcome={"round": burning.get("round", 0)},
        summary=msgn(
            "the {source} is put out after {n} round",
            "the {source} is put out after {n} rounds",
            burning.get("round", 0),
            source=burning.get("source", "fire"),
        ),
        sheet=sheet,
    )


# Entries logged before the counts had plural forms.
retire(
    "{text} ({n} uses left)", lambda a: msgn("{text} ({n} use left)", "{text} ({n} uses left)", a["n"], text=a["text"])
)
retire(
    "the {source} is put out after {n} rounds",
    lambda a: msgn(
        "the {source} is put out after {n} round",
        "the {source} is put out after {n} rounds",
        a["n"],
        source=a["source"],
    ),
)
