"""Fixtures: a fresh database per test on SQLite and (when TEST_DATABASE_URL is set) PostgreSQL, an app,
clients, and small builders. PostgreSQL runs are reported as skipped without the variable."""

from __future__ import annotations

import os
import subprocess
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import text
from starlette.testclient import TestClient

from app.config import Settings
from app.db import make_engine
from app.main import create_app
from app.models import Base

PG_URL = os.environ.get("TEST_DATABASE_URL", "")


def reset_postgres(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


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


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        if not PG_URL:
            pytest.skip("PostgreSQL run: set TEST_DATABASE_URL to run it")
        reset_postgres(PG_URL)
        return PG_URL
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # Many tests sign up more than the 10 accounts an address may make per hour; tests/accounts/test_throttle.py
    # checks that limit with its default.
    return Settings(database_url=database_url, secret_key="test-secret", secret_key_file=tmp_path / "key",
                    sse_keepalive_seconds=0.5, signup_max_per_hour=100_000)


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    application = create_app(settings)
    Base.metadata.create_all(application.state.engine)
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


CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(client: TestClient, path: str = "/signin") -> str:
    match = CSRF_RE.search(client.get(path).text)
    assert match, f"no csrf token on {path}"
    return match.group(1)


def form_post(client: TestClient, path: str, data: dict[str, object] | None = None, *, htmx: bool = True,
              token: str | None = None):
    headers = {"X-CSRF-Token": token or csrf_of(client, "/signin" if not client.cookies else "/account")}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post(path, data=data or {}, headers=headers, follow_redirects=False)


def signup(client: TestClient, username: str, password: str = "correct horse") -> TestClient:
    token = csrf_of(client, "/signup")
    r = client.post("/signup", data={"username": username, "password": password, "password2": password,
                                     "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return client


def api_token(client: TestClient, username: str, password: str = "correct horse") -> dict[str, str]:
    r = client.post("/api/users", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    r = client.post("/api/tokens", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def seat_table(db, names: tuple[str, ...] = ("nora", "pia", "otto"), *, systems: tuple[str, ...] = (),
               name: str = "Table") -> tuple[object, dict[str, object]]:
    """A campaign made through the services (for service-level tests): the first user narrates, the others
    join by invite. Flushed, not committed: the caller adds what it needs and commits."""
    from app.accounts.service import create_user
    from app.campaigns import service as campaigns

    users = {n: create_user(db, n, "correct horse") for n in names}
    campaign = campaigns.create_campaign(db, users[names[0]], name=name, systems=list(systems))
    db.flush()
    narrator = campaigns.access(db, users[names[0]], campaign.id)
    for n in names[1:]:
        campaigns.accept_invite(db, users[n], campaigns.create_invite(db, narrator).code)
    db.flush()
    return campaign, users


class Table:
    """A campaign with a narrator, two players and a character each, made through the API."""

    def __init__(self, client: TestClient, suffix: str = "", systems: tuple[str, ...] = ("dice",)) -> None:
        self.client = client
        self.narrator = api_token(client, "nora" + suffix)
        self.player = api_token(client, "pia" + suffix)
        self.other = api_token(client, "otto" + suffix)
        self.outsider = api_token(client, "olga" + suffix)
        r = client.post("/api/campaigns", json={"name": "Night Watch", "systems": list(systems)}, headers=self.narrator)
        assert r.status_code == 201, r.text
        self.id = r.json()["id"]
        for who in (self.player, self.other):
            code = client.post(f"/api/campaigns/{self.id}/invites", json={}, headers=self.narrator).json()["code"]
            assert client.post(f"/api/invites/{code}/accept", headers=who).status_code == 200
        self.pia_char = self.character(self.player, "Pia's hero")
        self.otto_char = self.character(self.other, "Otto's hero")

    def character(self, who: dict[str, str], name: str, system: str = "dice") -> int:
        r = self.client.post(f"/api/campaigns/{self.id}/characters", json={"name": name, "system": system}, headers=who)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def roll(self, who: dict[str, str], expression: str = "2d6", visibility: str = "public", **extra: object):
        body = {"system": "dice", "action": "roll", "params": {"expression": expression}, "visibility": visibility}
        body.update(extra)
        return self.client.post(f"/api/campaigns/{self.id}/actions", json=body, headers=who)

    def log(self, who: dict[str, str]) -> list[dict[str, object]]:
        r = self.client.get(f"/api/campaigns/{self.id}/log", params={"limit": 500}, headers=who)
        assert r.status_code == 200, r.text
        return r.json()["entries"]


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client)


class LiveServer:
    """A real uvicorn on 127.0.0.1 (an endless SSE stream would hang an in-process client)."""

    def __init__(self, url: str, database_url: str, env: dict[str, str], process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.database_url = database_url
        self.env = env
        self.process = process


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(database_url: str, tmp_path: Path, *, seed: bool = False, extra_env: dict[str, str] | None = None):
    import subprocess
    import sys
    import time

    import httpx2

    port = _free_port()
    env = {**os.environ, "FATEBOARD_DATABASE_URL": database_url, "FATEBOARD_SECRET_KEY": "test-secret",
           "FATEBOARD_SSE_KEEPALIVE_SECONDS": "1", "FATEBOARD_SIGNUP_MAX_PER_HOUR": "100000",
           **(extra_env or {})}
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=root, env=env, check=True,
                   capture_output=True)
    if seed:
        subprocess.run([sys.executable, "-m", "app.demo"], cwd=root, env=env, check=True, capture_output=True)
    with open(tmp_path / f"server-{port}.log", "w") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.asgi:app", "--host", "127.0.0.1", "--port",
                                 str(port), "--no-proxy-headers", "--timeout-graceful-shutdown", "1", "--log-level",
                                 "warning"],
                                cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url + "/api/ping", timeout=1).status_code == 200:
                return LiveServer(url, database_url, env, proc)
        except httpx2.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("uvicorn did not start: " + (tmp_path / f"server-{port}.log").read_text())


def stop_server(server: LiveServer) -> None:
    proc = server.process
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def live_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    if database_url == PG_URL:
        reset_postgres(PG_URL)
    server = start_server(database_url, tmp_path)
    yield server
    stop_server(server)
