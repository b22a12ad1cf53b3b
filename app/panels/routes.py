"""The one URL of every live panel: GET /campaigns/{id}/panels/{name}[?of=<subject>] renders the panel's block from
its own builder (app/panels) — what static/js/app.js fetches when the stream announces one of its events."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from starlette.responses import Response

from app.campaigns.service import Access
from app.characters.service import character_in
from app.characters.views import system_with_page
from app.deps import DB, MemberAccess
from app.encounters.service import encounter_in
from app.errors import NotFound
from app.i18n import _
from app.inputs import Id, parse_int
from app.panels import PANELS, Panel, render_panel

router = APIRouter(include_in_schema=False)


@router.get("/campaigns/{campaign_id}/panels/{name}")
def panel(
    request: Request,
    db: DB,
    acc: MemberAccess,
    name: Annotated[str, Path(max_length=32)],
    of: Annotated[str, Query(max_length=32)] = "",
) -> Response:
    found = PANELS.get(name)
    if found is None:
        raise NotFound(_("There is no such panel."))
    return render_panel(request, db, acc, name, _subject(db, acc, found, of))


def _subject(db: DB, acc: Access, panel: Panel, of: str) -> Any:
    """What `?of=` names, as the viewer may see it (else 404, as for no such thing)."""
    if panel.subject is None or (panel.optional and not of):
        return None
    if not of:
        raise NotFound(_("There is no such panel."))
    if panel.subject == "system":
        return system_with_page(acc, of)
    ident = parse_int(of, "of") or 0
    return character_in(db, acc, ident) if panel.subject == "character" else encounter_in(db, acc, ident)


# The URLs the systems' own templates (app/systems/<id>/templates/campaign.html, encounter.html) still write: the
# same panels, answered here until those templates call live_panel.
@router.get("/campaigns/{campaign_id}/systems/{system_id}/panels/system")
def system_panel(
    request: Request, db: DB, acc: MemberAccess, system_id: Annotated[str, Path(max_length=32)]
) -> Response:
    return render_panel(request, db, acc, "system", system_with_page(acc, system_id))


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}/view")
def encounter_panel(request: Request, db: DB, acc: MemberAccess, encounter_id: Id) -> Response:
    return render_panel(request, db, acc, "encounter", encounter_in(db, acc, encounter_id))
