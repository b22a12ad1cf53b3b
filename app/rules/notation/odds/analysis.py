"""The analysis of an expression's tree: its mean (exact where a method covers it) and, where needed, its
distribution."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from app.rules.notation.evaluate import apply_function
from app.rules.notation.odds.die import (
    cap_chance,
    chain_pmf,
    counting,
    die_pmf,
    explosion_shapes,
    mean_of,
    score_of,
    split_hit,
)
from app.rules.notation.odds.distributions import OPS, convolve, extreme, keep_pmf, power, scored
from app.rules.notation.odds.kept import DiceClass, kept_mixed, kept_one
from app.rules.notation.odds.limits import EXACT_BUDGET, EXACT_TOTAL, Budget, OverBudget, Pmf, Score, Unsupported
from app.rules.notation.odds.ranges import bounds_of
from app.rules.notation.tree import (
    Binary,
    Call,
    Dice,
    Group,
    Keep,
    Negate,
    Node,
    Number,
    Paren,
    pool_terms,
)


@dataclass
class Mean:
    value: Fraction
    exact: bool = True
    remainder: Fraction = Fraction(0)  # probability the method leaves out (the per-term cap shared by dice)

    def __add__(self, other: Mean) -> Mean:
        return Mean(self.value + other.value, self.exact and other.exact, self.remainder + other.remainder)


class Odds:
    def __init__(self, budget: Budget, cap: int) -> None:
        self.budget = budget
        self.cap = cap
        self.divides_by_zero = False
        # What the exact (Fraction) attempts of all dice terms may cost together: each term tries exactly within
        # EXACT_BUDGET, but never past what is left of this, so the work stays bounded whatever the number of terms
        # (a term past it goes straight to floats, charged to `budget`).
        self.exact_left = float(EXACT_TOTAL)

    # means

    def mean(self, node: Node) -> Mean:
        if isinstance(node, Number):
            return Mean(Fraction(node.value))
        if isinstance(node, Dice):
            return self.dice_mean(node, score_of(node))
        if isinstance(node, Paren):
            return self.mean(node.inner)
        if isinstance(node, Negate):
            inner = self.mean(node.operand)
            return Mean(-inner.value, inner.exact, inner.remainder)
        if isinstance(node, Binary):
            if node.op in ("+", "-"):
                left, right = self.mean(node.left), self.mean(node.right)
                value = left.value + right.value if node.op == "+" else left.value - right.value
                return Mean(value, left.exact and right.exact, left.remainder + right.remainder)
            if node.op == "*":
                left, right = self.mean(node.left), self.mean(node.right)
                return Mean(left.value * right.value, left.exact and right.exact, left.remainder + right.remainder)
            if node.op == "/":
                low, high = bounds_of(node.right, self.cap)
                if low == high and low != 0:
                    left = self.mean(node.left)
                    return Mean(left.value / low, left.exact, left.remainder)
        if isinstance(node, Group):
            return self.group_mean(node)
        pmf, remainder = self.pmf(node)
        return Mean(sum((v * p for v, p in pmf.items()), Fraction(0)), True, remainder)

    def dice_mean(self, node: Dice, score: Score) -> Mean:
        granted = min(float(EXACT_BUDGET), self.exact_left)
        trial = Budget(granted)
        try:
            return self._dice_mean(node, score, trial, exact=True)
        except OverBudget:
            return self._dice_mean(node, score, self.budget, exact=False)
        finally:
            self.exact_left -= granted - max(trial.left, 0.0)

    def _dice_mean(self, node: Dice, score: Score, budget: Budget, exact: bool) -> Mean:
        self.budget.charge(len(node.faces))
        pmf = die_pmf(node)
        n = node.count
        explode = node.explode
        if node.reroll_add is not None:
            if explode is not None or node.keep is not None:
                raise Unsupported
            one = mean_of(pmf, score)
            target = node.reroll_add
            none = sum((p for v, p in pmf.items() if not target.met_by(v)), Fraction(0))
            return Mean(n * one + (1 - none**n) * one)
        if explode is None:
            if node.keep is None:
                return Mean(n * mean_of(pmf, score))
            value = kept_one(DiceClass(pmf, score), n, node.keep, budget, exact)
            return Mean(Fraction(value) if exact else Fraction(value).limit_denominator(10**9), exact)
        p, hit, miss = split_hit(pmf, node)
        plain_sum = node.success is None and score(7) == 7 and score(-3) == -3
        if explode.kind == "!" or (node.keep is None and plain_sum and explode.kind == "!!"):
            return self._shape_mean(node, p, hit, miss, score, budget, exact)
        if explode.kind == "!p" and node.keep is None and plain_sum:
            shaped = self._shape_mean(node, p, hit, miss, score, budget, exact)
            added = sum((w * (m + o - n) for m, o, w in explosion_shapes(n, p, self.cap, budget)), Fraction(0))
            return Mean(shaped.value - added, shaped.exact)
        if explode.kind == "!p" and node.keep is not None:
            raise Unsupported
        # Compounding dice kept or counted, penetrating dice counted: chains, with what the shared cap leaves out.
        remainder = cap_chance(node, self.cap, budget)
        if explode.kind == "!!":
            chain = chain_pmf(node, self.cap, budget)
            budget.charge(3 * len(chain))  # DiceClass: sorting and summing the chain's (big) fractions
            cls = DiceClass(chain, score)
            if node.keep is None:
                return Mean(n * cls.mean, True, remainder)
            return Mean(Fraction(kept_one(cls, n, node.keep, budget, True)), True, remainder)
        chain = chain_pmf(node, self.cap, budget, score)
        return Mean(n * sum((v * q for v, q in chain.items()), Fraction(0)), True, remainder)

    def _shape_mean(
        self,
        node: Dice,
        p: Fraction,
        hit: dict[int, Fraction],
        miss: dict[int, Fraction],
        score: Score,
        budget: Budget,
        exact: bool,
    ) -> Mean:
        shapes = explosion_shapes(node.count, p, self.cap, budget)
        a, b = DiceClass(hit, score) if hit else None, DiceClass(miss, score) if miss else None
        if node.keep is None:
            total = sum((w * ((a.mean * m if a else 0) + (b.mean * o if b else 0)) for m, o, w in shapes), Fraction(0))
            return Mean(total)
        upper = not hit or not miss or min(hit) > max(miss)
        total_value: Fraction | float = Fraction(0) if exact else 0.0
        for m, o, w in shapes:
            if not exact and w < Fraction(1, 10**18):
                continue
            weight: Fraction | float = w if exact else float(w)
            if upper:
                part = self._upper_kept(node.keep, m, o, a, b, budget, exact)
            else:
                classes = [(count, cls) for count, cls in ((m, a), (o, b)) if count and cls is not None]
                part = kept_mixed(classes, node.keep, budget)
            total_value += weight * part  # type: ignore[operator,unused-ignore]
        if exact:
            return Mean(Fraction(total_value))
        return Mean(Fraction(total_value).limit_denominator(10**9), False)

    @staticmethod
    def _upper_kept(
        keep: Keep, m: int, o: int, a: DiceClass | None, b: DiceClass | None, budget: Budget, exact: bool
    ) -> Fraction | float:
        """Keep/drop when every exploding die ranks above every other: the kept dice are a top or bottom slice."""
        wanted = keep.kept_of(m + o)
        a_mean = a.mean if a else Fraction(0)
        b_mean = b.mean if b else Fraction(0)
        zero: Fraction | float = Fraction(0) if exact else 0.0

        def lowest(cls: DiceClass | None, count: int, j: int) -> Fraction | float:
            if cls is None or j == 0:
                return zero
            return cls.lowest(count, budget, exact)[j]

        if keep.from_top:
            if wanted <= m:  # the highest `wanted` of the exploding dice
                return (
                    (a_mean * m - lowest(a, m, m - wanted)) if exact else (float(a_mean) * m - lowest(a, m, m - wanted))
                )
            rest = wanted - m
            whole_a = a_mean * m
            top_b = b_mean * o - lowest(b, o, o - rest) if exact else float(b_mean) * o - lowest(b, o, o - rest)
            return whole_a + top_b if exact else float(whole_a) + top_b  # type: ignore[operator,unused-ignore]
        if wanted <= o:
            return lowest(b, o, wanted)
        return (b_mean * o + lowest(a, m, wanted - o)) if exact else float(b_mean) * o + lowest(a, m, wanted - o)

    def group_mean(self, node: Group) -> Mean:
        if len(node.items) == 1 and (node.keep is not None or node.success is not None):
            return self._pool_mean(node)
        if node.keep is None and node.success is None:
            total = Mean(Fraction(0))
            for item in node.items:
                total = total + self.mean(item)
            return total
        pmfs = [self.pmf(item) for item in node.items]
        remainder = sum((r for _, r in pmfs), Fraction(0))
        if node.success is not None:
            score = counting(node.success, node.failure)
            value = Fraction(0)
            kept_classes = [DiceClass(pmf) for pmf, _ in pmfs]
            if node.keep is not None:
                # Count over the kept sub-rolls only: the score ranks the same way as the totals only for kh/kl
                # on a plain "or more"/"or less" count, so anything else is rolled to see.
                raise Unsupported
            for cls in kept_classes:
                value += sum((p * score(v) for v, p in cls.pmf.items()), Fraction(0))
            return Mean(value, True, remainder)
        assert node.keep is not None
        classes = [(1, DiceClass(pmf)) for pmf, _ in pmfs]
        return Mean(kept_mixed(classes, node.keep, self.budget), True, remainder)

    def _pool_mean(self, node: Group) -> Mean:
        terms = pool_terms(node.items[0])
        offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
        dice = [(sign, term) for sign, term in terms if isinstance(term, Dice)]
        if node.keep is not None:
            if node.success is not None or any(sign < 0 for sign, _ in dice):
                raise Unsupported
            classes = []
            remainder = Fraction(0)
            for _sign, term in dice:
                if term.explode is not None:
                    if term.explode.kind != "!!" or term.reroll_add is not None:
                        raise Unsupported
                    remainder += cap_chance(term, self.cap, self.budget)
                    classes.append((term.count, DiceClass(chain_pmf(term, self.cap, self.budget))))
                elif term.reroll_add is not None:
                    raise Unsupported
                else:
                    classes.append((term.count, DiceClass(die_pmf(term))))
            return Mean(kept_mixed(classes, node.keep, self.budget) + offset, True, remainder)
        assert node.success is not None
        total = Mean(Fraction(0))
        for sign, term in dice:
            score = counting(node.success, node.failure, offset)
            signed: Score = score if sign > 0 else (lambda value, s=score: s(-value))  # type: ignore[misc]
            total = total + self.dice_mean(term, signed)
        return total

    # distributions

    def pmf(self, node: Node) -> tuple[Pmf, Fraction]:
        if isinstance(node, Number):
            return {Fraction(node.value): Fraction(1)}, Fraction(0)
        if isinstance(node, Dice):
            return self.dice_pmf(node, score_of(node))
        if isinstance(node, Paren):
            return self.pmf(node.inner)
        if isinstance(node, Negate):
            inner, remainder = self.pmf(node.operand)
            return {-v: p for v, p in inner.items()}, remainder
        if isinstance(node, Call):
            inner, remainder = self.pmf(node.arg)
            out: Pmf = defaultdict(Fraction)
            for v, p in inner.items():
                out[apply_function(node.name, v)] += p
            return dict(out), remainder
        if isinstance(node, Binary):
            left, lr = self.pmf(node.left)
            right, rr = self.pmf(node.right)
            if node.op in ("/", "//", "%") and Fraction(0) in right:
                self.divides_by_zero = True
                raise Unsupported
            return convolve(left, right, self.budget, OPS[node.op]), lr + rr
        return self.group_pmf(node)

    def dice_pmf(self, node: Dice, score: Score) -> tuple[Pmf, Fraction]:
        pmf = die_pmf(node)
        n = node.count
        if node.explode is not None:
            if node.keep is not None or node.reroll_add is not None:
                raise Unsupported
            chain = chain_pmf(node, self.cap, self.budget, score)
            return power(chain, n, self.budget), cap_chance(node, self.cap, self.budget)
        if node.reroll_add is not None:
            if node.keep is not None:
                raise Unsupported
            target = node.reroll_add
            one = scored(pmf, score)
            miss = {v: p for v, p in pmf.items() if not target.met_by(v)}
            none_hit = power(scored(miss, score), n, self.budget)
            every = power(one, n, self.budget)
            some_hit = {v: every.get(v, Fraction(0)) - none_hit.get(v, Fraction(0)) for v in every}
            out = convolve(some_hit, one, self.budget)
            for v, p in none_hit.items():
                out[v] = out.get(v, Fraction(0)) + p
            return {v: p for v, p in out.items() if p}, Fraction(0)
        if node.keep is None:
            return power(scored(pmf, score), n, self.budget), Fraction(0)
        return keep_pmf(pmf, n, node.keep, score, self.budget), Fraction(0)

    def group_pmf(self, node: Group) -> tuple[Pmf, Fraction]:
        if len(node.items) == 1 and (node.keep is not None or node.success is not None):
            if node.keep is not None:
                raise Unsupported
            assert node.success is not None
            terms = pool_terms(node.items[0])
            offset = sum(sign * term.value for sign, term in terms if isinstance(term, Number))
            total: Pmf = {Fraction(0): Fraction(1)}
            remainder = Fraction(0)
            for sign, term in terms:
                if isinstance(term, Dice):
                    score = counting(node.success, node.failure, offset)
                    signed: Score = score if sign > 0 else (lambda value, s=score: s(-value))  # type: ignore[misc]
                    pmf, r = self.dice_pmf(term, signed)
                    total = convolve(total, pmf, self.budget)
                    remainder += r
            return total, remainder
        parts = [self.pmf(item) for item in node.items]
        remainder = sum((r for _, r in parts), Fraction(0))
        if node.keep is None and node.success is None:
            total = {Fraction(0): Fraction(1)}
            for pmf, _ in parts:
                total = convolve(total, pmf, self.budget)
            return total, remainder
        if node.success is not None:
            if node.keep is not None:
                raise Unsupported
            score = counting(node.success, node.failure)
            total = {Fraction(0): Fraction(1)}
            for pmf, _ in parts:
                scored: Pmf = defaultdict(Fraction)
                for v, p in pmf.items():
                    scored[Fraction(score(v))] += p
                total = convolve(total, dict(scored), self.budget)
            return total, remainder
        assert node.keep is not None
        if node.keep.kept_of(len(parts)) != 1:
            raise Unsupported
        return extreme([pmf for pmf, _ in parts], highest=node.keep.from_top, budget=self.budget), remainder
