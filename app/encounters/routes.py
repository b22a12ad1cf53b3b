"""Encounter pages: one live view per encounter, rendered by its system (templates/<system>/encounter.html,
block `encounter`), and one route through which every step goes to the rules service."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.responses import Response

from app.campaigns.service import Access
from app.characters.models import Character
from app.characters.routes import act_from_form
from app.deps import DB, MemberAccess, Publisher
from app.encounters import service
from app.encounters.models import Encounter
from app.errors import FateboardError
from app.rolls.present import result_card
from app.inputs import Id
from app.systems import get_system
from app.web import render

router = APIRouter(include_in_schema=False)


def encounter_context(db: DB, acc: Access, encounter: Encounter, **extra: Any) -> dict[str, Any]:
    characters = {c.id: c for c in (db.get(Character, p["character_id"]) for p in encounter.participants) if c}
    ctx: dict[str, Any] = {
        "acc": acc, "campaign": acc.campaign, "is_narrator": acc.is_narrator, "encounter": encounter,
        "state": encounter.state, "system": get_system(encounter.system), "characters": characters,
        "controls": service.controlled_by(db, acc, encounter), "idempotency_key": secrets.token_urlsafe(16),
        "errors": {}, "result": None,
    }
    ctx.update(extra)
    return ctx


def _template(encounter: Encounter) -> str:
    """The system's own view, or the generic one (participants and state) for a system without pages."""
    return f"{encounter.system}/encounter.html" if get_system(encounter.system).has_pages else "encounters/encounter.html"


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}")
def encounter_page(request: Request, db: DB, acc: MemberAccess, encounter_id: Id) -> Response:
    encounter = service.encounter_in(db, acc, encounter_id)
    return render(request, _template(encounter), encounter_context(db, acc, encounter))


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}/view")
def encounter_view(request: Request, db: DB, acc: MemberAccess, encounter_id: Id) -> Response:
    encounter = service.encounter_in(db, acc, encounter_id)
    return render(request, _template(encounter), encounter_context(db, acc, encounter), block="encounter")


@router.post("/campaigns/{campaign_id}/encounters/{encounter_id}/act/{action_id}")
async def encounter_act(request: Request, db: DB, acc: MemberAccess, publish: Publisher, encounter_id: Id,
                        action_id: str) -> Response:
    form = await request.form()
    return await run_in_threadpool(_act, request, db, acc, publish, encounter_id, action_id, form)


def _act(request: Request, db: DB, acc: Access, publish: Any, encounter_id: int, action_id: str,
         form: FormData) -> Response:
    encounter = service.encounter_in(db, acc, encounter_id)
    try:
        done = act_from_form(db, acc, publish, form, system_id=encounter.system, action_id=action_id,
                             extra_params={"encounter_id": encounter.id}, visibility="public")
        result = result_card(done.entry, acc.user.id, acc.is_narrator, replayed=done.replayed)
    except FateboardError as exc:
        db.rollback()
        db.refresh(encounter)
        return render(request, _template(encounter), encounter_context(db, acc, encounter, errors={"move": exc.message}),
                      block="encounter", status_code=exc.status_code)
    db.refresh(encounter)
    return render(request, _template(encounter), encounter_context(db, acc, encounter, result=result),
                  block="encounter")
