"""Cats' faces in a log line (issue 14; tests/rolls/test_log_views.py has the dice roller's): a success marked."""

from __future__ import annotations

from app.rolls.faces import entry_faces


def test_a_cats_faces_mark_the_successes() -> None:
    cat = {"dice": [{"sides": 6, "face": f} for f in (2, 5)], "outcome": {"faces": [2, 5]}}
    assert [f["marks"] for f in entry_faces(cat, "cat")] == [["success"], []]
