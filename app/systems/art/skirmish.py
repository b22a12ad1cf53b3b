"""Defense rolls and attacks, and the damage they do to adventurers and foes.

art-engine.md, ch. 3 "Taking Damage" to "Defeat"; ch. 5 "Foe Attacking Player", "Player Attacking Foe".
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.i18n import N_, Text, _, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from . import core
from .rolling import RollChoices, chance_of, concealed, difficulty_against, no_chance, opponent
from .sheet import (
    ArtSheet,
    defense,
    level_word,
    shield,
    shield_bonus,
    table_of,
    two_handed_ready,
    weapon_stats,
)


class DefendParams(RollChoices):
    attack: str | None = None
    damage_rating: int = Field(default=0, ge=0, le=3)
    opponent_id: int | None = None
    use_shield: bool = False


class AttackParams(RollChoices):
    weapon: int = Field(default=-1, ge=-1, le=40)
    difficulty: str | None = None
    opponent_id: int | None = None


# --- damage ----------------------------------------------------------------------------------------------


def apply_player_damage(sheet: ArtSheet, failures: int, rating: int) -> dict[str, Any]:
    """Failures (+ rating) → damage, marked on the Health track; staggering and defeat (ch. 3)."""
    return mark_damage(sheet, art.player_damage(failures, rating))


def mark_damage(sheet: ArtSheet, damage: Level) -> dict[str, Any]:
    """Mark damage on a Health track (ruling 10); a defeated adventurer loses 1 Fame and falls unconscious
    (ch. 3, "Defeat"). The Defense roll, damage without a roll and sustained damage all mark through here."""
    record = art.record_damage([Level[c] for c in sheet.health], sheet.checked, damage)
    was_unconscious = sheet.unconscious
    sheet.checked = list(record.checked)
    penalty = sheet.kind == "adventurer" and record.defeated and not was_unconscious and bool(record.marked)
    if penalty:
        sheet.fame = art.fame_after_defeat(sheet.fame)
        sheet.fame_spent = min(sheet.fame_spent, sheet.fame)
        sheet.unconscious = True
    return {
        "damage": damage.name,
        "marked": list(record.marked),
        "staggered": record.staggered,
        "defeated": record.defeated,
        "defeat_penalty": penalty,
    }


def undo_player_damage(sheet: ArtSheet, done: dict[str, Any]) -> None:
    for index in done.get("marked", []):
        sheet.checked[index] = False
    if done.get("defeat_penalty"):
        sheet.fame += 1
        sheet.unconscious = False


def damage_text(done: dict[str, Any] | None) -> Text:
    if not done:
        return msg("no damage")
    level = level_word(done["damage"])
    if not done["marked"]:
        return msg("{level} damage shrugged off", level=level)
    if done["defeated"]:
        return (
            msg("takes {level} damage, defeated (−1 Fame, unconscious)", level=level)
            if done.get("defeat_penalty")
            else msg("takes {level} damage, defeated", level=level)
        )
    if done["staggered"]:
        return msg("takes {level} damage, staggered", level=level)
    return msg("takes {level} damage", level=level)


def resolve_defend(sheet: ArtSheet, params: DefendParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """A Defense roll against a hazard's Attack; failures + its damage rating mark the Health track."""
    core.require_adventurer(sheet)
    other = opponent(ctx, params.opponent_id)
    difficulty, against = difficulty_against(other, "ATK", params.attack, "attack", N_("the hazard's Attack"))
    rating = params.damage_rating
    if other is not None and other[0].kind == "foe":
        rating = other[0].damage_rating
    base, label, item_index = defense(sheet), msg("Defense"), None
    if params.use_shield:
        found = shield(sheet)
        if found is None:
            raise ActionError(_("No shield ready or at hand."), field="use_shield")
        if two_handed_ready(sheet):
            raise ActionError(_("You cannot use a shield while wielding a two-handed weapon."), field="use_shield")
        base += shield_bonus(sheet)
        label, item_index = msg("Defense with {name}", name=found.name), sheet.gear.index(found)
    spec = core.RollSpec(
        label=label,
        base=base,
        attribute="AGI",
        roll_kind="defense",
        difficulty=core.adjusted(difficulty, params.adjust),
        skills=params.skills,
        modifiers=params.modifiers,
        fame_before=params.fame_before,
        take25=params.take25,
        item_index=item_index,
    )
    rolled = core.roll_trait(sheet, spec, dice, table_of(ctx.campaign_settings))
    done = apply_player_damage(sheet, rolled.roll.failures, rating) if not rolled.roll.succeeded else None
    hide = concealed(other, ctx, against)
    outcome = {
        **(core.conceal(core.outcome_of(rolled)) if hide else core.outcome_of(rolled)),
        "damage": done,
        "damage_rating": rating,
    }
    core.remember(
        sheet,
        ctx.seq,
        "defend",
        spec,
        rolled,
        damage_rating=rating,
        damage=done,
        opponent_id=params.opponent_id,
        concealed=bool(hide),
    )
    head = msg("defends against {who}", who=against) if against else msg("defends")
    rating_text = msg(" (+{n} damage)", n=rating) if rating else ""
    summary = msg(
        "{head}{rating}: {roll}; {damage}",
        head=head,
        rating=rating_text,
        roll=core.describe(spec, rolled, against=hide),
        damage=damage_text(done) if done else msg("avoids all damage"),
    )
    return Resolution(request=params.model_dump(), outcome=outcome, summary=summary, sheet=sheet)


def hit_foe(foe: ArtSheet, result: Level) -> dict[str, Any]:
    """The column rolled is the damage inflicted (ch. 3, "Inflicting Damage")."""
    damage = art.inflicted_damage(result)
    record = art.record_damage([Level[c] for c in foe.health], foe.checked, damage)
    foe.checked = list(record.checked)
    return {
        "damage": damage.name,
        "marked": list(record.marked),
        "staggered": record.staggered,
        "defeated": record.defeated,
    }


def foe_damage_text(name: str | Text, done: dict[str, Any]) -> Text:
    level = level_word(done["damage"])
    if not done["marked"]:
        return msg("{level} does {name} no harm", level=level, name=name)
    if done["defeated"]:
        return msg("{name} takes {level} damage and is defeated", name=name, level=level)
    if done["staggered"]:
        return msg("{name} takes {level} damage, staggered", name=name, level=level)
    return msg("{name} takes {level} damage", name=name, level=level)


def resolve_attack(sheet: ArtSheet, params: AttackParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """An attack with a ready weapon against a foe's Defense (the hit marks the foe's track) or a difficulty."""
    core.require_adventurer(sheet)
    if not 0 <= params.weapon < len(sheet.gear) or sheet.gear[params.weapon].type != "weapon":
        raise ActionError(_("Choose one of your weapons."), field="weapon")
    item = sheet.gear[params.weapon]
    if item.slot != "ready":
        raise ActionError(
            _("{name} is not ready: move it to a ready slot first (an action).").format(name=item.name), field="weapon"
        )
    stats = weapon_stats(sheet, item)
    if stats["too_heavy"]:
        raise ActionError(
            _("{name} needs Strength {strength_required}.").format(
                name=item.name, strength_required=stats["strength_required"]
            ),
            field="weapon",
        )
    other = opponent(ctx, params.opponent_id)
    difficulty, against = difficulty_against(other, "DEF", params.difficulty)
    kind = "ranged_attack" if stats["ranged"] else "melee_attack"
    spec = core.RollSpec(
        label=msg("Attack with {name}", name=item.name),
        base=stats["attack"],
        attribute=stats["attribute"],
        roll_kind=kind,
        difficulty=core.adjusted(difficulty, params.adjust),
        skills=params.skills,
        modifiers=params.modifiers,
        fame_before=params.fame_before,
        take25=params.take25,
        item_index=params.weapon,
    )
    rolled = core.roll_trait(sheet, spec, dice, table_of(ctx.campaign_settings))
    others: dict[int, Any] = {}
    done = None
    text = msg("misses") if not rolled.roll.succeeded else msg("hits")
    if other is not None and params.opponent_id is not None and other[0].kind == "foe" and rolled.roll.succeeded:
        foe, name = other
        done = hit_foe(foe, rolled.roll.result)
        others[params.opponent_id] = foe
        text = foe_damage_text(name, done)
    hide = concealed(other, ctx, against)
    outcome = {**(core.conceal(core.outcome_of(rolled)) if hide else core.outcome_of(rolled)), "foe_damage": done}
    core.remember(
        sheet, ctx.seq, "attack", spec, rolled, opponent_id=params.opponent_id, foe_damage=done, concealed=bool(hide)
    )
    roll = core.describe(spec, rolled, against=hide)
    summary = (
        msg("attacks {target}: {roll}; {result}", target=other[1], roll=roll, result=text)
        if other is not None
        else msg("attacks: {roll}; {result}", roll=roll, result=text)
    )
    return Resolution(
        request=params.model_dump(),
        outcome=outcome,
        summary=summary,
        sheet=sheet,
        others=others,
    )


# --- odds --------------------------------------------------------------------------------------------------


def defend_odds(sheet: ArtSheet, params: DefendParams, ctx: Context[ArtSheet]) -> Odds:
    core.require_adventurer(sheet)
    if params.opponent_id is not None:
        return no_chance(N_("the foe's Attack"))
    base = defense(sheet) + (shield_bonus(sheet) if params.use_shield else 0)
    spec = core.RollSpec(
        label=msg("Defense"),
        base=base,
        attribute="AGI",
        roll_kind="defense",
        difficulty=core.adjusted(core.parse_level(params.attack, "attack", N_("the Attack")), params.adjust),
        skills=params.skills,
        modifiers=params.modifiers,
        fame_before=params.fame_before,
        take25=params.take25,
    )
    return chance_of(sheet, spec, ctx.campaign_settings)


def attack_odds(sheet: ArtSheet, params: AttackParams, ctx: Context[ArtSheet]) -> Odds:
    core.require_adventurer(sheet)
    if not 0 <= params.weapon < len(sheet.gear) or sheet.gear[params.weapon].type != "weapon":
        raise ActionError(_("Choose one of your weapons."), field="weapon")
    if params.opponent_id is not None:
        return no_chance(N_("the foe's Defense"))
    stats = weapon_stats(sheet, sheet.gear[params.weapon])
    spec = core.RollSpec(
        label=msg("Attack"),
        base=stats["attack"],
        attribute=stats["attribute"],
        difficulty=core.adjusted(core.parse_level(params.difficulty, "difficulty"), params.adjust),
        skills=params.skills,
        modifiers=params.modifiers,
        fame_before=params.fame_before,
        take25=params.take25,
    )
    return chance_of(sheet, spec, ctx.campaign_settings)
