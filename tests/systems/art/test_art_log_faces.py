"""The ART Engine's faces in a log line (issue 14; tests/rolls/test_log_views.py has the dice roller's):
doubles marked, the kicker shown."""

from __future__ import annotations

from app.rolls.faces import entry_faces


def test_an_art_roll_marks_doubles_and_its_kicker() -> None:
    art = {"dice": [{"sides": 100, "face": 44}], "outcome": {"doubles": True, "kicker": 4}}
    assert entry_faces(art, "art") == [
        {
            "face": 44,
            "sides": 100,
            "marks": ["doubles"],
            "values": {"kicker": 4},
            "labels": ["doubles"],
            "badges": [
                {"mark": "doubles", "label": "doubles"},
                {"mark": "kicker", "label": "kicker: %(k)s", "value": 4},
            ],
        }
    ]
