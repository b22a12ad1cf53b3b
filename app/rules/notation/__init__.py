"""Generic dice expressions ("4d6kh3+2") for any table: parse, roll with the dice passed in, odds.

Syntax, case-insensitive (no rules text covers it; this docstring is its reference):

* `NdS` rolls N dice of S sides (N defaults to 1): `d20`, `3d6`. `d%` is `d100` (one roll(100); 100 is "00").
* Terms are whole numbers or dice, joined by `+` and `-`: `1d20 - 2 + d4`. The first term may carry a
  sign too (`-d4+3`). Spaces and tabs are allowed at either end and around `+`/`-`, not inside a term.
* Modifiers follow the sides in this order, each at most once:
  1. `!` explode: every die showing its top face adds one more die, which may explode again (rolled
     straight after the die it came from). At most EXPLOSION_CAP (100) dice are added per term; a
     term that hit the cap says so (TermResult.capped). A d1 cannot explode.
  2. keep/drop over every die rolled, explosions included: `khN`/`kN` keep highest, `klN` keep lowest,
     `dhN` drop highest, `dlN` drop lowest; 1 <= N <= number of dice written (before explosions).
  3. a success condition `>=T`, `>T`, `<=T`, `<T`, `=T`: the term is worth the number of kept dice
     meeting it.
  So `5d10!kh3>=8` explodes, keeps the 3 highest, then counts those showing 8 or more.
* Limits: 200 characters (both as typed and as canonical() writes it, so a canonical text always
  parses again), 20 terms, 1000 dice in the whole expression (the N of each term, before
  explosions), 1000 sides. Breaking one raises LimitError, any other bad text NotationError.
* canonical() writes lower case, no spaces, the dice count always (1d20), d% as 1d100, k as kh,
  no leading zeros and no leading +.
"""

from app.rules.notation.errors import (
    EXPLOSION_CAP,
    MAX_DICE,
    MAX_LENGTH,
    MAX_SIDES,
    MAX_TERMS,
    LimitError,
    NotationError,
)
from app.rules.notation.evaluate import RollResult, TermResult, faces_text, roll
from app.rules.notation.odds import bounds, describe_odds, mean
from app.rules.notation.parser import canonical, parse
from app.rules.notation.tree import Condition, ConstantTerm, DiceTerm, Expression, Keep, Term

__all__ = [
    "EXPLOSION_CAP",
    "MAX_DICE",
    "MAX_LENGTH",
    "MAX_SIDES",
    "MAX_TERMS",
    "Condition",
    "ConstantTerm",
    "DiceTerm",
    "Expression",
    "Keep",
    "LimitError",
    "NotationError",
    "RollResult",
    "Term",
    "TermResult",
    "bounds",
    "canonical",
    "describe_odds",
    "faces_text",
    "mean",
    "parse",
    "roll",
]
