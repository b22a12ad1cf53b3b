"""Character sheets and their actions, for every rule system.

A system with pages brings templates/<system>/sheet.html (blocks: `sheet`, `actions`) and create.html;
others use templates/characters/sheet.html. Every action form posts to one route, which turns the form
into the action's params and hands them to the rules service — the same path as the JSON API.
"""

from __future__ import annotations

import secrets
import typing
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.responses import Response

from app.i18n import _
from app.campaigns.service import Access
from app.characters import service
from app.characters.models import Character
from app.deps import DB, MemberAccess, Publisher
from app.encounters.service import active_encounters
from app.errors import BadRequest, FateboardError, NotFound
from app.inputs import Id, idempotency_key, parse_int
from app.rolls import service as rolls
from app.rolls.log import entry_html
from app.rolls.present import result_card
from app.rolls.models import LogEntry, RollPrompt
from app.rolls.visibility import VISIBILITY_LABELS
from app.systems import SYSTEMS, ActionError, Context, RuleSystem, get_action, get_system
from app.web import redirect, render

router = APIRouter(include_in_schema=False)
FORM_KEYS = {"csrf_token", "idempotency_key", "visibility", "note", "prompt_id", "expected_version"}


def params_from_form(model: type[BaseModel], form: Mapping[str, Any] | FormData) -> dict[str, Any]:
    """Form fields → the action's params: lists from repeated fields, empty fields left to their defaults."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        origin = typing.get_origin(field.annotation)
        if origin in (list, tuple, set) and hasattr(form, "getlist"):  # a form or a query string
            values = [v for v in form.getlist(name) if v != ""]
            if values:
                out[name] = values
            continue
        value = form.get(name)
        if value is not None and value != "":
            out[name] = value
    return out


def template_for(system: RuleSystem, page: str) -> str:
    return f"{system.id}/{page}.html" if system.has_pages else f"characters/{page}.html"


def sheet_context(db: DB, acc: Access, character: Character, **extra: Any) -> dict[str, Any]:
    system = get_system(character.system)
    entries = list(db.scalars(select(LogEntry).where(LogEntry.campaign_id == acc.campaign.id,
                                                     LogEntry.character_id == character.id)
                              .order_by(LogEntry.seq.desc()).limit(10)))
    prompts = list(db.scalars(select(RollPrompt).where(RollPrompt.character_id == character.id,
                                                       RollPrompt.status == "open").order_by(RollPrompt.id)))
    can_act = service.can_act(acc, character)
    ctx: dict[str, Any] = {
        "acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator, "character": character,
        "system": system, "sheet": service.visible_sheet(acc, character), "can_act": can_act,
        "prompts": prompts if can_act else [], "visibilities": VISIBILITY_LABELS,
        "entries_html": [entry_html(e, acc.user.id, acc.is_narrator) for e in reversed(entries)],
        "characters": [c for c in service.characters_for(db, acc) if c.system == character.system],
        # This character's active encounters (a duel it is in), for a link to each.
        "encounters": [e for e in active_encounters(db, acc)
                       if character.id in {p.get("character_id") for p in e.participants}],
        "idempotency_key": secrets.token_urlsafe(16), "errors": {}, "form": {}, "result": None,
    }
    ctx.update(extra)
    return ctx


@router.get("/campaigns/{campaign_id}/characters/{character_id}")
def sheet_page(request: Request, db: DB, acc: MemberAccess, character_id: Id) -> Response:
    character = service.character_in(db, acc, character_id)
    system = get_system(character.system)
    return render(request, template_for(system, "sheet"), sheet_context(db, acc, character))


@router.post("/campaigns/{campaign_id}/characters/{character_id}/act/{action_id}")
async def act(request: Request, db: DB, acc: MemberAccess, publish: Publisher, character_id: Id,
              action_id: str) -> Response:
    form = await request.form()
    return await run_in_threadpool(_act, request, db, acc, publish, character_id, action_id, form)


def _form_id(form: FormData, name: str, *, low: int = 1) -> int | None:
    """A number the page put in the form (hidden, or a choice): a bad one is the action's error, shown by its
    form, rather than a field's (there is no field to show it next to)."""
    try:
        return parse_int(form.get(name), name, low=low)
    except BadRequest as exc:
        raise BadRequest(f"{name}: {exc.message}") from None


def act_from_form(db: DB, acc: Access, publish: Any, form: FormData, *, system_id: str, action_id: str,
                  character_id: int | None = None, extra_params: dict[str, Any] | None = None,
                  visibility: str | None = None) -> rolls.ActionResult:
    """Every action form (sheet, system page, encounter) goes through here: the form becomes the action's
    params and the rules service does the rest. Raises FateboardError; the caller re-renders with it."""
    try:
        _system, action = get_action(system_id, action_id)
    except ActionError as exc:
        raise BadRequest(exc.message, field=exc.field) from exc
    req = rolls.ActionRequest(
        system=system_id, action=action.id,
        character_id=character_id if character_id is not None else _form_id(form, "character_id"),
        params={**params_from_form(action.params, form), **(extra_params or {})},
        visibility=visibility or _visibility(form.get("visibility")), note=str(form.get("note") or ""),
        prompt_id=_form_id(form, "prompt_id"), expected_version=_form_id(form, "expected_version", low=0))
    return rolls.perform_action(db, acc, req, idempotency_key=idempotency_key(form.get("idempotency_key")),
                                publish=publish)


def _act(request: Request, db: DB, acc: Access, publish: Any, character_id: int, action_id: str,
         form: FormData) -> Response:
    character = service.character_in(db, acc, character_id)
    system = get_system(character.system)
    template = template_for(system, "sheet")
    try:
        result = act_from_form(db, acc, publish, form, system_id=system.id, action_id=action_id,
                               character_id=character.id)
    except FateboardError as exc:
        db.rollback()
        ctx = sheet_context(db, acc, character, errors={exc.field or action_id: exc.message},
                            form={k: v for k, v in form.items()}, failed_action=action_id)
        return render(request, template, ctx, block="sheet", status_code=exc.status_code)
    db.refresh(character)
    entry = result.entry
    shown = result_card(entry, acc.user.id, acc.is_narrator, replayed=result.replayed,
                        encounter_id=result.encounter_id)
    return render(request, template, sheet_context(db, acc, character, result=shown), block="sheet")


def _visibility(value: Any) -> str:
    return value if value in ("public", "narrator", "blind", "self") else "public"


@router.get("/campaigns/{campaign_id}/characters/{character_id}/odds/{action_id}")
def odds(request: Request, db: DB, acc: MemberAccess, character_id: Id, action_id: str) -> Response:
    character = service.character_in(db, acc, character_id)
    if not service.can_act(acc, character):
        raise NotFound(_("No such character in this campaign."))
    try:
        _system, action = get_action(character.system, action_id)
        params = action.params.model_validate(params_from_form(action.params, request.query_params))
        settings = dict((acc.campaign.settings or {}).get(character.system, {}))
        ctx = Context(campaign_settings=settings)
        result = action.odds(dict(character.sheet), params, ctx) if action.odds else None
    except (ActionError, ValueError) as exc:
        message = exc.message if isinstance(exc, ActionError) else "Choose the options to see the chance."
        return render(request, "rolls/odds.html", {"error": message})
    return render(request, "rolls/odds.html", {"odds": result, "error": None})


@router.get("/campaigns/{campaign_id}/characters/new/{system_id}")
def create_page(request: Request, acc: MemberAccess, system_id: str) -> Response:
    system = _campaign_system(acc, system_id)
    return render(request, template_for(system, "create"), {"acc": acc, "campaign": acc.campaign, "system": system,
                                                             "is_narrator": acc.is_narrator, "errors": {}, "form": {}})


@router.post("/campaigns/{campaign_id}/characters/new/{system_id}")
async def create(request: Request, db: DB, acc: MemberAccess, system_id: str) -> Response:
    form = await request.form()
    return await run_in_threadpool(_create, request, db, acc, system_id, form)


def _create(request: Request, db: DB, acc: Access, system_id: str, form: FormData) -> Response:
    system = _campaign_system(acc, system_id)
    fields = {k: (form.getlist(k) if len(form.getlist(k)) > 1 else v) for k, v in form.items()
              if k not in FORM_KEYS and k not in ("name", "kind", "owner_id")}
    try:
        character = service.create_character(db, acc, name=str(form.get("name", "")), system=system.id, sheet=fields,
                                             kind=str(form.get("kind") or "pc"),
                                             owner_id=parse_int(form.get("owner_id"), "owner_id"))
        db.commit()
    except FateboardError as exc:
        db.rollback()
        return render(request, template_for(system, "create"), {
            "acc": acc, "campaign": acc.campaign, "system": system, "is_narrator": acc.is_narrator,
            "errors": {exc.field or "form": exc.message}, "form": {k: v for k, v in form.items()}},
            block="form" if request.headers.get("hx-request") else None, status_code=exc.status_code)
    return redirect(request, f"/campaigns/{acc.campaign.id}/characters/{character.id}")


def _campaign_system(acc: Access, system_id: str) -> RuleSystem:
    if system_id not in SYSTEMS or system_id not in acc.campaign.systems:
        raise BadRequest(_("This campaign does not use that rule system."), field="system")
    return SYSTEMS[system_id]


def system_context(db: DB, acc: Access, system: RuleSystem, **extra: Any) -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator, "system": system,
        "settings": dict((acc.campaign.settings or {}).get(system.id, {})),
        "characters": [c for c in service.characters_for(db, acc) if c.system == system.id],
        "can_act": {c.id for c in service.actable_characters(db, acc)},
        "encounters": [e for e in active_encounters(db, acc) if e.system == system.id],
        "idempotency_key": secrets.token_urlsafe(16), "errors": {}, "form": {}, "result": None,
    }
    ctx.update(extra)
    return ctx


@router.get("/campaigns/{campaign_id}/systems/{system_id}")
def system_page(request: Request, db: DB, acc: MemberAccess, system_id: str) -> Response:
    """A system's campaign-wide page (templates/<system>/campaign.html, block `system`): the narrator's tools
    that belong to no single character — foes, game time, tables, brawls."""
    system = _campaign_system(acc, system_id)
    if not system.has_pages:
        raise NotFound(_("This rule system has no page of its own."))
    return render(request, f"{system.id}/campaign.html", system_context(db, acc, system))


@router.post("/campaigns/{campaign_id}/systems/{system_id}/act/{action_id}")
async def system_act(request: Request, db: DB, acc: MemberAccess, publish: Publisher, system_id: str,
                     action_id: str) -> Response:
    form = await request.form()
    return await run_in_threadpool(_system_act, request, db, acc, publish, system_id, action_id, form)


def _system_act(request: Request, db: DB, acc: Access, publish: Any, system_id: str, action_id: str,
                form: FormData) -> Response:
    system = _campaign_system(acc, system_id)
    if not system.has_pages:
        raise NotFound(_("This rule system has no page of its own."))
    template = f"{system.id}/campaign.html"
    try:
        done = act_from_form(db, acc, publish, form, system_id=system.id, action_id=action_id)
    except FateboardError as exc:
        db.rollback()
        return render(request, template, system_context(db, acc, system, errors={exc.field or action_id: exc.message},
                                                        form={k: v for k, v in form.items()}),
                      block="system", status_code=exc.status_code)
    db.refresh(acc.campaign)
    result = result_card(done.entry, acc.user.id, acc.is_narrator, replayed=done.replayed,
                         encounter_id=done.encounter_id)
    return render(request, template, system_context(db, acc, system, result=result), block="system")
