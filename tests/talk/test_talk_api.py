"""Table talk through the JSON API exactly as ../shared/contracts/TABLE-API.md (sections 1 and 6) names it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.rabbits_conflict import warren
from utils.tables import Table

from app.talk import service as talk

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

HIDDEN = ("request", "dice", "outcome", "summary", "note", "text")


def say(table: Table, who: dict[str, str], text: str, key: str | None = None, **extra: Any):
    headers = {**who, **({"Idempotency-Key": key} if key else {})}
    return table.client.post(f"/api/campaigns/{table.id}/messages", json={"text": text, **extra}, headers=headers)


def me(table: Table, who: dict[str, str]) -> int:
    members = table.client.get(f"/api/campaigns/{table.id}", headers=who).json()["members"]
    names = {"narrator": "nora", "player": "pia", "other": "otto"}
    who_name = next(n for k, n in names.items() if getattr(table, k) is who)
    return next(m["id"] for m in members if m["username"] == who_name)


def test_a_public_message_is_a_chained_entry_every_member_reads(table: Table) -> None:
    r = say(table, table.player, "  Hello **table**\nsecond line  ")
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["kind"] == "message" and entry["visibility"] == "public" and entry["replayed"] is False
    assert entry["text"] == "Hello **table**\nsecond line"
    assert entry["outcome"] == {
        "text": "Hello **table**\nsecond line",
        "mode": "ooc",
        "as_character_id": None,
        "as": None,
    }
    assert len(entry["hash"]) == 64 and entry["prev_hash"] == "0" * 64
    for who in (table.narrator, table.other):
        assert table.log(who)[0]["outcome"] == entry["outcome"]


def test_in_character_needs_a_character_the_player_may_act_for(table: Table) -> None:
    r = say(table, table.player, "I knock.", mode="ic")
    assert r.status_code == 422 and r.json()["field"] == "as_character_id"
    r = say(table, table.player, "I knock.", mode="ic", as_character_id=table.otto_char)
    assert r.status_code == 403 and r.json()["field"] == "as_character_id"
    r = say(table, table.player, "I knock.", mode="ic", as_character_id=table.pia_char)
    assert r.status_code == 201
    assert r.json()["outcome"]["as"] == "Pia's hero" and r.json()["character_id"] == table.pia_char
    foe = table.client.post(
        f"/api/campaigns/{table.id}/characters", headers=table.narrator, json={"name": "Innkeeper", "kind": "npc"}
    ).json()["id"]
    r = say(table, table.narrator, "What'll it be?", mode="ic", as_character_id=foe)
    assert r.status_code == 201 and r.json()["outcome"]["as"] == "Innkeeper"
    r = say(table, table.player, "Also me", mode="ic", as_character_id=foe)
    assert r.status_code == 403
    assert len(table.log(table.narrator)) == 2


@pytest.mark.parametrize("text", ["", "   \n  ", "x" * 4001])
def test_text_bounds(table: Table, text: str) -> None:
    r = say(table, table.player, text)
    assert r.status_code == 422 and r.json()["field"] == "text"
    assert table.log(table.narrator) == []


def test_four_thousand_characters_pass_and_nul_is_refused(table: Table) -> None:
    assert say(table, table.player, "é" * 4000).status_code == 201
    r = say(table, table.player, "a\x00b")
    assert r.status_code == 422
    r = say(table, table.player, "a\x07b")
    assert r.status_code == 422 and r.json()["field"] == "text"
    assert len(table.log(table.narrator)) == 1


def test_narrator_visibility(table: Table) -> None:
    assert say(table, table.player, "psst", visibility="narrator").status_code == 201
    assert table.log(table.narrator)[0]["outcome"]["text"] == "psst"
    assert table.log(table.player)[0]["outcome"]["text"] == "psst"
    hidden = table.log(table.other)[0]
    assert all(hidden[k] is None for k in HIDDEN)


def test_a_whisper_is_read_by_exactly_its_author_and_recipients(table: Table) -> None:
    otto = me(table, table.other)
    r = say(table, table.player, "meet me @otto", visibility="whisper", to=[otto])
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["to"] == [otto]
    assert table.log(table.other)[0]["outcome"]["text"] == "meet me @otto"
    narrator_sees = table.log(table.narrator)[0]
    assert all(narrator_sees[k] is None for k in HIDDEN)  # a narrator not named does not read it
    raw = json.dumps(narrator_sees)
    assert "meet me" not in raw and '"to"' not in raw
    export = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.narrator).json()
    assert "meet me" not in json.dumps(export) and export["entries"][0]["body"] is None


@pytest.mark.parametrize(
    "extra,field",
    [
        ({"visibility": "public", "to": [1]}, "to"),
        ({"visibility": "narrator", "encounter_id": 1}, "encounter_id"),
        ({"visibility": "whisper"}, "to"),
        ({"visibility": "whisper", "to": []}, "to"),
        ({"visibility": "whisper", "to": list(range(1, 22))}, "to"),
        ({"visibility": "whisper", "to": [999]}, "to"),
        ({"visibility": "team"}, "encounter_id"),
        ({"visibility": "shout"}, "visibility"),
        ({"mode": "loud"}, "mode"),
    ],
)
def test_bad_audiences_are_422_and_write_nothing(table: Table, extra: dict[str, Any], field: str) -> None:
    r = say(table, table.player, "hello", **extra)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field, r.json()
    assert table.log(table.narrator) == []


def test_idempotency_replays_the_first_answer_and_refuses_another_body(table: Table) -> None:
    first = say(table, table.player, "once", key="k1")
    again = say(table, table.player, "once", key="k1")
    assert first.status_code == again.status_code == 201
    assert again.json() == {**first.json(), "replayed": True}
    other = say(table, table.player, "twice", key="k1")
    assert other.status_code == 422
    assert len(table.log(table.narrator)) == 1
    roll = say(table, table.player, "/r 1d6", key="k2")
    assert say(table, table.player, "/r 1d6", key="k2").json() == {**roll.json(), "replayed": True}
    assert say(table, table.player, "/r 1d8", key="k2").status_code == 422


def test_slash_r_rolls_through_the_rules_service(table: Table) -> None:
    r = say(table, table.player, "/r 2d6+1 # jump the gap", as_character_id=table.pia_char)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["kind"] == "action" and entry["system"] == "dice" and entry["action"] == "roll"
    assert entry["note"] == "jump the gap" and entry["character_id"] == table.pia_char
    assert entry["outcome"]["total"] == sum(d["face"] for d in entry["dice"]) + 1
    r = say(table, table.player, "/roll 1d20", visibility="narrator")
    assert r.status_code == 201 and r.json()["visibility"] == "narrator"
    assert table.log(table.other)[-1]["outcome"] is None
    bad = say(table, table.player, "/r 3d")
    assert bad.status_code == 422
    assert say(table, table.player, "/r 1d6", visibility="whisper", to=[1]).status_code == 422
    assert len(table.log(table.narrator)) == 2


def test_rate_limit_counts_accepted_posts_and_answers_429_with_retry_after(table: Table) -> None:
    assert say(table, table.player, "x" * 4001).status_code == 422  # refused: does not count
    for n in range(talk.RATE - 1):
        assert say(table, table.player, f"line {n}").status_code == 201
    assert say(table, table.player, "/r 1d6").status_code == 201  # a roll counts too
    r = say(table, table.player, "one too many")
    assert r.status_code == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 10
    assert say(table, table.other, "someone else may still talk").status_code == 201
    assert len(table.log(table.narrator)) == talk.RATE + 1


def test_edit_keeps_the_history_and_only_the_author_edits(table: Table) -> None:
    seq = say(table, table.player, "frist").json()["seq"]
    assert (
        table.client.post(
            f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "hijack"}, headers=table.other
        ).status_code
        == 403
    )
    assert (
        table.client.post(
            f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "hijack"}, headers=table.narrator
        ).status_code
        == 403
    )
    r = table.client.post(
        f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "first"}, headers=table.player
    )
    assert r.status_code == 201, r.text
    edit = r.json()
    assert edit["kind"] == "edit" and edit["target_seq"] == seq and edit["outcome"] == {"text": "first"}
    log = table.log(table.other)
    assert [e["kind"] for e in log] == ["message", "edit"]
    assert log[0]["outcome"]["text"] == "frist"  # the message itself is never rewritten
    assert (
        table.client.post(
            f"/api/campaigns/{table.id}/messages/{seq + 1}/edit", json={"text": "x"}, headers=table.player
        ).status_code
        == 404
    )  # an edit is not a message


def test_retract_by_author_or_a_narrator_who_may_read_it(table: Table) -> None:
    otto = me(table, table.other)
    public = say(table, table.player, "oops").json()["seq"]
    whisper = say(table, table.player, "secret", visibility="whisper", to=[otto]).json()["seq"]
    url = f"/api/campaigns/{table.id}/messages/{{}}/retract"
    assert table.client.post(url.format(public), headers=table.other).status_code == 403
    assert table.client.post(url.format(whisper), headers=table.narrator).status_code == 404  # cannot read it
    r = table.client.post(url.format(public), headers=table.narrator)
    assert r.status_code == 201 and r.json()["kind"] == "retract" and r.json()["target_seq"] == public
    assert table.client.post(url.format(public), headers=table.player).status_code == 409
    assert (
        table.client.post(
            f"/api/campaigns/{table.id}/messages/{public}/edit", json={"text": "x"}, headers=table.player
        ).status_code
        == 409
    )
    assert table.client.post(url.format(whisper), headers=table.player).status_code == 201
    hidden = table.log(table.narrator)[-1]
    assert hidden["kind"] == "retract" and all(hidden[k] is None for k in HIDDEN)
    # The original stays in the log as written, for those who could read it.
    assert table.log(table.player)[0]["outcome"]["text"] == "oops"
    assert (
        table.client.post(f"/api/campaigns/{table.id}/entries/{whisper}/reveal", headers=table.narrator).status_code
        == 422
    )  # talk is never revealed


def test_kind_message_lists_only_talk(table: Table) -> None:
    table.roll(table.player, "1d6")
    seq = say(table, table.player, "hi").json()["seq"]
    table.client.post(f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "hey"}, headers=table.player)
    table.client.post(f"/api/campaigns/{table.id}/messages/{seq}/retract", headers=table.player)
    r = table.client.get(f"/api/campaigns/{table.id}/log", params={"kind": "message"}, headers=table.other)
    assert [e["kind"] for e in r.json()["entries"]] == ["message", "edit", "retract"]
    assert (
        table.client.get(f"/api/campaigns/{table.id}/log", params={"kind": "nonsense"}, headers=table.other).status_code
        == 422
    )


def test_outsiders_and_bad_tokens(table: Table) -> None:
    assert say(table, table.outsider, "hi").status_code == 404
    assert say(table, {"Authorization": "Bearer nope"}, "hi").status_code == 401


def test_mentions_are_recorded_for_members_who_may_read(table: Table) -> None:
    otto = me(table, table.other)
    nora = me(table, table.narrator)
    say(table, table.player, "@OTTO and @nora, look; @nobody")
    say(table, table.player, "@otto only the narrators read this", visibility="narrator")
    log = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.player).json()["entries"]
    assert sorted(log[0]["request"]["mentions"]) == sorted([otto, nora])
    assert log[1]["request"]["mentions"] == []


def test_export_verifies_with_talk(table: Table, tmp_path: Path) -> None:
    otto = me(table, table.other)
    seq = say(table, table.player, "a", visibility="whisper", to=[otto]).json()["seq"]
    table.client.post(f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "b"}, headers=table.player)
    say(table, table.narrator, "public")
    for who in (table.narrator, table.other):
        export = table.client.get(f"/api/campaigns/{table.id}/export", headers=who).json()
        path = tmp_path / "export.json"
        path.write_text(json.dumps(export))
        done = subprocess.run([sys.executable, "-m", "app.verify", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    verify = table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.narrator).json()
    assert verify["ok"] and verify["bodies_checked"] == 3


def test_team_talk_is_read_by_the_team_only(app: Any, client: TestClient) -> None:
    conflict = warren(app, fox=True)
    conflict.setup()
    tokens = {}
    for name in ("nora", "pia", "otto"):
        r = client.post("/api/tokens", json={"username": name, "password": "correct horse"})
        tokens[name] = {"Authorization": f"Bearer {r.json()['token']}"}
    url = f"/api/campaigns/{conflict.campaign_id}/messages"
    r = client.post(
        url,
        json={"text": "we feint first", "visibility": "team", "encounter_id": conflict.encounter_id},
        headers=tokens["pia"],
    )
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["team"]["key"] == "a"
    # The narrator is on no team of players' characters; otto is on the other team.
    r = client.post(
        url, json={"text": "x", "visibility": "team", "encounter_id": conflict.encounter_id}, headers=tokens["nora"]
    )
    assert r.status_code == 422 and r.json()["field"] == "encounter_id"
    for name, reads in (("pia", True), ("otto", False), ("nora", False)):
        entry = client.get(f"/api/campaigns/{conflict.campaign_id}/log", headers=tokens[name]).json()["entries"][-1]
        assert entry["kind"] == "message" and entry["visibility"] == "team"
        assert (entry["outcome"] is not None) == reads, name
        if not reads:
            assert "feint" not in json.dumps(entry)
    assert (
        client.post(
            url, json={"text": "x", "visibility": "team", "encounter_id": 999999}, headers=tokens["pia"]
        ).status_code
        == 404
    )


def test_a_narrator_run_team_is_read_by_the_narrator(app: Any, client: TestClient) -> None:
    conflict = warren(app, fox=True)
    conflict.setup(a=("Clover", "Hazel"), b=("Fox",), b_narrator=True)
    r = client.post("/api/tokens", json={"username": "nora", "password": "correct horse"})
    nora = {"Authorization": f"Bearer {r.json()['token']}"}
    r = client.post(
        f"/api/campaigns/{conflict.campaign_id}/messages",
        headers=nora,
        json={"text": "the fox circles", "visibility": "team", "encounter_id": conflict.encounter_id},
    )
    assert r.status_code == 201, r.text
    assert r.json()["outcome"]["text"] == "the fox circles"


def test_the_verifier_checks_talk_history_from_the_headers(table: Table) -> None:
    """Edits and withdrawals point at an earlier message of the same visibility; only its author edits; nothing
    after a withdrawal (app/rolls/chain.py, _TalkHistory) — checked from the headers, so for every reader."""
    from app.rolls import chain

    seq = say(table, table.player, "first").json()["seq"]
    table.client.post(f"/api/campaigns/{table.id}/messages/{seq}/edit", json={"text": "second"}, headers=table.player)
    table.client.post(f"/api/campaigns/{table.id}/messages/{seq}/retract", headers=table.narrator)
    export = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.other).json()
    assert chain.verify_entries(export["entries"], head=export["head"]).ok
    entries = export["entries"]
    # A forged history (the links recomputed, so only the talk check can notice): the edit by someone else.
    forged = [dict(e) for e in entries]
    forged[1]["actor_id"] = forged[0]["actor_id"] + 1000
    forged[1]["body"], forged[1]["salt"] = None, None
    prev = chain.GENESIS_HASH
    for e in forged:
        e["prev_hash"] = prev
        e["hash"] = prev = chain.entry_hash(prev, e, e["body_hash"])
    checked = chain.verify_entries(forged, head={"seq": len(forged), "hash": prev})
    assert not checked.ok and any("someone else wrote" in p for p in checked.problems), checked.problems
    # An edit of a roll is no edit of a message.
    forged[1]["actor_id"], forged[1]["target_seq"] = entries[1]["actor_id"], 99
    prev = chain.GENESIS_HASH
    for e in forged:
        e["prev_hash"] = prev
        e["hash"] = prev = chain.entry_hash(prev, e, e["body_hash"])
    checked = chain.verify_entries(forged, head={"seq": len(forged), "hash": prev})
    assert any("no earlier message" in p for p in checked.problems), checked.problems
