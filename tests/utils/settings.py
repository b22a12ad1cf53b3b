"""The settings every test app starts from (tests/conftest.py's `settings` fixture), with a module's overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.config import Settings


def app_settings(database_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    # Many tests sign up more than the 10 accounts an address may make per hour; tests/accounts/test_throttle.py
    # checks that limit with its default.
    return Settings(
        database_url=database_url,
        secret_key="test-secret",
        secret_key_file=tmp_path / "key",
        sse_keepalive_seconds=0.5,
        signup_max_per_hour=100_000,
        **overrides,
    )
