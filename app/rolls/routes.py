"""The dice box, roll prompts, log paging and the narrator's corrections (void, reveal, adjust)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from pydantic import ValidationError
from starlette.responses import Response, StreamingResponse

from app.campaigns.service import Access, require_narrator
from app.campaigns.views import NARRATOR_SCREEN
from app.characters.service import character_for
from app.deps import DB, AppSettings, FormBody, MemberAccess, Publisher
from app.errors import BadRequest, FateboardError, validation_message
from app.forms import editable_fields, form_visibility, params_from_form, sheet_changes
from app.i18n import _, rule_message
from app.inputs import Id, OptionalId, Seq, idempotency_key, parse_int
from app.panels import compose, refuse_in_panel, render_panel
from app.rolls import corrections, prompts, service
from app.rolls import log as rolllog
from app.rolls.models import LogEntry
from app.rolls.present import result_card
from app.systems import ROLLER, SYSTEMS, ActionError, Context, get_action, get_system
from app.web import render, render_failure

CALLED = "rolls/called.html"
CORRECTION = "rolls/correction.html"
router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api/


def _html_result(acc: Access, result: service.ActionResult) -> dict[str, Any]:
    return result_card(result.entry, acc.user.id, acc.is_narrator, replayed=result.replayed)


@router.post("/campaigns/{campaign_id}/roll")
def roll(
    request: Request,
    db: DB,
    acc: MemberAccess,
    publish: Publisher,
    expression: Annotated[str, Form()] = "",
    visibility: Annotated[str, Form()] = "public",
    note: Annotated[str, Form()] = "",
    character_id: Annotated[str, Form()] = "",
    key: Annotated[str, Form(alias="idempotency_key")] = "",
) -> Response:
    form = {"expression": expression, "visibility": visibility, "note": note, "character_id": character_id}
    try:
        req = service.ActionRequest(
            system=ROLLER,
            action="roll",
            params={"expression": expression},
            visibility=form_visibility(visibility),
            note=note,
            character_id=parse_int(character_id, "character_id"),
        )
        result = service.perform_action(db, acc, req, idempotency_key=idempotency_key(key), publish=publish)
    except FateboardError as exc:
        return refuse_in_panel(request, db, exc, acc, "dicebox", key="expression", form=form)
    form["note"] = ""
    # The roller's own answer: the dice box alone, from its own context (not the whole page's).
    return render_panel(request, db, acc, "dicebox", form=form, result=_html_result(acc, result))


@router.get("/campaigns/{campaign_id}/odds")
def odds(
    request: Request, acc: MemberAccess, expression: str = "", system: str = ROLLER, action: str = "roll"
) -> Response:
    if not expression.strip():
        return render(request, "rolls/odds.html", {"hint": _("Type an expression, like 2d6+1.")})
    if system != ROLLER:  # other systems' odds need a sheet: they are on the character's page
        return render(
            request,
            "rolls/odds.html",
            {
                "error": _(
                    "The dice box shows odds for dice expressions only; "
                    "a rule system's odds are on the character's sheet."
                )
            },
            status_code=422,
        )
    try:
        _system, act = get_action(system, action)
        params = act.params.model_validate({"expression": expression})
        result = act.odds(_system.load_sheet({}), params, Context()) if act.odds else None
    except (ActionError, ValueError) as exc:
        message = rule_message(exc) if isinstance(exc, ActionError) else _("That expression is not valid.")
        return render(request, "rolls/odds.html", {"error": message}, status_code=200)
    return render(request, "rolls/odds.html", {"odds": result, "error": None})


@router.get("/campaigns/{campaign_id}/log")
def log_page(
    request: Request,
    db: DB,
    acc: MemberAccess,
    settings: AppSettings,
    before: Seq,
    character: OptionalId = None,
    player: OptionalId = None,
    session: OptionalId = None,
    system: Annotated[str | None, Query(max_length=32)] = None,
    q: Annotated[str | None, Query(max_length=200)] = None,
    kind: Annotated[str | None, Query(max_length=16)] = None,
) -> Response:
    where = rolllog.LogFilter(
        character=character,
        player=player,
        session=session,
        system=system or None,
        kind=rolllog.log_kind(kind),
        text=rolllog.search_text(q),
    )
    page = rolllog.page(db, acc, before, limit=settings.log_page_size, where=where)
    return render(request, "rolls/older.html", {"campaign": acc.campaign, **page})


@router.get("/campaigns/{campaign_id}/export.json")
def export(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The viewer's export (what they may see, hashes for all, the head), downloaded with the browser session."""
    db.close()  # the stream reads with its own short sessions
    name = f"fateboard-campaign-{acc.campaign.id}-log-{acc.campaign.last_seq}.json"
    return StreamingResponse(
        rolllog.export_stream(request.app.state.sessionmaker, acc),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


@router.get("/campaigns/{campaign_id}/verify")
def verify(request: Request, db: DB, acc: MemberAccess) -> Response:
    """The server's check of the whole chain against the head, as a fragment for the campaign page."""
    result = rolllog.verify(db, acc)
    problems = [rule_message(problem) for problem in result.details[:20]]  # in the reader's language
    return render(request, "rolls/verify.html", {"result": result, "problems": problems, "campaign": acc.campaign})


def check_dice_call(locked: dict[str, Any]) -> None:
    """A dice call's locked values are checked before the prompt exists: the expression parses and can be rolled
    (its odds computed), and no field is unknown — a 422 next to the expression, never a 500."""
    _s, act = get_action(ROLLER, "roll")
    try:
        act.odds({}, act.params.model_validate(locked), Context()) if act.odds else None
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field="prompt_expression") from exc
    except ValidationError as exc:
        raise BadRequest(validation_message(exc)[0], field="prompt_expression") from exc


@router.post("/campaigns/{campaign_id}/prompts")
def call_for_roll(request: Request, db: DB, acc: MemberAccess, publish: Publisher, form: FormBody) -> Response:
    """The narrator calls for a roll. Dice: `expression` (empty: the player chooses). Any system:
    `system`, `action` and `locked.<param>` fields, which the player cannot change."""
    system, action = str(form.get("system") or ROLLER), str(form.get("action") or "roll")
    # `reply=short` (a sheet's call for a roll): answer with a short confirmation or the error, not the panel.
    short = form.get("reply") == "short"
    try:
        character_id = parse_int(form.get("character_id"), "prompt_character")
        if character_id is None:
            raise BadRequest(_("Choose whose roll it is."), field="prompt_character")
        locked = {k[len("locked.") :]: v for k, v in form.items() if k.startswith("locked.") and v != ""}
        expression = str(form.get("expression") or "").strip()
        if expression:
            locked["expression"] = expression
        if system == ROLLER and locked:
            check_dice_call(locked)
        prompt = prompts.create_prompt(
            db,
            acc,
            character_id=character_id,
            system=system,
            action=action,
            locked=locked,
            visibility=str(form.get("visibility") or "public"),
            note=str(form.get("note") or ""),
            publish=publish,
        )
    except FateboardError as exc:
        if short:
            db.rollback()
            return render(request, CALLED, {"error": exc.message}, status_code=exc.status_code)
        # An error about a field the panel's form has shows next to it; any other at the top of the panel.
        return refuse_in_panel(
            request,
            db,
            exc,
            acc,
            "prompts",
            key="prompt",
            by_field=exc.field in ("prompt_character", "prompt_expression"),
        )
    if short:
        return render(request, CALLED, {"called": character_for(db, acc, prompt.character_id).name})
    return render_panel(request, db, acc, "prompts")


@router.post("/campaigns/{campaign_id}/prompts/group")
def call_for_rolls(request: Request, db: DB, acc: MemberAccess, publish: Publisher, form: FormBody) -> Response:
    """The narrator screen: one dice roll called for several characters at once (`character_id` repeated)."""
    call = str(form.get("call") or f"{ROLLER}:roll")
    form_values: dict[str, Any] = {
        "expression": str(form.get("expression") or ""),
        "note": str(form.get("note") or ""),
        "visibility": str(form.get("visibility") or "public"),
        "call": call,
        "locked": {k: str(v) for k, v in form.items() if k.startswith("locked.")},
    }
    require_narrator(acc)  # a 403 page, not the narrator screen's form again
    system, _sep, action = call.partition(":")
    try:
        ids = [parse_int(v, "prompt_characters") for v in form.getlist("character_id")]
        chosen = [character_for(db, acc, cid) for cid in dict.fromkeys(i for i in ids if i is not None)]
        if not chosen:
            raise BadRequest(_("Choose whose roll it is: tick one character or more."), field="prompt_characters")
        if system == ROLLER:
            locked: dict[str, Any] = (
                {"expression": form_values["expression"].strip()} if form_values["expression"].strip() else {}
            )
            if locked:
                check_dice_call(locked)
        else:
            # Any system's roll: its parameters come as locked.<system>.<param> (one fieldset per system).
            prefix = f"locked.{system}."
            locked = {k[len(prefix) :]: v for k, v in form.items() if k.startswith(prefix) and v != ""}
            others = [c.name for c in chosen if c.system != system]
            if others:
                name = _(SYSTEMS[system].name) if system in SYSTEMS else system
                raise BadRequest(
                    _("Not a {system} character: {names}.").format(system=name, names=", ".join(others)),
                    field="prompt_characters",
                )
        prompts.create_prompts(
            db,
            acc,
            character_ids=[c.id for c in chosen],
            system=system,
            action=action,
            locked=locked,
            visibility=form_values["visibility"],
            note=form_values["note"],
            publish=publish,
        )
    except FateboardError as exc:
        return render_failure(
            request,
            db,
            exc,
            NARRATOR_SCREEN,
            lambda errors: compose("narrator", db, acc, called=[], errors=errors, form=form_values),
            key="form",
            by_field=exc.field in ("prompt_characters", "prompt_expression", "visibility", "note"),
            block="screen",
        )
    form_values["note"] = ""
    return render(
        request,
        NARRATOR_SCREEN,
        compose("narrator", db, acc, called=[c.name for c in chosen], form=form_values),
        block="screen",
    )


@router.post("/campaigns/{campaign_id}/prompts/{prompt_id}/complete")
def complete_prompt(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, prompt_id: Id, form: FormBody
) -> Response:
    try:
        prompt = prompts.prompt_in(db, acc, prompt_id)
        try:
            _system, action = get_action(prompt.system, prompt.action)
        except ActionError as exc:
            raise BadRequest(rule_message(exc), field=exc.field) from exc
        req = service.ActionRequest(
            system=prompt.system,
            action=prompt.action,
            params=params_from_form(action.params, form),
            note=str(form.get("note") or ""),
            prompt_id=prompt_id,
        )
        result = service.perform_action(
            db, acc, req, idempotency_key=idempotency_key(form.get("idempotency_key")), publish=publish
        )
    except FateboardError as exc:
        return refuse_in_panel(request, db, exc, acc, "prompts", key=f"prompt-{prompt_id}", by_field=False)
    return render_panel(request, db, acc, "prompts", prompt_result=_html_result(acc, result))


@router.post("/campaigns/{campaign_id}/prompts/{prompt_id}/cancel")
def cancel_prompt(request: Request, db: DB, acc: MemberAccess, publish: Publisher, prompt_id: Id) -> Response:
    try:
        prompts.cancel_prompt(db, acc, prompt_id, publish=publish)
    except FateboardError as exc:
        return refuse_in_panel(request, db, exc, acc, "prompts", key="prompt", by_field=False)
    return render_panel(request, db, acc, "prompts")


@router.post("/campaigns/{campaign_id}/entries/{seq}/void")
def void(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, seq: Id, reason: Annotated[str, Form()] = ""
) -> Response:
    return _correction(request, lambda: corrections.void_entry(db, acc, seq, reason, publish=publish))


@router.post("/campaigns/{campaign_id}/entries/{seq}/reveal")
def reveal(request: Request, db: DB, acc: MemberAccess, publish: Publisher, seq: Id) -> Response:
    return _correction(request, lambda: corrections.reveal_entry(db, acc, seq, publish=publish))


def _correction(request: Request, act: Callable[[], LogEntry]) -> Response:
    try:
        entry = act()
    except FateboardError as exc:
        return render(request, CORRECTION, {"error": rule_message(exc)}, status_code=exc.status_code)
    return render(request, CORRECTION, {"logged": _("Logged as #{seq}.").format(seq=entry.seq)})


@router.post("/campaigns/{campaign_id}/characters/{character_id}/adjust")
def adjust(
    request: Request, db: DB, acc: MemberAccess, publish: Publisher, character_id: Id, form: FormBody
) -> Response:
    where = f"adjust-{character_id}"
    shown = {"reason"}  # the fields the form shows, each with its own place for an error
    try:
        require_narrator(acc)
        character = character_for(db, acc, character_id)
        # The form sends text: each field becomes its type on the system's sheet (an error names the field).
        system = get_system(character.system)
        shown |= {f.name for f in editable_fields(system.sheet, character.sheet, system.labels)}
        changes = sheet_changes(system.sheet, form, prefix="sheet.", error_field=where, labels=system.labels)
        corrections.adjust_sheet(db, acc, character_id, changes, str(form.get("reason", "")), publish=publish)
    except FateboardError as exc:
        # Next to its field when the form shows that field ("lives", "reason"), else under the form (a field the
        # form does not show, such as a mapping sent by hand, has no place of its own: its words would be lost).
        field = exc.field or ""
        name = field.removeprefix(f"{where}-") if field.startswith(f"{where}-") else field.split(".")[0]
        field = f"{where}-{name}" if name in shown else where
        return refuse_in_panel(request, db, exc, acc, "characters", key=field, by_field=False)
    return render_panel(request, db, acc, "characters")
