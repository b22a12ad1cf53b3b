"""Not a target: the dice notation engine's CPU per call, in-process (app/rules/notation; issue 29).

For every expression of tests/rules/notation_corpus.json the engine accepts: parse, roll (seeded dice) and the odds
the dice box asks for while typing (describe_odds + reading, caches cleared each time, so the cold cost). Prints
the median and the worst per stage, the slowest odds requests, and one JSON line. Bounded: each expression is
timed a fixed number of times.

    .venv/bin/python bench/notation.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from app.rules import notation
from app.rules.notation import odds

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "rules" / "notation_corpus.json"


class Seeded:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


def _timed(fn: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def _cold_odds(expr: notation.Expression) -> None:
    odds._describe.cache_clear()
    odds.die_pmf.cache_clear()
    notation.describe_odds(expr)
    notation.reading(expr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    texts = [
        e["expression"] for e in json.loads(CORPUS.read_text("utf-8")) if "refused" not in e and not e.get("roll_error")
    ]
    stages: dict[str, list[tuple[float, str]]] = {"parse": [], "roll": [], "odds": []}
    for text in texts:
        expr = notation.parse(text)
        stages["parse"].append((_timed(lambda t=text: notation.parse(t), args.repeat), text))
        stages["roll"].append((_timed(lambda e=expr: notation.roll(e, Seeded(1)), args.repeat), text))
        stages["odds"].append((_timed(lambda e=expr: _cold_odds(e), args.repeat), text))
    summary = {"expressions": len(texts)}
    for stage, found in stages.items():
        values = sorted(t for t, _ in found)
        median, worst = statistics.median(values), values[-1]
        summary[f"{stage}_median_us"] = round(median * 1e6, 1)
        summary[f"{stage}_worst_ms"] = round(worst * 1e3, 2)
        print(f"{stage:6} median {median * 1e6:8.1f} µs   worst {worst * 1e3:8.2f} ms   ({max(found)[1]})")
    print("slowest odds requests:")
    for spent, text in sorted(stages["odds"], reverse=True)[:5]:
        print(f"  {spent * 1e3:8.2f} ms  {text}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
