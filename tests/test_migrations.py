"""`alembic upgrade head` on an empty database must produce exactly the models' schema."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_0009_keeps_every_row_and_gives_no_named_user_id_out_again(tmp_path: Path) -> None:
    """SQLite (PostgreSQL's sequences never go back): an instance at 0008 with a deleted member (id 4) whom a
    whisper names. After 0009 every row, child row and index is still there, every table of the list has
    AUTOINCREMENT, and the next account gets an id past every one the log names."""
    engine = _migrate(f"sqlite:///{tmp_path / 'old.db'}", "0008")
    now = "2026-12-01 10:00:00.000000"
    with engine.begin() as conn:
        for uid in (1, 2, 3):
            conn.exec_driver_sql(
                "INSERT INTO users (id, username, username_key, password_hash, created_at) VALUES (?, ?, ?, 'x', ?)",
                (uid, f"u{uid}", f"u{uid}", now),
            )
        conn.exec_driver_sql(
            "INSERT INTO campaigns (id, name, description, systems, language, settings, created_by, created_at,"
            " last_seq, head_hash) VALUES (1, 'Old', '', '[]', 'en', '{}', 1, ?, 1, ?)",
            (now, "0" * 64),
        )
        for uid in (1, 2, 3):
            conn.exec_driver_sql(
                "INSERT INTO memberships (campaign_id, user_id, role, joined_at) VALUES (1, ?, 'player', ?)", (uid, now)
            )
        body = json.dumps({"actor_id": 2, "character_id": 6, "request": {"readers": [2, 4]}, "outcome": {"to": "all"}})
        conn.exec_driver_sql(
            "INSERT INTO log_entries (campaign_id, seq, created_at, actor_id, actor_name, kind, system, action,"
            " visibility, body, salt, body_hash, prev_hash, hash) VALUES (1, 1, ?, 2, 'u2', 'message', 'talk',"
            " 'message', 'whisper', ?, 's', 'b', 'p', 'h')",
            (now, body),
        )
    engine.dispose()
    engine = _migrate(f"sqlite:///{tmp_path / 'old.db'}", "head")
    with engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM memberships").scalar() == 3
        assert conn.exec_driver_sql("SELECT count(*) FROM log_entries").scalar() == 1
        schema = dict(conn.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        for name in ("users", "campaigns", "characters", "handouts", "api_tokens", "push_subscriptions"):
            assert "AUTOINCREMENT" in schema[name], name
        assert "AUTOINCREMENT" not in schema["log_entries"]
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
        conn.exec_driver_sql(
            "INSERT INTO users (username, username_key, password_hash, created_at) VALUES ('m', 'm', 'x', ?)", (now,)
        )
        assert conn.exec_driver_sql("SELECT id FROM users WHERE username = 'm'").scalar() == 5
        conn.exec_driver_sql(
            "INSERT INTO characters (campaign_id, owner_id, system, name, kind, sheet, version, created_at)"
            " VALUES (1, 2, 'dice', 'New', 'pc', '{}', 1, ?)",
            (now,),
        )
        assert conn.exec_driver_sql("SELECT id FROM characters WHERE name = 'New'").scalar() == 7
        conn.exec_driver_sql("DELETE FROM users WHERE id = 3")  # a cascade still works
        assert conn.exec_driver_sql("SELECT count(*) FROM memberships").scalar() == 2
    engine.dispose()


def test_0011_gives_every_account_and_table_the_quiet_display_defaults(tmp_path: Path) -> None:
    """An instance at 0010 with an account and a campaign: after 0011 the account follows its device, has no sound
    and no vibration, text at 100 %; the table's dice animation is on; no membership is lost on the way."""
    engine = _migrate(f"sqlite:///{tmp_path / 'old.db'}", "0010")
    now = "2026-12-07 10:00:00.000000"
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO users (id, username, username_key, password_hash, created_at) VALUES (1, 'u', 'u', 'x', ?)",
            (now,),
        )
        conn.exec_driver_sql(
            "INSERT INTO campaigns (id, name, description, systems, language, settings, created_by, created_at,"
            " last_seq, head_hash) VALUES (1, 'Old', '', '[]', 'en', '{}', 1, ?, 0, ?)",
            (now, "0" * 64),
        )
        conn.exec_driver_sql(
            "INSERT INTO memberships (campaign_id, user_id, role, joined_at) VALUES (1, 1, 'narrator', ?)", (now,)
        )
    engine.dispose()
    engine = _migrate(f"sqlite:///{tmp_path / 'old.db'}", "head")
    with engine.begin() as conn:
        row = conn.exec_driver_sql("SELECT motion, theme, text_size, sound, vibration FROM users").one()
        assert tuple(row) == ("device", "device", 100, 0, 0)
        assert conn.exec_driver_sql("SELECT dice_animation FROM campaigns").scalar() == 1
        assert conn.exec_driver_sql("SELECT count(*) FROM memberships").scalar() == 1
    engine.dispose()
