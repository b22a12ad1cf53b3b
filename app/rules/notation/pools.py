"""Rolling one dice term (Roll20's order, whatever order the modifiers were typed in): each die is rolled, rerolled
while a reroll applies (r at most REROLL_CAP times, ro once), clamped by mi/ma, and — exploding — followed by the
dice it adds (each chain to its end before the next die, so scripted faces read left to right; at most
EXPLOSION_CAP extra dice or rolls per term); then ra adds one die; then keep/drop over the pool (explosions
included; a compounded chain is one die); then success and failure counts over the dice kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from app.rules.dice import Dice as DiceRoller
from app.rules.dice import DiceError
from app.rules.notation.errors import REROLL_CAP
from app.rules.notation.results import DieRoll, Part, TermResult, strike
from app.rules.notation.tree import (
    Compare,
    Dice,
    Keep,
)


class Member:
    """One die of a pool: a die and the dice it added (not compounding), or a compounded chain."""

    __slots__ = ("value", "rolls", "kept", "success", "failure", "compound")

    def __init__(self, value: int, rolls: list[int], compound: bool = False) -> None:
        self.value = value
        self.rolls = rolls
        self.kept = True
        self.success = False
        self.failure = False
        self.compound = compound


@dataclass
class Pool:
    node: Dice
    start: int  # index of its first roll in PoolRoller.rolls
    members: list[Member] = field(default_factory=list)
    exploded: int = 0
    capped: bool = False
    reroll_capped: bool = False


class PoolRoller:
    """Rolls dice terms, recording every roll (`rolls`) and every term (`terms`) in order."""

    def __init__(self, dice: DiceRoller, cap: int) -> None:
        self.dice = dice
        self.cap = cap
        self.rolls: list[DieRoll] = []
        self.terms: list[TermResult] = []

    # --- dice --------------------------------------------------------------------------------------------------

    def pool(self, node: Dice) -> Pool:
        pool = Pool(node, len(self.rolls))
        explode = node.explode
        for _ in range(node.count):
            value, index = self._settle(node, pool)
            if explode is not None and explode.kind == "!!":
                member = Member(value, [index], compound=True)
                pool.members.append(member)
                while node.explodes_on(value):
                    if pool.exploded >= self.cap:
                        pool.capped = True
                        break
                    self.rolls[index].marks.append("exploded")
                    pool.exploded += 1
                    value, index = self._settle(node, pool)
                    member.value += value
                    member.rolls.append(index)
                continue
            pool.members.append(Member(value, [index]))
            while explode is not None and node.explodes_on(value):
                if pool.exploded >= self.cap:
                    pool.capped = True
                    break
                self.rolls[index].marks.append("exploded")
                pool.exploded += 1
                value, index = self._settle(node, pool)
                counted = value - 1 if explode.kind == "!p" else value
                self.rolls[index].value = counted
                pool.members.append(Member(counted, [index]))
        if node.reroll_add is not None:
            target = node.reroll_add
            if any(target.met_by(member.value) for member in pool.members):
                value, index = self._settle(node, pool)
                self.rolls[index].marks.append("rerolled")
                pool.members.append(Member(value, [index]))
        return pool

    def _settle(self, node: Dice, pool: Pool) -> tuple[int, int]:
        """Roll one die and its rerolls; the value it settles on (clamped) and the index of its last roll."""
        index = self._roll(node)
        value = node.value_of(self.rolls[index].raw)
        rerolled = 0
        once_used = False
        while True:
            again = any(r.kind == "r" and r.on.met_by(value) for r in node.rerolls)
            once = not once_used and any(r.kind == "ro" and r.on.met_by(value) for r in node.rerolls)
            if not (again or once):
                break
            if again and rerolled >= REROLL_CAP:
                pool.reroll_capped = True
                break
            if again:
                rerolled += 1
            else:
                once_used = True
            self.rolls[index].marks += ["rerolled", "dropped"]
            index = self._roll(node)
            value = node.value_of(self.rolls[index].raw)
        value = node.clamp(value)
        self.rolls[index].value = value
        return value, index

    def _roll(self, node: Dice) -> int:
        face = self.dice.roll(node.sides)
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= node.sides:
            # A broken roller must not slip an impossible face into a logged result.
            raise DiceError(f"the dice gave {face!r} for a d{node.sides}")
        self.rolls.append(DieRoll(face, node.sides, node.value_of(face), fate=node.fate))
        return len(self.rolls) - 1

    def finish(self, pool: Pool) -> tuple[Fraction, list[Part]]:
        """Mark the pool's rolls, record the term and give its worth (before any group around it) and parts."""
        node = pool.node
        for member in pool.members:
            last = self.rolls[member.rolls[-1]]
            if not member.kept:
                for index in member.rolls:
                    if "dropped" not in self.rolls[index].marks:
                        self.rolls[index].marks.append("dropped")
            if member.success:
                last.marks.append("success")
            if member.failure:
                last.marks.append("failure")
        rolls = self.rolls[pool.start :]
        tokens = self._tokens(pool)
        kept = [member for member in pool.members if member.kept]
        counting = node.success is not None
        successes = sum(member.success for member in kept) if counting else None
        failures = sum(member.failure for member in kept) if node.failure is not None else None
        if counting:
            value = Fraction((successes or 0) - (failures or 0))
        else:
            value = Fraction(sum(member.value for member in kept))
        self.terms.append(
            TermResult(
                node.notation,
                node.label,
                tuple(roll.value for roll in rolls),
                tuple(tuple(roll.marks) for roll in rolls),
                tuple(tokens),
                pool.exploded,
                pool.capped,
                pool.reroll_capped,
                successes,
                failures,
                value,
                node.sides,
            )
        )
        parts: list[Part] = [f"{node.notation} [{', '.join(tokens)}]"]
        if successes is not None:
            parts += [" ", ("successes", str(successes))]
        if failures is not None:
            parts += [" ", ("failures", str(failures))]
        if pool.capped:
            parts += [" ", ("capped",)]
        if pool.reroll_capped:
            parts += [" ", ("reroll_capped",)]
        return value, parts

    def _tokens(self, pool: Pool) -> list[str]:
        node = pool.node
        owner: dict[int, Member] = {}
        for member in pool.members:
            for index in member.rolls:
                owner[index] = member
        tokens = []
        for index in range(pool.start, len(self.rolls)):
            roll = self.rolls[index]
            if "rerolled" in roll.marks and "dropped" in roll.marks and index not in owner:
                tokens.append(strike(_face(node, node.value_of(roll.raw))) + "↻")
                continue
            found = owner.get(index)
            if found is None:
                continue
            member = found
            if member.compound:
                if index != member.rolls[-1]:
                    continue
                text = str(member.value) + ("!!" if len(member.rolls) > 1 else "")
            else:
                natural = node.value_of(roll.raw)
                shown = _face(node, roll.value)
                if roll.value != natural and not (
                    node.explode is not None and node.explode.kind == "!p" and roll.value == natural - 1
                ):
                    shown = f"{_face(node, natural)}→{shown}"
                text = shown + ("!" if "exploded" in roll.marks else "")
            if member.success:
                text += "*"
            if member.failure:
                text += "✗"
            tokens.append(text if member.kept else strike(text))
        return tokens


def _face(node: Dice, value: int) -> str:
    if node.fate:
        return "+1" if value > 0 else str(value)
    return str(value)


def score(members: list[Member], keep: Keep | None, success: Compare | None, failure: Compare | None) -> None:
    """Keep/drop over the pool, then success and failure counts over the dice kept."""
    for member, kept in zip(members, keep_flags([m.value for m in members], keep), strict=True):
        member.kept = kept
        if kept and success is not None:
            if success.met_by(member.value):
                member.success = True
            elif failure is not None and failure.met_by(member.value):
                member.failure = True


def keep_flags(values: list[int] | list[Fraction], keep: Keep | None) -> tuple[bool, ...]:
    """Which values stay. Among equal values the one rolled first is kept first."""
    if keep is None:
        return (True,) * len(values)
    wanted = keep.kept_of(len(values))
    if keep.from_top:
        order = sorted(range(len(values)), key=lambda index: (-values[index], index))
    else:
        order = sorted(range(len(values)), key=lambda index: (values[index], index))
    chosen = set(order[:wanted])
    return tuple(index in chosen for index in range(len(values)))
