"""Encounter pages: one live panel per encounter (`encounter` in app/panels), rendered by its system
(app/systems/<system>/templates/encounter.html, block `encounter`), and one route through which every step goes to
the rules service."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.deps import DB, FormBody, MemberAccess, Publisher
from app.encounters import service
from app.encounters.views import template_for
from app.errors import FateboardError
from app.forms import act_from_form
from app.inputs import Id
from app.panels import compose, refuse_in_panel, render_panel
from app.rolls.present import result_card
from app.rolls.visibility import Visibility
from app.web import render

router = APIRouter(include_in_schema=False)


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}")
def encounter_page(request: Request, db: DB, acc: MemberAccess, encounter_id: Id) -> Response:
    encounter = service.encounter_in(db, acc, encounter_id)
    return render(request, template_for(encounter), compose("encounter", db, acc, encounter))


@router.post("/campaigns/{campaign_id}/encounters/{encounter_id}/act/{action_id}")
def encounter_act(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, encounter_id: Id, action_id: str, form: FormBody
) -> Response:
    encounter = service.encounter_in(db, acc, encounter_id)
    try:
        done = act_from_form(
            db,
            acc,
            publish,
            form,
            system_id=encounter.system,
            action_id=action_id,
            extra_params={"encounter_id": encounter.id},
            visibility=Visibility.PUBLIC,
        )
        result = result_card(done.entry, acc.user.id, acc.is_narrator, replayed=done.replayed)
    except FateboardError as exc:
        # Every refusal shows above the moves ("move"), or next to its field where the page has one for it
        # ("move_field" names it): after the rollback the page shows where things stand.
        return refuse_in_panel(
            request, db, exc, acc, "encounter", encounter, key="move", by_field=False, field_key="move_field"
        )
    db.refresh(encounter)
    return render_panel(request, db, acc, "encounter", encounter, result=result)
