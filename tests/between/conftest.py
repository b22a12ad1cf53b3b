"""Fixtures only: `t`, a Table on the module's own `quiet_app` (each module says which settings it runs with)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from utils.tables import Table


@pytest.fixture
def t(quiet_app: FastAPI) -> Iterator[Table]:
    with TestClient(quiet_app, base_url="http://testserver") as c:
        yield Table(c)
