"""Rabbits' faces in a log line (issue 14; tests/rolls/test_log_views.py has the dice roller's): successes,
the pool's named parts, a reroll of an earlier roll, and a real test's line naming each helper."""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.rolls.faces import entry_details, entry_faces


def test_a_rabbits_roll_marks_successes_and_names_its_parts() -> None:
    rabbits = {"dice": [{"sides": 6, "face": 4}], "outcome": {"breakdown": [["Scout", 3], ["Help from Moss", 1]]}}
    assert entry_faces(rabbits, "rabbits")[0]["marks"] == ["success"]
    assert entry_details(rabbits, "rabbits") == ["Scout +3", "Help from Moss +1"]


def test_a_reroll_marks_the_rerolled_faces() -> None:
    """A reroll of an earlier roll (Rabbits' Fate in a test or a conflict; a wise's reroll in place)."""
    fate = {
        "dice": [{"sides": 6, "face": 6}, {"sides": 6, "face": 2}],
        "outcome": {"team": "a", "before": [6, 3], "faces": [6, 3, 6, 2], "successes": 2},
    }
    assert [(f["face"], f["marks"]) for f in entry_faces(fate, "rabbits")] == [
        (6, ["success"]),
        (3, []),
        (6, ["rerolled", "success"]),
        (2, ["rerolled"]),
    ]
    deeper = {"dice": [{"sides": 6, "face": 5}], "outcome": {"before": [4, 1, 2], "faces": [4, 5, 2]}}
    assert [(f["face"], f["marks"], f.get("was")) for f in entry_faces(deeper, "rabbits")] == [
        (4, ["success"], None),
        (5, ["rerolled", "success"], 1),
        (2, [], None),
    ]
    kept = {"dice": [], "outcome": {"before": [6, 3], "faces": [6, 3]}}  # Fate not spent: nothing rerolled
    assert entry_faces(kept, "rabbits") == []


def test_a_rabbits_log_line_names_each_helper(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    """A real `test` with helpers through the service: the log line names each of them (not just "Help +2")."""
    t = Table(client, systems=("rabbits",))
    sheet = {"nature": 4, "skills": {"Scout": 3}, "wises": ["Fox-wise"], "traits": ["Quick"]}
    ids = {}
    for who, name in ((t.player, "Clover"), (t.other, "Moss"), (t.other, "Bramble")):
        r = client.post(
            f"/api/campaigns/{t.id}/characters", headers=who, json={"name": name, "system": "rabbits", "sheet": sheet}
        )
        assert r.status_code == 201, r.text
        ids[name] = r.json()["id"]
    r = client.post(
        f"/api/campaigns/{t.id}/actions",
        headers=t.player,
        json={
            "system": "rabbits",
            "action": "test",
            "character_id": ids["Clover"],
            "params": {"skill": "Scout", "ob": 2, "helpers": [ids["Moss"], ids["Bramble"]]},
        },
    )
    assert r.status_code == 201, r.text
    seq = r.json()["seq"]
    assert r.json()["outcome"]["pool"] == 5
    for reader in ("pia", "otto", "nora"):
        page = signed_in(new_client, reader).get(f"/campaigns/{t.id}").text
        start = page.index(f'id="entry-{seq}"')
        line = page[start : page.index("</li>", start)]
        assert re.search(
            r'<p class="details muted">Scout \+3 · Help from Moss \+1 · Help from Bramble \+1</p>', line
        ), line
        assert line.count('class="die') == 5
