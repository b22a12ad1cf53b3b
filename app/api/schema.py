"""What every JSON API answer and body looks like: ErrorBody (and each error status in the OpenAPI document), the
live streams' documented events, StrictBody, and a domain error as the API answers it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from starlette.responses import JSONResponse

from app.errors import FateboardError


class ErrorBody(BaseModel):
    """Every API error: `detail` in words; `field` names the input to blame, when there is one; `errors`
    lists each problem of a request that failed validation."""

    detail: str
    field: str | None = None
    errors: list[str] | None = None


_ERROR_WORDS = {
    401: "No valid API token (send 'Authorization: Bearer <token>').",
    403: "Signed in, but your role in this campaign does not allow it.",
    404: "No such campaign (or you are not a member), character, entry, prompt or invite.",
    409: "It conflicts with the current state: the sheet or encounter changed, or it was done already.",
    422: "The request is not valid: a field's value, type or size, or text with NUL / broken Unicode.",
    429: "Too many requests (failed sign-ins, sign-ups, or more than 30 messages in 10 seconds): wait (see "
    "Retry-After) and try again.",
    503: "The server is busy checking passwords: wait (see Retry-After) and try again.",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the error statuses a route answers, all with the ErrorBody schema."""
    return {code: {"model": ErrorBody, "description": _ERROR_WORDS[code]} for code in codes}


def stream_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The same for a route whose success is not JSON (FastAPI would file a `model` under the route's own
    media type): errors are JSON all the same. ErrorBody is in the components, every other route uses it."""
    schema = {"$ref": "#/components/schemas/ErrorBody"}
    return {
        code: {"description": _ERROR_WORDS[code], "content": {"application/json": {"schema": schema}}} for code in codes
    }


# One Server-Sent Event, as OpenAPI 3.2's `itemSchema` describes the items of a stream (FastAPI's own shape).
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "event": {"type": "string", "enum": ["entry", "prompts", "encounter"]},
        "data": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    },
}


def event_stream_responses() -> dict[int | str, dict[str, Any]]:
    """The live routes' `responses`: events on success (the routes' response class has no media type, so
    this is the only content documented), JSON errors otherwise."""
    return {
        200: {
            "description": "Server-Sent Events: `entry` (id = seq, data = the entry as JSON), `prompts`, "
            "`encounter` (data = its id).",
            "content": {"text/event-stream": {"itemSchema": SSE_EVENT}},
        },
        **stream_errors(401, 404, 422),
    }


class StrictBody(BaseModel):
    # JSON bodies are typed strictly: `true` is not 1 and "5" is not 5.
    model_config = ConfigDict(strict=True)


def error_response(exc: FateboardError) -> JSONResponse:
    """A domain error as every API route answers it (app/main.py's handler for /api/ paths): ErrorBody."""
    body: dict[str, Any] = {"detail": exc.message}
    if exc.field:
        body["field"] = exc.field
    headers = {"Retry-After": str(exc.retry_after)} if hasattr(exc, "retry_after") else None
    return JSONResponse(body, status_code=exc.status_code, headers=headers)
