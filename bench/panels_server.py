"""The app as bench/panels.py serves it: app.asgi's app, plus a count of the SQL statements each HTTP request
runs (a SQLAlchemy `before_cursor_execute` listener on every engine), sent back in the response header
`X-Bench-Queries`. A request's count is complete when its response starts for every page and fragment (they are
rendered before they are sent); a stream's is not (its header goes first), and no one reads it.

    uvicorn --app-dir bench panels_server:app
"""

from __future__ import annotations

import contextvars
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.asgi import app as fateboard

_count: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("bench_queries", default=None)


@event.listens_for(Engine, "before_cursor_execute")
def _counted(*_args: Any) -> None:
    box = _count.get()  # the request's own box: the thread pool runs sync routes in a copy of its context
    if box is not None:
        box[0] += 1


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        await fateboard(scope, receive, send)
        return
    box = [0]
    token = _count.set(box)

    async def counted_send(message: Any) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            headers.append((b"x-bench-queries", str(box[0]).encode()))
            message = {**message, "headers": headers}
        await send(message)

    try:
        await fateboard(scope, receive, counted_send)
    finally:
        _count.reset(token)
