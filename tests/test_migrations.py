"""`alembic upgrade head` on an empty database must produce exactly the models' schema."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy.engine import Engine
from utils.server import PG_URL, reset_postgres

from app.db import make_engine
from app.models import Base

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


def _migrate(database_url: str, *steps: str) -> Engine:
    """Run alembic steps ("head", "base") on an empty database; return its engine."""
    if database_url == PG_URL:
        reset_postgres(PG_URL)
    engine = make_engine(database_url)
    config = Config("alembic.ini")
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        for step in steps:
            (command.downgrade if step == "base" else command.upgrade)(config, step)
    return engine


def test_upgrade_head_matches_the_models(database_url: str) -> None:
    engine = _migrate(database_url, "head")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations differ: {diff}"


def test_downgrade_to_base_and_back(database_url: str) -> None:
    engine = _migrate(database_url, "head", "base", "head")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == []
