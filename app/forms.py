"""Form text → typed values, from a pydantic model's field types (shared by routes; no route imports another).

The narrator's "Adjust sheet" form offers the sheet fields a text box can edit (text, whole numbers,
yes/no, choices); lists and nested records are changed by the system's own actions instead.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from app import i18n
from app.errors import BadRequest
from app.inputs import MAX_INT, MIN_INT, parse_int

Kind = Literal["text", "int", "bool"]


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
    name: str
    kind: Kind
    value: str


def editable_fields(model: type[BaseModel], sheet: Mapping[str, Any]) -> list[FormField]:
    """The sheet's fields a text form can edit, with their current values as the form shows them."""
    fields = []
    for name, info in model.model_fields.items():
        kind = field_kind(info.annotation)
        if kind is None or name not in sheet:
            continue
        value = sheet[name]
        shown = ("true" if value else "false") if kind == "bool" else ("" if value is None else str(value))
        fields.append(FormField(name, kind, shown))
    return fields


def sheet_changes(model: type[BaseModel], form: Mapping[str, Any], *, prefix: str, error_field: str) -> dict[str, Any]:
    """The `prefix`ed form fields as typed sheet changes. A field the form cannot edit, or a value that is
    not of the field's type, raises BadRequest with field "<error_field>-<name>" (shown next to it)."""
    changes: dict[str, Any] = {}
    for key, raw in form.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        info = model.model_fields.get(name)
        kind = field_kind(info.annotation) if info is not None else None
        where = f"{error_field}-{name}"
        if kind is None:
            raise BadRequest(i18n.gettext("{name}: this field cannot be changed here.").format(name=name), field=where)
        text = str(raw).strip()
        if kind == "int":
            try:
                value = parse_int(text, where, low=MIN_INT, high=MAX_INT, signed=True)
            except BadRequest:
                value = None
            if value is None:
                raise BadRequest(i18n.gettext("{name}: enter a whole number.").format(name=name), field=where)
            changes[name] = value
        elif kind == "bool":
            if text.lower() not in ("true", "false"):
                raise BadRequest(i18n.gettext("{name}: choose yes or no.").format(name=name), field=where)
            changes[name] = text.lower() == "true"
        else:
            changes[name] = str(raw)
    return changes
