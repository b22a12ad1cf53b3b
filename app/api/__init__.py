"""The JSON API (OpenAPI at /docs): bearer tokens, JSON errors with a `detail` a person can read. One module per
part: schema.py (ErrorBody, StrictBody, the documented errors), auth.py (the token's access), action.py (the hot
action route), campaigns.py, talk.py, log.py; `router` holds them all, and the public names are imported here."""

from __future__ import annotations

from fastapi import APIRouter

from app.api import action, campaigns, log, talk
from app.api.action import ActionIn, ActionRoute
from app.api.schema import ErrorBody, StrictBody, error_response, errors, event_stream_responses, stream_errors

router = APIRouter()
for part in (campaigns, action, talk, log):
    router.include_router(part.router)
# What app/main.py puts ahead of every other route (ActionRoute.plain).
ACTION_ROUTE = next(route for route in action.router.routes if isinstance(route, ActionRoute))

__all__ = [
    "ACTION_ROUTE",
    "ActionIn",
    "ActionRoute",
    "ErrorBody",
    "StrictBody",
    "error_response",
    "errors",
    "event_stream_responses",
    "router",
    "stream_errors",
]
