"""Tree to result: rolling an expression with the dice passed in, and rendering the result as one line.

Order inside a dice term (package docstring, "Modifiers"): roll the dice one by one, each
exploding chain followed to its end before the next die (so scripted faces read left to right); then
keep/drop over every die rolled, explosions included; then the success condition over the kept dice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.rules.dice import Dice, DiceError
from app.rules.notation.errors import EXPLOSION_CAP
from app.rules.notation.parser import as_expression
from app.rules.notation.tree import ConstantTerm, DiceTerm, Expression, Keep, Sign, Term, spell


@dataclass(frozen=True)
class TermResult:
    """One term after rolling.

    `faces` are in roll order (each explosion straight after the die it came from); `kept` and
    `success` (kept and meeting the condition; empty without one) run alongside. `exploded` counts the
    dice added by explosions, `capped` is True when the cap stopped one. `successes` is None unless
    the term counts successes. `value` is the term's worth before its sign; `sides` is 0 for a constant.
    """

    notation: str
    sign: Sign
    faces: tuple[int, ...] = ()
    kept: tuple[bool, ...] = ()
    success: tuple[bool, ...] = ()
    exploded: int = 0
    capped: bool = False
    successes: int | None = None
    value: int = 0
    sides: int = 0

    @property
    def contribution(self) -> int:
        """What this term adds to the total (its value with the sign applied)."""
        return self.sign * self.value

    @property
    def dropped(self) -> tuple[int, ...]:
        """Positions (0-based, roll order) of the dice that keep/drop left out."""
        return tuple(index for index, kept in enumerate(self.kept) if not kept)


@dataclass(frozen=True)
class RollResult:
    """A rolled expression: the total, each term in order, and the canonical notation rolled."""

    total: int
    terms: tuple[TermResult, ...]
    text: str

    def render(self) -> str:
        """One plain-text line, e.g. "4d6kh3 [6, 5, 1̶, 3] = 14".

        Dropped dice are struck through (U+0336 after each character, so it shows in any plain-text
        log), dice that exploded carry a !, successes carry a *.
        """
        parts: list[str] = []
        for index, term in enumerate(self.terms):
            if index == 0:
                parts.append("-" if term.sign < 0 else "")
            else:
                parts.append(" - " if term.sign < 0 else " + ")
            parts.append(_render_term(term))
        return "".join(parts) + f" = {self.total}"


def roll(expr_or_text: Expression | str, dice: Dice, *, explosion_cap: int = EXPLOSION_CAP) -> RollResult:
    """Roll an expression (or notation text) with `dice`; at most `explosion_cap` explosions per term."""
    expr = as_expression(expr_or_text)
    results = tuple(_roll_term(term, dice, explosion_cap) for term in expr.terms)
    return RollResult(sum(result.contribution for result in results), results, spell(expr))


def _roll_term(term: Term, dice: Dice, cap: int) -> TermResult:
    if isinstance(term, ConstantTerm):
        return TermResult(term.notation, term.sign, value=term.value)
    faces, exploded, capped = _roll_faces(term, dice, cap)
    kept = keep_flags(faces, term.keep)
    rolled = TermResult(
        term.notation, term.sign, tuple(faces), kept, exploded=exploded, capped=capped, sides=term.sides
    )
    if term.condition is None:
        return replace(rolled, value=sum(face for face, keep in zip(faces, kept) if keep))
    success = tuple(keep and term.condition.met_by(face) for face, keep in zip(faces, kept))
    return replace(rolled, success=success, successes=sum(success), value=sum(success))


def _roll_faces(term: DiceTerm, dice: Dice, cap: int) -> tuple[list[int], int, bool]:
    """Roll the dice; each maximum face adds one more die, while fewer than `cap` have been added."""
    faces: list[int] = []
    exploded = 0
    capped = False
    for _ in range(term.count):
        face = _one_die(dice, term.sides)
        faces.append(face)
        while term.explode and face == term.sides:
            if exploded >= cap:
                capped = True
                break
            exploded += 1
            face = _one_die(dice, term.sides)
            faces.append(face)
    return faces, exploded, capped


def _one_die(dice: Dice, sides: int) -> int:
    face = dice.roll(sides)
    if not isinstance(face, int) or not 1 <= face <= sides:
        # A broken roller must not slip an impossible face into a logged result.
        raise DiceError(f"the dice gave {face!r} for a d{sides}")
    return face


def keep_flags(faces: list[int], keep: Keep | None) -> tuple[bool, ...]:
    """Which dice stay in the total. Among equal faces the die rolled first is kept first."""
    if keep is None:
        return (True,) * len(faces)
    wanted = keep.kept_of(len(faces))
    if keep.from_top:
        order = sorted(range(len(faces)), key=lambda index: (-faces[index], index))
    else:
        order = sorted(range(len(faces)), key=lambda index: (faces[index], index))
    chosen = set(order[:wanted])
    return tuple(index in chosen for index in range(len(faces)))


def _render_term(term: TermResult) -> str:
    line = faces_text(term)
    if term.successes is not None:
        line += f" ({term.successes} {'success' if term.successes == 1 else 'successes'})"
    if term.capped:
        line += " (explosion cap reached)"
    return line


def faces_text(term: TermResult) -> str:
    """A term's notation and its faces, without words: "4d6kh3 [6, 5, 1̶, 3]" (a constant: its notation). The
    words render() adds ("3 successes", "explosion cap reached") are the caller's to translate."""
    if not term.faces:
        return term.notation
    shown = []
    explosions_left = term.exploded
    for index, face in enumerate(term.faces):
        text = str(face)
        if face == term.sides and explosions_left > 0:
            # Explosions are spent in roll order, so the first `exploded` maximum faces are the ones that exploded.
            explosions_left -= 1
            text += "!"
        if term.success and term.success[index]:
            text += "*"
        shown.append(text if term.kept[index] else strike(text))
    return f"{term.notation} [{', '.join(shown)}]"


def strike(text: str) -> str:
    """Struck-through plain text: a combining long stroke overlay after every character."""
    return "".join(ch + "\u0336" for ch in text)
