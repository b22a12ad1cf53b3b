"""An exploration scene's state as typed models (issue 38): what the rules service validates the stored JSON with
before a step (the "exploration" kind, app/systems/art/__init__.py) and dumps back after it. The fields are described
in track.py; the steps work on a copy of the stored JSON (track.copy_state) and hand it back whole."""

from __future__ import annotations

from typing import Any

from app.systems.stored import Stored


class Token(Stored):
    name: str
    at: int = 0  # the phase its token stands on, lap included
    square: int = 0
    place: str = ""
    action: dict[str, Any] | None = None


class ExplorationState(Stored):
    scene: str = "exploration"
    scale: str
    scales: list[str] = []
    now: int = 0
    marker: int = 0
    order: list[str] = []
    tokens: dict[str, Token] = {}
    tasks: dict[str, dict[str, Any]] = {}
    recent: list[dict[str, Any]] = []
    over: bool = False
    title: Any = None  # a made-up title (language-neutral), when the narrator gave none
