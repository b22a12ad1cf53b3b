"""How a log entry looks to one viewer: JSON (API, export, API stream) and the result cards that pages show
right after an action. The HTML twin of entry_json is templates/rolls/entry.html. Everything that shows an
entry to someone takes it from here, so a new screen cannot forget who may see what."""

from __future__ import annotations

from typing import Any

from app import i18n
from app.rolls.chain import HIDDEN_FIELDS
from app.rolls.faces import entry_marks
from app.rolls.models import LogEntry
from app.rolls.visibility import READER_LISTS, RECIPIENTS, View, readers_of, view_of


def viewer_view(entry: LogEntry, viewer_id: int, is_narrator: bool) -> View:
    """The one call every screen makes: an entry's view for one viewer. Entries with a list of readers carry it:
    whispers and team talk in `request.readers`, a handout shown to chosen members in `outcome.to`."""
    readers: frozenset[int] | None = None
    if entry.visibility in READER_LISTS:
        readers = readers_of(entry.body)
    elif entry.visibility == RECIPIENTS:
        readers = frozenset(entry_readers(entry))
    return view_of(entry.visibility, entry.actor_id, viewer_id, is_narrator, entry.subject_id, readers)


def entry_readers(entry: LogEntry) -> list[int]:
    """Whom a RECIPIENTS entry (a handout shown to chosen members) is addressed to: its outcome's `to`."""
    if entry.visibility != RECIPIENTS:
        return []
    to = (entry.body.get("outcome") or {}).get("to")
    return [r for r in to if isinstance(r, int) and not isinstance(r, bool)] if isinstance(to, list) else []


def talk_marks(entry: LogEntry, viewer_id: int) -> tuple[bool, bool]:
    """For a talk entry: whether the viewer wrote it (edit, withdraw) and whether it @mentions them. A page's
    rendering of the line depends on these (and its view), so the stream's render cache keys on them too."""
    if entry.system != "talk":
        return False, False
    request = entry.body.get("request")
    mentions = request.get("mentions") if isinstance(request, dict) else None
    return entry.actor_id == viewer_id, isinstance(mentions, list) and viewer_id in mentions


WITHHELD = "withheld"


def _without_held(body: dict[str, Any]) -> dict[str, Any]:
    """A body without `held`: a hidden action's sheet changes, whole values of sheets (a foe's level, a
    rabbit's checks) that visible_sheet shows each viewer only in part once the reveal applies them. Also
    inside a reveal, which republishes the hidden body."""
    shown = dict(body)
    if shown.get("held") is not None:
        shown["held"] = WITHHELD
    revealed = shown.get("revealed")
    if isinstance(revealed, dict) and isinstance(revealed.get("body"), dict):
        inner = _without_held(revealed["body"])
        if inner != revealed["body"]:
            shown["revealed"] = {**revealed, "body": inner, "salt": None}
    return shown


def entry_json(entry: LogEntry, view: View, *, with_body: bool = False, narrator: bool = False) -> dict[str, Any]:
    """`narrator`: the reader sees every sheet whole, so a body may keep its held sheet changes; anyone else
    gets them withheld (and no salt for that body: it cannot be checked against its body_hash)."""
    data: dict[str, Any] = entry.header()
    for name in HIDDEN_FIELDS:
        data[name] = entry.body.get(name) if view == View.FULL else None
    if view == View.ROLLER_BLIND and entry.kind == "action":
        data["request"] = entry.body.get("request")
    # `summary` is the body's (checked against it by the verifier); `text` is it in the reader's language.
    data["text"] = i18n.log_line(entry.body) if view == View.FULL else None
    data.update(body_hash=entry.body_hash, prev_hash=entry.prev_hash, hash=entry.hash)
    if with_body:
        body = entry.body if view == View.FULL else None
        salt = entry.salt if view == View.FULL else None
        if body is not None and not narrator:
            shown = _without_held(body)
            if shown != body:
                body, salt = shown, None
        data["body"] = body
        data["salt"] = salt
    return data


def result_card(
    entry: LogEntry, viewer_id: int, is_narrator: bool, *, replayed: bool = False, **extra: Any
) -> dict[str, Any]:
    """What a page shows of the entry an action just made (the roll's card, a prompt's confirmation): the
    summary and outcome only to a viewer who may see the result; the roller of a blind roll sees that it
    was made and what they asked for."""
    view = viewer_view(entry, viewer_id, is_narrator)
    full = view == View.FULL
    return {
        "seq": entry.seq,
        "visibility": entry.visibility,
        "view": view.value,
        "replayed": replayed,
        "action": entry.action,
        "kind": entry.kind,
        "summary": i18n.log_line(entry.body) if full else None,  # in the reader's language
        "outcome": entry.body.get("outcome") if full else None,
        "marks": entry_marks(entry.body, entry.system) if full else [],  # a critical, doubles, the kicker
        "request": entry.body.get("request") if view != View.HIDDEN else None,
        **extra,
    }
