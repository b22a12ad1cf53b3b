"""The live events, declared once. The server publishes these members (`publish(campaign, LiveEvent.X, id)`),
templates name them through the `live` global (`data-live="{{ live.ENTRY }}"`), and the page tells
static/js/app.js the whole list (`<body data-live-events>`, templates/base.html), so the script names none.
What each one means and who publishes it: docs/ARCHITECTURE.md, "Live updates"."""

from __future__ import annotations

from enum import StrEnum


class LiveEvent(StrEnum):
    ENTRY = "entry"  # a log entry was appended (the event id is its seq)
    PROMPTS = "prompts"  # roll prompts were opened, answered or cancelled
    SESSION = "session"  # a game session started or ended
    MEMBERS = "members"  # someone joined, was promoted or removed
    CHARACTERS = "characters"  # a character was created (data: its id)
    SHEET = "sheet"  # a character's sheet changed (data: its id; a panel follows `sheet:<id>`)
    ENCOUNTER = "encounter"  # an encounter began or moved (data: its id)
    HANDOUTS = "handouts"  # a handout was uploaded, shown or deleted (data: its id)
    SCENE = "scene"  # the scene or a pin on it changed
    TALK = "talk"  # a team's talk changed (app/talk)
