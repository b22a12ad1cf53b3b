"""THE registry of live panels (docs/ARCHITECTURE.md, "Live panels"): each panel declared once — the pages it is
on, the template and block it renders, the builder of what that block reads, the events that refresh it and the
subject it is of — behind one URL, GET /campaigns/{id}/panels/{name}[?of=<subject>] (app/panels/routes.py).

A whole page is composed from its panels' builders (`compose`); a template names a panel with
`{{ live_panel("name", subject) }}`, which writes its data-live and data-live-url (app/main.py installs it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from app.campaigns import views as campaign
from app.campaigns.service import Access
from app.characters import views as sheets
from app.encounters import views as encounters
from app.errors import FateboardError
from app.handouts import views as handouts
from app.live.events import LiveEvent
from app.systems import get_system
from app.talk import views as talk
from app.web import render, render_failure

Subject = Literal["character", "encounter", "system"] | None
Builder = Callable[..., dict[str, Any]]  # (db, acc[, subject], **extra) -> what the block reads


@dataclass(frozen=True)
class Panel:
    pages: tuple[str, ...]  # the pages it is on (`compose`)
    template: str | Callable[[Any], str]  # the template holding its block, or a function of its subject
    block: str | None  # None: the whole template is the fragment
    builder: Builder
    events: tuple[LiveEvent, ...] = ()  # data-live: what the stream announces that refreshes it
    own: tuple[LiveEvent, ...] = ()  # events it follows for its subject only: `sheet:<character id>`
    subject: Subject = None  # what `?of=` names (the composer's is optional: the character it speaks as)
    optional: bool = False  # the subject may be left out (the composer: then it speaks out of character)
    scope: str | None = None  # the block reads its data under this one name (talk's `c`, `p`); a page offers a
    # callable under the panel's name instead, so the data is read only when the page shows the panel

    def template_of(self, subject: Any) -> str:
        return self.template if isinstance(self.template, str) else self.template(subject)


def _sheet_template(character: Any) -> str:
    return sheets.template_for(get_system(character.system), "sheet")


def _system_template(system: Any) -> str:
    return f"{system.id}/campaign.html"


def _composer(db: Session, acc: Access, character: Any = None, **extra: Any) -> dict[str, Any]:
    return talk.composer_context(db, acc, character=character, **extra)


E = LiveEvent
PANELS: dict[str, Panel] = {
    # The campaign page (campaigns/campaign.html) and the handouts on it.
    "session": Panel(("campaign",), campaign.CAMPAIGN_PAGE, "session", campaign.session_panel, (E.SESSION,)),
    "prompts": Panel(
        ("campaign",), campaign.CAMPAIGN_PAGE, "prompts", campaign.prompts_panel, (E.PROMPTS, E.CHARACTERS, E.ENCOUNTER)
    ),
    "encounters": Panel(("campaign",), campaign.CAMPAIGN_PAGE, "encounters", campaign.encounters_panel, (E.ENCOUNTER,)),
    "characters": Panel(
        ("campaign",), campaign.CAMPAIGN_PAGE, "characters", campaign.characters_panel, (E.CHARACTERS, E.MEMBERS)
    ),
    "members": Panel(("campaign",), campaign.CAMPAIGN_PAGE, "members", campaign.members_panel, (E.MEMBERS,)),
    "dice_as": Panel(
        ("campaign",), campaign.CAMPAIGN_PAGE, "dice_as", campaign.dice_as_panel, (E.CHARACTERS, E.MEMBERS)
    ),
    "dicebox": Panel(
        ("campaign",), campaign.CAMPAIGN_PAGE, "dicebox", campaign.dicebox_panel
    ),  # a roll's answer, not live
    "scene": Panel(("campaign",), handouts.PANELS, "scene", handouts.scene_panel, (E.SCENE,)),
    "shown": Panel(("campaign",), handouts.PANELS, "shown", handouts.shown_panel, (E.HANDOUTS,)),
    "composer": Panel(
        ("campaign", "sheet"),
        "talk/composer.html",
        "composer",
        _composer,
        (E.MEMBERS, E.CHARACTERS, E.ENCOUNTER),
        subject="character",
        optional=True,
        scope="c",
    ),
    # The narrator screen (campaigns/narrator.html).
    "screen_live": Panel(
        ("narrator",),
        campaign.NARRATOR_SCREEN,
        "screen_live",
        campaign.screen_live_panel,
        (E.ENTRY, E.SHEET, E.CHARACTERS, E.PROMPTS, E.ENCOUNTER, E.MEMBERS),
    ),
    "call_who": Panel(("narrator",), campaign.NARRATOR_SCREEN, "call_who", campaign.call_who_panel, (E.CHARACTERS,)),
    "library": Panel(("narrator",), handouts.PANELS, "library", handouts.library_panel, (E.HANDOUTS,)),
    # A character's sheet (its system's sheet template, which extends characters/_sheet_page.html).
    "sheet": Panel(
        ("sheet",),
        _sheet_template,
        "sheet",
        sheets.sheet_panel,
        (E.ENCOUNTER, E.CHARACTERS),
        own=(E.SHEET,),
        subject="character",
    ),
    "sheet_prompts": Panel(("sheet",), _sheet_template, "sheet", sheets.sheet_panel, (E.PROMPTS,), subject="character"),
    "recent": Panel(
        ("sheet",), "characters/_recent.html", None, sheets.recent_panel, own=(E.ENTRY,), subject="character"
    ),
    # A system's own campaign page (app/systems/<id>/templates/campaign.html). Its events: the union of what the
    # systems' pages follow (each campaign.html still writes its own data-live and the URL app/panels/routes.py
    # keeps answering, until the systems' templates call live_panel).
    "system": Panel(
        ("system",),
        _system_template,
        "system",
        sheets.system_context,
        (E.ENTRY, E.CHARACTERS, E.ENCOUNTER),
        subject="system",
    ),
    # An encounter (its system's encounter.html, or encounters/encounter.html), and a conflict's team talk, which
    # the encounter's own builder offers its page (only an encounter with teams has it).
    "encounter": Panel(
        ("encounter",),
        encounters.template_for,
        "encounter",
        encounters.encounter_context,
        (E.ENCOUNTER,),
        subject="encounter",
    ),
    "team_talk": Panel(
        (), "talk/team.html", "team", talk.team_panel_context, (E.TALK,), subject="encounter", scope="p"
    ),
}


def build(name: str, db: Session, acc: Access, subject: Any = None, /, **extra: Any) -> dict[str, Any]:
    """What panel `name`'s block reads (under its scope, when it has one)."""
    panel = PANELS[name]
    data = panel.builder(db, acc, subject, **extra) if panel.subject else panel.builder(db, acc, **extra)
    return {panel.scope: data} if panel.scope else data


def compose(page: str, db: Session, acc: Access, subject: Any = None, /, **extra: Any) -> dict[str, Any]:
    """A whole page's context: the builders of the panels on it (each builder once), then the page's own `extra`."""
    ctx: dict[str, Any] = {}
    built: set[Builder] = set()
    for name, panel in PANELS.items():
        if page not in panel.pages or panel.builder in built:
            continue
        built.add(panel.builder)
        if panel.scope:
            ctx[name] = lambda p=panel: p.builder(db, acc, subject) if p.subject else p.builder(db, acc)
        else:
            ctx.update(build(name, db, acc, subject))
    ctx.update(extra)
    return ctx


def panel_url(campaign_id: int, name: str, of: object = None) -> str:
    return f"/campaigns/{campaign_id}/panels/{name}" + ("" if of in (None, "") else f"?of={of}")


@pass_context
def live_panel(context: Context, name: str, of: object = None, campaign: Any = None) -> Markup:
    """`data-live` and `data-live-url` of panel `name` (of subject `of`): what static/js/app.js follows."""
    panel = PANELS[name]
    events = [*(f"{e}:{of}" for e in panel.own), *(str(e) for e in panel.events)]
    url = panel_url((campaign or context["campaign"]).id, name, of)
    return Markup('data-live="{}" data-live-url="{}"').format(" ".join(events), url)


def render_panel(
    request: Request, db: Session, acc: Access, name: str, subject: Any = None, /, **extra: Any
) -> Response:
    """Panel `name` as a fragment: what its URL answers, and what its forms answer with."""
    panel = PANELS[name]
    return render(request, panel.template_of(subject), build(name, db, acc, subject, **extra), block=panel.block)


def refuse_in_panel(
    request: Request,
    db: Session,
    exc: FateboardError,
    acc: Access,
    name: str,
    subject: Any = None,
    /,
    *,
    key: str = "form",
    by_field: bool = True,
    field_key: str | None = None,
    **extra: Any,
) -> Response:
    """A refused form of panel `name`: the panel again (after the rollback, with `extra`), the error next to its
    field (app/web.py render_failure: `key`, `by_field`, `field_key`)."""
    panel = PANELS[name]
    return render_failure(
        request,
        db,
        exc,
        panel.template_of(subject),
        lambda errors: build(name, db, acc, subject, errors=errors, **extra),
        key=key,
        by_field=by_field,
        block=panel.block,
        field_key=field_key,
    )
