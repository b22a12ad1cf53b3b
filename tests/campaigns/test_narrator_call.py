"""The narrator's "Call for a roll" (issue 21, item 13): each kind of roll and its fields carry the system it fits
(data-call-kind) and each character its system (data-call-system), for static/js/app.js to show only the kinds
that fit the ticked characters; without JS every kind is there and none is hidden."""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in


def test_the_call_marks_each_kind_and_character_with_its_system(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client, systems=("dice", "cat", "rabbits"))
    r = client.post(
        f"/api/campaigns/{t.id}/characters",
        headers=t.player,
        json={"name": "Clover", "system": "rabbits", "sheet": {"nature": 3, "will": 3, "health": 3}},
    )
    assert r.status_code == 201, r.text
    clover = r.json()["id"]
    page = signed_in(new_client, "nora").get(f"/campaigns/{t.id}/narrator").text
    call = page[page.index('id="group-call"') :]
    assert "data-call-fit" in call
    assert f'value="{clover}" data-call-system="rabbits"' in call
    assert sorted(re.findall(r'<fieldset class="group-kind" data-call-kind="(\w+)"', call)) == [
        "cat",
        "dice",
        "rabbits",
    ]
    assert sorted(re.findall(r'<label class="check" data-call-kind="(\w+)"', call)) == ["cat", "dice", "rabbits"]
    assert not re.search(r"data-call-kind=\"\w+\"[^>]*hidden", call)  # no JS: everything shown
