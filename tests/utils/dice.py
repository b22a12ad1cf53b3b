"""Scripted dice for the web forms and the JSON API: the rules service rolls `SecureDice()` per action; inside
`scripted(faces)` every action rolls these faces instead (a fresh ScriptedDice per action)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from app.rolls import service as rolls
from app.rules.dice import ScriptedDice


@contextmanager
def scripted(faces: list[int]) -> Iterator[None]:
    """The web form's dice: the rules service rolls SecureDice(); for this block it rolls these faces."""
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(list(faces))):
        yield
