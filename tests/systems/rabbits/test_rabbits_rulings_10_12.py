"""RULINGS.md, "Rabbits", rulings 10–12, as pure rules (app/systems/rabbits/rules/conflict_ties.py)."""

from __future__ import annotations

import pytest

from app.systems.rabbits import rules as rabbits


def _row(name: str) -> tuple[str, ...]:
    return next(row for row in (*rabbits.WEAPONS, *rabbits.ARGUMENT_WEAPONS) if row[0] == name)


def test_ruling_10_each_conflict_type_has_its_weapon_table() -> None:
    """Ruling 10: "Which weapon table a conflict uses (when the table uses gear): the sample weapons for Fight,
    Fight Animal and War; the argument "weapons" for Argument, Speech and Negotiation; none for Chase and
    Journey; for Other, the narrator picks one of the two tables, or none, at set-up." """
    expected = {
        "fight": "weapons",
        "fight_animal": "weapons",
        "war": "weapons",
        "argument": "argument",
        "speech": "argument",
        "negotiation": "argument",
        "chase": "none",
        "journey": "none",
    }
    for conflict, table in expected.items():
        assert rabbits.weapon_table_key(conflict) == table
    assert rabbits.weapon_rows(rabbits.weapon_table_key("speech")) == rabbits.ARGUMENT_WEAPONS
    assert rabbits.weapon_rows(rabbits.weapon_table_key("negotiation")) == rabbits.ARGUMENT_WEAPONS
    assert rabbits.weapon_rows(rabbits.weapon_table_key("chase")) == ()
    for pick in ("weapons", "argument", "none"):
        assert rabbits.weapon_table_key("other", pick) == pick
    with pytest.raises(rabbits.RabbitRuleError):
        rabbits.weapon_table_key("other")  # the narrator must pick


def test_ruling_11_the_halberd_counts_only_in_the_mode_scripted_with_the_action() -> None:
    """Ruling 11: "The Halberd's mode (axe or spear) is chosen for each scripted action, with the action, and
    revealed with it: axe mode gives its Attack, Defend and Feint modifiers, spear mode its Maneuver
    modifier." """
    halberd = _row("Halberd")
    assert rabbits.weapon_modifier(halberd, "attack", "attack", "axe") == (0, 1)
    assert rabbits.weapon_modifier(halberd, "defend", "attack", "axe") == (-1, 0)
    assert rabbits.weapon_modifier(halberd, "feint", "feint", "axe") == (-1, 0)
    assert rabbits.weapon_modifier(halberd, "maneuver", "attack", "axe") == (0, 0)
    assert rabbits.weapon_modifier(halberd, "maneuver", "attack", "spear") == (1, 0)
    for action in ("attack", "defend", "feint"):
        assert rabbits.weapon_modifier(halberd, action, "attack", "spear") == (0, 0)
    with pytest.raises(rabbits.RabbitRuleError):
        rabbits.weapon_modifier(halberd, "attack", "attack", "")
    # Other weapons need no mode; the bow's starred die only against Defend.
    assert rabbits.weapon_modifier(_row("Axe"), "attack", "attack") == (0, 1)
    assert rabbits.weapon_modifier(_row("Bow"), "attack", "attack") == (0, 0)
    assert rabbits.weapon_modifier(_row("Bow"), "attack", "defend") == (1, 0)
    assert rabbits.weapon_modifier(_row("Hook and line"), "maneuver", "attack") == (1, 1)


def test_ruling_12_tiebreaker_ability_by_conflict() -> None:
    """Ruling 12: "a tiebreaker roll — Will for Argument, Speech, Negotiation and War, Health for Fight, Fight
    Animal, Chase and Journey (Other: the narrator's pick), or Nature when the tied test was already Will or
    Health." """
    for conflict in ("argument", "speech", "negotiation", "war"):
        assert rabbits.conflict_tiebreak_ability(conflict, "skill") == "will"
    for conflict in ("fight", "fight_animal", "chase", "journey"):
        assert rabbits.conflict_tiebreak_ability(conflict, "skill") == "health"
    assert rabbits.conflict_tiebreak_ability("other", "skill", "health") == "health"
    assert rabbits.conflict_tiebreak_ability("other", "skill", "will") == "will"
    assert rabbits.conflict_tiebreak_ability("fight", "health") == "nature"
    assert rabbits.conflict_tiebreak_ability("argument", "will") == "nature"
    # A tied Nature test (a Fight's Defend) is not Will or Health: the conflict's ability breaks it.
    assert rabbits.conflict_tiebreak_ability("fight", "nature") == "health"
    with pytest.raises(rabbits.RabbitRuleError):
        rabbits.conflict_tiebreak_ability("other", "skill")


def test_ruling_12_a_tie_goes_trait_then_fate_then_tiebreaker() -> None:
    """Ruling 12: "Ties in a conflict's versus action follow the parent-game tie rule above: a trait may give the
    tie away, then either side may spend Fate, then a tiebreaker roll […] Only when the tiebreaker ties too does
    the action change no disposition." """
    assert rabbits.settle_tie(2, 2) == rabbits.TieResult(None, 0, "trait", False)
    # A trait gives it away: the other side wins (by one).
    assert rabbits.settle_tie(2, 2, conceded_by="a") == rabbits.TieResult("b", 1, None, True)
    assert rabbits.settle_tie(2, 2, traits_done=True) == rabbits.TieResult(None, 0, "fate", False)
    # Fate changed the successes: the difference decides, with its margin.
    assert rabbits.settle_tie(4, 2, traits_done=True, fate_done=True) == rabbits.TieResult("a", 2, None, True)
    assert rabbits.settle_tie(2, 2, traits_done=True, fate_done=True) == rabbits.TieResult(None, 0, "tiebreak", False)
    won = rabbits.settle_tie(2, 2, traits_done=True, fate_done=True, tiebreak=(1, 3))
    assert won == rabbits.TieResult("b", 1, None, True)
    # Only a tiebreaker that ties too leaves the action without a winner.
    assert rabbits.settle_tie(2, 2, traits_done=True, fate_done=True, tiebreak=(1, 1)) == rabbits.TieResult(
        None, 0, None, True
    )
