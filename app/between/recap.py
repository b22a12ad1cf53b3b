"""A game session's recap, built for one reader from what that reader may read: every entry of the session goes
through app/rolls/present.viewer_view (the one visibility rule); a hidden entry is left out entirely, an entry read
in part (the roller of a blind roll) appears as that reader's log shows it. In the reader's language."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import i18n
from app.between.catchup import iso
from app.between.safety import items
from app.campaigns.models import GameSession
from app.campaigns.service import Access
from app.errors import NotFound
from app.i18n import _
from app.rolls.models import LogEntry
from app.rolls.present import viewer_view
from app.rolls.visibility import View
from app.talk.history import talk_states

MAX_ENTRIES = 20_000  # a session's entries read at most (bounded memory); longer sessions are cut, and say so


@dataclass
class Line:
    seq: int
    kind: str  # roll | speech | talk | blind | handout | encounter | session | safety | note
    who: str
    text: str
    as_name: str | None = None
    at: datetime | None = None


@dataclass
class Recap:
    number: int
    title: str | None
    started_at: datetime
    ended_at: datetime | None
    lines: list[Line] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    lines_and_veils: dict[str, list[str]] = field(default_factory=dict)
    cut: bool = False


def game_session(db: Session, acc: Access, number: int) -> GameSession:
    found = db.scalar(
        select(GameSession).where(GameSession.campaign_id == acc.campaign.id, GameSession.number == number)
    )
    if found is None:
        raise NotFound(_("There is no session {number} in this campaign.").format(number=number))
    return found


def _kind_of(entry: LogEntry) -> str:
    if entry.kind == "action":
        return "encounter" if entry.action in ("start", "end", "begin", "create") else "roll"
    if entry.kind in ("handout", "scene", "pin"):
        return "handout"
    if entry.kind in ("session", "safety"):
        return entry.kind
    return "note"


def build(db: Session, acc: Access, number: int) -> Recap:
    """The recap of game session `number` as the caller may read it (404 for a session that does not exist)."""
    gs = game_session(db, acc, number)
    rows = list(
        db.scalars(
            select(LogEntry)
            .where(LogEntry.campaign_id == acc.campaign.id, LogEntry.game_session_id == gs.id)
            .order_by(LogEntry.seq)
            .limit(MAX_ENTRIES + 1)
        )
    )
    recap = Recap(gs.number, gs.title or None, gs.started_at, gs.ended_at, cut=len(rows) > MAX_ENTRIES)
    rows = rows[:MAX_ENTRIES]
    found = items(db, acc.campaign.id)
    recap.lines_and_veils = {kind: [i.text for i in found[kind]] for kind in found}
    views = {row.seq: viewer_view(row, acc.user.id, acc.is_narrator) for row in rows}
    messages = [r.seq for r in rows if r.kind == "message" and views[r.seq] == View.FULL]
    states = talk_states(db, acc.campaign.id, messages)
    for row in rows:
        view = views[row.seq]
        if view == View.HIDDEN:
            continue  # left out entirely: not even that something happened
        body = row.body
        who = row.shown_actor
        if row.kind in ("edit", "retract"):
            recap.seqs.append(row.seq)  # folded into its message's line (the latest text, or "withdrawn")
            continue
        recap.seqs.append(row.seq)
        if view == View.ROLLER_BLIND:
            request = body.get("request")
            expression = request.get("expression") if isinstance(request, dict) else None
            text = (
                _("rolled blind: {expression} (only the narrators see the result)").format(expression=expression)
                if isinstance(expression, str)
                else _("rolled blind (only the narrators see the result)")
            )
            recap.lines.append(Line(row.seq, "blind", who, text, at=row.created_at))
            continue
        if row.kind == "message":
            state = states.get(row.seq)
            found_outcome = body.get("outcome")
            outcome: dict[str, Any] = found_outcome if isinstance(found_outcome, dict) else {}
            text = state.latest(row) if state else str(outcome.get("text") or "")
            if state and state.withdrawn:
                text = _("(withdrawn)")
            speaker = outcome.get("as") if outcome.get("mode") == "ic" else None
            recap.lines.append(
                Line(row.seq, "speech" if speaker else "talk", who, text, as_name=speaker, at=row.created_at)
            )
            continue
        line = i18n.log_line(body)
        character = body.get("character")
        recap.lines.append(
            Line(
                row.seq,
                _kind_of(row),
                who,
                line,
                as_name=character if isinstance(character, str) and not line.startswith(character) else None,
                at=row.created_at,
            )
        )
    return recap


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|!~])")


def md(text: str) -> str:
    """Text as Markdown shows it literally (what people typed is never markup here)."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def markdown(recap: Recap, campaign_name: str) -> str:
    title = i18n.session_title(recap.number, recap.title)
    out = [f"# {md(campaign_name)} — {md(title)}", ""]
    when = i18n.datetime_of(recap.started_at)
    if recap.ended_at is not None:
        out.append(_("Played from {start} to {end}.").format(start=when, end=i18n.datetime_of(recap.ended_at)))
    else:
        out.append(_("Started {start}, still running.").format(start=when))
    out.append("")
    lines, veils = recap.lines_and_veils.get("line", []), recap.lines_and_veils.get("veil", [])
    if lines or veils:
        if lines:
            out.append(f"**{_('Lines')}:** " + "; ".join(md(t) for t in lines))
        if veils:
            out.append(f"**{_('Veils')}:** " + "; ".join(md(t) for t in veils))
        out.append("")
    if not recap.lines:
        out.append(_("Nothing you can read happened in this session."))
    for line in recap.lines:
        out.append(md_line(line))
    if recap.cut:
        out += ["", _("The recap stops after {n} entries.").format(n=MAX_ENTRIES)]
    return "\n".join(out) + "\n"


def md_line(line: Line) -> str:
    if line.kind == "speech":
        return f"- **{md(line.as_name or line.who)}:** “{md(line.text)}”"
    if line.kind == "safety":
        return f"- **\\[X\\] {md(line.text)}**"
    if line.kind == "session":
        return f"- *{md(line.who)} · {md(line.text)}*"
    who = md(line.who) + (f" ({md(line.as_name)})" if line.as_name else "")
    return f"- **{who}** {md(line.text)}"


def recap_json(recap: Recap, campaign_name: str) -> dict[str, Any]:
    return {
        "session": recap.number,
        "title": recap.title,
        "started_at": iso(recap.started_at),
        "ended_at": iso(recap.ended_at) if recap.ended_at else None,
        "entries": recap.seqs,
        "markdown": markdown(recap, campaign_name),
    }
