"""Cat rules (cat.txt and RULINGS.md, Cat): the text's own examples first, then rulings, properties and odds."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import DiceError, ScriptedDice
from app.systems.cat import rules as cat
from app.systems.cat.rules import CatRuleError, fights
from app.systems.cat.rules import fate as risk
from app.systems.cat.rules import sheet as growth

NEW_CAT = {"claws": "best", "coat": "strong", "face": "strong", "fangs": "strong", "legs": "good", "tail": "good"}


def fate(faces: list[int], difficulty: str, **kwargs: object) -> risk.FateResult:
    return risk.test_fate(ScriptedDice(faces), len(faces), difficulty, **kwargs)  # type: ignore[arg-type]


class SimDice:
    """Seeded dice for the simulation checks; never used by the rules module itself."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


# --- cat.txt, "Testing Fate" -------------------------------------------------------------


def test_rule_names_are_stable() -> None:
    assert cat.RANKS == ("crippled", "hurt", "good", "strong", "best")
    assert dict(cat.RANK_DICE) == {"crippled": 0, "hurt": 2, "good": 3, "strong": 4, "best": 5}
    assert cat.TRAITS == ("claws", "coat", "face", "fangs", "legs", "tail")
    assert risk.test_fate.__test__ is False  # type: ignore[attr-defined]


def test_only_2_4_6_are_evens() -> None:
    result = fate([1, 2, 3, 4, 5, 6], "hard")
    assert result.faces == (1, 2, 3, 4, 5, 6)
    assert result.evens == 3


@pytest.mark.parametrize(("difficulty", "needed"), [("easy", 1), ("moderate", 2), ("hard", 3)])
def test_difficulty_needs_that_many_evens(difficulty: str, needed: int) -> None:
    just_enough = [2] * needed + [1] * (5 - needed)
    one_short = [2] * (needed - 1) + [1] * (6 - needed)
    assert fate(just_enough, difficulty).success  # "equal to or greater than"
    assert fate(just_enough, difficulty).needed == needed
    assert not fate(one_short, difficulty).success


def test_one_die_per_pool_point_is_rolled() -> None:
    dice = ScriptedDice([2, 2, 2, 2])
    risk.test_fate(dice, 3, "easy")
    assert dice.remaining == 1


def test_pool_is_rank_dice_plus_advantage_plus_reputation() -> None:
    assert [cat.pool_for(rank) for rank in ("hurt", "good", "strong", "best")] == [2, 3, 4, 5]
    assert cat.pool_for("good", advantage=2) == 5  # "Advantage Dice": each is another die
    assert cat.pool_for("strong", advantage=1, reputation=3) == 8  # "Using Reputation": rank in dice


def test_crippled_trait_cannot_take_risks() -> None:
    with pytest.raises(CatRuleError) as err:
        cat.pool_for("crippled", advantage=3)
    assert err.value.field == "rank"
    with pytest.raises(CatRuleError):
        risk.test_fate(ScriptedDice([]), 0, "easy")


# --- cat.txt, "Scars" ----------------------------------------------------------------------


def test_failed_dangerous_risk_scars_by_lowest_odd() -> None:
    # Jumping from one rooftop to another: dangerous.
    result = fate([5, 3, 6], "moderate", dangerous=True)
    assert not result.success
    assert result.scars == 3


def test_failing_a_safe_risk_gives_no_scars() -> None:
    # Catching a fly with your paw: not dangerous.
    assert fate([5, 1, 3], "easy").scars == 0


def test_succeeding_a_dangerous_risk_gives_no_scars() -> None:
    assert fate([1, 2], "easy", dangerous=True).scars == 0


def test_three_scars_drop_a_trait_one_rank() -> None:
    assert cat.effective_rank("best", 3) == "strong"
    assert cat.effective_rank("good", 3) == "hurt"  # "it drops to Hurt"
    assert cat.RANK_DICE[cat.effective_rank("good", 3)] == 2  # "Hurt Traits have a bonus of 2"
    assert cat.effective_rank("hurt", 3) == "crippled"
    assert cat.effective_rank("best", 2) == "best"


# --- cat.txt, "Fighting" -------------------------------------------------------------------


def test_cats_take_the_other_cats_evens_and_most_evens_wins() -> None:
    result = fights.cat_fight(ScriptedDice([2, 4, 1, 6, 3, 3, 3]), 4, 3)
    assert (result.a_faces, result.b_faces) == ((2, 4, 1, 6), (3, 3, 3))
    assert (result.a_evens, result.b_evens) == (3, 0)
    assert (result.a_scars, result.b_scars) == (0, 3)
    assert result.winner == "a"


def test_cat_fight_with_a_life_loses_but_takes_no_scars() -> None:
    result = fights.cat_fight(ScriptedDice([2, 1, 1, 4, 6, 1]), 3, 3)
    dodged = fights.dodge_fight_scars_with_life(result, "a")
    assert (dodged.a_scars, dodged.b_scars) == (0, 1)
    assert dodged.a_life_spent and not dodged.b_life_spent
    assert dodged.winner == "b"  # "the winner of the fight is always the cat who rolled the most evens"


def test_dodging_a_cat_inflicts_nothing_and_loses() -> None:
    result = fights.cat_fight(ScriptedDice([2, 4, 6, 2, 1, 1]), 4, 2, a_dodges=True)
    assert result.a_evens == 4 and result.b_evens == 0
    assert (result.a_scars, result.b_scars) == (0, 0)
    assert result.winner == "b"
    assert result.a_dodged


def test_non_cats_take_the_opponents_evens_each_round() -> None:
    result = fights.foe_round(ScriptedDice([2, 4, 1, 6, 6, 3]), 3, 3)
    assert (result.cat_faces, result.foe_faces) == ((2, 4, 1), (6, 6, 3))
    assert (result.cat_scars, result.foe_scars) == (2, 2)


def test_dodging_a_boggin_delivers_no_hits() -> None:
    result = fights.foe_round(ScriptedDice([2, 1, 4, 4, 2]), 2, 3, cat_dodges=True)
    assert result.foe_scars == 0
    assert result.cat_scars == 2  # three hits, one cancelled by the even on Legs
    assert result.scars_cancelled == 1


# --- cat.txt, "Death", "Reputation", "Lives", "Style", "Healing" ---------------------------------


def test_four_crippled_traits_or_last_life_kill() -> None:
    ranks = dict(NEW_CAT, claws="crippled", coat="crippled", face="crippled")
    assert not growth.is_dead(ranks, 9)
    assert growth.crippled_warning(ranks) is not None  # "When three ... are crippled, he's in real danger"
    assert growth.is_dead(dict(ranks, fangs="crippled"), 9)
    assert growth.is_dead(NEW_CAT, 0)
    assert not growth.is_dead(NEW_CAT, 1)
    assert growth.crippled_warning(NEW_CAT) is None
    assert cat.STARTING_LIVES == 9


def test_up_to_five_reputations_of_rank_at_most_five() -> None:
    growth.validate_reputations({"a": 5, "b": 5, "c": 1, "d": 2, "e": 4}, creation=False)
    with pytest.raises(CatRuleError):
        growth.validate_reputations({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1}, creation=False)
    with pytest.raises(CatRuleError) as err:
        growth.validate_reputations({"Mouser": 6}, creation=False)
    assert err.value.field == "reputations.Mouser"


def test_gifted_reputation_is_half_the_givers() -> None:
    assert [growth.gift_reputation_rank(r) for r in (1, 2, 3, 4, 5)] == [1, 1, 1, 2, 2]


def test_a_life_succeeds_regardless_of_trait_or_difficulty() -> None:
    dice = ScriptedDice([])
    result = risk.test_fate(dice, 0, "hard", dangerous=True, spend_life=True)
    assert result.success and result.life_spent
    assert (result.faces, result.scars, result.style_gained) == ((), 0, 0)


def test_extra_evens_become_style() -> None:
    result = fate([2, 4, 6, 1], "easy")
    assert result.style_gained == 2


def test_style_points_are_automatic_evens_as_many_as_you_like() -> None:
    result = fate([1, 3], "hard", style_points=3)
    assert result.evens == 3 and result.success
    assert result.style_spent == 3


def test_a_cat_heals_one_scar_per_week() -> None:
    assert growth.heal({"legs": 3}, 2)["legs"] == 1


# --- RULINGS.md, Cat ---------------------------------------------------------------------------


def test_ruling_1_never_below_crippled_and_healing_restores_rank() -> None:
    assert cat.effective_rank("best", 99) == "crippled"
    healed = growth.heal({"legs": 3}, 1)
    assert cat.effective_rank("good", healed["legs"]) == "good"
    assert cat.effective_ranks(NEW_CAT, {"claws": 6})["claws"] == "good"


def test_ruling_2_no_odd_die_means_no_scars() -> None:
    result = fate([2], "moderate", dangerous=True)
    assert not result.success and result.scars == 0


def test_ruling_3_style_points_never_decide_scars() -> None:
    result = fate([6, 5], "hard", style_points=1, dangerous=True)
    assert result.evens == 2 and not result.success
    assert result.scars == 5  # from the die, not from the style point


def test_ruling_4_tie_both_scarred_nobody_dominates() -> None:
    result = fights.cat_fight(ScriptedDice([2, 1, 4, 3]), 2, 2)
    assert (result.a_scars, result.b_scars) == (1, 1)
    assert result.winner is None


def test_ruling_4_two_dodgers_no_winner() -> None:
    result = fights.cat_fight(ScriptedDice([2, 2, 1, 1]), 2, 2, a_dodges=True, b_dodges=True)
    assert (result.a_scars, result.b_scars, result.winner) == (0, 0, None)


def test_ruling_5_dodge_cancels_only_what_would_be_taken() -> None:
    result = fights.foe_round(ScriptedDice([2, 2, 2, 1, 4]), 3, 2, cat_dodges=True)
    assert (result.cat_scars, result.foe_scars, result.scars_cancelled) == (0, 0, 1)


def test_ruling_5_life_dodges_a_whole_round() -> None:
    result = fights.dodge_round_scars_with_life(fights.foe_round(ScriptedDice([1, 2, 4, 6]), 1, 3))
    assert (result.cat_scars, result.foe_scars, result.cat_life_spent) == (0, 0, True)
    with pytest.raises(CatRuleError):
        fights.dodge_round_scars_with_life(result)


def test_ruling_7_three_crippled_warns_four_kill() -> None:
    ranks = dict.fromkeys(cat.TRAITS, "crippled")
    assert growth.is_dead(ranks, 9)
    assert growth.crippled_warning(dict(ranks, claws="good", coat="good", face="good")) is not None


def test_ruling_8_magic_points() -> None:
    assert [growth.magic_points(r) for r in ("hurt", "good", "strong", "best")] == [5, 6, 7, 8]


def test_ruling_9_gift_minimum_one() -> None:
    assert growth.gift_reputation_rank(1) == 1
    with pytest.raises(CatRuleError):
        growth.gift_reputation_rank(0)


def test_new_cat_one_best_three_strong_two_good() -> None:
    growth.validate_new_cat(NEW_CAT)
    with pytest.raises(CatRuleError) as err:
        growth.validate_new_cat(dict(NEW_CAT, legs="best"))
    assert err.value.field == "ranks"
    with pytest.raises(CatRuleError) as err:
        growth.validate_new_cat(dict(NEW_CAT, tail="hurt"))
    assert err.value.field == "ranks.tail"
    with pytest.raises(CatRuleError) as err:
        growth.validate_new_cat({k: v for k, v in NEW_CAT.items() if k != "face"})
    assert err.value.field == "ranks.face"
    with pytest.raises(CatRuleError):
        growth.validate_new_cat(dict(NEW_CAT, whiskers="good"))


def test_reputations_at_creation_seven_points_none_above_three() -> None:
    growth.validate_reputations({"Mouser": 3, "Fence walker": 3, "Sly": 1}, creation=True)
    with pytest.raises(CatRuleError) as err:
        growth.validate_reputations({"Mouser": 4, "Sly": 3}, creation=True)
    assert err.value.field == "reputations.Mouser"
    with pytest.raises(CatRuleError) as err:
        growth.validate_reputations({"Mouser": 3, "Sly": 3}, creation=True)
    assert err.value.field == "reputations"
    with pytest.raises(CatRuleError):
        growth.validate_reputations({"Mouser": 0}, creation=False)
    with pytest.raises(CatRuleError):
        growth.validate_reputations({" ": 2}, creation=False)


# --- Decisions the texts leave open (documented in the module) ---------------------------------


def test_unneeded_style_points_come_back() -> None:
    result = fate([2, 2], "easy", style_points=2)
    assert result.evens == 4 and result.style_gained == 3


def test_style_with_a_life_is_refused() -> None:
    with pytest.raises(CatRuleError) as err:
        risk.test_fate(ScriptedDice([]), 3, "easy", style_points=1, spend_life=True)
    assert err.value.field == "style_points"


def test_heal_defaults_to_most_scarred_first_in_traits_order_on_ties() -> None:
    assert growth.heal({"tail": 2, "coat": 2, "legs": 1}, 1) == dict.fromkeys(cat.TRAITS, 0) | {
        "tail": 2,
        "coat": 1,
        "legs": 1,
    }
    assert growth.heal({"legs": 1}, 5)["legs"] == 0


def test_heal_choices() -> None:
    scars = {"claws": 3, "face": 1}
    assert growth.heal(scars, 2, ["face", "claws"]) == dict.fromkeys(cat.TRAITS, 0) | {"claws": 2}
    assert growth.heal(scars, 3, "face") == dict.fromkeys(cat.TRAITS, 0) | {"claws": 1}
    with pytest.raises(CatRuleError) as err:
        growth.heal(scars, 2, ["face", "face"])
    assert err.value.field == "choices.1"
    with pytest.raises(CatRuleError):
        growth.heal(scars, 1, ["face", "claws"])


@pytest.mark.parametrize(
    "call",
    [
        lambda: risk.test_fate(ScriptedDice([2]), 1, "Easy"),
        lambda: risk.test_fate(ScriptedDice([2]), True, "easy"),
        lambda: risk.test_fate(ScriptedDice([2]), 1, "easy", style_points=-1),
        lambda: risk.test_fate(ScriptedDice([]), cat.MAX_POOL + 1, "easy"),
        lambda: fights.cat_fight(ScriptedDice([2]), 1, 0),
        lambda: fights.foe_round(ScriptedDice([2]), 1, -1),
        lambda: cat.effective_rank("mighty", 0),
        lambda: cat.effective_rank("good", -1),
        lambda: cat.pool_for("good", reputation=6),
        lambda: growth.is_dead(NEW_CAT, -1),
        lambda: growth.heal({"whiskers": 1}, 1),
        lambda: fights.dodge_fight_scars_with_life(fights.cat_fight(ScriptedDice([1, 2]), 1, 1), "b"),
        lambda: fights.dodge_fight_scars_with_life(fights.cat_fight(ScriptedDice([1, 2]), 1, 1), "c"),
    ],
)
def test_bad_requests_raise_rule_errors(call: Callable[[], object]) -> None:
    with pytest.raises(CatRuleError):
        call()


def test_rolls_come_only_from_the_dice_given() -> None:
    with pytest.raises(DiceError):
        risk.test_fate(ScriptedDice([2]), 2, "easy")


# --- Properties ------------------------------------------------------------------------------


@st.composite
def fate_requests(draw: st.DrawFn) -> tuple[list[int], str, int, bool]:
    pool = draw(st.integers(1, 12))
    faces = draw(st.lists(st.integers(1, 6), min_size=pool, max_size=pool))
    return faces, draw(st.sampled_from(cat.DIFFICULTIES)), draw(st.integers(0, 4)), draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(fate_requests())
def test_fate_properties(request: tuple[list[int], str, int, bool]) -> None:
    faces, difficulty, style, dangerous = request
    result = fate(faces, difficulty, style_points=style, dangerous=dangerous)
    assert result.evens <= len(faces) + style
    assert result.success == (result.evens >= result.needed)
    assert result.style_gained == max(0, result.evens - result.needed)
    if result.scars:
        assert dangerous and not result.success and not result.life_spent
    assert 0 <= result.scars <= 6 and result.scars in (0, 1, 3, 5)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(cat.RANKS), st.integers(0, 30), st.integers(0, 30))
def test_effective_rank_is_monotone_in_scars(base: str, scars: int, more: int) -> None:
    worse = cat.effective_rank(base, scars + more)
    assert cat.RANKS.index(worse) <= cat.RANKS.index(cat.effective_rank(base, scars)) <= cat.RANKS.index(base)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=14), st.booleans(), st.booleans(), st.data())
def test_cat_fight_properties(faces: list[int], a_dodges: bool, b_dodges: bool, data: st.DataObject) -> None:
    a_pool = data.draw(st.integers(1, len(faces) - 1))
    result = fights.cat_fight(ScriptedDice(faces), a_pool, len(faces) - a_pool, a_dodges=a_dodges, b_dodges=b_dodges)
    if a_dodges or b_dodges:
        assert result.a_scars == result.b_scars == 0
    else:
        assert (result.a_scars, result.b_scars) == (result.b_evens, result.a_evens)
    if not (a_dodges or b_dodges) and result.winner is not None:
        assert getattr(result, f"{result.winner}_evens") > min(result.a_evens, result.b_evens)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=14), st.booleans(), st.data())
def test_foe_round_properties(faces: list[int], dodges: bool, data: st.DataObject) -> None:
    cat_pool = data.draw(st.integers(1, len(faces) - 1))
    result = fights.foe_round(ScriptedDice(faces), cat_pool, len(faces) - cat_pool, cat_dodges=dodges)
    assert 0 <= result.cat_scars <= result.foe_evens
    assert result.foe_scars == (0 if dodges else result.cat_evens)
    assert result.cat_scars + result.scars_cancelled == result.foe_evens


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(cat.TRAITS), st.integers(0, 9)), st.integers(0, 40))
def test_heal_properties(scars: dict[str, int], weeks: int) -> None:
    healed = growth.heal(scars, weeks)
    assert all(0 <= healed[t] <= scars.get(t, 0) for t in cat.TRAITS)
    assert sum(scars.values()) - sum(healed.values()) == min(weeks, sum(scars.values()))


# --- Exact odds ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pool", "needed", "style", "chance"),
    [
        (1, 1, 0, Fraction(1, 2)),
        (2, 1, 0, Fraction(3, 4)),
        (2, 2, 0, Fraction(1, 4)),
        (3, 3, 0, Fraction(1, 8)),
        (4, 2, 0, Fraction(11, 16)),
        (5, 3, 0, Fraction(1, 2)),
        (2, 3, 1, Fraction(1, 4)),
        (0, 1, 0, Fraction(0)),
        (0, 1, 1, Fraction(1)),
        (3, 0, 0, Fraction(1)),
    ],
)
def test_exact_odds_by_hand(pool: int, needed: int, style: int, chance: Fraction) -> None:
    assert risk.exact_success_chance(pool, needed, style) == chance


@pytest.mark.parametrize("pool", [1, 2, 3, 4])
def test_exact_odds_match_every_possible_roll(pool: int) -> None:
    rolls = list(itertools.product(range(1, 7), repeat=pool))
    for difficulty, needed in cat.DIFFICULTY_EVENS.items():
        wins = sum(fate(list(roll), difficulty).success for roll in rolls)
        assert Fraction(wins, len(rolls)) == risk.exact_success_chance(pool, needed)


@pytest.mark.parametrize(("pool", "difficulty", "style"), [(5, "hard", 0), (3, "moderate", 1), (7, "hard", 0)])
def test_exact_odds_match_seeded_simulation(pool: int, difficulty: str, style: int) -> None:
    dice, trials = SimDice(1234), 20_000
    wins = sum(risk.test_fate(dice, pool, difficulty, style_points=style).success for _ in range(trials))
    expected = risk.exact_success_chance(pool, cat.DIFFICULTY_EVENS[difficulty], style)
    assert abs(wins / trials - float(expected)) < 0.02
