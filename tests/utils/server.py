"""A real uvicorn on 127.0.0.1 (migrated, optionally seeded). The databases (PG_URL, reset_postgres) are in
tests/utils/databases.py."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import uvicorn

from utils.databases import PG_URL, migrate, migrated_sqlite, reset_postgres

__all__ = ["PG_URL", "LiveServer", "reset_postgres", "serve_in_thread", "start_server", "stop_server"]


class LiveServer:
    """A real uvicorn on 127.0.0.1 (an endless SSE stream would hang an in-process client): a process of its own
    (`start_server`: the tests that kill it or need its own settings) or a thread of the test's process
    (`serve_in_thread`: the live_server fixture; no second Python start)."""

    def __init__(
        self,
        url: str,
        database_url: str,
        env: dict[str, str],
        process: subprocess.Popen[bytes] | None = None,
        thread: tuple[uvicorn.Server, threading.Thread] | None = None,
    ) -> None:
        self.url = url
        self.database_url = database_url
        self.env = env
        self._process = process
        self._thread = thread

    @property
    def process(self) -> subprocess.Popen[bytes]:
        assert self._process is not None, "a server in a thread has no process: start it with start_server"
        return self._process


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(
    database_url: str,
    tmp_path: Path,
    *,
    seed: bool = False,
    extra_env: dict[str, str] | None = None,
    app: str = "app.asgi:app",
) -> LiveServer:
    """`app`: the ASGI entry; browser tests that script the dice use tests/utils/scripted_server.py's."""
    import sys

    import httpx2

    port = _free_port()
    env = _environment(database_url, extra_env)
    root = Path(__file__).resolve().parents[2]  # the repository: tests/utils/server.py
    _migrated(database_url)
    if seed:
        subprocess.run([sys.executable, "-m", "app.demo"], cwd=root, env=env, check=True, capture_output=True)
    with open(tmp_path / f"server-{port}.log", "w") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                app,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-proxy-headers",
                "--timeout-graceful-shutdown",
                "1",
                "--log-level",
                "warning",
            ],
            cwd=root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # a Python start-up on a 2-core machine under a load of 20 took over 60 s
    while time.monotonic() < deadline:
        try:
            if httpx2.get(url + "/api/ping", timeout=1).status_code == 200:
                return LiveServer(url, database_url, env, proc)
        except httpx2.TransportError:
            if proc.poll() is not None:
                break  # it exited: its log says why
            time.sleep(0.1)
    proc.kill()
    proc.wait(timeout=10)  # reaped here, not left to the garbage collector (a ResourceWarning in a later test)
    raise RuntimeError("uvicorn did not start: " + (tmp_path / f"server-{port}.log").read_text())


def _environment(database_url: str, extra_env: dict[str, str] | None) -> dict[str, str]:
    return {
        **os.environ,
        "FATEBOARD_DATABASE_URL": database_url,
        "FATEBOARD_SECRET_KEY": "test-secret",
        "FATEBOARD_SSE_KEEPALIVE_SECONDS": "1",
        "FATEBOARD_SIGNUP_MAX_PER_HOUR": "100000",
        **(extra_env or {}),
    }


def _migrated(database_url: str) -> None:
    """Migrated in this process: a new SQLite file is a copy of the migrated template; anything else is upgraded to
    head (a no-op for a database a restarted server finds migrated). No second Python start for alembic."""
    sqlite_path = Path(database_url.removeprefix("sqlite:///")) if database_url.startswith("sqlite:///") else None
    if sqlite_path is not None and not sqlite_path.exists():
        migrated_sqlite(sqlite_path)
    else:
        migrate(database_url)


def serve_in_thread(database_url: str, tmp_path: Path, *, extra_env: dict[str, str] | None = None) -> LiveServer:
    """The app with the same settings start_server gives it, served by uvicorn in a thread of this process."""
    from app.config import Settings
    from app.main import create_app

    env = _environment(database_url, extra_env)
    _migrated(database_url)
    prefix = "FATEBOARD_"
    settings = Settings.model_validate({k[len(prefix) :].lower(): v for k, v in env.items() if k.startswith(prefix)})
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=_free_port(),
        proxy_headers=False,
        # Open streams are cut after 1 s, as a terminated server process's are (a browser test watches
        # "reconnecting…" within 2 s); the app's own shutdown still runs.
        timeout_graceful_shutdown=1,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        server.should_exit = True
        thread.join(timeout=10)
        raise RuntimeError("uvicorn did not start in its thread")
    return LiveServer(f"http://127.0.0.1:{config.port}", database_url, env, thread=(server, thread))


def stop_server(server: LiveServer) -> None:
    if server._thread is not None:
        uvicorn_server, thread = server._thread
        uvicorn_server.should_exit = True
        thread.join(timeout=15)
        assert not thread.is_alive(), "the live server's thread did not stop"
        return
    proc = server.process
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
