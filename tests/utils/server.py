"""A real uvicorn on 127.0.0.1 (migrated, optionally seeded) and the PostgreSQL reset. TEST_DATABASE_URL names
the PostgreSQL database the `postgres` runs use; without it they are skipped."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from sqlalchemy import text

from app.db import make_engine

PG_URL = os.environ.get("TEST_DATABASE_URL", "")


def reset_postgres(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


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
    import subprocess
    import sys
    import time

    import httpx2

    port = _free_port()
    env = {
        **os.environ,
        "FATEBOARD_DATABASE_URL": database_url,
        "FATEBOARD_SECRET_KEY": "test-secret",
        "FATEBOARD_SSE_KEEPALIVE_SECONDS": "1",
        "FATEBOARD_SIGNUP_MAX_PER_HOUR": "100000",
        **(extra_env or {}),
    }
    root = Path(__file__).resolve().parents[2]  # the repository: tests/utils/server.py
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"], cwd=root, env=env, check=True, capture_output=True
    )
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
    deadline = time.monotonic() + 60  # a Python start-up on a busy 2-core machine can take tens of seconds
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


def stop_server(server: LiveServer) -> None:
    proc = server.process
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
