"""The odds on an attack against another adventurer: their Defense is no secret (unlike a foe's level), so the
button shows the exact chance that the attack gets through -- the attacker's result becomes the difficulty of
the defender's Defense roll, which fails -- with every bonus the state gives both of them.

art-engine.md, ch. 5 "Player Attacking Player".
"""

from __future__ import annotations

from fractions import Fraction

from app.i18n import _, percent
from app.systems.art import rules as art
from app.systems.base import Context, Odds

from .. import core
from ..sheet import ArtSheet, defense, shield_bonus, table_of
from . import perks as fp
from .models import CombatState, Fighter
from .roll import CombatRoll, shift
from .state import combat_in, difficulty_shift


def defender_of(ctx: Context[ArtSheet], target: int | None) -> tuple[Fighter, ArtSheet] | None:
    """The adventurer attacked (their sheet comes with the odds' context), or None for a foe or when unknown."""
    enc = ctx.encounter or {}
    if target is None or enc.get("kind") != "combat" or target not in ctx.others:
        return None
    sheet = ctx.others[target]
    if sheet.kind == "foe":
        return None
    state = combat_in(ctx)
    found = next((f for f in state.fighters if f.id == target), None) if state else None
    return (found.model_copy(deep=True), sheet) if found and found.side == "adventurer" else None


def defense_trait(
    state: CombatState,
    f: Fighter,
    sheet: ArtSheet,
    *,
    modifier: int = 0,
    shield: bool = False,
    use: bool = False,
) -> int:
    """The Defense the defender will roll now: armor, a dodge's bonus, the attack's own modifier (a failed
    grapple's -1 per failure), a grapple's -4, a perk's bonus (`use`: spent as the roll is made), a shield.
    resolve_defend rolls exactly this and the odds on its button show it."""
    base = defense(sheet) + (f.dodge or {}).get("bonus", 0) + modifier
    if f.grapple:
        base += art.GRAPPLE_DEFENSE
    base += fp.bonus(state, f, "defense", use=use)[0]
    if shield:
        base += shield_bonus(sheet)
    return max(int(base), 1)


def pvp_attack_odds(
    sheet: ArtSheet, params: CombatRoll, ctx: Context[ArtSheet], *, attribute: str, base: int, extra: int, target: int
) -> Odds | None:
    found = defender_of(ctx, target)
    if found is None:
        return None
    f, their = found
    state = combat_in(ctx)
    assert state is not None
    spec = core.RollSpec(
        label=attribute,
        base=base,
        attribute=attribute,
        difficulty=art.Level.CT,
        skills=params.skills,
        modifiers=params.modifiers + extra,
        fame_before=params.fame_before,
    )
    uses = core.skill_uses(sheet, spec.skills)
    core.check_fame_before(sheet, spec.fame_before)
    table = table_of(ctx.campaign_settings)
    row = art.effective_row(core.trait_of(sheet, spec, uses), fame_before=spec.fame_before)
    guard = defense_trait(state, f, their)
    columns = difficulty_shift(f, defense=True)
    chance = sum(
        (
            p * (1 - art.exact_chance(guard, shift(level, columns), table))
            for level, p in art.result_odds(row, table).items()
        ),
        Fraction(0),
    )
    text = _("{name} fails their Defense roll against your attack (row {row} against Defense {guard})").format(
        name=f.name, row=row, guard=guard
    )
    if extra:
        text += _(" (+{n} from the combat)").format(n=extra)
    return Odds(
        chance=float(chance),
        text=f"{percent(float(chance))} — {text}",
        details={"row": row, "label": _("Chance to hit:")},
    )
