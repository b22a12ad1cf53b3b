"""The parsed form of a dice expression: frozen dataclasses, and their canonical spelling.

An Expression is a tree: numbers, dice, groups `{…}`, parentheses, the functions floor/ceil/round/abs, unary
minus and the binary operators + - * / // %. Every node may carry a label (`[fire]`); the expression may carry a
note (trailing text, or `# …`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, TypeAlias

KeepKind: TypeAlias = Literal["kh", "kl", "dh", "dl"]
CompareOp: TypeAlias = Literal[">=", "<=", "="]
ExplodeKind: TypeAlias = Literal["!", "!!", "!p"]
RerollKind: TypeAlias = Literal["r", "ro"]
BinaryOp: TypeAlias = Literal["+", "-", "*", "/", "//", "%"]
FunctionName: TypeAlias = Literal["floor", "ceil", "round", "abs"]
Sign: TypeAlias = Literal[1, -1]


@dataclass(frozen=True)
class Keep:
    """Keep highest/lowest (kh, kl) or drop highest/lowest (dh, dl) `count` dice (or sub-rolls)."""

    kind: KeepKind
    count: int

    @property
    def from_top(self) -> bool:
        """True when the kept dice are the highest ones (kh, and dl which keeps the rest)."""
        return self.kind in ("kh", "dl")

    def kept_of(self, pool: int) -> int:
        """How many of `pool` dice stay in the total."""
        kept = self.count if self.kind in ("kh", "kl") else pool - self.count
        return max(0, min(pool, kept))

    @property
    def notation(self) -> str:
        return f"{self.kind}{self.count}"


@dataclass(frozen=True)
class Compare:
    """A compare point: `>=T` (Roll20's `>T`: T or more), `<=T` (Roll20's `<T`: T or less) or `=T` (a bare T)."""

    op: CompareOp
    target: int

    def met_by(self, value: int | Fraction) -> bool:
        if self.op == ">=":
            return value >= self.target
        if self.op == "<=":
            return value <= self.target
        return value == self.target

    @property
    def notation(self) -> str:
        return f"{self.op}{self.target}"

    @property
    def short(self) -> str:
        """After r, ro, ra, !, f: `=T` as the bare `T` (Roll20's spelling)."""
        return str(self.target) if self.op == "=" else self.notation


# Kept for callers of the first engine: a success condition is a compare point.
Condition = Compare


@dataclass(frozen=True)
class Reroll:
    """`r` rerolls a die while it meets `on` (at most REROLL_CAP times), `ro` once."""

    kind: RerollKind
    on: Compare

    @property
    def notation(self) -> str:
        return f"{self.kind}{self.on.short}"


@dataclass(frozen=True)
class Explode:
    """`!` a die meeting `on` adds another die; `!!` adds its next roll into itself (compounding); `!p` adds
    another die less 1 (penetrating). `on` None is the die's highest face."""

    kind: ExplodeKind
    on: Compare | None = None

    @property
    def notation(self) -> str:
        return self.kind + ("" if self.on is None else self.on.short)


@dataclass(frozen=True)
class Dice:
    """`count` dice with `sides` faces (Fate dice: faces -1, 0, +1), and their modifiers, applied in this order
    whatever order they were typed in (Roll20's): rerolls, min/max, explosion, reroll-and-add; keep/drop;
    success and failure counts."""

    count: int
    sides: int
    fate: bool = False
    rerolls: tuple[Reroll, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    explode: Explode | None = None
    reroll_add: Compare | None = None
    keep: Keep | None = None
    success: Compare | None = None
    failure: Compare | None = None
    label: str | None = None

    @property
    def low_face(self) -> int:
        return -1 if self.fate else 1

    @property
    def high_face(self) -> int:
        return 1 if self.fate else self.sides

    @property
    def faces(self) -> range:
        """The values one raw roll can show."""
        return range(self.low_face, self.high_face + 1)

    def value_of(self, raw: int) -> int:
        """A raw roll (1..sides) as the face it shows."""
        return raw - 2 if self.fate else raw

    def clamp(self, value: int) -> int:
        if self.minimum is not None and value < self.minimum:
            value = self.minimum
        if self.maximum is not None and value > self.maximum:
            value = self.maximum
        return value

    def explodes_on(self, value: int) -> bool:
        if self.explode is None:
            return False
        if self.explode.on is None:
            return value >= self.clamp(self.high_face)
        return self.explode.on.met_by(value)

    @property
    def counts_successes(self) -> bool:
        return self.success is not None

    @property
    def notation(self) -> str:
        """The term without its label."""
        text = f"{self.count}d" + ("F" if self.fate else str(self.sides))
        text += "".join(reroll.notation for reroll in self.rerolls)
        if self.minimum is not None:
            text += f"mi{self.minimum}"
        if self.maximum is not None:
            text += f"ma{self.maximum}"
        if self.explode is not None:
            text += self.explode.notation
        if self.reroll_add is not None:
            text += f"ra{self.reroll_add.short}"
        if self.keep is not None:
            text += self.keep.notation
        if self.success is not None:
            text += self.success.notation
        if self.failure is not None:
            text += f"f{self.failure.short}"
        return text


@dataclass(frozen=True)
class Number:
    value: int
    label: str | None = None


@dataclass(frozen=True)
class Group:
    """`{a, b, …}` with group modifiers. One sub-roll: keep/drop and counts work on its dice (each die with the
    sub-roll's constants added, Roll20's `{3d20+5}>21`); several: on the sub-rolls' totals."""

    items: tuple[Node, ...]
    keep: Keep | None = None
    success: Compare | None = None
    failure: Compare | None = None
    label: str | None = None

    @property
    def counts_successes(self) -> bool:
        return self.success is not None


@dataclass(frozen=True)
class Paren:
    inner: Node
    label: str | None = None


@dataclass(frozen=True)
class Call:
    name: FunctionName
    arg: Node
    label: str | None = None


@dataclass(frozen=True)
class Negate:
    operand: Node
    label: str | None = None


@dataclass(frozen=True)
class Binary:
    op: BinaryOp
    left: Node
    right: Node
    label: str | None = None
    column: int = field(default=0, compare=False)  # where the operator was typed (for a division by 0)


Node: TypeAlias = Number | Dice | Group | Paren | Call | Negate | Binary

# What the first engine called its terms.
DiceTerm = Dice
ConstantTerm = Number
Term: TypeAlias = Node


@dataclass(frozen=True)
class Expression:
    """A parsed expression: the formula (`root`) and the roll's note (trailing text or `# …`, "" if none)."""

    root: Node
    note: str = ""

    def __str__(self) -> str:
        return spell(self)

    @property
    def dice(self) -> tuple[Dice, ...]:
        """Every dice term, left to right."""
        return tuple(node for node in walk(self.root) if isinstance(node, Dice))


def walk(node: Node) -> list[Node]:
    """The nodes of a tree, parents before children, left to right (iterative: the depth is bounded anyway)."""
    out: list[Node] = []
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(children(current)))
    return out


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Group):
        return node.items
    if isinstance(node, Paren):
        return (node.inner,)
    if isinstance(node, Call):
        return (node.arg,)
    if isinstance(node, Negate):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    return ()


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2}


def spell(expr: Expression) -> str:
    """The canonical formula: lower case (F for Fate dice), no spaces, the dice count always, `k` as `kh`, a bare
    `d` as `dl`, Roll20's `>`/`<` as `>=`/`<=`, `d%` as `d100`, Avrae's spellings as Roll20's. No note."""
    return spell_node(expr.root)


def spell_node(node: Node) -> str:
    text = _bare(node)
    label = node.label
    return text if label is None else f"{text}[{label}]"


def _bare(node: Node) -> str:
    if isinstance(node, Number):
        return str(node.value)
    if isinstance(node, Dice):
        return node.notation
    if isinstance(node, Group):
        text = "{" + ",".join(spell_node(item) for item in node.items) + "}"
        if node.keep is not None:
            text += node.keep.notation
        if node.success is not None:
            text += node.success.notation
        if node.failure is not None:
            text += f"f{node.failure.short}"
        return text
    if isinstance(node, Paren):
        return f"({spell_node(node.inner)})"
    if isinstance(node, Call):
        return f"{node.name}({spell_node(node.arg)})"
    if isinstance(node, Negate):
        return f"-{spell_node(node.operand)}"
    return spell_node(node.left) + node.op + spell_node(node.right)


def precedence(op: str) -> int:
    return _PRECEDENCE[op]


def signed_terms(node: Node) -> list[tuple[int, Node]] | None:
    """A sum of dice and numbers as (sign, term) pairs, or None when it is anything else."""
    out: list[tuple[int, Node]] = []
    stack: list[tuple[int, Node]] = [(1, node)]
    while stack:
        sign, current = stack.pop()
        if isinstance(current, Binary) and current.op in ("+", "-"):
            stack.append((sign * (1 if current.op == "+" else -1), current.right))
            stack.append((sign, current.left))
        elif isinstance(current, Negate):
            stack.append((-sign, current.operand))
        elif isinstance(current, (Dice, Number)):
            out.append((sign, current))
        else:
            return None
    return out


def pool_terms(node: Node) -> list[tuple[int, Node]]:
    """The (sign, dice or number) terms of a one-sub-roll group's sum (checked by the parser)."""
    terms = signed_terms(node)
    assert terms is not None
    return terms
