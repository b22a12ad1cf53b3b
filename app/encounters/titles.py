"""An encounter's title in the reader's language (pages, notifications, the between-sessions list)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.i18n import is_text, render
from app.systems import SYSTEMS


def encounter_title(encounter: Any) -> str:
    """The title its kind made up (language-neutral, app.i18n.msg: "Combat: Goblin", "Fight: Warren vs Foxes"; the
    kind's `title`), else the stored title (typed by a person, or from before), else its kind. `encounter`: the row,
    or a mapping with its fields."""

    def field(name: str) -> Any:
        return encounter.get(name) if isinstance(encounter, Mapping) else getattr(encounter, name, None)

    system, kind, state = SYSTEMS.get(str(field("system"))), str(field("kind") or ""), field("state")
    shown = system.kind(kind).made_up_title(state) if system is not None and isinstance(state, Mapping) else None
    if is_text(shown):
        return render(shown)
    return str(field("title") or kind or "")
