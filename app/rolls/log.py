"""Reading the log: pages of entries (newest at the bottom), their HTML, export and verification."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import i18n
from app.campaigns.service import Access
from app.rolls import chain
from app.rolls.faces import entry_details, entry_faces, entry_total
from app.rolls.models import LogEntry
from app.rolls.present import entry_json, talk_marks, viewer_view
from app.rolls.visibility import READER_LISTS, View
from app.talk.history import TalkState, talk_states
from app.web import render_text

# The log filter's kinds (talk / rolls / in character / whispers), each a condition on header fields.
KINDS = ("talk", "rolls", "ic", "whispers")


@dataclass(frozen=True)
class LogFilter:
    """What a reader narrows the log to. Every field is in an entry's header, which every member sees (hidden
    entries included), so filtering tells nobody more than the unfiltered log. Each has an index
    (campaign, field, seq): a page stays one index range scan at any log length."""

    character: int | None = None
    player: int | None = None
    session: int | None = None
    system: str | None = None
    kind: str | None = None  # one of KINDS
    # Text search (`q`): matched against what this viewer's rendering of an entry shows (log_text), so a search
    # never finds what the viewer cannot read. Not an index: each request reads at most SEARCH_WINDOW entries.
    text: str | None = None

    def __bool__(self) -> bool:
        return any(
            v is not None for v in (self.character, self.player, self.session, self.system, self.kind, self.text)
        )

    def query(self) -> dict[str, str]:
        return {
            k: str(v)
            for k, v in (
                ("character", self.character),
                ("player", self.player),
                ("session", self.session),
                ("system", self.system),
                ("kind", self.kind),
                ("q", self.text),
            )
            if v is not None
        }


SEARCH_WINDOW = 1000  # entries one search request reads at most (then: "search earlier", from where it stopped)
SEARCH_CHUNK = 250
SEARCH_MAX_LENGTH = 100


def log_kind(value: str | None) -> str | None:
    """The log filter's kind (talk, rolls, ic, whispers); anything else (the select's "all") is no filter."""
    return value if value in KINDS else None


def search_text(value: str | None) -> str | None:
    """The search box's text, trimmed; None when there is nothing to search for."""
    text = " ".join((value or "").split())[:SEARCH_MAX_LENGTH]
    return text or None


def log_text(entry: LogEntry, view: View) -> str:
    """The words of an entry as this viewer's log line shows them (templates/rolls/entry.html): the actor's name
    for anyone; the roll asked for, for the roller of a blind roll; the character, the summary in the reader's
    language, the named pool parts and the note only with the full view."""
    parts = [entry.shown_actor]
    body = entry.body
    if view == View.ROLLER_BLIND:
        request = body.get("request")
        if isinstance(request, dict) and isinstance(request.get("expression"), str):
            parts.append(request["expression"])
    elif view == View.FULL:
        parts += [
            str(body.get("character") or ""),
            i18n.log_line(body),
            *entry_details(body, entry.system),
            str(body.get("note") or ""),
        ]
    return " ".join(p for p in parts if p)


def entries_before(
    db: Session, campaign_id: int, before: int | None, limit: int, where: LogFilter | None = None
) -> list[LogEntry]:
    """The `limit` newest entries before `before` that pass the header filters of `where` (not its text)."""
    query = select(LogEntry).where(LogEntry.campaign_id == campaign_id)
    if where:
        if where.character is not None:
            query = query.where(LogEntry.character_id == where.character)
        if where.player is not None:
            query = query.where(LogEntry.actor_id == where.player)
        if where.session is not None:
            query = query.where(LogEntry.game_session_id == where.session)
        if where.system is not None:
            query = query.where(LogEntry.system == where.system)
        if where.kind == "talk":
            query = query.where(LogEntry.system == "talk")
        elif where.kind == "rolls":
            query = query.where(LogEntry.kind == "action")
        elif where.kind == "ic":
            query = query.where(LogEntry.system == "talk", LogEntry.action == "ic")
        elif where.kind == "whispers":
            query = query.where(LogEntry.visibility.in_(tuple(READER_LISTS)))
    if before is not None:
        query = query.where(LogEntry.seq < before)
    rows = list(db.scalars(query.order_by(LogEntry.seq.desc()).limit(limit)))
    rows.reverse()
    return rows


def character_entries(db: Session, campaign_id: int, character_id: int, limit: int = 10) -> list[LogEntry]:
    """A character's newest entries, oldest first (its sheet shows them)."""
    rows = list(
        db.scalars(
            select(LogEntry)
            .where(LogEntry.campaign_id == campaign_id, LogEntry.character_id == character_id)
            .order_by(LogEntry.seq.desc())
            .limit(limit)
        )
    )
    rows.reverse()
    return rows


def entries_after(
    db: Session, campaign_id: int, after: int, limit: int = 500, system: str | None = None
) -> list[LogEntry]:
    query = select(LogEntry).where(LogEntry.campaign_id == campaign_id, LogEntry.seq > after)
    if system is not None:  # the (campaign, system, seq) index
        query = query.where(LogEntry.system == system)
    return list(db.scalars(query.order_by(LogEntry.seq).limit(limit)))


def voided_among(db: Session, campaign_id: int, seqs: list[int]) -> set[int]:
    if not seqs:
        return set()
    return set(
        db.scalars(
            select(LogEntry.target_seq).where(
                LogEntry.campaign_id == campaign_id,
                LogEntry.kind == "void",
                LogEntry.target_seq >= seqs[0],
                LogEntry.target_seq <= seqs[-1],
            )
        )
    )


def entry_html(
    entry: LogEntry,
    viewer_id: int,
    is_narrator: bool,
    voided: bool = False,
    talk: TalkState | None = None,
    talk_error: str | None = None,
) -> str:
    """`talk`: a message's edits and withdrawal (a message shown without it reads as first written — the live
    stream's case: its edits follow as entries of their own, which refresh it)."""
    view = viewer_view(entry, viewer_id, is_narrator)
    full = view == View.FULL
    own, mentioned = talk_marks(entry, viewer_id) if full else (False, False)
    return render_text(
        "rolls/entry.html",
        entry=entry,
        view=view.value,
        is_narrator=is_narrator,
        voided=voided and view != View.HIDDEN,
        viewer_id=viewer_id,
        faces=entry_faces(entry.body, entry.system) if full else [],
        details=entry_details(entry.body, entry.system) if full else [],
        total=entry_total(entry.body, entry.system) if full else None,
        talk=(talk or TalkState()) if full and entry.kind == "message" else None,
        own=own,
        mentioned=mentioned,
        talk_error=talk_error,
    )


def page(
    db: Session, acc: Access, before: int | None = None, *, limit: int, where: LogFilter | None = None
) -> dict[str, Any]:
    """`limit` entries before `before` (default: the newest), oldest first, as the viewer may see them
    (Settings.log_page_size), narrowed by `where`."""
    where = where or LogFilter()
    searched_to = None
    if where.text:
        rows, searched_to = _search(db, acc, before, limit, where)
    else:
        rows = entries_before(db, acc.campaign.id, before, limit, where)
    voided = voided_among(db, acc.campaign.id, [r.seq for r in rows])
    states = talk_states(db, acc.campaign.id, [r.seq for r in rows if r.kind == "message"])
    first_seq = rows[0].seq if rows else None
    has_earlier = bool(rows) and rows[0].seq > 1 and (len(rows) == limit or not where)
    if searched_to is not None:  # the search stopped at its window: go on from where it stopped
        first_seq, has_earlier = searched_to, searched_to > 1
    return {
        "entries_html": [entry_html(r, acc.user.id, acc.is_narrator, r.seq in voided, states.get(r.seq)) for r in rows],
        "first_seq": first_seq,
        # The stream resumes after the newest entry there is, whatever the filter shows.
        "last_seq": (rows[-1].seq if rows else (before - 1 if before else acc.campaign.last_seq))
        if not where
        else (before - 1 if before else acc.campaign.last_seq),
        "has_earlier": has_earlier,
        "searched_to": searched_to,
        "log_filter": where,
    }


def _search(
    db: Session, acc: Access, before: int | None, limit: int, where: LogFilter
) -> tuple[list[LogEntry], int | None]:
    """Up to `limit` entries before `before` whose text, as this viewer sees it, contains the search text
    (case-insensitive), oldest first. Reads the log backwards in chunks through the (campaign, seq) index — or
    the header filter's own — and stops after SEARCH_WINDOW entries: the second value is then the seq it
    stopped at (a page may go on from there), else None. Bounded work per request at any log length."""
    needle = (where.text or "").casefold()
    found: list[LogEntry] = []
    cursor, read = before, 0
    while read < SEARCH_WINDOW:
        rows = entries_before(db, acc.campaign.id, cursor, min(SEARCH_CHUNK, SEARCH_WINDOW - read), where)
        if not rows:
            return list(reversed(found)), None
        read += len(rows)
        for row in reversed(rows):
            if needle in log_text(row, viewer_view(row, acc.user.id, acc.is_narrator)).casefold():
                found.append(row)
                if len(found) == limit:
                    return list(reversed(found)), None
        cursor = rows[0].seq
    return list(reversed(found)), cursor


def visible_json(db: Session, acc: Access, after: int, limit: int, system: str | None = None) -> list[dict[str, Any]]:
    rows = entries_after(db, acc.campaign.id, after, limit, system)
    return [entry_json(r, viewer_view(r, acc.user.id, acc.is_narrator)) for r in rows]


def head(acc: Access) -> dict[str, Any]:
    """The campaign's head: the newest entry's seq and hash. Note it down to check later exports against."""
    return {"seq": acc.campaign.last_seq, "hash": acc.campaign.head_hash}


def _all_rows(db: Session, campaign_id: int) -> Iterator[LogEntry]:
    after = 0
    while True:
        rows = entries_after(db, campaign_id, after, 2000)
        if not rows:
            return
        yield from rows
        after = rows[-1].seq


def export_entries(db: Session, acc: Access) -> Iterator[dict[str, Any]]:
    for row in _all_rows(db, acc.campaign.id):
        yield entry_json(row, viewer_view(row, acc.user.id, acc.is_narrator), with_body=True, narrator=acc.is_narrator)


def _json(data: Any) -> str:
    # Exactly what JSONResponse writes, so the streamed export is byte for byte the one-piece export.
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))


EXPORT_CHUNK = 500


def export_stream(factory: sessionmaker[Session], acc: Access) -> Iterator[str]:
    """`export` as JSON text in pieces, with memory that does not grow with the log: EXPORT_CHUNK entries at
    a time, each chunk read with its own short session (a download can take a while; it holds no pooled
    connection meanwhile). Ends at the head read with the access, so entries appended while it streams are
    not in it and the export checks against its own head."""
    top = head(acc)
    opening = _json(
        {
            "campaign": {"id": acc.campaign.id, "name": acc.campaign.name},
            "format": chain.FORMAT,
            "head": top,
            "entries": [],
        }
    )
    yield opening[:-2]  # without the closing "]}"
    after, separator = 0, ""
    while after < top["seq"]:
        with factory() as db:
            rows = list(
                db.scalars(
                    select(LogEntry)
                    .where(LogEntry.campaign_id == acc.campaign.id, LogEntry.seq > after, LogEntry.seq <= top["seq"])
                    .order_by(LogEntry.seq)
                    .limit(EXPORT_CHUNK)
                )
            )
        if not rows:
            break
        yield separator + ",".join(
            _json(
                entry_json(
                    row, viewer_view(row, acc.user.id, acc.is_narrator), with_body=True, narrator=acc.is_narrator
                )
            )
            for row in rows
        )
        separator, after = ",", rows[-1].seq
    yield "]}"


def export(db: Session, acc: Access) -> dict[str, Any]:
    """Every entry, in order: content where the caller may see it, hashes always (so the chain checks), and
    the campaign's head (so a missing tail shows)."""
    return {
        "campaign": {"id": acc.campaign.id, "name": acc.campaign.name},
        "format": chain.FORMAT,
        "head": head(acc),
        "entries": list(export_entries(db, acc)),
    }


def verify(db: Session, acc: Access) -> chain.Verification:
    """The server's check: every entry's header, link and body — the bodies of entries the caller may not
    read included (it says only whether they match, never what they hold) — against the campaign's head."""
    db.refresh(acc.campaign)
    full = (entry_json(row, View.FULL, with_body=True, narrator=True) for row in _all_rows(db, acc.campaign.id))
    return chain.verify_entries(full, head=head(acc))
