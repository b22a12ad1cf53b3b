"""The peers' documented expressions (tests/rules/notation_corpus.json): Roll20's dice reference, Avrae's d20 README
and tests, rpg-dice-roller's notation guide. Each parses and means what its source says (Roll20's meaning where the
sources clash: `clash` says how), its reading names what it does, or it is refused with a column and what was
expected — never read as something else."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from app.rules.notation import NotationError, RollError, canonical, describe_odds, mean, parse, reading, roll
from app.rules.notation.odds import Unsupported, bounds
from app.rules.notation.tree import walk

CORPUS: list[dict[str, Any]] = json.loads((Path(__file__).parent / "notation_corpus.json").read_text("utf-8"))
ACCEPTED = [entry for entry in CORPUS if "refused" not in entry]
REFUSED = [entry for entry in CORPUS if "refused" in entry]


class SimulatedDice:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


def _id(entry: dict[str, Any]) -> str:
    return entry["expression"]


def test_the_corpus_covers_the_three_peers_and_every_operator() -> None:
    sources = {entry["source"].split("/")[2] for entry in CORPUS}
    assert {"wiki.roll20.net", "github.com", "dice-roller.github.io"} <= sources
    assert len(ACCEPTED) >= 140
    typed = " ".join(entry["expression"] for entry in ACCEPTED)
    for operator in (
        "kh",
        "kl",
        "dh",
        "dl",
        "d3",
        "!>",
        "!!",
        "!p",
        "r<",
        "ro",
        "ra",
        "mi",
        "ma",
        "min",
        "max",
        "e6",
        "f1",
        "f<",
        "f>",
        "{",
        "dF",
        "*",
        "/",
        "//",
        "%",
        "(",
        "floor",
        "ceil",
        "round",
        "abs",
        "[",
        "#",
        "Roll for",
    ):
        assert operator in typed, operator


@pytest.mark.parametrize("entry", ACCEPTED, ids=_id)
def test_a_documented_expression_parses_and_means_what_its_source_says(entry: dict[str, Any]) -> None:
    text = entry["expression"]
    expr = parse(text)
    assert parse(canonical(expr)).root == expr.root
    assert expr.note == entry.get("note", "")
    labels = [node.label for node in walk(expr.root) if node.label is not None]
    assert labels == entry.get("labels", labels)
    if "same_as" in entry:
        assert parse(entry["same_as"]).root == expr.root
    if entry.get("roll_error"):
        with pytest.raises(RollError):
            roll(expr, SimulatedDice(1))
        with pytest.raises(Unsupported):
            bounds(expr)
        assert describe_odds(expr)["divides_by_zero"] is True
        return
    low, high = bounds(expr)
    if "min" in entry:
        assert low == Fraction(entry["min"]).limit_denominator(1000), (low, entry)
    if "max" in entry:
        assert high == Fraction(entry["max"]).limit_denominator(1000), (high, entry)
    if "mean" in entry:
        exact = mean(expr)
        assert exact is not None
        assert float(exact) == pytest.approx(entry["mean"], abs=entry.get("tolerance", 1e-12)), entry
    dice = SimulatedDice(7)
    for _ in range(20):
        total = roll(expr, dice).total
        assert low <= total <= high


@pytest.mark.parametrize("entry", ACCEPTED, ids=_id)
def test_the_odds_line_reads_each_documented_expression_in_words(entry: dict[str, Any]) -> None:
    parts = reading(entry["expression"])
    words = " ".join(part.english() for part in parts)
    assert parts or "+" in entry["expression"] or entry["expression"].strip("() 0123456789*+-/%[],") == ""
    for phrase in entry.get("reads", []):
        assert phrase in words, (phrase, words)


@pytest.mark.parametrize("entry", REFUSED, ids=_id)
def test_what_the_engine_does_not_do_is_refused_with_a_column(entry: dict[str, Any]) -> None:
    text = entry["expression"]
    with pytest.raises(NotationError) as caught:
        parse(text)
    assert 1 <= caught.value.column <= len(text) + 1
    assert str(caught.value).startswith(f"at column {caught.value.column}: ")


def test_where_the_peers_clash_the_corpus_says_so_and_roll20_wins() -> None:
    clashes = [entry for entry in CORPUS if "clash" in entry]
    assert len(clashes) >= 10
    # Roll20 reads > and < as "or more" / "or less": 3d6>3 counts threes (never a strict reading).
    assert mean("4d3>1") == 4
    assert float(mean("2d6!>4") or 0) == pytest.approx(14)
    assert describe_odds("3d6!>4")["mean"] == 21.0
