"""Attacks in a combat: an adventurer's attack (a foe, a group, another adventurer) and a foe's attack, up to the
Defense roll they leave pending (defense.py: the roll, its damage, the parry, declining it).

art-engine.md, ch. 5 "Foe Attacking Player", "Player Attacking Foe", "Player Attacking Player", "Multiple
Foes Attacking a Player", "Fumbles", "Foe Fumbles", "Dodging", "Parrying"; ch. 3 "Taking Damage";
RULINGS.md, ART Engine 9, 10, 22-25.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet, level_word, load, weapon_stats
from ..skirmish import foe_damage_text, hit_foe
from . import grapple as fg
from . import perks as fp
from .models import CombatState, Fighter
from .pvp import pvp_attack_odds
from .roll import CombatRoll, Rolled, StepParams, acting, odds_for, outcome, remember, roll
from .state import (
    combat_state,
    copy_state,
    difficulty_shift,
    done,
    fate_list,
    fate_rolls,
    fighter,
    in_band,
    mark_outcome,
    name_of,
    over,
    require_turn,
    use_action,
)

ATTACK_WITH = {
    "melee_1h": "one_handed",
    "melee_2h": "two_handed",
    "ranged_1h": "ranged",
    "ranged_2h": "ranged",
    "shotgun": "ranged",
}


def weapon_of(sheet: ArtSheet, index: int) -> dict[str, Any]:
    if not 0 <= index < len(sheet.gear) or sheet.gear[index].type != "weapon":
        raise ActionError(_("Choose one of your weapons."), field="weapon")
    item = sheet.gear[index]
    if item.slot != "ready":
        raise ActionError(_("{name} is not ready: draw it first.").format(name=item.name), field="weapon")
    stats = weapon_stats(sheet, item)
    if stats["too_heavy"]:
        raise ActionError(
            _("{name} needs Strength {n}.").format(name=item.name, n=stats["strength_required"]), field="weapon"
        )
    return {**stats, "name": item.name, "kind": item.weapon or "melee_1h", "thrown": item.thrown}


def in_range(stats: dict[str, Any], distance: int) -> bool:
    """Melee in the attacker's band (a reach weapon: also an adjacent band, ch. 2 "Melee Weapon Features");
    ranged within the weapon's range; a thrown weapon within its range."""
    if stats["ranged"]:
        return bool(distance <= stats["range"])
    if stats["thrown"] and stats["thrown_range"] is not None:
        return bool(distance <= stats["thrown_range"])
    return distance <= (1 if stats.get("reach") else 0)


def attack_reach(sheet_data: Mapping[str, Any], shown: Mapping[str, Any], fid: int) -> dict[int, list[int]]:
    """For the page: each ready weapon of the turn-holder (its index in the gear) and the fighters it reaches now
    (the rule the attack checks, `in_range`), so the page offers the Attack only where it can be tried. The page
    hands the stored sheet."""
    sheet = load(sheet_data)
    state = combat_state(shown)
    me = fighter(state, fid)
    reach: dict[int, list[int]] = {}
    for index, item in enumerate(sheet.gear):
        if item.type != "weapon" or item.slot != "ready":
            continue
        try:
            stats = weapon_of(sheet, index)
        except ActionError:
            reach[index] = []  # too heavy: the attack is refused whatever the target
            continue
        reach[index] = [
            f.id for f in state.fighters if not f.out and f.id != fid and in_range(stats, abs(f.band - me.band))
        ]
    return reach


def defense_pending(
    state: CombatState,
    *,
    defender: int,
    attacker: int,
    attack: Level,
    rating: int,
    attack_with: str,
    foe: bool,
    surprised: bool = False,
    from_behind: bool = False,
    modifier: int = 0,
    why: Summary = "",
) -> Summary:
    name = name_of(state, defender)
    state.pending = {
        "kind": "defense",
        "defender": defender,
        "attacker": attacker,
        "attack": attack.name,
        "rating": rating,
        "attack_with": attack_with,
        "surprised": surprised,
        "from_behind": from_behind,
        "modifier": modifier,
        "foe": foe,
        "secret": ["attack", "rating"] if foe else [],
        "label": msg("{name} rolls Defense ({why})", name=name, why=why)
        if why
        else msg("{name} rolls Defense", name=name),
    }
    return (
        msg("{name} must roll Defense ({why})", name=name, why=why)
        if why
        else msg("{name} must roll Defense", name=name)
    )


# --- an adventurer attacks ----------------------------------------------------------------------------------


class AttackParams(CombatRoll):
    target: int
    weapon: int = Field(default=0, ge=0, le=40)


def resolve_attack(sheet: ArtSheet, params: AttackParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if me.side != "adventurer":
        raise ActionError(_("The narrator attacks with a foe."), field="target")
    if "no_attack" in me.now:
        raise ActionError(_("{name} cannot attack this turn (the fumble).").format(name=me.name), field="target")
    target = fighter(state, params.target)
    if target.out or target.id == me.id:
        raise ActionError(_("Choose someone still in the fight."), field="target")
    stats = weapon_of(sheet, params.weapon)
    distance = abs(target.band - me.band)
    if not in_range(stats, distance):
        raise ActionError(wording.out_of_reach(target.name, stats["name"], distance), field="target")
    if fg.diverted(state, me, target):  # into a grapple from outside: Fate decides who is hit
        return fg.attack_into(sheet, params, dice, ctx, state, me, target, attack=resolve_attack, fate_rolls=fate_rolls)
    bonus = me.aim or 0
    me.unset("aim")
    grappling = bool(me.grapple) and target.side == "foe"
    if me.grapple and grappling:
        bonus += art.GRAPPLE_ATTACK + me.grapple.get("bonus", 0)
    bonus += fp.bonus(state, me, "attack", use=True)[0]
    kind = "ranged_attack" if stats["ranged"] else "melee_attack"
    foe = target.side == "foe"
    label = msg("Attack with {name}", name=stats["name"])
    r, others, notes = weapon_roll(
        sheet, params, dice, ctx, state, me, target, stats, params.weapon, kind, label, bonus
    )
    use_action(state)
    notes += list(
        fp.after_roll(state, me.id, sheet, r.rolled.perks, r.rolled.roll.kicker, target=target.id if foe else None)
    )
    fumbled = art.attack_fumble(r.result, ranged=stats["ranged"])
    if fumbled == "fumble":
        state.pending = {
            "kind": "fumble",
            "roller": me.id,
            "fumbler": me.id,
            "foe": False,
            "target": target.id,
            "weapon": params.weapon,
            "label": msg("{name} fumbles: roll Agility on the Fumble table", name=me.name),
        }
        notes.append(msg("fumble: roll Agility on the Fumble table"))
    elif fumbled == "stray":
        near = [f for f in in_band(state, target.band, "adventurer") if f.id != me.id]
        fates = fate_rolls(ctx, near, dice, own=sheet)
        if fates:
            hit_id = int(art.lowest_fate(fates)[0])
            notes.append(msg("stray shot: Fate {rolls}", rolls=fate_list(state, fates)))
            notes.append(
                defense_pending(
                    state,
                    defender=hit_id,
                    attacker=me.id,
                    attack=art.STRAY_SHOT_ATTACK,
                    rating=0,
                    attack_with="ranged",
                    foe=False,
                    why=msg("a stray shot, Poor"),
                )
            )
        else:
            notes.append(msg("stray shot: nobody else there"))
    elif not foe:
        notes.append(
            defense_pending(
                state,
                defender=target.id,
                attacker=me.id,
                attack=r.result,
                rating=0,
                attack_with=ATTACK_WITH[stats["kind"]],
                foe=False,
                why=msg("against {level}", level=level_word(r.result)),
            )
        )
    remember(sheet, ctx, "combat_attack", r, concealed=foe)
    if over(state):
        notes.append(msg("the narrator may end the combat"))
    summary = join(
        [
            msg("{name} attacks {target}: {roll}", name=me.name, target=target.name, roll=r.text),
            *(n for n in notes if n),
        ],
        "; ",
    )
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=foe), "fumble": fumbled},
        sheet=sheet,
        others=others,
    )


def attack_odds(sheet: ArtSheet, params: AttackParams, ctx: Context[ArtSheet]) -> Odds:
    stats = weapon_of(sheet, params.weapon)
    extra = fp.attack_extra(ctx, params.target)
    pvp = pvp_attack_odds(
        sheet, params, ctx, attribute=stats["attribute"], base=stats["attack"], extra=extra, target=params.target
    )
    me = acting(ctx)[1]
    return pvp or fp.noted(
        odds_for(
            sheet,
            params,
            ctx,
            attribute=stats["attribute"],
            base=stats["attack"],
            what=N_("the foe's Defense"),
            extra=extra,
            columns=difficulty_shift(me) if me else 0,
        ),
        extra,
    )


# --- a foe attacks ------------------------------------------------------------------------------------------


class FoeAttackParams(StepParams):
    target: int
    attack_with: Literal["one_handed", "two_handed", "small_natural", "large_natural", "ranged"] = "one_handed"
    surprised: bool = False
    from_behind: bool = False
    reach: bool = False  # a two-handed weapon with reach: the target may be in an adjacent band


def resolve_foe_attack(
    sheet: ArtSheet, params: FoeAttackParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The narrator's foe attacks an adventurer: foes never roll; the adventurer rolls Defense against its
    Attack (a group: its members' Attack added up) with its damage rating."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if me.side != "foe":
        raise ActionError(_("Adventurers roll their attacks."), field="target")
    if "no_attack" in me.now:
        raise ActionError(_("{name} cannot attack this turn (the fumble).").format(name=me.name), field="target")
    target = fighter(state, params.target)
    chosen = state.into_grapple == target.id  # a foe hit by the Fate rolls into a grapple
    if target.out or (target.side != "adventurer" and not chosen):
        raise ActionError(_("Choose an adventurer still in the fight."), field="target")
    if params.reach and params.attack_with != "two_handed":
        raise ActionError(_("Only two-handed weapons have reach."), field="reach")
    distance = abs(target.band - me.band)
    if params.attack_with != "ranged" and distance > (1 if params.reach else 0):
        message = (
            _("A reach weapon needs {name} in the same or an adjacent band.")
            if params.reach
            else _("A melee attack needs {name} in the same band.")
        )
        raise ActionError(message.format(name=target.name), field="target")
    if fg.diverted(state, me, target):  # into a grapple from outside: Fate decides who is hit
        return fg.attack_into(
            sheet, params, dice, ctx, state, me, target, attack=resolve_foe_attack, fate_rolls=fate_rolls
        )
    if target.side != "adventurer":  # foes never roll: the narrator marks the damage
        use_action(state)
        return done(
            state,
            params,
            msg("{name} strikes {target}: the narrator marks the damage", name=me.name, target=target.name),
        )
    attack = art.add_difficulties([Level[sheet.levels.get("ATK", "CT")]] * me.count)
    use_action(state)
    text = defense_pending(
        state,
        defender=target.id,
        attacker=me.id,
        attack=attack,
        rating=sheet.damage_rating,
        attack_with=params.attack_with,
        foe=True,
        surprised=params.surprised,
        from_behind=params.from_behind,
    )
    if params.surprised:
        head = msg("{name} attacks {target} by surprise", name=me.name, target=target.name)
    elif params.from_behind:
        head = msg("{name} attacks {target} from behind", name=me.name, target=target.name)
    else:
        head = msg("{name} attacks {target}", name=me.name, target=target.name)
    return done(state, params, join([head, text], "; "))


# --- defending ---------------------------------------------------------------------------------------------------


def weapon_roll(
    sheet: ArtSheet,
    params: CombatRoll,
    dice: Dice,
    ctx: Context[ArtSheet],
    state: CombatState,
    me: Fighter,
    target: Fighter,
    stats: dict[str, Any],
    weapon: int,
    kind: str,
    label: Summary,
    extra: int,
) -> tuple[Rolled, dict[int, ArtSheet], list[Summary]]:
    """A weapon's roll at `target` (an attack, a free attack): against a foe's Defense, where a hit damages the foe
    (its saved sheet in the second value), else a degree-only roll that a player's defense answers."""
    others: dict[int, ArtSheet] = {}
    notes: list[Summary] = []
    if target.side == "foe":
        foe_sheet = ctx.others[target.id]
        r = roll(
            sheet,
            params,
            dice,
            ctx,
            label=label,
            base=stats["attack"],
            attribute=stats["attribute"],
            difficulty=Level[foe_sheet.levels.get("DEF", "CT")],
            kind=kind,
            item_index=weapon,
            against=msg("{name}'s Defense", name=target.name),
            extra=extra,
            columns=difficulty_shift(me),
        )
        if r.succeeded:
            hit = hit_foe(foe_sheet, r.result)
            others[target.id] = foe_sheet
            notes += [foe_damage_text(target.name, hit), mark_outcome(state, target.id, hit)]
        else:
            notes.append(msg("misses"))
        return r, others, notes
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=label,
        base=stats["attack"],
        attribute=stats["attribute"],
        difficulty=Level.CT,
        kind=kind,
        item_index=weapon,
        extra=extra,
        degree_only=True,
    )
    return r, others, notes
