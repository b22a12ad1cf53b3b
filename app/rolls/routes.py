"""The dice box, roll prompts, log paging and the narrator's corrections (void, reveal, adjust)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from markupsafe import escape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, JSONResponse, Response

from app.i18n import _
from app.campaigns.routes import table_context
from app.campaigns.service import require_narrator
from app.deps import DB, MemberAccess, Publisher
from app.characters.routes import params_from_form
from app.errors import BadRequest, FateboardError, NotFound
from app.forms import sheet_changes
from app.inputs import Id, Seq, idempotency_key, parse_int
from app.rolls.models import RollPrompt
from app.rolls import log as rolllog
from app.rolls import service
from app.rolls.present import result_card
from app.systems import ActionError, Context, get_action, get_system
from app.web import render

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api.py
TABLE = "campaigns/table.html"


def _html_result(acc: Any, result: service.ActionResult) -> dict[str, Any]:
    return result_card(result.entry, acc.user.id, acc.is_narrator, replayed=result.replayed)


@router.post("/campaigns/{campaign_id}/roll")
def roll(request: Request, db: DB, acc: MemberAccess, publish: Publisher,
         expression: Annotated[str, Form()] = "", visibility: Annotated[str, Form()] = "public",
         note: Annotated[str, Form()] = "", character_id: Annotated[str, Form()] = "",
         key: Annotated[str, Form(alias="idempotency_key")] = "") -> Response:
    form = {"expression": expression, "visibility": visibility, "note": note, "character_id": character_id}
    try:
        req = service.ActionRequest(system="dice", action="roll", params={"expression": expression},
                                    visibility=visibility if visibility in ("public", "narrator", "blind", "self")
                                    else "public",
                                    note=note, character_id=parse_int(character_id, "character_id"))
        result = service.perform_action(db, acc, req, idempotency_key=idempotency_key(key), publish=publish)
    except FateboardError as exc:
        return render(request, TABLE, table_context(db, acc, form=form, errors={exc.field or "expression": exc.message}),
                      block="dicebox", status_code=exc.status_code)
    form["note"] = ""
    return render(request, TABLE, table_context(db, acc, form=form, result=_html_result(acc, result)),
                  block="dicebox")


@router.get("/campaigns/{campaign_id}/odds")
def odds(request: Request, acc: MemberAccess, expression: str = "", system: str = "dice",
         action: str = "roll") -> Response:
    if not expression.strip():
        return HTMLResponse('<span class="muted">Type an expression, like 2d6+1.</span>')
    if system != "dice":  # other systems' odds need a sheet: they are on the character's page
        return render(request, "rolls/odds.html", {"error": _("The dice box shows odds for dice expressions only; "
                                                              "a rule system's odds are on the character's sheet.")},
                      status_code=422)
    try:
        _system, act = get_action(system, action)
        params = act.params.model_validate({"expression": expression})
        result = act.odds(dict(), params, Context()) if act.odds else None
    except (ActionError, ValueError) as exc:
        message = exc.message if isinstance(exc, ActionError) else "That expression is not valid."
        return render(request, "rolls/odds.html", {"error": message}, status_code=200)
    return render(request, "rolls/odds.html", {"odds": result, "error": None})


@router.get("/campaigns/{campaign_id}/log")
def earlier(request: Request, db: DB, acc: MemberAccess, before: Seq) -> Response:
    return render(request, "rolls/earlier.html", {"campaign": acc.campaign, **rolllog.page(db, acc, before)})


@router.get("/campaigns/{campaign_id}/export.json")
def export(db: DB, acc: MemberAccess) -> Response:
    """The viewer's export (what they may see, hashes for all, the head), downloaded with the browser session."""
    data = rolllog.export(db, acc)
    name = f"fateboard-campaign-{acc.campaign.id}-log-{data['head']['seq']}.json"
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                       "Cache-Control": "no-store"})


@router.get("/campaigns/{campaign_id}/verify")
def verify(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The server's check of the whole chain against the head, as a fragment for the campaign page."""
    result = rolllog.verify(db, acc)
    return render(request, "rolls/verify.html", {"result": result, "campaign": acc.campaign})


@router.get("/campaigns/{campaign_id}/prompts")
def prompts_panel(request: Request, db: DB, acc: MemberAccess) -> Response:
    return render(request, TABLE, table_context(db, acc), block="prompts")


@router.post("/campaigns/{campaign_id}/prompts")
async def call_for_roll(request: Request, db: DB, acc: MemberAccess, publish: Publisher) -> Response:
    """The narrator calls for a roll. Dice: `expression` (empty: the player chooses). Any system:
    `system`, `action` and `locked.<param>` fields, which the player cannot change."""
    form = await request.form()
    return await run_in_threadpool(_call_for_roll, request, db, acc, publish, form)


def _call_for_roll(request: Request, db: DB, acc: Any, publish: Any, form: FormData) -> Response:
    system, action = str(form.get("system") or "dice"), str(form.get("action") or "roll")
    try:
        character_id = parse_int(form.get("character_id"), "prompt_character")
        if character_id is None:
            raise BadRequest(_("Choose whose roll it is."), field="prompt_character")
        locked = {k[len("locked."):]: v for k, v in form.items() if k.startswith("locked.") and v != ""}
        expression = str(form.get("expression") or "").strip()
        if expression:
            locked["expression"] = expression
        if system == "dice" and locked:
            _s, act = get_action("dice", "roll")
            try:
                act.odds({}, act.params.model_validate(locked), Context()) if act.odds else None
            except ActionError as exc:
                raise BadRequest(exc.message, field="prompt_expression") from exc
        service.create_prompt(db, acc, character_id=character_id, system=system, action=action, locked=locked,
                              visibility=str(form.get("visibility") or "public"), note=str(form.get("note") or ""),
                              publish=publish)
    except FateboardError as exc:
        db.rollback()
        return render(request, TABLE, table_context(db, acc, errors={exc.field or "prompt": exc.message}),
                      block="prompts", status_code=exc.status_code)
    return render(request, TABLE, table_context(db, acc), block="prompts")


@router.post("/campaigns/{campaign_id}/prompts/{prompt_id}/complete")
async def complete_prompt(request: Request, db: DB, acc: MemberAccess, publish: Publisher, prompt_id: Id) -> Response:
    form = await request.form()
    return await run_in_threadpool(_complete_prompt, request, db, acc, publish, prompt_id, form)


def _complete_prompt(request: Request, db: DB, acc: Any, publish: Any, prompt_id: int, form: FormData) -> Response:
    try:
        prompt = db.get(RollPrompt, prompt_id)
        if prompt is None or prompt.campaign_id != acc.campaign.id:
            raise NotFound(_("No such roll prompt."))
        _system, action = get_action(prompt.system, prompt.action)
        req = service.ActionRequest(system=prompt.system, action=prompt.action,
                                    params=params_from_form(action.params, form), note=str(form.get("note") or ""),
                                    prompt_id=prompt_id)
        result = service.perform_action(db, acc, req, idempotency_key=idempotency_key(form.get("idempotency_key")),
                                        publish=publish)
    except (FateboardError, ActionError) as exc:
        db.rollback()
        status = exc.status_code if isinstance(exc, FateboardError) else 422
        return render(request, TABLE, table_context(db, acc, errors={f"prompt-{prompt_id}": exc.message}),
                      block="prompts", status_code=status)
    return render(request, TABLE, table_context(db, acc, prompt_result=_html_result(acc, result)),
                  block="prompts")


@router.post("/campaigns/{campaign_id}/prompts/{prompt_id}/cancel")
def cancel_prompt(request: Request, db: DB, acc: MemberAccess, publish: Publisher, prompt_id: Id) -> Response:
    try:
        service.cancel_prompt(db, acc, prompt_id, publish=publish)
    except FateboardError as exc:
        db.rollback()
        return render(request, TABLE, table_context(db, acc, errors={"prompt": exc.message}), block="prompts",
                      status_code=exc.status_code)
    return render(request, TABLE, table_context(db, acc), block="prompts")


@router.post("/campaigns/{campaign_id}/entries/{seq}/void")
def void(request: Request, db: DB, acc: MemberAccess, publish: Publisher, seq: Id,
         reason: Annotated[str, Form()] = "") -> Response:
    return _correction(request, lambda: service.void_entry(db, acc, seq, reason, publish=publish))


@router.post("/campaigns/{campaign_id}/entries/{seq}/reveal")
def reveal(request: Request, db: DB, acc: MemberAccess, publish: Publisher, seq: Id) -> Response:
    return _correction(request, lambda: service.reveal_entry(db, acc, seq, publish=publish))


def _correction(request: Request, act: Any) -> Response:
    try:
        entry = act()
    except FateboardError as exc:
        return HTMLResponse(f'<p class="error" role="alert">{_escape(exc.message)}</p>', status_code=exc.status_code)
    return HTMLResponse(f'<p class="ok" role="status">Logged as #{entry.seq}.</p>')


def _escape(text: str) -> str:
    return str(escape(text))


@router.post("/campaigns/{campaign_id}/characters/{character_id}/adjust")
async def adjust(request: Request, db: DB, acc: MemberAccess, publish: Publisher, character_id: Id) -> Response:
    form = await request.form()
    return await run_in_threadpool(_adjust, request, db, acc, publish, character_id, form)


def _adjust(request: Request, db: DB, acc: Any, publish: Any, character_id: int, form: FormData) -> Response:
    where = f"adjust-{character_id}"
    try:
        require_narrator(acc)
        character = service.character_for(db, acc, character_id)
        # The form sends text: each field becomes its type on the system's sheet (an error names the field).
        changes = sheet_changes(get_system(character.system).sheet, form, prefix="sheet.", error_field=where)
        service.adjust_sheet(db, acc, character_id, changes, str(form.get("reason", "")), publish=publish)
    except FateboardError as exc:
        db.rollback()
        # Next to its field when the form shows that field ("lives", "reason"), else under the form.
        field = exc.field or ""
        if not field.startswith(where):
            name = field.split(".")[0]
            field = f"{where}-{name}" if name and f"sheet.{name}" in form or name == "reason" else where
        return render(request, TABLE, table_context(db, acc, errors={field: exc.message}),
                      block="characters", status_code=exc.status_code)
    return render(request, TABLE, table_context(db, acc), block="characters")
