"""Forms → typed values and action requests (shared by routes; no route imports another).

Every action form (a sheet, a system page, an encounter, a prompt answer) becomes the action's params with
`params_from_form` and reaches the rules service through `act_from_form`. The narrator's "Adjust sheet" form
offers the sheet fields a text box can edit (text, whole numbers, yes/no, choices); lists and nested records
are changed by the system's own actions instead.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from sqlalchemy.orm import Session
from starlette.datastructures import FormData

from app import i18n
from app.campaigns.service import Access
from app.errors import BadRequest, field_label
from app.i18n import rule_message
from app.inputs import MAX_INT, MIN_INT, idempotency_key, parse_int
from app.rolls import service as rolls
from app.rolls.appending import Publish
from app.rolls.visibility import Visibility
from app.systems import ActionError, get_action

Kind = Literal["text", "int", "bool"]
# A form's fields that are not the action's (or the new character's sheet's) own.
FORM_KEYS = {"csrf_token", "idempotency_key", "visibility", "note", "prompt_id", "expected_version"}
VISIBILITIES = ("public", "narrator", "blind", "self")


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


def form_visibility(value: Any) -> Visibility:
    """Who sees the roll, as the form chose it; anything else is public."""
    return Visibility(value) if value in VISIBILITIES else Visibility.PUBLIC


def form_id(form: FormData, name: str, *, low: int = 1) -> int | None:
    """A number the page put in the form (hidden, or a choice): a bad one is the action's error, shown by its
    form, rather than a field's (there is no field to show it next to)."""
    try:
        return parse_int(form.get(name), name, low=low)
    except BadRequest as exc:
        raise BadRequest(f"{field_label(name)}: {rule_message(exc)}") from None


def act_from_form(
    db: Session,
    acc: Access,
    publish: Publish,
    form: FormData,
    *,
    system_id: str,
    action_id: str,
    character_id: int | None = None,
    extra_params: dict[str, Any] | None = None,
    visibility: Visibility | None = None,
) -> rolls.ActionResult:
    """Every action form (sheet, system page, encounter) goes through here: the form becomes the action's
    params and the rules service does the rest. Raises FateboardError; the caller re-renders with it."""
    try:
        _system, action = get_action(system_id, action_id)
    except ActionError as exc:
        raise BadRequest(rule_message(exc), field=exc.field) from exc
    req = rolls.ActionRequest(
        system=system_id,
        action=action.id,
        character_id=character_id if character_id is not None else form_id(form, "character_id"),
        params={**params_from_form(action.params, form), **(extra_params or {})},
        visibility=visibility or form_visibility(form.get("visibility")),
        note=str(form.get("note") or ""),
        prompt_id=form_id(form, "prompt_id"),
        expected_version=form_id(form, "expected_version", low=0),
    )
    return rolls.perform_action(
        db, acc, req, idempotency_key=idempotency_key(form.get("idempotency_key")), publish=publish
    )


def field_kind(annotation: Any) -> Kind | None:
    """What a form can hold for this annotation, or None (lists, dicts, records: not editable as text)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return field_kind(typing.get_args(annotation)[0])
    if origin is Literal:
        return "text" if all(isinstance(v, str) for v in typing.get_args(annotation)) else None
    if origin in (typing.Union, types.UnionType):
        kinds = {field_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if annotation is str:
        return "text"
    return None


@dataclass(frozen=True)
class FormField:
    name: str  # the sheet's key: the input's name
    kind: Kind
    value: str
    label: str = ""  # the field in the reader's language (the system's `labels`), what the form shows


def editable_fields(
    model: type[BaseModel], sheet: Mapping[str, Any], labels: Mapping[str, str] | None = None
) -> list[FormField]:
    """The sheet's fields a text form can edit, with their current values as the form shows them and their
    labels in the reader's language (`labels`: the system's, English msgids)."""
    fields = []
    for name, info in model.model_fields.items():
        kind = field_kind(info.annotation)
        if kind is None or name not in sheet:
            continue
        value = sheet[name]
        shown = ("true" if value else "false") if kind == "bool" else ("" if value is None else str(value))
        fields.append(FormField(name, kind, shown, field_label(name, model, labels)))
    return fields


def sheet_changes(
    model: type[BaseModel],
    form: Mapping[str, Any],
    *,
    prefix: str,
    error_field: str,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The `prefix`ed form fields as typed sheet changes. A field the form cannot edit, or a value that is
    not of the field's type, raises BadRequest with field "<error_field>-<name>" (shown next to it), naming the
    field by its label (`labels`: the system's, English msgids)."""
    changes: dict[str, Any] = {}
    for key, raw in form.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix) :]
        info = model.model_fields.get(name)
        kind = field_kind(info.annotation) if info is not None else None
        where = f"{error_field}-{name}"
        label = field_label(name, model, labels)
        if kind is None:
            raise BadRequest(i18n.gettext("{name}: this field cannot be changed here.").format(name=label), field=where)
        text = str(raw).strip()
        if kind == "int":
            try:
                value = parse_int(text, where, low=MIN_INT, high=MAX_INT, signed=True)
            except BadRequest:
                value = None
            if value is None:
                raise BadRequest(i18n.gettext("{name}: enter a whole number.").format(name=label), field=where)
            changes[name] = value
        elif kind == "bool":
            if text.lower() not in ("true", "false"):
                raise BadRequest(i18n.gettext("{name}: choose yes or no.").format(name=label), field=where)
            changes[name] = text.lower() == "true"
        else:
            changes[name] = str(raw)
    return changes
