"""The conflict steps issue 13 left for later (docs/RABBITS-CONFLICTS.md): Fate on the disposition roll, the
spread by hand, calling a conflict off, the wise rerolls and a trait given to the opponent in a conflict roll —
on the page as each phone sees it."""

from __future__ import annotations

import html
from typing import Any

import pytest
from utils.rabbits_conflict import HAZEL, Conflict, warren
from utils.web import form_post, signed_in


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


def test_a_spread_that_does_not_add_up_is_refused_next_to_its_field(conflict: Conflict, new_client: Any) -> None:
    conflict.rabbit("pia", "Bramble", HAZEL)
    conflict.setup("fight", a=("Clover", "Bramble"))
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4, 4], base="health")  # 8
    pia = signed_in(new_client, "pia")
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    text = html.unescape(pia.get(url).text)
    assert 'id="rc-spread-a"' in text and 'name="spread_2"' in text and 'id="rc-spread-b"' not in text
    assert 'id="rc-spread-a"' not in page(conflict, new_client, "otto")
    assert 'id="rc-spread-a"' not in page(conflict, new_client, "nora")  # a players' team: theirs to spread
    version = conflict.encounter().version
    r = form_post(
        pia,
        f"{url}/act/conflict_spread",
        {"character_id": str(conflict.ids["Clover"]), "version": str(version), "spread_1": "5", "spread_2": "5"},
    )
    assert r.status_code == 422
    text = html.unescape(r.text)
    assert 'id="rc-spread-error-a"' in text and "they must add up to the team's disposition, 8" in text
    assert 'id="conflict-error"' not in text and 'aria-invalid="true"' in text
    assert conflict.encounter().version == version
    r = form_post(
        pia,
        f"{url}/act/conflict_spread",
        {"character_id": str(conflict.ids["Clover"]), "version": str(version), "spread_1": "5", "spread_2": "3"},
    )
    assert r.status_code == 200 and 'id="rc-spread-error-a"' not in r.text
    assert conflict.state()["teams"]["a"]["spread"] == {str(conflict.ids["Clover"]): 5, str(conflict.ids["Bramble"]): 3}


def test_only_the_narrators_page_offers_calling_off_and_a_missing_reason_is_shown_at_the_field(
    conflict: Conflict, new_client: Any
) -> None:
    conflict.setup("fight")
    for who in ("pia", "otto"):
        assert 'id="rc-call-off"' not in page(conflict, new_client, who)
    nora = signed_in(new_client, "nora")
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    assert 'id="rc-call-off"' in nora.get(url).text
    version = conflict.encounter().version
    r = form_post(nora, f"{url}/act/conflict_call_off", {"version": str(version), "reason": " "})
    assert r.status_code == 422 and 'id="rc-reason-error"' in r.text and 'id="conflict-error"' not in r.text
    assert conflict.encounter().version == version
    r = form_post(nora, f"{url}/act/conflict_call_off", {"version": str(version), "reason": "Hawk overhead"})
    assert r.status_code == 200, r.text[:300]
    for who in ("pia", "nora"):
        text = page(conflict, new_client, who)
        assert "The narrator called the conflict off" in text and "Hawk overhead" in text
        assert 'id="rc-call-off"' not in text and 'data-phase="over"' in text


def _fight(conflict: Conflict, b_first: str) -> None:
    conflict.setup("fight")
    conflict.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    conflict.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    conflict.script("pia", "Clover", ["attack"] * 3, ["Clover"] * 3)
    conflict.script("otto", "Hazel", [b_first, "attack", "attack"], ["Hazel"] * 3)


def test_the_roll_waits_with_the_wise_rerolls_on_the_rollers_phone(conflict: Conflict, new_client: Any) -> None:
    _fight(conflict, "attack")
    conflict.act("pia", "conflict_roll", "Clover", [5, 1, 1])
    pia = page(conflict, new_client, "pia")
    for button in ("rc-deeper-a", "rc-ofcourse-a", "rc-keep-a"):
        assert f'id="{button}"' in pia, button
    assert 'id="rc-fate-a"' not in pia and '<option translate="no" value="Fox-wise">' in pia
    otto = page(conflict, new_client, "otto")
    assert 'id="rc-deeper-a"' not in otto and "Clover may follow the roll up (Fate, a wise)" in otto
    browser = signed_in(new_client, "pia")
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    r = form_post(
        browser,
        f"{url}/act/conflict_fate",
        {
            "character_id": str(conflict.ids["Clover"]),
            "version": str(conflict.encounter().version),
            "wise_reroll": "deeper",
            "wise": "Owl-wise",
        },
    )
    assert r.status_code == 422 and "not one of this rabbit's wises" in html.unescape(r.text)
    assert 'id="conflict-error"' not in r.text and 'id="rc-deeper-a"' in r.text


def test_the_roll_form_offers_the_opponents_trait_dice_only_in_a_versus_exchange(
    conflict: Conflict, new_client: Any
) -> None:
    _fight(conflict, "attack")  # independent
    assert 'value="aids_opponent"' not in page(conflict, new_client, "pia")
    browser = signed_in(new_client, "pia")
    url = f"/campaigns/{conflict.campaign_id}/encounters/{conflict.encounter_id}"
    r = form_post(
        browser,
        f"{url}/act/conflict_roll",
        {
            "character_id": str(conflict.ids["Clover"]),
            "version": str(conflict.encounter().version),
            "skill": "Fighter",
            "trait": "Quick",
            "trait_use": "aids_opponent",
        },
    )
    text = html.unescape(r.text)
    assert r.status_code == 422 and "only in a versus test" in text
    assert 'id="conflict-error"' not in text and 'class="error field-error"' in text


def test_the_versus_roll_form_offers_it(conflict: Conflict, new_client: Any) -> None:
    _fight(conflict, "defend")  # versus
    assert 'value="aids_opponent"' in page(conflict, new_client, "pia")


def test_a_captain_whose_player_left_is_the_narrators_to_roll_for(conflict: Conflict, new_client: Any) -> None:
    """Issue 35: a conflict whose captain's player left the campaign waited forever ("Waiting for Clover…" on every
    page, no button anywhere). The narrators play a rabbit whose player is gone: the captain's roll is theirs."""
    from sqlalchemy import delete

    from app.campaigns.models import Membership

    conflict.setup("fight")
    assert 'id="rc-roll-dispo-a"' not in page(conflict, new_client, "nora")  # pia is here: hers to roll
    pia = page(conflict, new_client, "pia")  # and no "Raiders's": a team's name takes no English possessive
    assert "Waiting for Hazel to roll the disposition of Raiders…" in pia and "Raiders's" not in pia
    with conflict.factory() as db:
        db.execute(
            delete(Membership).where(
                Membership.campaign_id == conflict.campaign_id, Membership.user_id == conflict.users["pia"]
            )
        )
        db.commit()
    nora = page(conflict, new_client, "nora")
    assert 'id="rc-roll-dispo-a"' in nora and "Waiting for Clover to roll" not in nora
    assert 'id="rc-roll-dispo-a"' not in page(conflict, new_client, "otto")  # not another player's
    entry = conflict.act("nora", "conflict_disposition", "Clover", [6, 1, 1], base="health")
    assert entry.actor_id == conflict.users["nora"]
    nora = page(conflict, new_client, "nora")
    assert 'id="rc-dfate-a"' in nora  # the Fate on the 6 too: the narrator decides for the rabbit
