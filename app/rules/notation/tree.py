"""The parsed form of a dice expression: frozen dataclasses, and their canonical spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

KeepKind: TypeAlias = Literal["kh", "kl", "dh", "dl"]
CompareOp: TypeAlias = Literal[">=", ">", "<=", "<", "="]
Sign: TypeAlias = Literal[1, -1]


@dataclass(frozen=True)
class Keep:
    """Keep highest/lowest (kh, kl) or drop highest/lowest (dh, dl) `count` dice."""

    kind: KeepKind
    count: int

    @property
    def from_top(self) -> bool:
        """True when the kept dice are the highest ones (kh, and dl which keeps the rest)."""
        return self.kind in ("kh", "dl")

    def kept_of(self, pool: int) -> int:
        """How many of `pool` dice stay in the total."""
        return self.count if self.kind in ("kh", "kl") else pool - self.count


@dataclass(frozen=True)
class Condition:
    """A success condition: the term counts dice whose face compares true against `target`."""

    op: CompareOp
    target: int

    def met_by(self, face: int) -> bool:
        if self.op == ">=":
            return face >= self.target
        if self.op == ">":
            return face > self.target
        if self.op == "<=":
            return face <= self.target
        if self.op == "<":
            return face < self.target
        return face == self.target


@dataclass(frozen=True)
class DiceTerm:
    """`count` dice with `sides` faces; optionally exploding, then keep/drop, then a success condition."""

    sign: Sign
    count: int
    sides: int
    explode: bool = False
    keep: Keep | None = None
    condition: Condition | None = None

    @property
    def notation(self) -> str:
        text = f"{self.count}d{self.sides}"
        if self.explode:
            text += "!"
        if self.keep is not None:
            text += f"{self.keep.kind}{self.keep.count}"
        if self.condition is not None:
            text += f"{self.condition.op}{self.condition.target}"
        return text


@dataclass(frozen=True)
class ConstantTerm:
    """A plain whole number added or subtracted."""

    sign: Sign
    value: int

    @property
    def notation(self) -> str:
        return str(self.value)


Term: TypeAlias = DiceTerm | ConstantTerm


@dataclass(frozen=True)
class Expression:
    """A signed sum of terms, in the order written."""

    terms: tuple[Term, ...]

    def __str__(self) -> str:
        return spell(self)


def spell(expr: Expression) -> str:
    """The normalised spelling: lower case, no spaces, explicit dice count, `k` as `kh`, `d%` as `d100`."""
    parts: list[str] = []
    for index, term in enumerate(expr.terms):
        if term.sign < 0:
            parts.append("-")
        elif index > 0:
            parts.append("+")
        parts.append(term.notation)
    return "".join(parts)
