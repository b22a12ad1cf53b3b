"""Domain errors, with fields. They become HTTP (JSON for /api, a page or fragment otherwise) only at the edge."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from app.i18n import N_, gettext, rule_message
from app.rules.text import RuleText


class FateboardError(Exception):
    status_code = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class BadRequest(FateboardError):
    status_code = 422


class NotSignedIn(FateboardError):
    status_code = 401


class Forbidden(FateboardError):
    status_code = 403


class NotFound(FateboardError):
    status_code = 404


class Conflict(FateboardError):
    status_code = 409


class RetryLater(FateboardError):
    """Refused for now; the response carries Retry-After (seconds)."""

    def __init__(self, message: str, *, retry_after: int, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after


class TooManyRequests(RetryLater):
    status_code = 429


class ServiceBusy(RetryLater):
    status_code = 503


class InvalidValue(RuleText, ValueError):
    """A sheet or params validator's own complaint, translatable: `raise InvalidValue(N_("Nature is at most
    {high}."), high=7)`; pydantic wraps it (type "value_error") and `validation_message` shows it translated."""

    def __init__(self, template: str, **values: Any) -> None:
        super().__init__(self._set_text(template, values))


# Pydantic's error types (`err["type"]`) in our words, English msgids with the error's ctx values; `{field}` is
# the field's label in the reader's language. An unlisted type falls back to "{field} is not valid."
PYDANTIC_MESSAGES: dict[str, str] = {
    "missing": N_("{field} is required."),
    "int_parsing": N_("{field} must be a whole number."),
    "int_type": N_("{field} must be a whole number."),
    "int_from_float": N_("{field} must be a whole number."),
    "float_parsing": N_("{field} must be a number."),
    "float_type": N_("{field} must be a number."),
    "finite_number": N_("{field} must be a number."),
    "bool_parsing": N_("{field} must be yes or no."),
    "bool_type": N_("{field} must be yes or no."),
    "string_type": N_("{field} must be text."),
    "greater_than_equal": N_("{field} must be at least {ge}."),
    "greater_than": N_("{field} must be more than {gt}."),
    "less_than_equal": N_("{field} must be at most {le}."),
    "less_than": N_("{field} must be less than {lt}."),
    "string_too_long": N_("{field} can be at most {max_length} characters long."),
    "string_too_short": N_("{field} must be at least {min_length} characters long."),
    "too_long": N_("{field} can have at most {max_length} entries."),
    "too_short": N_("{field} needs at least {min_length} entries."),
    "literal_error": N_("{field} must be one of: {expected}."),
    "enum": N_("{field} must be one of: {expected}."),
    "list_type": N_("{field} must be a list."),
    "dict_type": N_("{field} must be an object with fields."),
    "model_type": N_("{field} must be an object with fields."),
    "model_attributes_type": N_("{field} must be an object with fields."),
    "extra_forbidden": N_("{field} is not a field here."),
    "json_invalid": N_("The request body is not valid JSON."),
    "string_pattern_mismatch": N_("{field} is not in the expected form."),
}
NOT_VALID = N_("{field} is not valid.")
EMPTY = N_("{field} must not be empty.")
# Labels of request fields that have no `title` in their model (the JSON API's and the forms' common names).
COMMON_LABELS: dict[str, str] = {
    "name": N_("Name"),
    "system": N_("System"),
    "action": N_("Action"),
    "params": N_("Options"),
    "sheet": N_("Sheet"),
    "kind": N_("Kind"),
    "note": N_("Note"),
    "reason": N_("Reason"),
    "visibility": N_("Who sees it"),
    "expression": N_("Dice"),
    "difficulty": N_("Difficulty"),
    "lives": N_("Lives"),
    "character_id": N_("Character"),
    "owner_id": N_("Owner"),
    "ob": N_("Obstacle"),
    "campaign_id": N_("Campaign"),
    "encounter_id": N_("Encounter"),
    "after": N_("After entry"),
    "limit": N_("How many"),
    "username": N_("Username"),
    "password": N_("Password"),
    "locale": N_("Language"),
    "systems": N_("Systems"),
    "skill": N_("Skill"),
    "trait": N_("Trait"),
    "title": N_("Title"),
    "body": N_("The request body"),
}


def field_label(key: str, model: type[BaseModel] | None = None, labels: Mapping[str, str] | None = None) -> str:
    """A field's name in the reader's language: the system's label, the model field's `title` (marked N_),
    a common label, else the key as it is."""
    if labels and key in labels:
        return gettext(labels[key])
    info = model.model_fields.get(key) if model is not None else None
    if info is not None and info.title:
        return gettext(info.title)
    if key in COMMON_LABELS:
        return gettext(COMMON_LABELS[key])
    return key


def _expected(ctx: Mapping[str, Any]) -> str:
    """pydantic's "'easy', 'moderate' or 'hard'" as "easy, moderate, hard" (the values a request sends)."""
    found = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
    return ", ".join(found) if found else str(ctx.get("expected", ""))


def error_message(
    err: Mapping[str, Any], model: type[BaseModel] | None = None, labels: Mapping[str, str] | None = None
) -> str:
    """One pydantic error (an item of `exc.errors()`) in the reader's language, naming the field by its label."""
    ctx = dict(err.get("ctx") or {})
    cause = ctx.get("error")
    if err.get("type") in ("value_error", "assertion_error") and cause is not None:
        return rule_message(cause) if isinstance(cause, RuleText) else str(cause)
    loc = [str(p) for p in err.get("loc", ()) if p not in ("__root__", "body", "query", "path", "header")]
    if loc:
        label = field_label(loc[0], model, labels)
        if len(loc) > 1:
            label = " › ".join([label, *loc[1:]])
    else:
        label = gettext(N_("The value"))
    kind = str(err.get("type", ""))
    template = PYDANTIC_MESSAGES.get(kind, NOT_VALID)
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        template = EMPTY
    if kind in ("literal_error", "enum"):
        ctx["expected"] = _expected(ctx)
    try:
        text = gettext(template).format(field=label, **ctx)
    except (KeyError, IndexError, ValueError):
        text = gettext(NOT_VALID).format(field=label)
    return text[:1].upper() + text[1:]


def validation_message(
    exc: ValidationError, model: type[BaseModel] | None = None, labels: Mapping[str, str] | None = None
) -> tuple[str, str | None]:
    """The first problem of a pydantic error, in the reader's language, and the field it belongs to. `model`
    (its fields' `title`s) and `labels` (a system's sheet labels) name the field as the form does."""
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__") or None
    return error_message(err, model, labels), field
