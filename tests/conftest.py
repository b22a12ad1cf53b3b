"""Fixtures only: a fresh database per test on SQLite and (for tests marked `engines`, when TEST_DATABASE_URL is
set) PostgreSQL, an app, clients, a seated table, a live server. PostgreSQL runs are reported as skipped without
the variable. The builders these use live in tests/utils/; test modules import them from there, never from this
file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI
from hypothesis import settings as hypothesis_settings
from starlette.testclient import TestClient
from utils.art import Art
from utils.databases import PG_URL, migrated_postgres, migrated_sqlite, reset_postgres
from utils.server import LiveServer, serve_in_thread, stop_server
from utils.settings import app_settings
from utils.tables import Table

from app.config import Settings
from app.main import create_app

if TYPE_CHECKING:
    from utils.leak_world import World


# No per-example deadline anywhere: the suite runs two workers on a shared 2-core box, where a 0.4 ms example once
# took 300 ms and Hypothesis called the test flaky. Speed is measured in bench/, never in a test.
hypothesis_settings.register_profile("fateboard", deadline=None)
hypothesis_settings.load_profile("fateboard")


@pytest.fixture(autouse=True)
def cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Still argon2id, with test-sized cost: a user costs milliseconds instead of 150 ms.
    tests/accounts/test_accounts.py checks the production parameters separately."""
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    from app.accounts import service

    fast = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    monkeypatch.setattr(service, "password_hasher", fast)
    monkeypatch.setattr(service, "_DUMMY_HASH", fast.hash("not-a-real-password"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every database test runs on SQLite; those marked `engines` (what can differ between the engines: the writer
    and group commit, the chain, locks and concurrency, JSON columns, migrations, the outbox, search, ids, one smoke
    of every route) run on PostgreSQL too. docs/DEVELOPING.md keeps the list."""
    if "database_url" not in metafunc.fixturenames or any(
        m.name == "parametrize" and "database_url" in m.args[0] for m in metafunc.definition.iter_markers()
    ):
        return
    engines = ["sqlite", "postgres"] if metafunc.definition.get_closest_marker("engines") else ["sqlite"]
    metafunc.parametrize("database_url", engines, indirect=True)


LONG = ("browser", "server", "slow")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first (browser, a real server, `slow`), the rest after in their own order: pytest-xdist hands
    tests out in this order, so the two workers finish together instead of one running a four-minute test alone at
    the end (longest first is the classic fix for that tail)."""
    items.sort(key=lambda item: not any(item.get_closest_marker(name) for name in LONG))


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A test that asks for `app` gets the migrated schema (copied from this process's template on SQLite, emptied
    on PostgreSQL); any other gets an empty database to build as it likes."""
    migrated = "app" in request.fixturenames
    if request.param == "postgres":
        if not PG_URL:
            pytest.skip("PostgreSQL run: set TEST_DATABASE_URL to run it")
        (migrated_postgres if migrated else reset_postgres)(PG_URL)
        return PG_URL
    path = tmp_path / "test.db"
    if migrated:
        migrated_sqlite(path)
    return f"sqlite:///{path}"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return app_settings(database_url, tmp_path)


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    application = create_app(settings)
    yield application
    application.state.engine.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def new_client(app: FastAPI) -> Iterator[object]:
    """A factory of extra browsers (each with its own cookies)."""
    clients: list[TestClient] = []

    def make() -> TestClient:
        c = TestClient(app, base_url="http://testserver")
        c.__enter__()
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client)


@pytest.fixture
def art(client: TestClient, new_client: object) -> Art:
    """An ART Engine table through the pages and the API (tests/characters/ and tests/systems/art/ both use it)."""
    return Art(client, new_client)


@pytest.fixture
def live_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    if database_url == PG_URL:
        reset_postgres(PG_URL)
    server = serve_in_thread(database_url, tmp_path)
    yield server
    stop_server(server)


@pytest.fixture
def leak_worlds() -> Iterator[list[World]]:
    """The leak test's worlds (tests/utils/leak_world.py) a test opened: closed at its end, even when it fails."""
    worlds: list[World] = []
    yield worlds
    for world in worlds:
        world.close()
