"""The dice box's odds line and the log's Fate dice, as a new group saw them (issue 35): the practical range of a
reroll with the theoretical one named, the constants and labels read aloud, the hint for `d20adv` (en/de/da), and
Fate dice shown as dF with their sign (+1, 0, -1), never as a d3 showing 1."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.rolls import service as rolls
from app.rules.dice import ScriptedDice

HX = {"HX-Request": "true"}


@contextmanager
def faces(*values: int) -> Iterator[None]:
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(list(values))):
        yield


def _odds(reader: TestClient, t: Table, expression: str) -> str:
    r = reader.get(f"/campaigns/{t.id}/odds", params={"expression": expression}, headers=HX)
    assert r.status_code == 200, r.text
    return re.sub(r"\s+", " ", r.text)


def test_a_reroll_shows_its_practical_range_and_says_the_rest_is_theory(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    for lang, words in (
        ("en", ["16–48", "8–48 is possible only in theory"]),
        ("de", ["16–48", "8–48 ist nur theoretisch möglich"]),
        ("da", ["16–48", "8–48 er kun muligt i teorien"]),
    ):
        html = _odds(signed_in(new_client, "pia", lang=lang), t, "8d6r")
        for word in words:
            assert word in html, (lang, word, html)
        assert "<strong>8–48" not in html
    html = _odds(signed_in(new_client, "pia"), t, "2d8r<2")
    assert "<strong>6–16" in html and "2–16 is possible only in theory" in html
    assert "only in theory" not in _odds(signed_in(new_client, "pia"), t, "4d6ro1")


def test_the_reading_names_constants_labels_and_advantage(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    pia = signed_in(new_client, "pia")
    html = _odds(pia, t, "2d6+1")
    assert "<code>+1</code> add 1" in html, html
    html = _odds(pia, t, "1d20+5 [str]")
    assert "<code>+5[str]</code> add 5; label: str" in html, html
    assert "<code>5[str]</code>" not in html
    for lang, word in (("en", "2d20kh1"), ("de", "für Vorteil"), ("da", "for fordel")):
        html = _odds(signed_in(new_client, "pia", lang=lang), t, "d20adv")
        assert word in html and "2d20kl1" in html, (lang, html)
    assert "<code>+6</code>" in _odds(pia, t, "1d20--6")


def test_fate_dice_show_as_df_with_their_sign(client: TestClient, new_client: Callable[[], TestClient]) -> None:
    t = Table(client)
    with faces(1, 2, 3, 3):
        r = t.roll(t.player, "4dF+1")
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["total"] == 2
    page = signed_in(new_client, "pia").get(f"/campaigns/{t.id}").text
    line = page[page.index(f'id="entry-{r.json()["seq"]}"') :]
    dice = re.findall(r'<span class="die[^"]*"[^>]*>(.*?)</span>\s*(?=<span class="die|</p>)', line, re.S)[:4]
    shown = [re.sub(r"<[^>]+>", "", d).strip() for d in dice]
    assert shown == ["-1dF", "0dF", "+1dF", "+1dF"], shown
    assert "d3" not in "".join(dice)
