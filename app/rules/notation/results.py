"""A rolled expression as data (RollResult, its TermResults and DieRolls) and as one line of text."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

# A word of the rendered line, for the caller to translate: ("successes", n), ("failures", n), ("capped",),
# ("reroll_capped",). The rest of the line is plain text (numbers and notation).
Word = tuple[str, ...]
Part = str | Word


@dataclass
class DieRoll:
    """One roll of one die: the raw face (1..sides), what it counts as (`value`: a Fate die's -1/0/+1, a
    penetrating die's face less 1, a face raised or lowered by mi/ma), and its marks: "rerolled" (this roll was
    rerolled away), "dropped", "exploded" (it added another die or roll), "success", "failure"."""

    raw: int
    sides: int
    value: int
    marks: list[str] = field(default_factory=list)
    fate: bool = False  # a Fate die (dF): rolled as a d3, counts raw - 2


@dataclass(frozen=True)
class TermResult:
    """One dice term after rolling. `faces` are the values of its rolls in roll order, `marks` alongside;
    `kept` is per roll (False for a roll rerolled away or dropped). `successes`/`failures` are None unless the
    term counts them. `value` is the term's worth."""

    notation: str
    label: str | None
    faces: tuple[int, ...]
    marks: tuple[tuple[str, ...], ...]
    tokens: tuple[str, ...]
    exploded: int = 0
    capped: bool = False
    reroll_capped: bool = False
    successes: int | None = None
    failures: int | None = None
    value: Fraction = Fraction(0)
    sides: int = 0

    @property
    def kept(self) -> tuple[bool, ...]:
        return tuple("dropped" not in marks for marks in self.marks)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Positions (0-based, roll order) of the rolls that do not count."""
        return tuple(index for index, marks in enumerate(self.marks) if "dropped" in marks)

    @property
    def success(self) -> tuple[bool, ...]:
        return tuple("success" in marks for marks in self.marks)


@dataclass(frozen=True)
class RollResult:
    """A rolled expression: the total (exact; whole unless / made it a fraction), the dice terms in roll order,
    every roll in order (`rolls`), the canonical formula rolled, the note, and the line's parts."""

    total: Fraction
    terms: tuple[TermResult, ...]
    rolls: tuple[DieRoll, ...]
    text: str
    note: str
    parts: tuple[Part, ...]

    def render(self) -> str:
        """One plain-text line in English, e.g. "4d6kh3 [6, 5, 1̶, 3] = 14": dropped dice struck through (U+0336
        after each character, so it shows in any plain-text log), a die rerolled away struck and followed by ↻,
        exploded dice with !, a compounded die as its sum with !!, successes with *, failures with ✗, labels in
        [ ]."""
        return "".join(part if isinstance(part, str) else english(part) for part in self.parts)


def english(word: Word) -> str:
    kind = word[0]
    if kind == "successes":
        return f"({word[1]} {'success' if word[1] == '1' else 'successes'})"
    if kind == "failures":
        return f"({word[1]} {'failure' if word[1] == '1' else 'failures'})"
    if kind == "capped":
        return "(explosion cap reached)"
    return "(reroll cap reached)"


def number_text(value: Fraction) -> str:
    """A total as written: whole numbers plain, others as decimals (at most 4 places, Roll20 shows decimals)."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def strike(text: str) -> str:
    """Struck-through plain text: a combining long stroke overlay after every character."""
    return "".join(ch + "\u0336" for ch in text)


def faces_text(term: TermResult) -> str:
    """A term's notation and its faces, without words: "4d6kh3 [6, 5, 1̶, 3]"."""
    return f"{term.notation} [{', '.join(term.tokens)}]"
