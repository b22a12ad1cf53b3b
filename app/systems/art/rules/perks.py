"""Perks as data: cost, ranks, requirements, and what the kicker die triggers.

art-engine.md, ch. 1 "Kicker Die"; ch. 6 "Buying Perks", "Perks".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.rules.text import N_

from .levels import ArtRuleError, Level


@dataclass(frozen=True)
class Perk:
    """One perk. `requires` are (attribute, minimum) for rank 1; `rank_requires` adds (rank,
    attribute, minimum) for higher ranks. `kickers` fire it on `trigger` ("attack", "hit",
    "defense", "parried"); `on_result` fires it when that result is rolled on `trigger`."""

    name: str
    cost: int
    per_rank: bool = False
    max_rank: int | None = 1  # None: the text sets no maximum
    requires: tuple[tuple[str, int], ...] = ()
    requires_perk: str | None = None
    rank_requires: tuple[tuple[int, str, int], ...] = ()
    trigger: str | None = None
    kickers: frozenset[int] = frozenset()
    on_result: Level | None = None


_P = Perk
# ch. 6, "Perks", in the text's order. The text ends at Healer's cost, so Healer has no rules here.
PERKS: dict[str, Perk] = {
    perk.name: perk
    for perk in (
        _P(N_("Piloting"), 1, requires=(("INT", 5),)),
        _P(N_("Transportation"), 2, requires=(("FAT", 8),)),
        _P(N_("Mimicry"), 1, requires=(("CUN", 5),)),
        _P(N_("Advanced Mimicry"), 1, requires=(("CUN", 7),), requires_perk=N_("Mimicry")),
        _P(N_("Flurry"), 2, requires=(("DEX", 5),), trigger="hit", kickers=frozenset({0})),
        _P(N_("Advanced Flurry"), 3, requires=(("DEX", 7),), requires_perk=N_("Flurry"), trigger="hit",
           kickers=frozenset({0, 1})),
        _P(N_("Combat Tactics"), 3, requires=(("INT", 5),), trigger="attack", kickers=frozenset({0})),
        _P(N_("Strategic Positioning"), 1, trigger="defense", kickers=frozenset({0})),
        _P(N_("Defensive Maneuver"), 1, trigger="defense", kickers=frozenset({5})),
        _P(N_("Counterstrike"), 3, trigger="defense", on_result=Level.AW),
        _P(N_("Riposte"), 1, requires=(("DEX", 5),), trigger="parried", kickers=frozenset({0})),
        _P(N_("Advanced Riposte"), 1, requires=(("DEX", 7),), trigger="parried", kickers=frozenset({0, 9})),
        _P(N_("All Out Attack"), 1),
        _P(N_("Feint"), 1),
        _P(N_("Second Wind"), 3, requires=(("AGI", 8),)),
        _P(N_("Bounceback"), 1, requires=(("AGI", 7),)),
        _P(N_("Quickdraw"), 1, requires=(("DEX", 8),)),
        _P(N_("Breakfall"), 1, per_rank=True, max_rank=2, requires=(("AGI", 8),), rank_requires=((2, "AGI", 10),)),
        _P(N_("Surprise Attacks"), 1),
        _P(N_("Backstab"), 1, requires=(("AGI", 7),)),
        _P(N_("Bulletproof Armor"), 3),
        _P(N_("Armor Piercing Rounds"), 1),
        _P(N_("Intuition"), 1),
        _P(N_("Tumbling"), 1, requires=(("AGI", 6),)),
        _P(N_("Coordinated Attacks"), 1),
        _P(N_("Dual Wielding"), 1),
        _P(N_("Critical Hits"), 1),
        _P(N_("Unarmed Combat"), 1, per_rank=True, max_rank=6),
        _P(N_("Haymaker"), 2),
        _P(N_("Lip Reading"), 1, per_rank=True, max_rank=None, requires=(("CUN", 5),)),
        _P(N_("Called Shot"), 2),
        _P(N_("Shield Use"), 1, per_rank=True, max_rank=5),
        _P(N_("Healer"), 2, per_rank=True, max_rank=None),
    )
}  # fmt: skip
del _P

TRIGGERS = ("attack", "hit", "defense", "parried")


def perk(name: str) -> Perk:
    """Look a perk up by name."""
    if name not in PERKS:
        raise ArtRuleError("perk", N_("{name!r} is not a perk in the rules"), name=name)
    return PERKS[name]


def perk_cost(name: str, rank: int = 1) -> int:
    """Experience points to buy `rank` (for ranked perks, the cost of that one rank) (ch. 6)."""
    found = perk(name)
    if rank < 1 or (found.max_rank is not None and rank > found.max_rank):
        if found.max_rank is None:
            raise ArtRuleError("rank", N_("{name} has ranks from 1, not {rank}"), name=name, rank=rank)
        raise ArtRuleError(
            "rank", N_("{name} has ranks 1 to {top}, not {rank}"), name=name, top=found.max_rank, rank=rank
        )
    return found.cost


def unmet_requirements(
    name: str, attributes: Mapping[str, int], owned: Iterable[str] = (), *, rank: int = 1
) -> tuple[str, ...]:
    """Why a character cannot buy or use a perk at `rank` -- empty when they can (ch. 6, "Buying Perks")."""
    found = perk(name)
    perk_cost(name, rank)  # validates the rank
    needs = [*found.requires, *((attr, low) for at, attr, low in found.rank_requires if rank >= at)]
    unmet = [f"{attr} {low}+" for attr, low in needs if attributes.get(attr, 0) < low]
    if found.requires_perk and found.requires_perk not in set(owned):
        unmet.append(f"the {found.requires_perk} perk")
    return tuple(unmet)


def triggered_perks(owned: Iterable[str], trigger: str, roll_kicker: int | None, result: Level) -> tuple[str, ...]:
    """The owned perks a roll sets off (ch. 6, "Perks"). A kicker fires at most one beneficial
    effect, so when several are listed the player picks one (ch. 1, "Kicker Die"); Counterstrike
    never combines with Strategic Positioning or Defensive Maneuver, which that choice also covers.

    `trigger` is "attack" (any attack), "hit" (a successful attack), "defense" or "parried" (a
    successful parry). An attack that hits is both: pass "hit" and "attack" perks both fire.
    """
    if trigger not in TRIGGERS:
        raise ArtRuleError(
            "trigger", N_("{trigger!r} is not one of {triggers}"), trigger=trigger, triggers=", ".join(TRIGGERS)
        )
    wanted = {"attack", "hit"} if trigger == "hit" else {trigger}
    fired: list[str] = []
    for name in owned:
        found = perk(name)
        if found.trigger not in wanted:
            continue
        if (roll_kicker is not None and roll_kicker in found.kickers) or found.on_result == result:
            fired.append(name)
    return tuple(fired)


def lip_reading_difficulty(rank: int) -> Level:
    """Passable, one lower per rank beyond the first, never below Inferior (ch. 6, "Lip Reading")."""
    if rank < 1:
        raise ArtRuleError("rank", N_("Lip Reading needs at least one rank"))
    return Level(max(int(Level.PS) - (rank - 1), int(Level.IN)))
