"""No id that the log or a permission names is ever given out again (issue 35): for every table with an integer id,
delete the newest row, create one, and the new id is larger — on both engines. On SQLite a plain INTEGER PRIMARY
KEY hands the deleted highest id out again (a new account inherited a deleted member's whispers)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import JSON, Boolean, DateTime, Float, Integer, String, Table, Text, delete, insert, select
from sqlalchemy.engine import Connection

from app.db import make_engine
from app.models import Base
from app.types import UTCDateTime

pytestmark = pytest.mark.engines

# log_entries is the one integer-id table left out: entries are never deleted (only with their campaign, whose id
# is never reused) and nothing names an entry by its id (entries are (campaign, seq)).
NOT_NAMED = {"log_entries"}
TABLES = sorted(
    t.name
    for t in Base.metadata.sorted_tables
    if t.name not in NOT_NAMED
    and list(t.primary_key.columns)[0].name == "id"
    and isinstance(list(t.primary_key.columns)[0].type, Integer)
)
_unique = itertools.count(1)


def test_the_list_is_every_table_with_an_integer_id() -> None:
    assert (
        sorted(
            [
                "account_tokens",
                "api_tokens",
                "campaigns",
                "characters",
                "encounters",
                "game_sessions",
                "handout_shows",
                "handouts",
                "invites",
                "memberships",
                "outbox",
                "planned_sessions",
                "push_subscriptions",
                "roll_prompts",
                "safety_items",
                "scene_pins",
                "users",
            ]
        )
        == TABLES
    )


def _value(conn: Connection, column: Any) -> Any:
    """A value a NOT NULL column accepts: a row of its parent table for a foreign key (made here), else a plain
    one of its type (strings unique, for unique columns)."""
    for fk in column.foreign_keys:
        return _row(conn, fk.column.table)
    kind = column.type
    if isinstance(kind, UTCDateTime | DateTime):
        return datetime.now(UTC)
    if isinstance(kind, Boolean):
        return False
    if isinstance(kind, Integer):
        return 1
    if isinstance(kind, Float):
        return 0.5
    if isinstance(kind, String | Text):
        return f"v{next(_unique)}"[: kind.length or 64]
    assert isinstance(kind, JSON), (column, kind)
    return {}


def _values(conn: Connection, table: Table) -> dict[str, Any]:
    return {
        c.name: _value(conn, c)
        for c in table.columns
        if not c.primary_key and not c.nullable and c.default is None and c.server_default is None
    }


def _row(conn: Connection, table: Table) -> int:
    row_id: int = conn.execute(insert(table).values(**_values(conn, table)).returning(table.c.id)).scalar_one()
    return row_id


@pytest.mark.parametrize("name", TABLES)
def test_a_deleted_newest_id_is_never_given_out_again(database_url: str, name: str) -> None:
    engine = make_engine(database_url)
    Base.metadata.create_all(engine)
    table = Base.metadata.tables[name]
    try:
        with engine.begin() as conn:
            values = _values(conn, table)  # the parents, made once: both rows below hang off them
            first = conn.execute(insert(table).values(**values).returning(table.c.id)).scalar_one()
            newest = conn.execute(insert(table).values(**_values_again(conn, table, values))).inserted_primary_key
            assert newest is not None
            newest_id = newest[0]
            assert newest_id > first
            conn.execute(delete(table).where(table.c.id == newest_id))
            again = conn.execute(insert(table).values(**_values_again(conn, table, values)).returning(table.c.id))
            again_id = again.scalar_one()
            assert again_id > newest_id, f"{name}: id {newest_id} was given out again"
            assert conn.execute(select(table.c.id).order_by(table.c.id)).scalars().all() == [first, again_id]
    finally:
        engine.dispose()


def _values_again(conn: Connection, table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """The same parents; fresh strings (unique columns) and, for a row unique per parent (a membership per
    campaign and user), fresh parents."""
    again = dict(values)
    for c in table.columns:
        if c.name in again and isinstance(again[c.name], str):
            again[c.name] = _value(conn, c)
    for constraint in table.constraints:
        cols = [c.name for c in getattr(constraint, "columns", [])]
        if type(constraint).__name__ == "UniqueConstraint" and all(n in again for n in cols):
            for c in table.columns:
                if c.name in cols and c.foreign_keys:
                    again[c.name] = _value(conn, c)
    return again
