"""The test databases: a migrated template made once per test process and copied (SQLite) or emptied (PostgreSQL)
for each test, instead of a schema built per test; one PostgreSQL database per pytest-xdist worker.

TEST_DATABASE_URL names the PostgreSQL database the `engines` runs use; without it they are skipped. Under xdist,
worker gwN uses that database's name with `_gwN` appended (created on first use), so workers never share tables."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db import make_engine


def _per_worker(url: str) -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not url or not worker:
        return url
    parsed = make_url(url)
    return parsed.set(database=f"{parsed.database}_{worker}").render_as_string(hide_password=False)


BASE_PG_URL = os.environ.get("TEST_DATABASE_URL", "")
PG_URL = _per_worker(BASE_PG_URL)

_pg_ready: set[str] = set()  # databases whose schema is the migrated one (so emptying them is enough)
_pg_created: set[str] = set()


def _ensure_database(url: str) -> None:
    """Creates a worker's own database beside TEST_DATABASE_URL's the first time it is used."""
    if url in _pg_created or url == BASE_PG_URL:
        return
    name = make_url(url).database
    admin = make_engine(BASE_PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first() is None:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    _pg_created.add(url)


def reset_postgres(url: str) -> None:
    """An empty public schema (for tests that migrate or build their own)."""
    _ensure_database(url)
    _pg_ready.discard(url)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def migrate(url: str) -> None:
    """`alembic upgrade head` on the database at `url` (tests/test_migrations.py checks head == the models)."""
    from alembic import command
    from alembic.config import Config

    engine = make_engine(url)
    config = Config(str(Path(__file__).resolve().parents[2] / "alembic.ini"))
    config.set_main_option("script_location", str(Path(__file__).resolve().parents[2] / "migrations"))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
    engine.dispose()


def migrated_postgres(url: str) -> None:
    """The migrated schema with no rows and every id sequence back at 1: migrated once per process, then emptied."""
    from app.models import Base

    if url not in _pg_ready:
        reset_postgres(url)
        migrate(url)
        _pg_ready.add(url)
        return
    tables = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    engine.dispose()


_sqlite_template: Path | None = None


def migrated_sqlite(path: Path) -> None:
    """Copies this process's migrated SQLite template (made on first use) to `path`."""
    global _sqlite_template
    if _sqlite_template is None:
        folder = Path(tempfile.mkdtemp(prefix="fateboard-template-"))
        template = folder / "template.db"
        migrate(f"sqlite:///{template}")
        for extra in ("-wal", "-shm"):
            assert not Path(f"{template}{extra}").exists() or Path(f"{template}{extra}").stat().st_size == 0
        _sqlite_template = template
    shutil.copyfile(_sqlite_template, path)
