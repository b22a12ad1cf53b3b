"""The conflict steps issue 13 left for later (docs/RABBITS-CONFLICTS.md): Fate on the disposition roll, the
spread by hand, calling a conflict off, the wise rerolls and a trait given to the opponent in a conflict roll —
on the page as each phone sees it."""

from __future__ import annotations

import html
from typing import Any

import pytest
from utils.rabbits_conflict import Conflict, warren
from utils.web import signed_in


@pytest.fixture
def conflict(app: Any) -> Conflict:
    return warren(app, fox=True)


def page(conflict: Conflict, new_client: Any, who: str) -> str:
    browser = signed_in(new_client, who)
    r = browser.get(f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}")
    assert r.status_code == 200, r.text[:300]
    return html.unescape(r.text)


def test_the_disposition_fate_buttons_are_on_the_captains_phone_only(conflict: Conflict, new_client: Any) -> None:
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [6, 1, 1], base="health")
    pia = page(conflict, new_client, "pia")
    assert 'id="rc-dfate-a"' in pia and 'id="rc-dkeep-a"' in pia and 'id="rc-roll-dispo-a"' not in pia
    for who in ("otto", "nora"):
        other = page(conflict, new_client, who)
        assert 'id="rc-dfate-a"' not in other and "Clover may spend Fate on the 6s" in other
