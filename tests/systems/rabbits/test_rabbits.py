"""Rabbits rules (app.systems.rabbits.rules): the sheet's tables and examples first, then properties and odds."""

from __future__ import annotations

import random
from fractions import Fraction
from math import ceil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import DiceError, ScriptedDice
from app.systems.rabbits import rules as rabbits


class SimDice:
    """Seeded simulation dice, for checking exact odds."""

    def __init__(self, seed: int = 1234) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class AlwaysSix:
    """Broken dice: every roll is a 6."""

    def roll(self, sides: int) -> int:
        return 6


FAST = settings(max_examples=60, deadline=None)


def field_of(excinfo: pytest.ExceptionInfo[rabbits.RabbitRuleError]) -> str:
    return excinfo.value.field


# --- Tests (rabbits.en.md, "Tests") ---------------------------------------------------------------------------


@pytest.mark.parametrize(("faces", "hits"), [((), 0), ((1, 2, 3), 0), ((4, 5, 6), 3), ((3, 4, 1, 6, 2), 2)])
def test_successes_are_fours_to_sixes(faces: tuple[int, ...], hits: int) -> None:
    assert rabbits.successes(faces) == hits


def test_successes_refuses_a_face_a_d6_cannot_show() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.successes([4, 7])
    assert field_of(excinfo) == "faces"


def test_independent_test_passes_with_at_least_the_ob() -> None:
    result = rabbits.test(ScriptedDice([4, 2, 6]), 3, 2)
    assert (result.faces, result.successes, result.passed, result.margin) == ((4, 2, 6), 2, True, 0)


def test_independent_test_failure_margin_is_the_shortfall() -> None:
    result = rabbits.test(ScriptedDice([1, 5, 3]), 3, 4)
    assert (result.successes, result.passed, result.margin) == (1, False, 3)


def test_independent_test_margin_of_success() -> None:
    assert rabbits.test(ScriptedDice([4, 5, 6, 6]), 4, 1).margin == 3


def test_a_test_rolls_exactly_the_pool() -> None:
    dice = ScriptedDice([4, 4, 4, 4])
    rabbits.test(dice, 3, 1)
    assert dice.remaining == 1


def test_versus_most_successes_wins() -> None:
    result = rabbits.versus(ScriptedDice([4, 5, 1, 6, 2]), 3, 2)
    assert (result.a_faces, result.b_faces) == ((4, 5, 1), (6, 2))
    assert (result.a_successes, result.b_successes, result.winner, result.margin) == (2, 1, "a", 1)


def test_versus_b_wins_and_ties_have_no_winner() -> None:
    assert rabbits.versus(ScriptedDice([1, 6, 6]), 1, 2).winner == "b"
    tie = rabbits.versus(ScriptedDice([5, 2, 4]), 2, 1)
    assert (tie.winner, tie.margin) == (None, 0)


def test_negative_pool_or_ob_is_a_rule_error() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.test(ScriptedDice([]), -1, 1)
    assert field_of(excinfo) == "pool"
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.test(ScriptedDice([]), 1, -2)
    assert field_of(excinfo) == "ob"


@FAST
@given(st.lists(st.integers(1, 6), max_size=12), st.integers(0, 12))
def test_judging_any_faces_is_consistent(faces: list[int], ob: int) -> None:
    result = rabbits.judge_test(faces, ob)
    assert result.successes == sum(face >= 4 for face in faces)
    assert result.passed == (result.successes >= ob)
    assert result.margin == abs(result.successes - ob)


# --- Fate (rabbits.en.md, "Rewards"; RULINGS "Rabbits") -----------------------------------------------------


def test_fate_explodes_twice_in_a_row() -> None:
    dice = ScriptedDice([6, 2])
    assert rabbits.fate_reroll(dice, [6, 3]) == (6, 3, 6, 2)
    assert dice.remaining == 0


def test_fate_rerolls_every_six_and_every_new_six() -> None:
    assert rabbits.fate_reroll(ScriptedDice([6, 1, 6, 4]), [6, 2, 6]) == (6, 2, 6, 6, 1, 6, 4)


def test_fate_without_sixes_rolls_nothing() -> None:
    dice = ScriptedDice([])
    assert rabbits.fate_reroll(dice, [5, 4, 1]) == (5, 4, 1)


def test_fate_on_broken_dice_stops_with_a_named_error() -> None:
    with pytest.raises(rabbits.FateRerollLimitError) as excinfo:
        rabbits.fate_reroll(AlwaysSix(), [6])
    assert excinfo.value.limit == rabbits.FATE_REROLL_LIMIT == 100


def test_fate_uses_exactly_the_dice_it_needs() -> None:
    with pytest.raises(DiceError):
        rabbits.fate_reroll(ScriptedDice([6]), [6])


@FAST
@given(st.lists(st.integers(1, 6), max_size=8), st.integers(0, 10_000))
def test_fate_keeps_the_originals_and_ends_on_a_non_six(faces: list[int], seed: int) -> None:
    result = rabbits.fate_reroll(SimDice(seed), faces)
    assert result[: len(faces)] == tuple(faces)
    assert len(result) - len(faces) == result.count(6)
    if len(result) > len(faces):
        assert result[-1] != 6


# --- Wise rerolls (parent game) -------------------------------------------------------------------------------


def test_deeper_understanding_rerolls_one_failed_die_in_place() -> None:
    dice = ScriptedDice([5])
    assert rabbits.deeper_understanding(dice, [6, 2, 1]) == (6, 5, 1)
    assert dice.remaining == 0


def test_of_course_rerolls_every_failed_die_and_no_success() -> None:
    dice = ScriptedDice([4, 3, 6])
    assert rabbits.of_course(dice, [1, 5, 2, 3]) == (4, 5, 3, 6)
    assert dice.remaining == 0


def test_wise_rerolls_need_a_failed_die() -> None:
    for reroll in (rabbits.deeper_understanding, rabbits.of_course):
        with pytest.raises(rabbits.RabbitRuleError) as excinfo:
            reroll(ScriptedDice([]), [4, 6])
        assert field_of(excinfo) == "faces"


# --- Beginner's luck (RULINGS "Rabbits") ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ability", "extra", "dice"),
    [(4, 0, 2), (5, 0, 3), (3, 2, 3), (4, 2, 3), (1, 0, 1), (0, 0, 0), (6, 1, 4)],
)
def test_beginners_luck_halves_rounding_up(ability: int, extra: int, dice: int) -> None:
    assert rabbits.beginners_luck(ability, extra) == dice


@FAST
@given(st.integers(0, 10), st.integers(0, 10))
def test_beginners_luck_is_half_rounded_up(ability: int, extra: int) -> None:
    assert rabbits.beginners_luck(ability, extra) == ceil((ability + extra) / 2)


def test_beginners_luck_pool_adds_persona_and_nature_after_halving() -> None:
    pool = rabbits.pool_for(
        "will", 5, beginners_luck=True, helpers=[[], []], wise=True, persona=2, tap_nature=True, nature=4
    )
    # (5 + 2 + 1) / 2 = 4, then +2 Persona, +4 Nature.
    assert pool.dice == 10
    assert pool.beginners_luck
    assert pool.persona_spent == 3
    assert pool.breakdown[3] == ("Beginner's luck: halved, rounding up", -4)


def test_beginners_luck_odd_total_rounds_up_in_the_pool() -> None:
    assert rabbits.pool_for("health", 4, beginners_luck=True, helpers=[[]]).dice == 3


# --- Nature (rabbits.en.md, "Nature") ------------------------------------------------------------------------

# The sheet: "If you fail, Nature drops by the margin of failure. If the action was outside your nature,
# Nature also drops by 1 when you succeed."
NATURE_TAX_ROWS = [
    (True, True, 0, 0),
    (True, True, 2, 0),
    (True, False, 1, 1),
    (True, False, 3, 3),
    (False, True, 0, 1),
    (False, True, 4, 1),
    (False, False, 1, 1),
    (False, False, 2, 2),
]


@pytest.mark.parametrize(("within", "passed", "margin", "tax"), NATURE_TAX_ROWS)
def test_nature_tax_table(within: bool, passed: bool, margin: int, tax: int) -> None:
    assert rabbits.nature_tax(within, passed, margin) == tax


def test_nature_tax_table_as_data() -> None:
    fail = "margin"
    assert dict(rabbits.NATURE_TAX) == {(True, True): 0, (True, False): fail, (False, True): 1, (False, False): fail}
    assert rabbits.NATURE_DESCRIPTORS == ("flee", "hide", "dig", "breed")


def test_nature_taxed_to_zero_retires_the_rabbit() -> None:
    assert rabbits.taxed_nature(4, 1) == rabbits.NatureAfterTax(3, False)
    assert rabbits.taxed_nature(2, 5) == rabbits.NatureAfterTax(0, True)


def test_rolling_nature_and_tapping_it_doubles_it() -> None:
    assert rabbits.pool_for("nature", 4, persona=1, tap_nature=True).dice == 9


@pytest.mark.parametrize("rolled", ["resources", "circles"])
def test_nature_is_never_tapped_for_resources_or_circles(rolled: str) -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for(rolled, 3, tap_nature=True, nature=4)
    assert field_of(excinfo) == "tap_nature"


def test_tapping_nature_needs_the_rating() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 3, tap_nature=True)
    assert field_of(excinfo) == "nature"


# --- Conditions (rabbits.en.md, "Conditions"; ruling 3) --------------------------------------------------------

CONDITION_ROWS = [
    # key, Danish, recovery (ability, Ob), disposition, Will conflicts only, dice
    ("afraid", "Bange", None, None, -1, False, 0),
    ("angry", "Vred", "will", 2, -1, True, 0),
    ("tired", "Træt", "health", 3, -1, False, 0),
    ("injured", "Såret", "health", 4, 0, False, -1),
    ("sick", "Syg", "will", 4, 0, False, -1),
]


@pytest.mark.parametrize(("key", "danish", "ability", "ob", "disp", "will_only", "dice"), CONDITION_ROWS)
def test_conditions_table(
    key: str, danish: str, ability: str | None, ob: int | None, disp: int, will_only: bool, dice: int
) -> None:
    rule = rabbits.CONDITIONS[key]
    assert (rule.danish, rule.recovery_ability, rule.recovery_ob) == (danish, ability, ob)
    assert (rule.disposition, rule.disposition_will_only, rule.dice) == (disp, will_only, dice)
    recovery = rabbits.recovery_test(danish)
    assert (recovery.condition, recovery.ability, recovery.ob) == (key, ability, ob)


def test_there_are_exactly_five_conditions() -> None:
    assert set(rabbits.CONDITIONS) == {"afraid", "angry", "tired", "injured", "sick"}
    assert rabbits.recovery_test("Afraid").note == "needs rest and safety"


def test_injured_and_sick_each_take_a_die_from_skills_and_abilities() -> None:
    pool = rabbits.pool_for("skill", 4, label="Fighter", conditions=["injured", "sick", "tired", "angry"])
    assert pool.dice == 2
    assert pool.breakdown == (("Fighter", 4), ("Injured (-1D)", -1), ("Sick (-1D)", -1))
    assert rabbits.pool_for("health", 3, conditions=["Syg"]).dice == 2


def test_afraid_rabbit_cannot_help() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 3, helpers=[[], ["afraid"]])
    assert field_of(excinfo) == "helpers"
    assert rabbits.able_to_help([["afraid"], ["tired"], []]) == (["tired"], [])


def test_afraid_rabbit_cannot_use_beginners_luck() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("will", 4, beginners_luck=True, conditions=["afraid"])
    assert field_of(excinfo) == "beginners_luck"


def test_afraid_rabbit_may_still_roll_its_own_skill() -> None:
    assert rabbits.pool_for("skill", 3, conditions=["afraid"]).dice == 3


def test_unknown_condition_is_a_rule_error() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 3, conditions=["grumpy"])
    assert field_of(excinfo) == "conditions"


@pytest.mark.parametrize(
    ("base", "expected"),
    [("will", (("Afraid", -1), ("Angry", -1), ("Tired", -1))), ("health", (("Afraid", -1), ("Tired", -1)))],
)
def test_condition_disposition_penalties(base: str, expected: tuple[tuple[str, int], ...]) -> None:
    assert rabbits.disposition_penalties(["tired", "angry", "afraid", "sick", "injured"], base) == expected


# --- Rewards and checks (rabbits.en.md, "Rewards", "Checks", "Traits") ----------------------------------------


def test_rewards_table() -> None:
    assert dict(rabbits.STARTING_REWARDS) == {"fate": 2, "persona": 1}
    assert set(rabbits.REWARDS) == {"fate", "persona"}
    assert rabbits.PERSONA_DICE_MAX == 3


def test_checks_tables() -> None:
    assert dict(rabbits.CHECKS_EARNED) == {"trait_against_you": 1, "trait_aids_opponent": 2, "concede_tie": 2}
    assert dict(rabbits.CHECKS_SPENT) == {"extra_test": 1, "recovery_in_gm_turn": 2, "trait_again": 2}


def test_persona_adds_a_die_each_up_to_three() -> None:
    assert rabbits.pool_for("skill", 2, persona=3).dice == 5
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 2, persona=4)
    assert field_of(excinfo) == "persona"


@pytest.mark.parametrize(
    ("trait", "dice", "earned", "spent", "opponent"),
    [("helps", 4, 0, 0, 0), ("helps_again", 4, 0, 2, 0), ("against_you", 2, 1, 0, 0), ("aids_opponent", 3, 2, 0, 2)],
)
def test_trait_uses(trait: str, dice: int, earned: int, spent: int, opponent: int) -> None:
    pool = rabbits.pool_for("skill", 3, trait=trait, versus=True)
    assert (pool.dice, pool.checks_earned, pool.checks_spent, pool.opponent_dice) == (dice, earned, spent, opponent)


def test_trait_giving_the_opponent_dice_is_versus_only() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 3, trait="aids_opponent")
    assert field_of(excinfo) == "trait"
    assert rabbits.pool_for("skill", 3, opponent_trait=True, versus=True).dice == 5


def test_help_and_wise_add_a_die_each() -> None:
    pool = rabbits.pool_for("skill", 3, label="Scout", helpers=[[], ["tired"]], wise=True)
    assert pool.breakdown == (("Scout", 3), ("Help", 2), ("Wise", 1))
    assert pool.dice == 6


def test_skill_without_rating_needs_beginners_luck() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("skill", 0)
    assert field_of(excinfo) == "rating"
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.pool_for("nature", 3, beginners_luck=True)
    assert field_of(excinfo) == "beginners_luck"


def test_penalties_never_leave_fewer_than_zero_dice() -> None:
    pool = rabbits.pool_for("skill", 1, trait="against_you", conditions=["injured", "sick"])
    assert pool.dice == 0
    assert sum(dice for _, dice in pool.breakdown) == 0


@FAST
@given(
    st.sampled_from(["skill", "nature", "will", "health"]),
    st.integers(1, 6),
    st.integers(0, 3),
    st.integers(0, 3),
    st.booleans(),
    st.sampled_from([None, "helps", "against_you"]),
    st.lists(st.sampled_from(["angry", "tired", "injured", "sick"]), max_size=3),
)
def test_breakdown_always_adds_up(
    rolled: str, rating: int, helpers: int, persona: int, wise: bool, trait: str | None, conditions: list[str]
) -> None:
    pool = rabbits.pool_for(
        rolled, rating, helpers=[[]] * helpers, persona=persona, wise=wise, trait=trait, conditions=conditions
    )
    assert pool.dice == sum(dice for _, dice in pool.breakdown) >= 0


# --- Advancement and learning (parent game) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "passes", "fails", "due"),
    [(1, 1, 0, True), (1, 0, 3, False), (3, 3, 2, True), (3, 3, 1, False), (3, 2, 5, False), (4, 6, 6, True)],
)
def test_advancement_needs_rating_passes_and_one_fewer_fails(rating: int, passes: int, fails: int, due: bool) -> None:
    assert rabbits.advancement_due(rating, passes, fails) is due


def test_advancement_stops_at_the_ceiling() -> None:
    assert rabbits.advancement_due(6, 6, 5, maximum=rabbits.SKILL_MAX) is False
    assert rabbits.advancement_due(5, 5, 4, maximum=rabbits.SKILL_MAX) is True


def test_beginners_luck_learning_takes_nature_tests() -> None:
    assert rabbits.beginners_luck_learned(3, 4) is False
    assert rabbits.beginners_luck_learned(4, 4) is True
    assert rabbits.NEW_SKILL_RATING == 2


# --- Ties (RULINGS "Rabbits") ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "abilities"),
    [("skill", ("will", "health")), ("Will", ("nature",)), ("health", ("nature",)), ("nature", ())],
)
def test_tiebreak_ability(kind: str, abilities: tuple[str, ...]) -> None:
    assert rabbits.tiebreak_ability(kind) == abilities


def test_tie_steps_come_in_the_ruling_order() -> None:
    trait, fate, roll = rabbits.TIE_STEPS
    assert "trait" in trait and "Fate" in fate and "tiebreaker" in roll


# --- Conflicts: interactions (rabbits.en.md, "Action interactions"; ruling 4) -------------------------------------

INTERACTION_SHEET = """
           Attack Defend Feint Maneuver
Attack     I      V      *     V
Defend     V      I      *     V
Feint      *      *      V     I
Maneuver   V      V      I     I
"""


def _sheet_interactions() -> list[tuple[str, str, str]]:
    header, *rows = INTERACTION_SHEET.strip().splitlines()
    columns = header.split()
    return [(row.split()[0], column, cell) for row in rows for column, cell in zip(columns, row.split()[1:])]


@pytest.mark.parametrize(("row", "column", "cell"), _sheet_interactions())
def test_interaction_table(row: str, column: str, cell: str) -> None:
    assert rabbits.interaction(row, column) == cell
    assert rabbits.interaction(row.lower(), column.lower()) == cell


def test_interaction_table_is_symmetric() -> None:
    for a in rabbits.ACTIONS:
        for b in rabbits.ACTIONS:
            assert rabbits.interaction(a, b) == rabbits.interaction(b, a)


def test_unknown_action_is_a_rule_error() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.interaction("attack", "dance")
    assert field_of(excinfo) == "action_b"


def test_feint_against_defend_only_the_feinter_rolls_at_ob_0() -> None:
    plan = rabbits.exchange_plan("feint", "defend")
    assert (plan.kind, plan.a_tests, plan.b_tests, plan.a_ob, plan.b_ob) == ("*", True, False, 0, None)
    mirrored = rabbits.exchange_plan("defend", "feint")
    assert (mirrored.a_tests, mirrored.b_tests, mirrored.b_ob) == (False, True, 0)
    assert "ruling 4" in plan.note


def test_feint_against_attack_only_the_attacker_rolls() -> None:
    plan = rabbits.exchange_plan("feint", "attack")
    assert (plan.a_tests, plan.b_tests, plan.a_ob, plan.b_ob) == (False, True, None, 0)


def test_independent_actions_use_their_own_obstacles() -> None:
    assert dict(rabbits.ACTION_OBSTACLES) == {"attack": 0, "defend": 3, "feint": 0, "maneuver": 0}
    plan = rabbits.exchange_plan("defend", "defend")
    assert (plan.versus, plan.a_ob, plan.b_ob) == (False, 3, 3)
    versus_plan = rabbits.exchange_plan("attack", "maneuver")
    assert (versus_plan.versus, versus_plan.a_ob, versus_plan.b_ob) == (True, None, None)


def test_maneuver_effects_cost_margin() -> None:
    assert rabbits.maneuver_effects(3, ["impede", "gain_position"]) == ("impede", "gain_position")
    assert rabbits.maneuver_effects(3, ["disarm"]) == ("disarm",)
    with pytest.raises(rabbits.RabbitRuleError):
        rabbits.maneuver_effects(2, ["impede", "gain_position"])
    with pytest.raises(rabbits.RabbitRuleError):
        rabbits.maneuver_effects(5, ["impede", "impede"])


# --- Conflicts: tables (rabbits.en.md, "Starting disposition", "Skills by conflict and action") -----------------


def test_disposition_table() -> None:
    assert rabbits.DISPOSITION_TABLE["argument"] == (("Persuader",), ("will",))
    assert rabbits.DISPOSITION_TABLE["fight_animal"] == (("Fighter", "Hunter"), ("health", "nature"))
    assert rabbits.DISPOSITION_TABLE["chase"] == (("Scout",), ("nature",))
    assert rabbits.DISPOSITION_TABLE["journey"] == (("Pathfinder",), ("health",))
    assert set(rabbits.DISPOSITION_TABLE) == set(rabbits.CONFLICTS)


def test_conflict_skills_table() -> None:
    assert set(rabbits.CONFLICT_SKILLS) == set(rabbits.CONFLICTS) - {"other"}
    assert rabbits.CONFLICT_SKILLS["fight"]["defend"] == ("Nature",)
    assert rabbits.CONFLICT_SKILLS["war"]["defend"] == ("Militarist", "Orator")
    assert rabbits.CONFLICT_SKILLS["journey"]["maneuver"] == ()
    for skills in rabbits.CONFLICT_SKILLS.values():
        assert tuple(skills) == rabbits.ACTIONS


SKILLS_SHEET = """
Argument     | Persuader         | Persuader            | Persuader or Deceiver | Persuader or Deceiver
Chase        | Scout             | Pathfinder           | Pathfinder            | Scout
Fight        | Fighter           | Nature               | Fighter               | Nature
Fight Animal | Fighter or Hunter | Loremouse or Nature  | Fighter or Hunter     | Loremouse or Nature
Negotiation  | Haggler           | Haggler              | Deceiver              | Deceiver
Journey      | Pathfinder        | see description      | Pathfinder            | see description
Speech       | Orator            | Orator               | Orator or Deceiver    | Orator or Deceiver
War          | Militarist        | Militarist or Orator | Militarist            | Militarist
"""


def _sheet_skills() -> list[tuple[str, str, tuple[str, ...]]]:
    cases = []
    for row in SKILLS_SHEET.strip().splitlines():
        conflict, *cells = (cell.strip() for cell in row.split("|"))
        for action, cell in zip(rabbits.ACTIONS, cells):
            skills = () if cell == "see description" else tuple(cell.split(" or "))
            cases.append((conflict.lower().replace(" ", "_"), action, skills))
    return cases


@pytest.mark.parametrize(("conflict", "action", "skills"), _sheet_skills())
def test_conflict_skills_sheet(conflict: str, action: str, skills: tuple[str, ...]) -> None:
    assert rabbits.CONFLICT_SKILLS[conflict][action] == skills


def test_weapon_tables_have_every_row() -> None:
    assert len(rabbits.WEAPONS) == 10 and len(rabbits.ARGUMENT_WEAPONS) == 6
    assert all(len(row) == len(rabbits.WEAPON_COLUMNS) for row in rabbits.WEAPONS)
    assert all(len(row) == len(rabbits.ARGUMENT_WEAPON_COLUMNS) for row in rabbits.ARGUMENT_WEAPONS)


# --- Disposition (ruling 7) ---------------------------------------------------------------------------------------


def test_team_disposition_adds_successes_and_unique_penalties() -> None:
    helpers = rabbits.able_to_help([["tired"], ["afraid"]])
    pool = rabbits.pool_for("skill", 3, label="Persuader", helpers=helpers)
    assert pool.dice == 4
    result = rabbits.disposition(
        ScriptedDice([4, 5, 1, 6]),
        "argument",
        base="will",
        base_rating=4,
        pool=pool.dice,
        team_conditions=[["angry"], ["tired"], ["afraid", "tired"]],
    )
    # 4 Will + 3 successes − Afraid − Angry − Tired (Tired once).
    assert (result.successes, result.total, result.note) == (3, 4, None)
    assert result.penalties == (("Afraid", -1), ("Angry", -1), ("Tired", -1))


def test_disposition_is_at_least_one() -> None:
    result = rabbits.disposition(
        ScriptedDice([1]), "fight", base="health", base_rating=1, pool=1, team_conditions=[["tired"]]
    )
    assert result.total == 1
    assert result.note is not None and "ruling 7" in result.note


def test_disposition_base_must_fit_the_conflict() -> None:
    with pytest.raises(rabbits.RabbitRuleError) as excinfo:
        rabbits.disposition(ScriptedDice([]), "chase", base="will", base_rating=3, pool=2)
    assert field_of(excinfo) == "base"


# --- Compromise (ruling 6) -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("starting", "remaining", "owed"),
    [
        (8, 8, "none"),
        (8, 7, "minor"),
        (8, 5, "minor"),
        (8, 4, "compromise"),
        (8, 3, "compromise"),
        (8, 2, "major"),
        (8, 0, "major"),
        (12, 3, "major"),
        (12, 4, "compromise"),
        # Ordering edges: "none" is checked before "major", "major" before "minor".
        (1, 1, "none"),
        (2, 1, "major"),
        (3, 2, "minor"),
        (3, 1, "major"),
        (5, 1, "major"),
        (5, 2, "compromise"),
        (5, 3, "minor"),
    ],
)
def test_compromise(starting: int, remaining: int, owed: str) -> None:
    assert rabbits.compromise(starting, remaining) == owed


@FAST
@given(st.integers(1, 30), st.integers(0, 30))
def test_compromise_grows_as_disposition_falls(starting: int, remaining: int) -> None:
    owed = rabbits.compromise(starting, remaining)
    assert owed in rabbits.COMPROMISES
    if remaining > 0:
        worse = rabbits.compromise(starting, remaining - 1)
        assert rabbits.COMPROMISES.index(worse) >= rabbits.COMPROMISES.index(owed)


# --- Exact odds ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pool", "ob", "fate", "chance"),
    [
        (1, 1, False, Fraction(1, 2)),
        (1, 1, True, Fraction(1, 2)),
        (2, 2, False, Fraction(1, 4)),
        # Two successes, or one success that is a 6 and whose new die succeeds: 1/4 + 1/2·1/3·1/2.
        (2, 2, True, Fraction(1, 3)),
        # A 6, then a success on the new die.
        (1, 2, True, Fraction(1, 12)),
        (1, 2, False, Fraction(0)),
        (0, 0, True, Fraction(1)),
        (0, 1, True, Fraction(0)),
        (3, 0, False, Fraction(1)),
        (2, 1, True, Fraction(3, 4)),
    ],
)
def test_exact_chance_by_hand(pool: int, ob: int, fate: bool, chance: Fraction) -> None:
    assert rabbits.exact_pass_chance(pool, ob, with_fate=fate) == chance


@pytest.mark.parametrize("ob", [1, 2, 3, 5])
def test_one_die_with_fate_is_a_chain_of_sixes(ob: int) -> None:
    assert rabbits.exact_pass_chance(1, ob, with_fate=True) == Fraction(1, 6) ** (ob - 1) / 2


@pytest.mark.parametrize(
    ("pool", "ob", "fate"), [(3, 2, False), (5, 4, False), (3, 2, True), (4, 3, True), (2, 3, True)]
)
def test_exact_chance_matches_a_seeded_simulation(pool: int, ob: int, fate: bool) -> None:
    dice = SimDice()
    trials = 20_000
    passes = 0
    for _ in range(trials):
        faces = rabbits.roll_pool(dice, pool)
        if fate:
            faces = rabbits.fate_reroll(dice, faces)
        passes += rabbits.successes(faces) >= ob
    assert abs(passes / trials - float(rabbits.exact_pass_chance(pool, ob, with_fate=fate))) < 0.02


@FAST
@given(st.integers(0, 12), st.integers(0, 12))
def test_chances_are_ordered(pool: int, ob: int) -> None:
    plain = rabbits.exact_pass_chance(pool, ob)
    fate = rabbits.exact_pass_chance(pool, ob, with_fate=True)
    assert 0 <= plain <= fate <= 1
    assert rabbits.exact_pass_chance(pool, ob + 1, with_fate=True) <= fate
    assert rabbits.exact_pass_chance(pool + 1, ob, with_fate=True) >= fate


def test_exact_chance_handles_the_biggest_pool() -> None:
    chance = rabbits.exact_pass_chance(rabbits.MAX_POOL, rabbits.MAX_POOL, with_fate=True)
    # More than every die succeeding (2^-100, the chance without Fate), yet tiny.
    plain = rabbits.exact_pass_chance(rabbits.MAX_POOL, rabbits.MAX_POOL)
    assert plain == Fraction(1, 2**100) < chance < Fraction(1, 10**6)


# Every pair of actions, written out from the sheet ("Actions", "Action interactions") and ruling 4:
# (versus, a tests, b tests, a's Ob, b's Ob); Ob None = versus or no roll.
EXCHANGES = {
    ("attack", "attack"): (False, True, True, 0, 0),
    ("attack", "defend"): (True, True, True, None, None),
    ("attack", "feint"): (False, True, False, 0, None),
    ("attack", "maneuver"): (True, True, True, None, None),
    ("defend", "attack"): (True, True, True, None, None),
    ("defend", "defend"): (False, True, True, 3, 3),
    ("defend", "feint"): (False, False, True, None, 0),
    ("defend", "maneuver"): (True, True, True, None, None),
    ("feint", "attack"): (False, False, True, None, 0),
    ("feint", "defend"): (False, True, False, 0, None),
    ("feint", "feint"): (True, True, True, None, None),
    ("feint", "maneuver"): (False, True, True, 0, 0),
    ("maneuver", "attack"): (True, True, True, None, None),
    ("maneuver", "defend"): (True, True, True, None, None),
    ("maneuver", "feint"): (False, True, True, 0, 0),
    ("maneuver", "maneuver"): (False, True, True, 0, 0),
}


@pytest.mark.parametrize(("a", "b"), sorted(EXCHANGES))
def test_every_exchange_plan(a: str, b: str) -> None:
    plan = rabbits.exchange_plan(a, b)
    assert (plan.versus, plan.a_tests, plan.b_tests, plan.a_ob, plan.b_ob) == EXCHANGES[(a, b)]
    assert plan.kind == rabbits.interaction(a, b)
    assert len(EXCHANGES) == len(rabbits.ACTIONS) ** 2
