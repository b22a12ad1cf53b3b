"""The ART Engine's service-level table (tests/utils/art.py builds it)."""

from __future__ import annotations

from typing import Any

import pytest
from utils.art import Play


@pytest.fixture
def play(app: Any) -> Play:
    return Play(app)
