"""A live server whose dice a browser test scripts: its own uvicorn process running utils/scripted_server.py's app,
which takes its faces from a JSON file the test writes (an empty list: secure dice)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from utils.server import LiveServer, start_server, stop_server

TESTS = Path(__file__).resolve().parent.parent


@contextmanager
def scripted_server(tmp_path: Path, database: str) -> Iterator[tuple[LiveServer, Path]]:
    """The server (SQLite file `database` in tmp_path) and the faces file (write a JSON list to script the next
    rolls); stopped when the block ends."""
    faces = tmp_path / "faces.json"
    faces.write_text("[]")
    server = start_server(
        f"sqlite:///{tmp_path / database}",
        tmp_path,
        app="utils.scripted_server:app",
        extra_env={"FATEBOARD_TEST_FACES": str(faces), "PYTHONPATH": str(TESTS)},
    )
    try:
        yield server, faces
    finally:
        stop_server(server)
