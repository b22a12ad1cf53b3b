"""Table talk's pages: the composer's form (campaign page, every sheet), a message's line (fetched again after an
edit or a withdrawal), edit and withdraw, and the team talk panel's form (the live panels: app/panels). Thin:
app/talk/service.py decides; the JSON API is app/api/."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from app.campaigns.service import Access
from app.characters.service import character_in
from app.deps import DB, FormBody, MemberAccess, Publisher
from app.encounters.service import encounter_in
from app.errors import BadRequest, FateboardError
from app.i18n import _
from app.inputs import Id, idempotency_key, parse_int
from app.rolls.appending import Publish
from app.rolls.log import entry_html
from app.rolls.present import result_card
from app.talk import service
from app.talk.audience import MAX_TO
from app.talk.history import talk_states
from app.talk.views import composer_context, team_panel_context
from app.web import render, render_failure

COMPOSER = "talk/composer.html"
TEAM = "talk/team.html"
router = APIRouter(include_in_schema=False)


def _request_from_form(form: FormData) -> tuple[service.MessageRequest, dict[str, Any]]:
    """The composer's fields → the service's request. `as`: a character id (in character) or empty (out of
    character); `audience`: public | narrator | whisper | team:<encounter id>; `to`: member ids (whisper)."""
    shown: dict[str, Any] = {
        "text": str(form.get("text") or ""),
        "as": str(form.get("as") or ""),
        "audience": str(form.get("audience") or "public"),
        "to": [str(v) for v in form.getlist("to")][: MAX_TO + 1],
    }
    speaker = parse_int(shown["as"], "as_character_id")
    audience, _sep, encounter = shown["audience"].partition(":")
    if audience not in service.AUDIENCES:
        raise BadRequest(_("Choose who hears it."), field="audience")
    to = [parse_int(v, "to") for v in shown["to"]] if audience == "whisper" else None
    req = service.MessageRequest(
        text=shown["text"],
        mode="ic" if speaker is not None else "ooc",
        as_character_id=speaker,
        visibility=audience,  # checked against AUDIENCES above (pydantic checks it again)
        to=[t for t in to if t is not None] if to is not None else None,
        encounter_id=parse_int(encounter, "encounter_id") if audience == "team" else None,
    )
    return req, shown


def _sheet_character(db: DB, acc: Access, character: str) -> Any:
    """The sheet the composer is on: it speaks as that character by default."""
    cid = parse_int(character, "character")
    return character_in(db, acc, cid) if cid is not None else None


@router.post("/campaigns/{campaign_id}/talk")
def post(request: Request, db: DB, acc: MemberAccess, publish: Publisher, form: FormBody) -> Response:
    panel = str(form.get("panel") or "")
    shown: dict[str, Any] = {"text": str(form.get("text") or "")}
    encounter = None
    try:
        if panel == "team":
            encounter = encounter_in(db, acc, parse_int(form.get("encounter"), "encounter_id") or 0)
        on = _sheet_character(db, acc, str(form.get("character") or ""))
        req, shown = _request_from_form(form)
        posted = service.post_message(
            db,
            acc,
            req,
            idempotency_key=idempotency_key(form.get("idempotency_key")),
            publish=publish,
            rate=request.app.state.settings.talk_rate_limit,
        )
    except FateboardError as exc:
        if encounter is not None:
            return render_failure(
                request,
                db,
                exc,
                TEAM,
                lambda errors: {"p": team_panel_context(db, acc, encounter, errors=errors, form=shown)},
                key="text",
                block="team",
            )
        return render_failure(
            request,
            db,
            exc,
            COMPOSER,
            lambda errors: {"c": composer_context(db, acc, form=shown, errors=errors, panel=panel)},
            key="text",
            block="composer",
        )
    if encounter is not None:
        return render(request, TEAM, {"p": team_panel_context(db, acc, encounter)}, block="team")
    result = result_card(posted.entry, acc.user.id, acc.is_narrator, replayed=posted.replayed)
    return render(
        request,
        COMPOSER,
        {"c": composer_context(db, acc, character=on, form={**shown, "text": ""}, result=result, panel=panel)},
        block="composer",
    )


def _line(db: DB, acc: Access, seq: int, error: str | None = None) -> str:
    entry = service.message_entry(db, acc, seq)
    return entry_html(
        entry, acc.user.id, acc.is_narrator, talk=talk_states(db, acc.campaign.id, [seq]).get(seq), talk_error=error
    )


@router.get("/campaigns/{campaign_id}/talk/{seq}")
def line(request: Request, db: DB, acc: MemberAccess, seq: Id) -> Response:
    """A message's line as this viewer reads it now (latest text, "edited", "withdrawn"): a page fetches it
    when an edit or a withdrawal arrives. 404 for a message the viewer may not read, as for none."""
    return Response(_line(db, acc, seq), media_type="text/html; charset=utf-8")


@router.post("/campaigns/{campaign_id}/talk/{seq}/edit")
def edit(db: DB, acc: MemberAccess, publish: Publisher, seq: Id, form: FormBody) -> Response:
    return _change(db, acc, publish, seq, "edit", str(form.get("text") or ""))


@router.post("/campaigns/{campaign_id}/talk/{seq}/retract")
def retract(db: DB, acc: MemberAccess, publish: Publisher, seq: Id) -> Response:
    return _change(db, acc, publish, seq, "retract", "")


def _change(db: DB, acc: Access, publish: Publish, seq: int, what: str, text: str) -> Response:
    try:
        if what == "edit":
            service.edit_message(db, acc, seq, text, publish=publish)
        else:
            service.retract_message(db, acc, seq, publish=publish)
    except FateboardError as exc:
        db.rollback()
        if exc.status_code == 404:
            raise
        return Response(
            _line(db, acc, seq, exc.message), status_code=exc.status_code, media_type="text/html; charset=utf-8"
        )
    return Response(_line(db, acc, seq), media_type="text/html; charset=utf-8")
