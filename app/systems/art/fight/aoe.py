"""Area of effect in a combat: an adventurer's AOE attack (a weapon or a grenade), a foe's (a player in the
band rolls Fate on the Fate column), falling prone, and the Fate rolls for who is hit.

art-engine.md, ch. 5 "Area of Effect", "AOE Attack", "Foe AOE Attacks"; RULINGS.md, ART Engine 26-28.
"""

from __future__ import annotations

from pydantic import Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import Level
from app.systems.base import ActionError, Context, Odds, Resolution

from .. import wording
from ..sheet import ArtSheet, attr
from .attacks import weapon_of
from .defense import take
from .models import CombatState
from .roll import CombatRoll, StepParams, odds_for, outcome, remember, roll, shift_now
from .state import (
    MAX_BANDS,
    acted_this_round,
    copy_state,
    difficulty_shift,
    done,
    fate_list,
    fate_rolls,
    fighter,
    in_band,
    mark_outcome,
    require_turn,
    take_out_of_round,
    use_action,
)

# --- area of effect ----------------------------------------------------------------------------------------


class AoeParams(CombatRoll):
    band: int = Field(ge=0, lt=MAX_BANDS)
    weapon: int = Field(default=-1, ge=-1, le=40)  # -1: a grenade thrown with Dexterity
    damage: str = "PS"
    targets: int = Field(default=3, ge=1, le=20)
    autofire: bool = False
    origin: int | None = None  # for the odds only: the attacker's band, as the page shows it


def _landing(state: CombatState, origin: int, aimed: int, offset: int) -> int:
    direction = 1 if aimed >= origin else -1
    return min(max(origin + direction * offset, 0), state.bands - 1)


def _damage_level(code: str) -> Level:
    try:
        return Level.parse(code)
    except art.ArtRuleError as exc:
        raise ActionError(_("Choose the weapon's AOE damage (a level)."), field="damage") from exc


def aoe_pending(state: CombatState, attacker: int, band: int, damage: Level, extra: int, count: int) -> Summary:
    if not in_band(state, band):
        return msg("nobody is in band {band}", band=band)
    state.pending = {
        "kind": "aoe",
        "attacker": attacker,
        "band": band,
        "damage": damage.name,
        "extra": extra,
        "count": count,
        "prone": [],
        "secret": [],
        "label": msg(
            "The blast hits band {band}: anyone who has not acted may fall prone; then roll Fate for who is hit",
            band=band,
        ),
    }
    return msg("the blast hits band {band} ({count} at most)", band=band, count=count)


def resolve_aoe(sheet: ArtSheet, params: AoeParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Target a band: the attack (or Dexterity for a grenade) against Good at the weapon's maximum range, one
    column easier per band closer; the AOE Attack table says which band is hit."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if me.side != "adventurer":
        raise ActionError(_("A foe's AOE attack is rolled by a player in the band (Fate)."), field="band")
    if params.weapon < 0:
        label, base, code, max_range = (
            msg("Grenade (Dexterity)"),
            attr(sheet, "DEX"),
            "DEX",
            art.thrown_range(attr(sheet, "STR"))[1],
        )
    else:
        stats = weapon_of(sheet, params.weapon)
        if not stats["ranged"]:
            raise ActionError(_("An AOE attack needs a ranged weapon or a grenade."), field="weapon")
        label, base, code, max_range = (
            msg("AOE attack with {name}", name=stats["name"]),
            stats["attack"],
            stats["attribute"],
            stats["range"],
        )
    distance = abs(params.band - me.band)
    if params.band >= state.bands or distance > max_range:
        raise ActionError(wording.beyond_range(params.band, max_range), field="band")
    damage = _damage_level(params.damage)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=label,
        base=base,
        attribute=code,
        difficulty=art.aoe_difficulty(max_range, distance),
        kind="ranged_attack",
        item_index=None if params.weapon < 0 else params.weapon,
        columns=difficulty_shift(me),
    )
    hit = art.aoe_attack(r.result, max_range=max_range, distance=distance, autofire=params.autofire)
    use_action(state)
    if hit.out_of_ammo or hit.band is None:
        text: Summary = msg("out of ammunition: nothing is hit")
    else:
        text = aoe_pending(
            state,
            me.id,
            _landing(state, me.band, params.band, hit.band),
            damage,
            hit.extra_damage,
            params.targets + hit.extra_targets,
        )
    remember(sheet, ctx, "combat_aoe", r)
    summary = join([msg("{name} targets band {band}: {roll}", name=me.name, band=params.band, roll=r.text), text], "; ")
    return done(
        state,
        params,
        summary,
        outcome={**outcome(r, concealed=False), "band": hit.band},
        sheet=sheet,
    )


def aoe_odds(sheet: ArtSheet, params: AoeParams, ctx: Context[ArtSheet]) -> Odds:
    if params.weapon < 0:
        base, code, max_range = attr(sheet, "DEX"), "DEX", art.thrown_range(attr(sheet, "STR"))[1]
    else:
        stats = weapon_of(sheet, params.weapon)
        base, code, max_range = stats["attack"], stats["attribute"], stats["range"]
    if params.origin is not None:
        distance = abs(params.band - params.origin)
        if distance > max_range:
            raise ActionError(wording.beyond_range(params.band, max_range), field="band")
        params = params.model_copy(update={"shown_difficulty": art.aoe_difficulty(max_range, distance).name})
    return odds_for(sheet, params, ctx, attribute=code, base=base, what=N_("the range"), columns=shift_now(ctx))


class FoeAoeParams(StepParams):
    band: int = Field(ge=0, lt=MAX_BANDS)
    max_range: int = Field(default=3, ge=0, le=MAX_BANDS)
    damage: str = "PS"
    targets: int = Field(default=3, ge=1, le=20)
    autofire: bool = False


def resolve_foe_aoe(sheet: ArtSheet, params: FoeAoeParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """A foe's AOE attack: a player in the targeted band rolls Fate on the Fate column (ruling 27)."""
    state = copy_state(ctx)
    me = require_turn(state, ctx)
    if me.side != "foe":
        raise ActionError(_("Adventurers roll their own AOE attacks."), field="band")
    distance = abs(params.band - me.band)
    if params.band >= state.bands or distance > params.max_range:
        raise ActionError(wording.beyond_range(params.band, params.max_range), field="band")
    players = in_band(state, params.band, "adventurer")
    if not players:
        raise ActionError(_("No adventurer is in band {band} to roll Fate.").format(band=params.band), field="band")
    _damage_level(params.damage)
    use_action(state)
    state.pending = {
        "kind": "aoe_fate",
        "roller": players[0].id,
        "attacker": me.id,
        "band": params.band,
        "distance": distance,
        "max_range": params.max_range,
        "damage": params.damage,
        "targets": params.targets,
        "autofire": params.autofire,
        "secret": [],
        "difficulty": art.aoe_attack(Level.CT, max_range=params.max_range, distance=distance, foe=True).difficulty.name,
        "label": msg("{name} rolls Fate: where does {foe}'s blast land?", name=players[0].name, foe=me.name),
    }
    return done(
        state,
        params,
        msg(
            "{name} fires at band {band}; {player} rolls Fate",
            name=me.name,
            band=params.band,
            player=players[0].name,
        ),
    )


class AoeFateParams(CombatRoll):
    pass


def resolve_aoe_fate(
    sheet: ArtSheet, params: AoeFateParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "aoe_fate" or pending["roller"] != ctx.character_id:
        raise ActionError(_("No foe's blast is waiting for this character's Fate roll."), field="move")
    me = fighter(state, ctx.character_id)
    foe = fighter(state, pending["attacker"])
    hit = art.aoe_attack(Level.CT, max_range=pending["max_range"], distance=pending["distance"], foe=True)
    r = roll(
        sheet,
        params,
        dice,
        ctx,
        label=msg("Fate (a foe's blast)"),
        attribute="FAT",
        difficulty=hit.difficulty,
        columns=difficulty_shift(me),
    )
    hit = art.aoe_attack(
        r.result, max_range=pending["max_range"], distance=pending["distance"], foe=True, autofire=pending["autofire"]
    )
    state.pending = None
    if hit.out_of_ammo or hit.band is None:
        text: Summary = msg("out of ammunition: nothing is hit")
    else:
        text = aoe_pending(
            state,
            foe.id,
            _landing(state, foe.band, pending["band"], hit.band),
            Level[pending["damage"]],
            hit.extra_damage,
            pending["targets"] + hit.extra_targets,
        )
    remember(sheet, ctx, "combat_aoe_fate", r)
    return done(
        state,
        params,
        join(
            [
                msg("{name} rolls Fate against {foe}'s blast: {roll}", name=me.name, foe=foe.name, roll=r.text),
                text,
            ],
            "; ",
        ),
        outcome={**outcome(r, concealed=False), "band": hit.band},
        sheet=sheet,
    )


def aoe_fate_odds(sheet: ArtSheet, params: AoeFateParams, ctx: Context[ArtSheet]) -> Odds:
    return odds_for(sheet, params, ctx, attribute="FAT", what=N_("the blast"), columns=shift_now(ctx))


class ProneParams(StepParams):
    pass


def resolve_prone(sheet: ArtSheet, params: ProneParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Fall prone before the Fate rolls: one column less damage, and it is this round's action."""
    state = copy_state(ctx)
    pending = state.pending or {}
    me = fighter(state, ctx.character_id)
    if pending.get("kind") != "aoe" or me.band != pending["band"] or me.out:
        raise ActionError(_("No blast is coming into this character's band."), field="move")
    if acted_this_round(state, me.id) or me.id in pending["prone"]:
        raise ActionError(_("{name} has acted this round and cannot fall prone.").format(name=me.name), field="move")
    pending["prone"].append(me.id)
    me.prone = True
    take_out_of_round(state, me.id)
    return done(state, params, msg("{name} falls prone (this round's action)", name=me.name))


class AoeHitParams(StepParams):
    pass


def resolve_aoe_hit(sheet: ArtSheet, params: AoeHitParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Everyone in the band rolls Fate (foes use their rating); the lowest are hit, the attacker's order
    deciding ties; the AOE damage is marked, one column less for those who fell prone."""
    state = copy_state(ctx)
    pending = state.pending or {}
    if pending.get("kind") != "aoe" or pending["attacker"] != ctx.character_id:
        raise ActionError(_("No blast is waiting to land."), field="move")
    people = in_band(state, pending["band"])
    fates = fate_rolls(ctx, people, dice, own=sheet)
    struck = art.lowest_fate(fates, pending["count"])
    state.pending = None
    others: dict[int, ArtSheet] = {}
    mine: ArtSheet | None = None
    notes: list[Summary] = [msg("Fate {rolls}", rolls=fate_list(state, fates))]
    for n in struck:
        fid = int(n)
        victim = fighter(state, fid)
        level = art.aoe_damage(Level[pending["damage"]], extra=pending["extra"], prone=fid in pending["prone"])
        victim_sheet = _sheet_of(ctx, sheet, fid)
        if victim_sheet.kind == "foe":
            record = art.record_damage([Level[c] for c in victim_sheet.health], victim_sheet.checked, level)
            victim_sheet.checked = list(record.checked)
            done_ = {"marked": list(record.marked), "staggered": record.staggered, "defeated": record.defeated}
            notes.append(
                msg("{name} is hit, defeated", name=victim.name)
                if record.defeated
                else msg("{name} is hit, staggered", name=victim.name)
                if record.staggered
                else msg("{name} is hit", name=victim.name)
            )
            more = mark_outcome(state, fid, done_)
        else:
            notes.append(take(state, victim, victim_sheet, level))
            more = ""
        if more:
            notes.append(more)
        if fid == ctx.character_id:
            mine = victim_sheet
        else:
            others[fid] = victim_sheet
    summary = msg("The blast lands in band {band}: {notes}", band=pending["band"], notes=join(notes, "; "))
    return done(
        state,
        params,
        summary,
        outcome={"hit": [int(n) for n in struck]},
        sheet=mine,
        others=others,
    )


def _sheet_of(ctx: Context[ArtSheet], own: ArtSheet, fid: int) -> ArtSheet:
    return own if fid == ctx.character_id else ctx.others[fid]
