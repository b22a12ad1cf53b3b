"""ids never given out again: AUTOINCREMENT on every SQLite table whose id a log entry or a permission names (issue 35)

A plain INTEGER PRIMARY KEY on SQLite hands the highest id out again once its row is deleted: a new account got a
deleted member's id and with it the whispers and handouts addressed to that id. Each table is recreated (batch
mode; rows, ids, indexes and constraints kept) with AUTOINCREMENT, and the users' counter starts past every user
id the log still names (a whisper's readers, a handout's `to`, an author, a correction's subject), the
characters' past every character id an entry names, so what was deleted before this migration cannot come back
either. PostgreSQL's sequences never go back: nothing to do there.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 15:40:00
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TABLES = (
    "users",
    "account_tokens",
    "api_tokens",
    "campaigns",
    "memberships",
    "invites",
    "game_sessions",
    "characters",
    "encounters",
    "roll_prompts",
    "handouts",
    "handout_shows",
    "scene_pins",
    "push_subscriptions",
    "outbox",
)

# Every user id the log or a table still names; the counter starts past the largest.
USER_IDS = """
SELECT max(v) FROM (
  SELECT max(id) AS v FROM users
  UNION ALL SELECT max(subject_id) FROM log_entries
  UNION ALL SELECT max(CAST(json_extract(body, '$.actor_id') AS INTEGER)) FROM log_entries
  UNION ALL SELECT max(r.value) FROM log_entries, json_each(log_entries.body, '$.request.readers') AS r
    WHERE json_type(log_entries.body, '$.request.readers') = 'array' AND r.type = 'integer'
  UNION ALL SELECT max(t.value) FROM log_entries, json_each(log_entries.body, '$.outcome.to') AS t
    WHERE json_type(log_entries.body, '$.outcome.to') = 'array' AND t.type = 'integer'
  UNION ALL SELECT max(user_id) FROM handout_shows
)
"""

# The characters' counter starts past every character the log names too (an entry's body keeps its id).
CHARACTER_IDS = """
SELECT max(v) FROM (
  SELECT max(id) AS v FROM characters
  UNION ALL SELECT max(CAST(json_extract(body, '$.character_id') AS INTEGER)) FROM log_entries
)
"""
SEEDS = {"users": USER_IDS, "characters": CHARACTER_IDS}


@contextmanager
def _foreign_keys_off() -> Iterator[None]:
    """Recreating a parent table drops it, and with foreign keys on SQLite's DROP TABLE first deletes every row —
    ON DELETE CASCADE would empty the children. The pragma is a no-op inside a transaction, so the work so far is
    committed, the pragma set, the tables recreated and checked (foreign_key_check) in a transaction of their own."""
    bind = op.get_bind()
    raw = bind.connection.dbapi_connection
    assert raw is not None
    raw.commit()
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
        broken = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"foreign keys broken by the table rebuild: {broken[:5]}")
        raw.commit()
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def _rebuild(autoincrement: bool) -> None:
    with _foreign_keys_off():
        for name in TABLES:
            with op.batch_alter_table(name, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}):
                pass
        if autoincrement:
            bind = op.get_bind()
            for table, query in SEEDS.items():
                highest = bind.exec_driver_sql(query).scalar()
                if highest:
                    bind.exec_driver_sql("DELETE FROM sqlite_sequence WHERE name = ?", (table,))
                    bind.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, int(highest)))


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _rebuild(autoincrement=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _rebuild(autoincrement=False)
