"""The notation through the dice system and the rules service: the note in the expression becomes the entry's note,
each die's marks reach the log's faces, the odds line reads the expression in words (en/de/da), and bad notation is
a 422 with the column."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import form_post, signed_in

from app.docs_page import DOCS
from app.rolls import service as rolls
from app.rolls.faces import entry_faces
from app.rules.dice import ScriptedDice


@contextmanager
def faces(*values: int) -> Iterator[None]:
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(list(values))):
        yield


def _entry(t: Table, seq: int) -> dict[str, object]:
    return next(e for e in t.log(t.narrator) if e["seq"] == seq)


def test_a_trailing_note_becomes_the_entrys_note(client: TestClient) -> None:
    t = Table(client)
    with faces(3, 4):
        r = t.roll(t.player, "2d6+1 # sneak attack")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["outcome"]["total"] == 8 and body["outcome"]["expression"] == "2d6+1"
    assert _entry(t, body["seq"])["note"] == "sneak attack"
    with faces(11):
        r = t.roll(t.player, "1d20+5 Roll for Initiative", note="round 2")
    assert r.status_code == 201, r.text
    assert _entry(t, r.json()["seq"])["note"] == "round 2 — Roll for Initiative"  # the note field first
    with faces(11):
        r = t.roll(t.player, "1d20", note="just the field")
    assert _entry(t, r.json()["seq"])["note"] == "just the field"


def test_each_die_shows_what_happened_to_it(client: TestClient) -> None:
    t = Table(client)
    with faces(1, 5, 6, 1, 2, 4):
        r = t.roll(t.player, "3d6r1!>=6>4")
    assert r.status_code == 201, r.text
    body = r.json()
    # The 1 is rerolled into a 5; the 6 explodes, its new die's 1 is rerolled into a 2; then a 4.
    assert body["outcome"]["marks"] == [
        ["rerolled", "dropped"],
        ["success"],
        ["exploded", "success"],
        ["rerolled", "dropped"],
        [],
        ["success"],
    ]
    shown = entry_faces({"dice": body["dice"], "outcome": body["outcome"]}, "dice")
    assert [f["marks"] for f in shown] == body["outcome"]["marks"]
    with faces(1, 5, 2):
        counted = t.roll(t.player, "3d6>4f1").json()
    assert counted["outcome"]["marks"] == [["failure"], ["success"], []]
    assert counted["outcome"]["total"] == 0
    with faces(1, 2, 3, 3):
        fate = t.roll(t.player, "4dF").json()
    assert [f["face"] for f in entry_faces({"dice": fate["dice"], "outcome": fate["outcome"]}, "dice")] == [-1, 0, 1, 1]
    assert fate["outcome"]["total"] == 1


def test_the_log_page_marks_the_dice_and_shows_labels(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    with faces(1, 5, 2, 6, 3):
        assert t.roll(t.player, "2d8r1kh1 [fire] + {1d6,1d6}kh1").status_code == 201
    page = signed_in(new_client, "otto").get(f"/campaigns/{t.id}").text
    entry = page[page.index('class="faces"') :]
    entry = entry[: entry.index("</p>")]
    assert "die-rerolled" in entry and "die-dropped" in entry
    assert "[fire]" in page


def test_a_division_is_a_fraction_and_a_division_by_zero_a_422(client: TestClient) -> None:
    t = Table(client)
    with faces(3):
        r = t.roll(t.player, "1d6/2")
    assert r.status_code == 201 and r.json()["outcome"]["total"] == 1.5
    with faces(1):
        r = t.roll(t.player, "10/(1d2-1)")
    assert r.status_code == 422
    assert "at column 3" in r.text and "divided by 0" in r.text


def test_an_unknown_operator_is_a_422_with_the_column_and_what_was_expected(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    r = t.roll(t.player, "3d6x")
    assert r.status_code == 422
    assert "at column 4: expected a modifier (like kh3, !, r1, >4), an operator or the end" in r.json()["detail"]
    pia = signed_in(new_client, "pia")
    r = form_post(pia, f"/campaigns/{t.id}/roll", {"expression": "2d6 @"})
    assert r.status_code == 422
    assert "at column 5" in r.text


def test_the_odds_line_reads_the_expression_before_the_roll(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    hx = {"HX-Request": "true"}
    for lang, words in (
        ("en", ["Read as:", "each die showing 4 or more adds another die", "21"]),
        ("de", ["Gelesen als:", "4 oder mehr"]),
        ("da", ["Læst som:", "4 eller mere"]),
    ):
        reader = signed_in(new_client, "pia", lang=lang)
        html = reader.get(f"/campaigns/{t.id}/odds", params={"expression": "3d6!>4"}, headers=hx).text
        for word in words:
            assert word in html, (lang, word, html)
    html = (
        signed_in(new_client, "pia")
        .get(f"/campaigns/{t.id}/odds", params={"expression": "3d6>3 # sneak"}, headers=hx)
        .text
    )
    assert "count the dice showing 3 or more" in html and "note: sneak" in html
    html = (
        signed_in(new_client, "pia")
        .get(f"/campaigns/{t.id}/odds", params={"expression": "10/(1d2-1)"}, headers=hx)
        .text
    )
    assert "can come up 0" in html and "nothing is logged" in html
    assert re.search(r"roll it to see", html)


def test_the_notation_reference_is_linked_from_help_in_three_languages(client: TestClient) -> None:
    help_page = client.get("/help").text
    assert '<a href="/help/notation">' in help_page
    for lang, words in (
        ("en", ["Dice notation", "Where the notations clash", "keep the N highest dice"]),
        ("de", ["Würfelnotation", "Wo die Notationen kollidieren", "die N höchsten Würfel behalten"]),
        ("da", ["Terningnotation", "Hvor notationerne støder sammen", "behold de N højeste"]),
    ):
        page = client.get("/help/notation", headers={"Accept-Language": lang})
        assert page.status_code == 200
        for word in words:
            assert word in page.text, (lang, word)
        assert "<table>" in page.text and "<code>3d6!&gt;4</code>" in page.text
    assert "Würfelnotation" in client.get("/help/notation", params={"lang": "de"}).text
    # Every operator the corpus tests appears in each language's reference with an example.
    for name in ("NOTATION.md", "NOTATION.de.md", "NOTATION.da.md"):
        text = (DOCS / name).read_text("utf-8")
        for operator in (
            "`khN`",
            "`klN`",
            "`dlN`",
            "`dhN`",
            "`!`",
            "`!!`",
            "`!p`",
            "`r`",
            "`ro`",
            "`rr`",
            "`ra`",
            "`miN`",
            "`maN`",
            "`e`",
            "`f`",
            "`dF`",
            "`d%`",
            "`{a+b}kN`",
            "`{a, b, …}kN`",
            "`*`",
            "`/`",
            "`//`",
            "`%`",
            "`floor()`",
            "`round()`",
            "`abs()`",
            "`# ",
            "`\\ ",
            "`8d100d3`",
            "`3d6>3f1`",
        ):
            assert operator in text, (name, operator)
