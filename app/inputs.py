"""Input bounds, checked at the edge so a bad value is a 4xx a person can read, never a database error.

- Integers: every id, seq, version and count fits PostgreSQL's INTEGER (the narrowest of our databases):
  ids are 1..2**31-1, seqs and versions 0..2**31-1. `Id`, `Seq` (lax: path, query) and `StrictId`,
  `StrictSeq` (JSON bodies: `true` is not 1) carry the bounds into the OpenAPI document; `parse_int`
  reads form text (ASCII digits only: "²" passes str.isdigit() but is no number).
- Text: no NUL (PostgreSQL refuses it) and no unpaired surrogate (no encoding can store it), anywhere.
  InputGuard checks the path, the query string, headers and JSON / form bodies before any route runs,
  and any JSON number outside -2**31..2**31-1 or not finite (the `params`, `sheet`, `locked` and
  `changes` objects are free-form, so the bound is enforced here rather than by a model).
See docs/INPUT_LIMITS.md.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any
from urllib.parse import unquote_plus

from annotated_types import Ge, Le
from pydantic import BeforeValidator, StrictInt
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app import i18n
from app.errors import BadRequest
from app.security import replay_body as _replay
from app.web import HTMX, REFUSAL, render_text

MAX_INT = 2**31 - 1
MIN_INT = -(2**31)

Id = Annotated[int, Ge(1), Le(MAX_INT)]
Seq = Annotated[int, Ge(0), Le(MAX_INT)]
StrictId = Annotated[StrictInt, Ge(1), Le(MAX_INT)]
StrictSeq = Annotated[StrictInt, Ge(0), Le(MAX_INT)]
StrictCount = Annotated[StrictInt, Ge(MIN_INT), Le(MAX_INT)]
# A query parameter a GET form may send empty (a select's "all" option): "" is None, anything else an `Id`.
OptionalId = Annotated[Id | None, BeforeValidator(lambda v: None if v == "" else v)]


def parse_int(value: object, field: str, *, low: int = 1, high: int = MAX_INT, signed: bool = False) -> int | None:
    """Form text → a whole number in low..high, or None when empty. Only ASCII digits (and a leading minus
    when `signed`) count: str.isdigit() also accepts "²" and "١", which int() refuses or reads differently."""
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    digits = text[1:] if signed and text[:1] == "-" else text
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 10) or not low <= int(text) <= high:
        raise BadRequest(
            i18n.gettext("Enter a whole number from {low} to {high}.").format(low=low, high=high), field=field
        )
    return int(text)


def text_problem(value: str) -> str | None:
    """Why this text cannot be stored, or None."""
    if "\x00" in value:
        return i18n.gettext("contains a NUL character, which is not allowed")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return i18n.gettext("contains an unpaired surrogate (broken Unicode), which is not allowed")
    return None


def json_problem(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first (field, problem) in a parsed JSON document: bad text (values and keys), integers outside
    MIN_INT..MAX_INT, or numbers that are not finite (Python's json reads NaN, Infinity and 1e999)."""
    if isinstance(value, str):
        problem = text_problem(value)
        return (where, problem) if problem else None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        if not MIN_INT <= value <= MAX_INT:
            return where, i18n.gettext("must be a whole number from {low} to {high}").format(low=MIN_INT, high=MAX_INT)
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, i18n.gettext("must be a finite number"))
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            problem = text_problem(str(key))
            if problem:
                return inner, problem
            found = json_problem(item, inner)
            if found:
                return found
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = json_problem(item, f"{where}.{index}" if where else str(index))
            if found:
                return found
    return None


# A JSON body needs a full look only when it may hold a \u escape of NUL or of a surrogate, a number of
# 10 or more digits, a huge exponent, or NaN/Infinity. Most bodies hold none: one regex search.
_JSON_SUSPECT = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])|[0-9]{10}|[eE][+]?[0-9]{3}|NaN|Infinity")
_HAS_BODY = {"POST", "PUT", "PATCH", "DELETE"}


def _form_problem(raw: bytes, *, encoded: bool) -> tuple[str, str] | None:
    """NUL in urlencoded (as %00 or raw) or multipart bodies; other bad text cannot survive their decoding,
    which replaces invalid UTF-8."""
    if b"\x00" not in raw and not (encoded and b"%00" in raw):
        return None
    field = ""
    if encoded:
        for pair in raw.split(b"&"):
            if b"\x00" in pair or b"%00" in pair:
                field = unquote_plus(pair.partition(b"=")[0].decode("latin-1"))
                break
    return field, i18n.gettext("contains a NUL character, which is not allowed")


# Picture uploads (app/handouts/api.py, routes.py): a multipart body of up to 20 MB whose file holds NUL bytes by
# nature.
# It is not read into memory here: the route streams it to a temporary file and checks its text field itself.
STREAMED_UPLOADS = re.compile(r"^(?:/api)?/campaigns/[0-9]{1,10}/handouts$")


def streamed_upload(scope: Scope) -> bool:
    return (
        scope["method"] == "POST"
        and STREAMED_UPLOADS.match(scope.get("path", "")) is not None
        and media_type(scope) == "multipart/form-data"
    )


def request_problem(scope: Scope, body: bytes | None) -> tuple[str, str] | None:
    if "\x00" in scope.get("path", ""):
        return "path", i18n.gettext("contains a NUL character, which is not allowed")
    query: bytes = scope.get("query_string", b"")
    if query:
        found = _form_problem(query, encoded=True)
        if found:
            return found
    for name, value in scope.get("headers", ()):
        if b"\x00" in value:
            return name.decode("latin-1"), i18n.gettext("contains a NUL character, which is not allowed")
    if not body:
        return None
    media = media_type(scope)
    if media == "application/x-www-form-urlencoded":
        return _form_problem(body, encoded=True)
    if media == "multipart/form-data":
        return _form_problem(body, encoded=False)
    # JSON (`application/json`, `…+json`), no Content-Type at all (FastAPI reads that body as JSON) and anything
    # else: looked at as JSON whenever it is JSON, so no spelling of the header lets a body past the guard.
    if not _JSON_SUSPECT.search(body):
        return None
    try:
        document = json.loads(body)
    except ValueError:
        return None  # not JSON at all: the route answers that itself
    return json_problem(document)


def media_type(scope: Scope) -> str:
    """The request's media type without parameters, lower-cased: media types are case-insensitive (RFC 9110),
    so `Application/JSON; charset=UTF-8` is `application/json`."""
    return Headers(scope=scope).get("content-type", "").partition(";")[0].strip().lower()


class InputGuard:
    """Refuse (422) a request whose path, query, headers or body hold text or numbers no route may see.
    Plain ASGI, like the other middleware: responses, streams included, pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body: bytes | None = None
        if scope["method"] in _HAS_BODY and not streamed_upload(scope):
            body = await _read_all(receive)
        found = request_problem(scope, body)
        if found is not None:
            await _refuse(scope, send, *found)
            return
        await self.app(scope, _replay(body, receive) if body is not None else receive, send)


async def _read_all(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _refuse(scope: Scope, send: Send, field: str, problem: str) -> None:
    headers = Headers(scope=scope)
    message = f"{field}: {problem}." if field else f"{problem[:1].upper()}{problem[1:]}."
    wants_html = not scope["path"].startswith("/api/") and (
        "text/html" in headers.get("accept", "") or HTMX.from_headers(headers).request
    )
    if wants_html:
        payload = render_text(REFUSAL, message=message).encode()
        content_type = b"text/html; charset=utf-8"
    else:
        body: dict[str, Any] = {"detail": message, "errors": [message]}
        if field:
            body["field"] = field
        payload = json.dumps(body).encode()
        content_type = b"application/json"
    await send(
        {
            "type": "http.response.start",
            "status": 422,
            "headers": [(b"content-type", content_type), (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})


MAX_IDEMPOTENCY_KEY = 100  # the column's size (log_entries.idempotency_key)


def idempotency_key(value: object) -> str | None:
    """A form's idempotency key: any text up to 100 characters, or None when empty."""
    key = str(value or "")
    if len(key) > MAX_IDEMPOTENCY_KEY:
        # No field: it is hidden, so the form shows the error with the action's own.
        raise BadRequest(i18n.gettext("The form is damaged (its key is too long): reload the page."))
    return key or None
