"""One way a page route reads its form: the `FormBody` dependency (app/deps.py) reads it on the event loop, so the
route is a plain `def` FastAPI runs in the thread pool. No route reads `request.form()` itself; a form sent as
multipart works as urlencoded does; a body that cannot be read is a 422 in words that writes nothing."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from sqlalchemy import func, select
from utils.routes import registered_routes
from utils.tables import Table
from utils.web import signed_in

from app.deps import read_form
from app.rolls.models import LogEntry

APP = Path(__file__).resolve().parent.parent / "app"


def form_reads(source: str) -> list[int]:
    """The lines of `source` that call `<something>.form(…)` on a name `request` (Starlette's form reader)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "form"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "request"
    ]


def test_only_the_dependency_reads_a_form() -> None:
    found = {
        str(path.relative_to(APP.parent)): lines
        for path in sorted(APP.rglob("*.py"))
        if (lines := form_reads(path.read_text("utf-8")))
    }
    assert found.keys() == {"app/deps.py"}, found


def test_the_check_sees_a_route_reading_its_form() -> None:
    assert form_reads("async def act(request):\n    form = await request.form()\n") == [2]
    assert form_reads("async def act(request):\n    async with request.form(max_files=1) as f:\n        pass\n")
    assert form_reads("def act(request):\n    return request.query_params\n") == []


def _form_routes(app: FastAPI) -> list[APIRoute]:
    def uses_form(dependant: Any) -> bool:
        return any(d.call is read_form or uses_form(d) for d in dependant.dependencies)

    return [r for r in registered_routes(app) if isinstance(r, APIRoute) and uses_form(r.dependant)]


def test_routes_taking_the_form_are_plain_functions(app: FastAPI) -> None:
    routes = _form_routes(app)
    paths = {r.path for r in routes}
    assert {
        "/campaigns/{campaign_id}/characters/{character_id}/act/{action_id}",
        "/campaigns/{campaign_id}/characters/new/{system_id}",
        "/campaigns/{campaign_id}/systems/{system_id}/act/{action_id}",
        "/campaigns/{campaign_id}/encounters/{encounter_id}/act/{action_id}",
        "/campaigns/{campaign_id}/prompts",
        "/campaigns/{campaign_id}/prompts/group",
        "/campaigns/{campaign_id}/prompts/{prompt_id}/complete",
        "/campaigns/{campaign_id}/characters/{character_id}/adjust",
        "/campaigns/{campaign_id}/talk",
        "/campaigns/{campaign_id}/talk/{seq}/edit",
    } <= paths
    # A coroutine here would run the route's database work on the event loop.
    assert [r.path for r in routes if inspect.iscoroutinefunction(r.endpoint)] == []


def _entries(app: FastAPI, campaign_id: int) -> int:
    with app.state.sessionmaker() as db:
        return db.scalar(select(func.count(LogEntry.id)).where(LogEntry.campaign_id == campaign_id)) or 0


def _multipart(fields: dict[str, str], boundary: str = "fateboard-form") -> bytes:
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    ]
    return ("".join(parts) + f"--{boundary}--\r\n").encode()


def test_a_multipart_form_reaches_the_route_like_an_urlencoded_one(app: FastAPI, table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    r = pia.post(
        f"/campaigns/{table.id}/talk",
        content=_multipart({"text": "sent as multipart", "idempotency_key": "m1"}),
        headers={"Content-Type": "multipart/form-data; boundary=fateboard-form", "HX-Request": "true"},
    )
    assert r.status_code == 200 and "Sent (#1)" in r.text, r.text
    r = pia.post(f"/campaigns/{table.id}/talk", data={"text": "sent as urlencoded"}, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "Sent (#2)" in r.text, r.text
    assert _entries(app, table.id) == 2


def test_a_form_that_cannot_be_read_is_a_422_in_words_and_writes_nothing(
    app: FastAPI, table: Table, new_client: Any
) -> None:
    pia = signed_in(new_client, "pia")
    bad_bodies = [
        # No boundary: the parser cannot find the fields.
        ({"Content-Type": "multipart/form-data"}, _multipart({"text": "lost"})),
        # More fields than a form may have (FORM_MAX_FIELDS).
        ({"Content-Type": "application/x-www-form-urlencoded"}, b"&".join([b"text=x"] * 1001)),
    ]
    for headers, body in bad_bodies:
        r = pia.post(f"/campaigns/{table.id}/talk", content=body, headers=headers)
        assert r.status_code == 422, (headers, r.status_code, r.text[:300])
        assert "could not be read" in r.text
    assert _entries(app, table.id) == 0
