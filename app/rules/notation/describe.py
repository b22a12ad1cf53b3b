"""How an expression was read, in words, before it is rolled ("3d6!>=4: 3 dice with 6 sides; each die showing 4
or more adds another die; add them up").

The engine stays pure: it returns Phrases — English templates marked N_ with their values, a value possibly a
Phrase itself — and the app translates them (app.systems.dice.roll.say). A reading is one Part per dice term,
group, function and division, left to right, each a notation and its clauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.notation.errors import EXPLOSION_CAP, REROLL_CAP
from app.rules.notation.parser import ADVANTAGE_WORDS, as_expression
from app.rules.notation.tree import (
    Binary,
    Call,
    Compare,
    Dice,
    Expression,
    Group,
    Keep,
    Negate,
    Node,
    Number,
    pool_terms,
    spell_node,
    walk,
)
from app.rules.text import N_, RuleText


class Phrase(RuleText):
    """A phrase of the reading: `template` (English, `{name}` placeholders) and `values` (numbers, text, Phrases)."""

    def __init__(self, template: str, **values: Any) -> None:
        self._set_text(template, {k: str(v) if isinstance(v, Phrase) else v for k, v in values.items()})
        self.values = values

    def __repr__(self) -> str:
        return f"Phrase({self.english()!r})"

    def english(self) -> str:
        words = {k: v.english() if isinstance(v, Phrase) else v for k, v in self.values.items()}
        return self.template.format(**words) if words else self.template

    def __str__(self) -> str:
        return self.english()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Phrase) and (self.template, self.values) == (other.template, other.values)

    def __hash__(self) -> int:
        return hash(self.template)


@dataclass(frozen=True)
class Part:
    notation: str
    clauses: tuple[Phrase, ...]

    def english(self) -> str:
        return f"{self.notation}: " + "; ".join(clause.english() for clause in self.clauses)


def reading(expr: Expression | str) -> tuple[Part, ...]:
    """The expression in words, part by part (dice, groups, functions, divisions, labels), then its note."""
    parsed = as_expression(expr)
    parts: list[Part] = []
    inside_pools: set[int] = set()
    addends = _addends(parsed.root)
    for node in walk(parsed.root):
        if id(node) in inside_pools:
            continue
        if id(node) in addends:  # a number added or subtracted: 2d6+1 reads "+1: add 1"
            negative = addends[id(node)]
            value = node.operand.value if isinstance(node, Negate) and isinstance(node.operand, Number) else None
            if isinstance(node, Number):
                value = node.value
            if value is not None:
                clauses = [Phrase(N_("subtract {n}") if negative else N_("add {n}"), n=value)]
                for labelled in (node, node.operand) if isinstance(node, Negate) else (node,):
                    if labelled.label is not None:
                        clauses.append(Phrase(N_("label: {label}"), label=labelled.label))
                shown = spell_node(node.operand if isinstance(node, Negate) else node)
                parts.append(Part(("-" if negative else "+") + shown, tuple(clauses)))
                if isinstance(node, Negate):
                    inside_pools.add(id(node.operand))  # said here, with its label
                continue
        if isinstance(node, Dice):
            parts.append(Part(spell_node(node), tuple(_dice(node))))
        elif isinstance(node, Group):
            parts.append(Part(spell_node(node), tuple(_group(node))))
            if len(node.items) == 1 and (node.keep is not None or node.success is not None):
                inside_pools.update(id(term) for _, term in pool_terms(node.items[0]))  # the group says its numbers
                for _, term in pool_terms(node.items[0]):
                    if isinstance(term, Dice):
                        parts.append(Part(spell_node(term), tuple(_dice(term, counted_by_group=True))))
        elif isinstance(node, Call):
            parts.append(Part(f"{node.name}()", (Phrase(_FUNCTIONS[node.name]),)))
        elif isinstance(node, Binary) and node.op in _DIVISIONS:
            parts.append(Part(node.op, (Phrase(_DIVISIONS[node.op]),)))
        if node.label is not None and not isinstance(node, (Dice, Group)):
            parts.append(Part(spell_node(node), (Phrase(N_("label: {label}"), label=node.label),)))
    if parsed.note:
        note: tuple[Phrase, ...] = (Phrase(N_("note: {note}"), note=parsed.note),)
        if parsed.note.split()[0].lower().strip(".,;:!") in ADVANTAGE_WORDS:
            note += (Phrase(ADVANTAGE_HINT),)  # "1d20 adv" is a d20 with a note, not advantage
        parts.append(Part("#", note))
    return tuple(parts)


ADVANTAGE_HINT = N_("for advantage roll 2d20kh1 (the higher of two d20), for disadvantage 2d20kl1")


def _addends(root: Node) -> dict[int, bool]:
    """The numbers (and negated numbers) that a sum adds or subtracts, by id, with whether they are subtracted."""
    found: dict[int, bool] = {}
    signs: dict[int, bool] = {}
    for node in walk(root):
        if not (isinstance(node, Binary) and node.op in ("+", "-")):
            continue
        negative = signs.get(id(node), False)
        for side, flipped in ((node.left, negative), (node.right, negative ^ (node.op == "-"))):
            if isinstance(side, Binary) and side.op in ("+", "-"):
                signs[id(side)] = flipped
            elif isinstance(side, Number):
                found[id(side)] = flipped
            elif isinstance(side, Negate) and isinstance(side.operand, Number):
                found[id(side)] = not flipped
    return found


_FUNCTIONS = {
    "floor": N_("round down"),
    "ceil": N_("round up"),
    "round": N_("round to the nearest whole number (halves up)"),
    "abs": N_("drop the minus sign"),
}
_DIVISIONS = {
    "/": N_("divide exactly (fractions kept)"),
    "//": N_("divide, rounding down"),
    "%": N_("the remainder of the division (with the sign of the left side)"),
}


def target(compare: Compare) -> Phrase:
    if compare.op == ">=":
        return Phrase(N_("{n} or more"), n=compare.target)
    if compare.op == "<=":
        return Phrase(N_("{n} or less"), n=compare.target)
    return Phrase(N_("exactly {n}"), n=compare.target)


def keep_phrase(keep: Keep) -> Phrase:
    if keep.count == 1:
        return Phrase(
            {
                "kh": N_("keep the highest die"),
                "kl": N_("keep the lowest die"),
                "dh": N_("drop the highest die"),
                "dl": N_("drop the lowest die"),
            }[keep.kind]
        )
    return Phrase(
        {
            "kh": N_("keep the highest {n}"),
            "kl": N_("keep the lowest {n}"),
            "dh": N_("drop the highest {n}"),
            "dl": N_("drop the lowest {n}"),
        }[keep.kind],
        n=keep.count,
    )


def _dice(node: Dice, counted_by_group: bool = False) -> list[Phrase]:
    clauses: list[Phrase] = []
    if node.fate:
        clauses.append(
            Phrase(
                N_("1 Fate die (-1, 0 or +1)") if node.count == 1 else N_("{count} Fate dice (-1, 0 or +1 each)"),
                count=node.count,
            )
        )
    else:
        clauses.append(
            Phrase(
                N_("1 die with {sides} sides") if node.count == 1 else N_("{count} dice with {sides} sides"),
                count=node.count,
                sides=node.sides,
            )
        )
    for reroll in node.rerolls:
        if reroll.kind == "r":
            clauses.append(
                Phrase(
                    N_("reroll a die showing {target}, again while it does (at most {cap} times)"),
                    target=target(reroll.on),
                    cap=REROLL_CAP,
                )
            )
        else:
            clauses.append(Phrase(N_("reroll a die showing {target} once"), target=target(reroll.on)))
    if node.minimum is not None:
        clauses.append(Phrase(N_("a die counts at least {n}"), n=node.minimum))
    if node.maximum is not None:
        clauses.append(Phrase(N_("a die counts at most {n}"), n=node.maximum))
    explode = node.explode
    if explode is not None:
        on = explode.on or Compare("=", node.clamp(node.high_face))
        template = {
            "!": N_("each die showing {target} adds another die (at most {cap} more)"),
            "!!": N_(
                "each die showing {target} rolls again and adds the roll to itself (compounding, at most {cap} more)"
            ),
            "!p": N_("each die showing {target} adds another die, less 1 (penetrating, at most {cap} more)"),
        }[explode.kind]
        clauses.append(Phrase(template, target=target(on), cap=EXPLOSION_CAP))
    if node.reroll_add is not None:
        clauses.append(
            Phrase(N_("if a die shows {target}, roll one more die and keep both"), target=target(node.reroll_add))
        )
    if node.keep is not None:
        clauses.append(keep_phrase(node.keep))
    if node.success is not None:
        clauses.append(Phrase(N_("count the dice showing {target}"), target=target(node.success)))
        if node.failure is not None:
            clauses.append(Phrase(N_("minus one for each showing {target}"), target=target(node.failure)))
    elif not counted_by_group and (node.count > 1 or explode is not None or node.reroll_add is not None):
        clauses.append(Phrase(N_("add them up")))
    if node.label is not None:
        clauses.append(Phrase(N_("label: {label}"), label=node.label))
    return clauses


def _group(node: Group) -> list[Phrase]:
    clauses: list[Phrase] = []
    if len(node.items) == 1 and (node.keep is not None or node.success is not None):
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        clauses.append(Phrase(N_("all the dice inside together")))
        if node.keep is not None:
            clauses.append(keep_phrase(node.keep))
            if offset:
                clauses.append(Phrase(N_("add {n}"), n=offset))
        if node.success is not None:
            if offset:
                clauses.append(
                    Phrase(
                        N_("count the dice that, with {n} added, reach {target}"), n=offset, target=target(node.success)
                    )
                )
            else:
                clauses.append(Phrase(N_("count the dice showing {target}"), target=target(node.success)))
            if node.failure is not None:
                clauses.append(Phrase(N_("minus one for each showing {target}"), target=target(node.failure)))
    else:
        clauses.append(
            Phrase(N_("{n} sub-rolls, each added up"), n=len(node.items))
            if len(node.items) > 1
            else Phrase(N_("one sub-roll"))
        )
        if node.keep is not None and node.keep.count == 1:
            clauses.append(
                Phrase(
                    {
                        "kh": N_("keep the highest total"),
                        "kl": N_("keep the lowest total"),
                        "dh": N_("drop the highest total"),
                        "dl": N_("drop the lowest total"),
                    }[node.keep.kind]
                )
            )
        elif node.keep is not None:
            clauses.append(
                Phrase(
                    {
                        "kh": N_("keep the highest {n} totals"),
                        "kl": N_("keep the lowest {n} totals"),
                        "dh": N_("drop the highest {n} totals"),
                        "dl": N_("drop the lowest {n} totals"),
                    }[node.keep.kind],
                    n=node.keep.count,
                )
            )
        if node.success is not None:
            clauses.append(Phrase(N_("count the totals of {target}"), target=target(node.success)))
            if node.failure is not None:
                clauses.append(Phrase(N_("minus one for each total of {target}"), target=target(node.failure)))
        else:
            clauses.append(Phrase(N_("add the totals")))
    if node.label is not None:
        clauses.append(Phrase(N_("label: {label}"), label=node.label))
    return clauses
