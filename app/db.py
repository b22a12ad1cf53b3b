"""Engine and session factory. Nothing connects at import time: create_app() builds the engine."""

from __future__ import annotations

from typing import Any

from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Every table whose id a log entry or a permission names (users, characters, campaigns, handouts, tokens, devices,
# ...) never gives an id out again: on SQLite a plain INTEGER PRIMARY KEY reuses the highest id once its row is
# deleted (a new account would inherit a deleted member's whispers, issue 35), AUTOINCREMENT does not. PostgreSQL's
# sequences never go back. Put it last in a model's __table_args__ (migration 0009 added it to the old tables).
NEVER_REUSED: dict[str, Any] = {"sqlite_autoincrement": True}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def make_engine(url: str, **kwargs: Any) -> Engine:
    if url.startswith("sqlite"):
        connect_args = {"check_same_thread": False, "timeout": 30}
        # No overflow limit: SQLite connections are cheap, and a capped pool shared by 40 worker threads
        # and long-lived requests can deadlock waiting for a connection (docs/PERFORMANCE.md).
        kwargs.setdefault("pool_size", 20)
        kwargs.setdefault("max_overflow", -1)
        engine = create_engine(url, connect_args=connect_args, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            # WAL lets readers run while one writer appends to the log; busy_timeout makes writers queue.
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    kwargs.setdefault("pool_size", 20)
    kwargs.setdefault("max_overflow", 20)
    return create_engine(url, pool_pre_ping=True, **kwargs)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
