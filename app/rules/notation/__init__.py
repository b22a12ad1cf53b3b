"""Generic dice expressions for any table — the Roll20 family of notation, and Avrae's spellings where they do not
clash: parse, roll with the dice passed in, read in words, odds. docs/NOTATION.md is the reference (every operator
with an example); parser.py has the grammar.

Stages: parser (text → tree.py's nodes; with scanner.py and terms.py) → evaluate (roll; pools.py rolls a dice
term, results.py holds the result) → odds/ (a subpackage: bounds, exact mean, with order statistics and a work
budget); describe says how an expression was read. The package imports nothing of the app (tests/test_imports.py,
tests/test_layering.py); no module is longer than tests/systems/test_system_shape.py's mark.
"""

from app.rules.notation.describe import Part, Phrase, reading
from app.rules.notation.errors import (
    EXPLOSION_CAP,
    MAX_DEPTH,
    MAX_DICE,
    MAX_LABEL,
    MAX_LENGTH,
    MAX_NOTE,
    MAX_NUMBER,
    MAX_SIDES,
    MAX_TERMS,
    REROLL_CAP,
    LimitError,
    NotationError,
    RollError,
)
from app.rules.notation.evaluate import roll
from app.rules.notation.odds import bounds, describe_odds, mean
from app.rules.notation.parser import canonical, parse
from app.rules.notation.results import DieRoll, RollResult, TermResult, english, faces_text, number_text
from app.rules.notation.tree import (
    Binary,
    Call,
    Compare,
    Condition,
    ConstantTerm,
    Dice,
    DiceTerm,
    Explode,
    Expression,
    Group,
    Keep,
    Negate,
    Number,
    Paren,
    Reroll,
    Term,
)

__all__ = [
    "EXPLOSION_CAP",
    "MAX_DEPTH",
    "MAX_DICE",
    "MAX_LABEL",
    "MAX_LENGTH",
    "MAX_NOTE",
    "MAX_NUMBER",
    "MAX_SIDES",
    "MAX_TERMS",
    "REROLL_CAP",
    "Binary",
    "Call",
    "Compare",
    "Condition",
    "ConstantTerm",
    "Dice",
    "DiceTerm",
    "DieRoll",
    "Explode",
    "Expression",
    "Group",
    "Keep",
    "LimitError",
    "Negate",
    "NotationError",
    "Number",
    "Paren",
    "Part",
    "Phrase",
    "Reroll",
    "RollError",
    "RollResult",
    "Term",
    "TermResult",
    "bounds",
    "canonical",
    "describe_odds",
    "english",
    "faces_text",
    "mean",
    "number_text",
    "parse",
    "reading",
    "roll",
]
