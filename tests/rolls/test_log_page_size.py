"""Settings.log_page_size sets how many entries the campaign page and each "earlier" page show."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import csrf_of

from app.config import Settings


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"log_page_size": 4})


def test_the_log_pages_by_the_configured_size(table: Table, new_client) -> None:
    for _ in range(10):
        table.roll(table.player, "1d4")
    otto: TestClient = new_client()
    r = otto.post(
        "/signin",
        data={"username": "otto", "password": "correct horse", "csrf_token": csrf_of(otto, "/signin")},
        follow_redirects=False,
    )
    assert r.status_code == 303
    page = otto.get(f"/campaigns/{table.id}").text
    assert [int(s) for s in re.findall(r'id="entry-(\d+)"', page)] == [7, 8, 9, 10]
    older = otto.get(f"/campaigns/{table.id}/log", params={"before": 7}).text
    assert [int(s) for s in re.findall(r'id="entry-(\d+)"', older)] == [3, 4, 5, 6]
