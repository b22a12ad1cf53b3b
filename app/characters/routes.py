"""Character sheets and their actions, for every rule system.

A system with pages brings app/systems/<system>/templates/sheet.html (blocks: `sheet`, `actions`) and create.html;
others use templates/characters/sheet.html. Every action form posts to one route, which turns the form
into the action's params and hands them to the rules service — the same path as the JSON API.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.campaigns.service import Access
from app.characters import service
from app.characters.views import (
    campaign_system,
    create_context,
    system_with_page,
    template_for,
)
from app.deps import DB, FormBody, Htmx, MemberAccess, Publisher
from app.encounters.service import encounter_for_step, other_participants
from app.errors import FateboardError, NotFound
from app.forms import FORM_KEYS, act_from_form, params_from_form
from app.i18n import _
from app.inputs import Id, parse_int
from app.live.events import LiveEvent
from app.panels import compose, refuse_in_panel, render_panel
from app.rolls.present import result_card
from app.systems import ActionError, Context, RuleSystem, get_action, get_system
from app.web import redirect, render, render_failure

router = APIRouter(include_in_schema=False)


@router.get("/campaigns/{campaign_id}/characters/{character_id}")
def sheet_page(request: Request, db: DB, acc: MemberAccess, character_id: Id) -> Response:
    character = service.character_in(db, acc, character_id)
    system = get_system(character.system)
    return render(request, template_for(system, "sheet"), compose("sheet", db, acc, character))


@router.post("/campaigns/{campaign_id}/characters/{character_id}/act/{action_id}")
def act(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, character_id: Id, action_id: str, form: FormBody
) -> Response:
    character = service.character_in(db, acc, character_id)
    system = get_system(character.system)
    try:
        result = act_from_form(
            db, acc, publish, form, system_id=system.id, action_id=action_id, character_id=character.id
        )
    except FateboardError as exc:
        return refuse_in_panel(
            request, db, exc, acc, "sheet", character, key=action_id, form=dict(form.items()), failed_action=action_id
        )
    db.refresh(character)
    entry = result.entry
    shown = result_card(entry, acc.user.id, acc.is_narrator, replayed=result.replayed, encounter_id=result.encounter_id)
    return render_panel(request, db, acc, "sheet", character, result=shown)


@router.get("/campaigns/{campaign_id}/characters/{character_id}/odds/{action_id}")
def odds(request: Request, db: DB, acc: MemberAccess, character_id: Id, action_id: str) -> Response:
    character = service.character_in(db, acc, character_id)
    if not service.can_act(acc, character):
        raise NotFound(_("No such character in this campaign."))
    try:
        _system, action = get_action(character.system, action_id)
        params = action.params.model_validate(params_from_form(action.params, request.query_params))
        settings = dict((acc.campaign.settings or {}).get(character.system, {}))
        ctx = _odds_context(db, acc, _system, action, params, character, settings)
        result = action.odds(_system.load_sheet(character.sheet), params, ctx) if action.odds else None
    except (ActionError, ValueError) as exc:
        message = exc.message if isinstance(exc, ActionError) else _("Choose the options to see the chance.")
        return render(request, "rolls/odds.html", {"error": message})
    return render(request, "rolls/odds.html", {"odds": result, "error": None})


def _odds_context(
    db: DB, acc: Access, system: RuleSystem, action: Any, params: Any, character: Any, settings: dict[str, Any]
) -> Context:
    """The odds of an encounter step read the encounter's state (a perk's bonus, a grapple) and the other
    adventurers' sheets (a player attacked by a player: their Defense is no secret), where the system says its
    odds read the encounter (RuleSystem.odds_read_encounter). Foes' sheets stay out: their levels are the
    narrator's."""
    if not system.odds_read_encounter:
        return Context(campaign_settings=settings)
    try:
        encounter = encounter_for_step(db, acc, action, params, character.system, character)
    except FateboardError:  # an ended or unknown encounter: the odds without it (the step itself refuses)
        encounter = None
    if encounter is None:
        return Context(campaign_settings=settings, character_id=character.id)
    others = {
        cid: system.load_sheet(c.sheet)
        for cid, c in other_participants(db, encounter, character).items()
        if c.kind != "npc" and (c.sheet or {}).get("kind") != "foe"
    }
    return Context(
        campaign_settings=settings,
        character_id=character.id,
        others=others,
        encounter={
            "id": encounter.id,
            "kind": encounter.kind,
            "state": system.typed_state(encounter.kind, encounter.state),
            "participants": list(encounter.participants),
            "version": encounter.version,
        },
    )


@router.get("/campaigns/{campaign_id}/characters/new/{system_id}")
def create_page(request: Request, acc: MemberAccess, system_id: str) -> Response:
    system = campaign_system(acc, system_id)
    return render(request, template_for(system, "create"), create_context(acc, system))


@router.post("/campaigns/{campaign_id}/characters/new/{system_id}")
def create(
    request: Request, db: DB, acc: MemberAccess, hx: Htmx, publish: Publisher, system_id: str, form: FormBody
) -> Response:
    system = campaign_system(acc, system_id)
    fields = {
        k: (form.getlist(k) if len(form.getlist(k)) > 1 else v)
        for k, v in form.items()
        if k not in FORM_KEYS and k not in ("name", "kind", "owner_id")
    }
    try:
        character = service.create_character(
            db,
            acc,
            name=str(form.get("name", "")),
            system=system.id,
            sheet=fields,
            kind=str(form.get("kind") or "pc"),
            owner_id=parse_int(form.get("owner_id"), "owner_id"),
        )
        db.commit()
    except FateboardError as exc:
        return render_failure(
            request,
            db,
            exc,
            template_for(system, "create"),
            lambda errors: create_context(acc, system, errors=errors, form=dict(form.items())),
            block="form" if hx.request else None,
        )
    publish(acc.campaign.id, LiveEvent.CHARACTERS, character.id)
    return redirect(request, f"/campaigns/{acc.campaign.id}/characters/{character.id}")


@router.get("/campaigns/{campaign_id}/systems/{system_id}")
def system_page(request: Request, db: DB, acc: MemberAccess, system_id: str) -> Response:
    """A system's campaign-wide page (app/systems/<system>/templates/campaign.html, block `system`): the narrator's
    tools that belong to no single character — foes, game time, tables, brawls."""
    system = system_with_page(acc, system_id)
    return render(request, f"{system.id}/campaign.html", compose("system", db, acc, system))


@router.post("/campaigns/{campaign_id}/systems/{system_id}/act/{action_id}")
def system_act(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, system_id: str, action_id: str, form: FormBody
) -> Response:
    system = campaign_system(acc, system_id)
    if not system.has_pages:
        raise NotFound(_("This rule system has no page of its own."))
    try:
        done = act_from_form(db, acc, publish, form, system_id=system.id, action_id=action_id)
    except FateboardError as exc:
        return refuse_in_panel(request, db, exc, acc, "system", system, key=action_id, form=dict(form.items()))
    db.refresh(acc.campaign)
    result = result_card(
        done.entry, acc.user.id, acc.is_narrator, replayed=done.replayed, encounter_id=done.encounter_id
    )
    return render_panel(request, db, acc, "system", system, result=result)
