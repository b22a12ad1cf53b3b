"""A hidden roll changes no sheet anyone can read until it is revealed; corrections are seen by the people
they are about; adjust entries take the visibility of what they change; idempotency keys are bound to their
request."""

from __future__ import annotations

from typing import Any

import pytest
from utils.cat import CatTable
from utils.tables import Table

from app.errors import BadRequest, Conflict, Forbidden
from app.rolls import corrections, patch
from app.rolls import service as rolls

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


@pytest.fixture
def t(app: Any) -> CatTable:
    return CatTable(app)


def _reveal(t: CatTable, who: str, seq: int) -> Any:
    with t.factory() as db:
        return corrections.reveal_entry(db, t.access(db, who), seq)


def _void(t: CatTable, seq: int, reason: str = "wrong trait") -> Any:
    with t.factory() as db:
        return corrections.void_entry(db, t.access(db, "nora"), seq, reason)


def _hidden_test(t: CatTable, cat: int, faces: list[int], visibility: str = "blind") -> Any:
    with t.factory() as db:
        req = rolls.ActionRequest(
            system="cat",
            action="test_fate",
            character_id=cat,
            visibility=visibility,
            params={"trait": "legs", "difficulty": "hard", "dangerous": True},
        )
        from app.rules.dice import ScriptedDice

        return rolls.perform_action(db, t.access(db, "pia"), req, dice=ScriptedDice(faces)).entry


@pytest.mark.parametrize("visibility", ["blind", "narrator"])
def test_a_hidden_failure_and_a_hidden_success_leave_the_same_sheet_until_the_reveal(
    t: CatTable, visibility: str
) -> None:
    failing, winning = t.cat(name="Smoke"), t.cat(name="Soot")
    before_failing, before_winning = t.sheet(failing), t.sheet(winning)
    lost = _hidden_test(t, failing, [2, 3, 5, 3], visibility)  # no 6 on Hard, odd dice: 3 scars
    won = _hidden_test(t, winning, [6, 6, 5, 3], visibility)
    assert t.sheet(failing) == before_failing and t.sheet(winning) == before_winning
    assert lost.body["held"] and lost.body["held"][str(failing)]
    # The reveal applies what the roll held back: the scars wait to be placed now.
    revealer = "nora"
    reveal = _reveal(t, revealer, lost.seq)
    assert t.sheet(failing)["pending"][0]["scars"] == 3
    assert reveal.body["outcome"] == {"held": {str(failing): "applied"}}
    with pytest.raises(Conflict):
        _reveal(t, revealer, lost.seq)  # a second reveal would apply the change twice
    assert won.seq


def test_a_voided_hidden_roll_applies_nothing_at_its_reveal(t: CatTable) -> None:
    cat = t.cat()
    before = t.sheet(cat)
    entry = _hidden_test(t, cat, [2, 3, 5, 3])
    _void(t, entry.seq)
    reveal = _reveal(t, "nora", entry.seq)
    assert t.sheet(cat) == before and reveal.body["outcome"] is None


def test_a_roll_that_changes_a_sheet_cannot_be_kept_to_oneself(t: CatTable) -> None:
    """Its changes would wait for a reveal only the roller could make: they could roll until they liked it."""
    cat = t.cat()
    before = t.sheet(cat)
    with pytest.raises(BadRequest) as exc:
        _hidden_test(t, cat, [2, 3, 5, 3], "self")
    assert exc.value.field == "visibility" and "a narrator must be able to see it" in exc.value.message
    assert t.sheet(cat) == before


def _own_dice_roll(t: CatTable, visibility: str) -> Any:
    with t.factory() as db:
        req = rolls.ActionRequest(system="dice", action="roll", params={"expression": "1d6"}, visibility=visibility)
        return rolls.perform_action(db, t.access(db, "pia"), req).entry


def test_who_may_reveal(t: CatTable) -> None:
    blind = _hidden_test(t, t.cat(name="One"), [6, 6, 5, 3], "blind")
    with pytest.raises(Forbidden):
        _reveal(t, "pia", blind.seq)  # the roller of a blind roll does not know the result
    mine = _own_dice_roll(t, "self")
    with pytest.raises(Forbidden):
        _reveal(t, "nora", mine.seq)
    with pytest.raises(Forbidden):
        _reveal(t, "otto", mine.seq)
    assert _reveal(t, "pia", mine.seq).visibility == "public"
    shown = _hidden_test(t, t.cat(name="Three"), [6, 6, 5, 3], "narrator")
    assert _reveal(t, "pia", shown.seq).target_seq == shown.seq


def test_an_encounter_move_cannot_be_hidden(t: CatTable) -> None:
    a, b = t.cat(name="Smoke"), t.cat("otto", name="Soot")
    with t.factory() as db:
        req = rolls.ActionRequest(
            system="cat", action="challenge", character_id=a, params={"opponent_id": b}, visibility="blind"
        )
        with pytest.raises(BadRequest) as exc:
            rolls.perform_action(db, t.access(db, "pia"), req)
    assert exc.value.field == "visibility"


def test_the_void_of_a_self_roll_is_seen_by_its_roller(table: Table) -> None:
    seq = table.roll(table.player, "1d6", "self").json()["seq"]
    r = table.client.post(
        f"/api/campaigns/{table.id}/entries/{seq}/void", json={"reason": "rolled twice"}, headers=table.narrator
    )
    assert r.status_code == 201, r.text
    void = {e["seq"]: e for e in table.log(table.player)}[r.json()["seq"]]
    assert void["kind"] == "void" and void["text"] == f"voided #{seq}: rolled twice"
    assert {e["seq"]: e for e in table.log(table.other)}[void["seq"]]["summary"] is None


def test_the_void_of_a_blind_roll_tells_its_roller_only_that_it_was_voided(table: Table) -> None:
    seq = table.roll(table.player, "1d6", "blind").json()["seq"]
    r = table.client.post(
        f"/api/campaigns/{table.id}/entries/{seq}/void", json={"reason": "the trap rolled 6"}, headers=table.narrator
    )
    void_seq = r.json()["seq"]
    page = table.client.get(f"/api/campaigns/{table.id}/log", headers=table.player).json()["entries"]
    seen = {e["seq"]: e for e in page}[void_seq]
    assert seen["summary"] is None and seen["request"] is None and seen["target_seq"] == seq


def test_adjusting_a_secret_field_is_seen_by_narrators_and_the_owner_only(client: Any) -> None:
    t = Table(client, systems=("cat",))
    from utils.cat import NEW_CAT

    r = client.post(
        f"/api/campaigns/{t.id}/characters",
        headers=t.player,
        json={"name": "Smoke", "system": "cat", "sheet": {**NEW_CAT}},
    )
    assert r.status_code == 201, r.text
    cat = r.json()["id"]
    r = client.post(
        f"/api/campaigns/{t.id}/characters/{cat}/adjust",
        headers=t.narrator,
        json={"changes": {"secret_name": "Moonpaw"}, "reason": "she learned it"},
    )
    assert r.status_code == 201, r.text
    seq = r.json()["seq"]
    assert r.json()["visibility"] == "narrator"
    by = {
        name: {e["seq"]: e for e in t.log(who)}[seq]
        for name, who in (("owner", t.player), ("other", t.other), ("narrator", t.narrator))
    }
    assert by["owner"]["outcome"]["secret_name"] == {"from": "Ashwhisker", "to": "Moonpaw"}
    assert by["narrator"]["outcome"]["secret_name"]["to"] == "Moonpaw"
    assert by["other"]["outcome"] is None and by["other"]["summary"] is None
    assert "Moonpaw" not in client.get(f"/api/campaigns/{t.id}/export", headers=t.other).text
    # A public field is adjusted in public.
    r = client.post(
        f"/api/campaigns/{t.id}/characters/{cat}/adjust",
        headers=t.narrator,
        json={"changes": {"lives": 8}, "reason": "a close call"},
    )
    assert r.json()["visibility"] == "public"


def test_an_idempotency_key_is_bound_to_its_request(table: Table) -> None:
    key = {"Idempotency-Key": "same-key"}
    first = table.roll({**table.player, **key}, "1d6")
    again = table.roll({**table.player, **key}, "1d6")
    assert first.status_code == again.status_code == 201 and again.json()["replayed"]
    assert again.json()["seq"] == first.json()["seq"]
    other = table.roll({**table.player, **key}, "2d20")
    assert other.status_code == 422 and "different request" in other.json()["detail"]
    assert len(table.log(table.narrator)) == 1


def test_patches_compose_with_what_happened_meanwhile() -> None:
    before = {"fate": 3, "tally": {"pass": 1}, "pending": [], "last": None, "gone": 1}
    after = {"fate": 2, "tally": {"pass": 2}, "pending": [{"scars": 3}], "last": {"seq": 4}, "new": True}
    ops = patch.diff(before, after)
    assert patch.apply(before, ops) == after
    meanwhile = {**before, "fate": 1, "pending": [{"scars": 1}]}  # a point spent and a scar taken since
    applied = patch.apply(meanwhile, ops)
    assert applied["fate"] == 0 and applied["pending"] == [{"scars": 1}, {"scars": 3}]
    assert applied["tally"] == {"pass": 2} and "gone" not in applied and applied["new"] is True
    assert patch.diff(after, after) == []
