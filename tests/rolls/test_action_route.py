"""The action route, one definition (issue 34): `ActionRoute` serves a plain request of
`POST /api/campaigns/{id}/actions` from the route's own declaration without FastAPI's parameter machinery, and
leaves everything else to FastAPI's handler of the same route; the caller is authenticated before the writer,
so a refused token or a non-member never enters a batch (never takes the database's write lock)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, FastAPI, Header, Request
from starlette.testclient import TestClient
from utils.tables import Table

from app import api
from app.accounts import service as accounts
from app.accounts.models import ApiToken, User
from app.inputs import Id

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

ROLL = {"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}, "visibility": "public"}


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each request FastAPI's own handler of the route served (a plain one is served without it)."""
    route = api.ACTION_ROUTE
    seen: list[str] = []
    real = route.routed

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await real(scope, receive, send)

    monkeypatch.setattr(route, "routed", spy)
    return seen


@pytest.fixture
def batches(app: FastAPI) -> Iterator[list[int]]:
    """The campaign ids of the jobs handed to the group-commit writer (each would take the write lock)."""
    writer = app.state.writer
    seen: list[int] = []
    real = writer.run

    async def spy(campaign_id: int, job: Any) -> Any:
        seen.append(campaign_id)
        return await real(campaign_id, job)

    writer.run = spy
    yield seen
    del writer.run


def _long_way(client: TestClient, path: str, body: Any, headers: dict[str, str]) -> Any:
    """The same request sent so that it is not plain (its Content-Type twice): FastAPI's handler answers it."""
    return client.post(
        path,
        content=json.dumps(body).encode(),
        headers=[*headers.items(), ("Content-Type", "application/json"), ("Content-Type", "application/json")],
    )


def _headers(r: Any) -> dict[str, str]:
    return {k: v for k, v in r.headers.items() if k not in ("content-length", "date")}


def test_a_plain_action_is_answered_as_fastapis_handler_answers_it(
    app: FastAPI, client: TestClient, routed: list[str]
) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    plain = client.post(path, json=ROLL, headers=table.player)
    assert routed == []
    long = _long_way(client, path, ROLL, table.player)
    assert plain.status_code == long.status_code == 201
    assert _headers(plain) == _headers(long)
    a, b = plain.json(), long.json()
    assert set(a) == set(b) and a["seq"] + 1 == b["seq"] and a["replayed"] is b["replayed"] is False
    keys = ("kind", "system", "action", "actor", "visibility")
    assert {k: a[k] for k in keys} == {k: b[k] for k in keys}
    assert [e["seq"] for e in table.log(table.narrator)][-2:] == [a["seq"], b["seq"]]
    assert client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"] is True


def test_compression_and_security_headers_still_apply(client: TestClient, routed: list[str]) -> None:
    table = Table(client)
    r = client.post(
        f"/api/campaigns/{table.id}/actions",
        json={**ROLL, "note": "x" * 400},  # large enough to be compressed
        headers={**table.player, "Accept-Encoding": "gzip"},
    )
    assert routed == []
    assert r.status_code == 201 and r.json()["note"] == "x" * 400
    assert r.headers.get("content-encoding") == "gzip"
    assert "content-security-policy" in r.headers and r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("body", "who", "extra", "status", "long"),
    [
        ({**ROLL, "params": {"expression": "2d"}}, "player", {}, 422, False),  # the rules refuse it
        ({**ROLL, "character_id": "7"}, "player", {}, 422, True),  # not a strict id: FastAPI's words
        ({**ROLL, "visibility": "everyone"}, "player", {}, 422, True),
        (ROLL, "outsider", {}, 404, False),  # not a member
        (ROLL, "player", {"Authorization": "Bearer nonsense"}, 401, False),
        (ROLL, "player", {"Idempotency-Key": "k" * 101}, 422, True),  # longer than the route's header allows
    ],
)
def test_refusals_are_the_routes_own_and_write_nothing(
    app: FastAPI,
    client: TestClient,
    routed: list[str],
    body: dict[str, Any],
    who: str,
    extra: dict[str, str],
    status: int,
    long: bool,
) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    before = len(table.log(table.narrator))
    headers = {**getattr(table, who), **extra}
    r = client.post(path, json=body, headers=headers)
    assert len(routed) == int(long)  # only what is not plain goes to FastAPI's handler
    other = _long_way(client, path, body, headers)
    assert r.status_code == other.status_code == status, r.text
    assert r.json() == other.json() and r.json()["detail"]
    assert len(table.log(table.narrator)) == before


def test_a_body_that_is_not_json_gets_fastapis_answer(client: TestClient, routed: list[str]) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    for content in (b"{", b"[]", b'"roll"', b"\xff\xfe"):
        r = client.post(path, content=content, headers={**table.player, "Content-Type": "application/json"})
        assert r.status_code == 422, (content, r.text)
    assert len(routed) == 4
    assert len(table.log(table.narrator)) == 0


def test_an_idempotency_key_replays(client: TestClient, routed: list[str]) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    headers = {**table.player, "Idempotency-Key": "same-roll"}
    first = client.post(path, json=ROLL, headers=headers)
    again = client.post(path, json=ROLL, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["replayed"] is True and again.json()["seq"] == first.json()["seq"]
    other = client.post(path, json={**ROLL, "params": {"expression": "1d4"}}, headers=headers)
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["detail"]
    assert routed == []
    assert len(table.log(table.narrator)) == 1


def test_a_refused_caller_never_enters_the_writer(client: TestClient, batches: list[int]) -> None:
    """A flood of bad tokens (or of a non-member's requests) never takes the write lock: refused before."""
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    for i in range(30):
        r = client.post(path, json=ROLL, headers={"Authorization": f"Bearer fb_nonsense{i}"})
        assert r.status_code == 401, r.text
        r = client.post(path, json=ROLL, headers=table.outsider)
        assert r.status_code == 404, r.text
    r = client.post(path, json=ROLL)  # no token at all
    assert r.status_code == 401, r.text
    assert batches == []
    assert client.post(path, json=ROLL, headers=table.player).status_code == 201
    assert batches == [table.id]


def test_a_token_revoked_after_acting_is_refused_at_once_and_then_before_the_writer(
    app: FastAPI, client: TestClient, batches: list[int]
) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    assert client.post(path, json=ROLL, headers=table.player).status_code == 201  # the hub knows the token now
    digest = accounts.token_digest(table.player["Authorization"].split(" ", 1)[1])
    with app.state.sessionmaker() as db:
        row = db.query(ApiToken).filter(ApiToken.token_hash == digest).one()
        accounts.revoke_token(db, db.get_one(User, row.user_id), row.id)  # what the account page does
        db.commit()
    for _ in range(5):
        r = client.post(path, json=ROLL, headers=table.player)
        assert r.status_code == 401, r.text
    assert batches == [table.id]  # the access event emptied the hub's memory: refused before the writer
    assert len(table.log(table.narrator)) == 1


def test_a_parameter_the_route_class_does_not_read_stops_the_app() -> None:
    """A new Depends (or header, or query parameter) on the route is not silently skipped by the cheap path."""

    def gate(request: Request) -> None:
        return None

    async def action(
        campaign_id: Id,
        body: api.ActionIn,
        request: Request,
        idempotency_key: Annotated[str | None, Header(max_length=100)] = None,
        checked: None = Depends(gate),
    ) -> None:
        return None

    with pytest.raises(RuntimeError, match="ActionRoute reads"):
        APIRouter().add_api_route(
            "/campaigns/{campaign_id}/actions", action, methods=["POST"], route_class_override=api.ActionRoute
        )


@pytest.mark.parametrize("route", ["actions", "messages"])
def test_an_empty_idempotency_key_is_no_key(client: TestClient, route: str) -> None:
    """Every check reads an empty key as none (no replay, no refusal), so it is stored as none: two requests
    with `Idempotency-Key:` empty are two entries, not a unique-constraint error (found by the API fuzz)."""
    table = Table(client)
    path = f"/api/campaigns/{table.id}/{route}"
    body = ROLL if route == "actions" else {"text": "hello"}
    seqs = []
    for _ in range(2):
        r = client.post(path, json=body, headers={**table.player, "Idempotency-Key": ""})
        assert r.status_code == 201, r.text
        assert r.json()["replayed"] is False
        seqs.append(r.json()["seq"])
    assert seqs[1] == seqs[0] + 1
