"""The action route's fast path (app/fastpath.py): a plain request is answered before the router with the route's
own job and response, anything else — and every refusal — by the router, in its own words, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.tables import Table

from app import fastpath

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

ROLL = {"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}, "visibility": "public"}


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The campaign ids of the actions the fast path ran (the router's runs are not counted)."""
    seen: list[int] = []
    real = fastpath.run_action

    async def spy(request: Any, campaign_id: int, body: Any, key: str | None) -> dict[str, Any]:
        seen.append(campaign_id)
        return await real(request, campaign_id, body, key)

    monkeypatch.setattr(fastpath, "run_action", spy)
    return seen


def _headers(r: Any) -> dict[str, str]:
    return {k: v for k, v in r.headers.items() if k not in ("content-length", "date")}


def test_a_plain_action_is_answered_as_the_router_answers_it(client: TestClient, served: list[int]) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    fast = client.post(path, json=ROLL, headers=table.player)
    assert served == [table.id]
    routed = client.post(path + "?via=router", json=ROLL, headers=table.player)  # a query string: the router's
    assert served == [table.id]
    assert fast.status_code == routed.status_code == 201
    assert _headers(fast) == _headers(routed)
    a, b = fast.json(), routed.json()
    assert set(a) == set(b) and a["seq"] + 1 == b["seq"] and a["replayed"] is b["replayed"] is False
    assert {k: v for k, v in a.items() if k in ("kind", "system", "action", "actor", "visibility")} == {
        k: v for k, v in b.items() if k in ("kind", "system", "action", "actor", "visibility")
    }
    log = table.log(table.narrator)
    assert [e["seq"] for e in log][-2:] == [a["seq"], b["seq"]]
    assert client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()["ok"] is True


def test_compression_and_security_headers_still_apply(client: TestClient, served: list[int]) -> None:
    table = Table(client)
    r = client.post(
        f"/api/campaigns/{table.id}/actions",
        json={**ROLL, "note": "x" * 400},  # large enough to be compressed
        headers={**table.player, "Accept-Encoding": "gzip"},
    )
    assert served == [table.id]
    assert r.status_code == 201 and r.json()["note"] == "x" * 400
    assert r.headers.get("content-encoding") == "gzip"
    assert "content-security-policy" in r.headers and r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("body", "who", "extra", "status"),
    [
        ({**ROLL, "params": {"expression": "2d"}}, "player", {}, 422),  # the rules refuse it
        ({**ROLL, "character_id": "7"}, "player", {}, 422),  # not a strict id
        ({**ROLL, "visibility": "everyone"}, "player", {}, 422),
        (ROLL, "outsider", {}, 404),  # not a member
        (ROLL, "player", {"Authorization": "Bearer nonsense"}, 401),
        (ROLL, "player", {"Idempotency-Key": "k" * 101}, 422),  # longer than the route's header allows
    ],
)
def test_refusals_are_the_routers_and_write_nothing(
    client: TestClient, served: list[int], body: dict[str, Any], who: str, extra: dict[str, str], status: int
) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    before = len(table.log(table.narrator))
    headers = {**getattr(table, who), **extra}
    r = client.post(path, json=body, headers=headers)
    routed = client.post(path + "?via=router", json=body, headers=headers)
    assert r.status_code == routed.status_code == status, r.text
    assert r.json() == routed.json() and r.json()["detail"]
    assert len(table.log(table.narrator)) == before


def test_a_body_that_is_not_json_gets_the_routers_answer(client: TestClient, served: list[int]) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    for content in (b"{", b"[]", b'"roll"', b"\xff\xfe"):
        r = client.post(path, content=content, headers={**table.player, "Content-Type": "application/json"})
        assert r.status_code == 422, (content, r.text)
    assert served == []
    assert len(table.log(table.narrator)) == 0


def test_an_idempotency_key_replays_on_the_fast_path(client: TestClient, served: list[int]) -> None:
    table = Table(client)
    path = f"/api/campaigns/{table.id}/actions"
    headers = {**table.player, "Idempotency-Key": "same-roll"}
    first = client.post(path, json=ROLL, headers=headers)
    again = client.post(path, json=ROLL, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["replayed"] is True and again.json()["seq"] == first.json()["seq"]
    other = client.post(path, json={**ROLL, "params": {"expression": "1d4"}}, headers=headers)
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["detail"]  # the router's refusal
    assert served == [table.id] * 3
    assert len(table.log(table.narrator)) == 1
