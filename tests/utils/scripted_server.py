"""The ASGI entry for browser tests that script the dice (`uvicorn utils.scripted_server:app`, started by
tests/utils/server.py with PYTHONPATH=tests): app.asgi's app, with the rules service's SecureDice replaced by dice
that take their faces from the JSON list in the file FATEBOARD_TEST_FACES first (a face too big for the die is
dropped) and roll securely once it is empty. The app itself has no such hook: only a test starts this module."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

from app.rolls import service
from app.rules.dice import SecureDice

FACES = Path(os.environ["FATEBOARD_TEST_FACES"])


class FileDice:
    def __init__(self) -> None:
        self._secure = SecureDice()

    def roll(self, sides: int) -> int:
        faces = json.loads(FACES.read_text() or "[]") if FACES.exists() else []
        while faces:
            face = int(faces.pop(0))
            FACES.write_text(json.dumps(faces))
            if 1 <= face <= sides:
                return face
        return self._secure.roll(sides)


# For the life of this process (the same seam as tests/utils/dice.py's `scripted`, which undoes it after its block).
mock.patch.object(service, "SecureDice", FileDice).start()

from app.asgi import app  # noqa: E402  (after the dice are replaced; the service reads SecureDice per action)

__all__ = ["app"]
