"""Schemathesis over the whole /openapi.json, in-process against the ASGI app, on SQLite and PostgreSQL.

Every operation gets valid (positive) and invalid (negative) requests, once with random path parameters and
once inside a seeded campaign, authenticated as its narrator with a real API token. Each response must not
be a server error, and must conform: its status code documented, its content type and body as described.
Fixed seed, EXAMPLES per operation and variant, and a time cap (TIME_CAP) that only a machine under heavy load
reaches. docs/INPUT_LIMITS.md says how to run it alone.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.python.asgi import shutdown_lifespans
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.testclient import TestClient
from utils.tables import Table

from app.systems import SYSTEMS

# The one smoke of every route with hostile input on PostgreSQL too; slow (minutes): handed out first.
pytestmark = [pytest.mark.engines, pytest.mark.slow]

EXAMPLES = 10
# Seconds per database (60 s was cut short on a loaded 2-core box); the cases left when it runs out are counted,
# not silently passed.
TIME_CAP = 240.0
SEED = 20240611
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_openapi_fuzz(app: FastAPI, client: TestClient, database_url: str) -> None:
    table = Table(client, systems=tuple(SYSTEMS))  # every registered system's actions and pages
    for _ in range(2):  # entries #1 and #2, for the void and reveal routes
        assert table.roll(table.narrator, visibility="narrator").status_code == 201
    headers = dict(table.narrator)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    stats: Counter[str] = Counter()
    failures: list[str] = []
    deadline = time.monotonic() + TIME_CAP

    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            in_campaign = "{campaign_id}" in operation.path
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                for fixed in [None, {"campaign_id": table.id}] if in_campaign else [None]:
                    strategy = operation.as_strategy(generation_mode=mode, path_parameters=fixed)
                    _run(strategy, headers, stats, failures, deadline, stream=operation.path.endswith("/events"))
    finally:
        shutdown_lifespans()  # schemathesis keeps the app's lifespan running otherwise

    print(f"\nschemathesis on {database_url.split(':')[0]}: {dict(stats)}")
    assert stats["requests"] > 0
    assert stats["over_time"] == 0, f"the time cap cut {stats['over_time']} cases: lower EXAMPLES"
    assert not failures, "\n\n".join(failures[:5])


def _run(
    strategy, headers: dict[str, str], stats: Counter[str], failures: list[str], deadline: float, *, stream: bool
) -> None:
    @seed(SEED)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def one(case: schemathesis.Case) -> None:
        if time.monotonic() > deadline:
            stats["over_time"] += 1
            return
        # An event stream never ends: read what it sends within a moment, like a client that hangs up.
        response = case.call(headers=headers, **({"timeout": 0.3} if stream else {}))
        stats["requests"] += 1
        stats[f"{response.status_code // 100}xx"] += 1
        if response.status_code >= 500:
            stats["server_errors"] += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except (Exception, BaseExceptionGroup) as exc:  # a FailureGroup: keep going, report them all at the end
            stats["failures"] += 1
            failures.append(f"{case.method} {case.formatted_path}: {exc}")

    try:
        one()
    except Unsatisfiable:  # nothing to make invalid (an operation without parameters or body)
        stats["operations_without_negative_cases"] += 1
