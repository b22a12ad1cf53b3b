"""Criticals, natural 1s, doubles and kickers are flagged next to the control that rolled them (issue 14): the dice
box's result, a sheet's result card, ART's "Last roll" card — not only in the log line."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

from starlette.testclient import TestClient
from utils.art import Art
from utils.tables import Table
from utils.web import form_post, signed_in

from app.rolls import service as rolls
from app.rules.dice import ScriptedDice


@contextmanager
def faces(*values: int) -> Iterator[None]:
    with mock.patch.object(rolls, "SecureDice", lambda: ScriptedDice(list(values))):
        yield


def _result(html: str) -> str:
    match = re.search(r'<p class="ok result"[^>]*>(.*?)</p>', html, re.S)
    assert match, html[:2000]
    return match.group(1)


def test_the_dice_box_flags_a_critical_and_a_natural_one(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    t = Table(client)
    pia = signed_in(new_client, "pia")
    with faces(20):
        r = form_post(pia, f"/campaigns/{t.id}/roll", {"expression": "1d20+2", "idempotency_key": "crit-1"})
    assert r.status_code == 200, r.text
    assert '<span class="badge critical">critical</span>' in _result(r.text)
    with faces(1):
        r = form_post(pia, f"/campaigns/{t.id}/roll", {"expression": "1d20", "idempotency_key": "nat-1"})
    assert '<span class="badge fumble">a natural 1</span>' in _result(r.text)
    with faces(7):
        r = form_post(pia, f"/campaigns/{t.id}/roll", {"expression": "1d20", "idempotency_key": "plain-1"})
    assert "badge" not in _result(r.text)
    # A narrator-only roll's card tells the roller nothing about it, marks included.
    with faces(20):
        r = form_post(
            pia, f"/campaigns/{t.id}/roll", {"expression": "1d20", "visibility": "blind", "idempotency_key": "blind-1"}
        )
    assert "badge" not in _result(r.text) and "critical" not in _result(r.text)


def test_an_art_sheet_flags_doubles_and_the_kicker_in_its_result_and_last_roll(art: Art) -> None:
    cid = art.hero()
    with faces(44):
        r = art.act(art.pia, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR"})
    assert r.status_code == 200, r.text
    card = _result(r.text)
    assert (
        '<span class="badge doubles">doubles</span>' in card and '<span class="badge kicker">kicker: 4</span>' in card
    )
    last = r.text[r.text.index('id="art-last"') :]
    last = last[: last.index("</section>")]
    assert '<span class="badge doubles">doubles</span>' in last
    with faces(43):
        r = art.act(art.pia, cid, "trait_roll", {"attribute": "STR", "difficulty": "PR"})
    card = _result(r.text)
    assert "doubles" not in card and '<span class="badge kicker">kicker: 3</span>' in card
