"""The rules service through the JSON API: rolls, visibility, the chain, export, corrections, idempotency."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from utils.tables import Table

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

HIDDEN = ("request", "dice", "outcome", "summary", "note")


def test_public_roll_is_logged_with_dice_and_chain(table: Table) -> None:
    r = table.roll(table.player, "2d6+1", note="jump the gap")
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["seq"] == 1 and entry["system"] == "dice" and entry["action"] == "roll"
    assert 3 <= entry["outcome"]["total"] <= 13
    assert len(entry["dice"]) == 2 and all(d["sides"] == 6 and 1 <= d["face"] <= 6 for d in entry["dice"])
    assert entry["outcome"]["total"] == sum(d["face"] for d in entry["dice"]) + 1
    assert entry["prev_hash"] == "0" * 64 and len(entry["hash"]) == 64
    assert entry["note"] == "jump the gap" and entry["actor"] == "pia"
    for who in (table.narrator, table.other):
        assert table.log(who)[0]["outcome"] == entry["outcome"]


def test_bad_expression_is_a_clear_422_and_writes_nothing(table: Table) -> None:
    r = table.roll(table.player, "3d")
    assert r.status_code == 422
    assert "column" in r.json()["detail"]
    assert table.log(table.narrator) == []
    r = table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator)
    assert r.json()["last_seq"] == 0


def test_visibility_modes_hide_content_from_the_right_people(table: Table) -> None:
    for mode in ("public", "narrator", "blind", "self"):
        assert table.roll(table.player, "1d20", visibility=mode).status_code == 201
    seen = {
        name: {e["visibility"]: e for e in table.log(who)}
        for name, who in (("roller", table.player), ("narrator", table.narrator), ("other", table.other))
    }
    expect_full = {
        "public": {"roller", "narrator", "other"},
        "narrator": {"roller", "narrator"},
        "blind": {"narrator"},
        "self": {"roller"},
    }
    for mode, full in expect_full.items():
        for viewer in ("roller", "narrator", "other"):
            entry = seen[viewer][mode]
            has_result = entry["outcome"] is not None
            assert has_result == (viewer in full), (mode, viewer)
            if not has_result:
                assert entry["dice"] is None and entry["summary"] is None and entry["note"] is None
            assert len(entry["hash"]) == 64  # everyone sees that it exists
    assert seen["roller"]["blind"]["request"] == {"expression": "1d20"}
    assert seen["other"]["blind"]["request"] is None


def test_export_verifies_offline_and_tampering_is_caught(table: Table, tmp_path: Path) -> None:
    for mode in ("public", "blind", "public", "self"):
        table.roll(table.player, "3d6", visibility=mode)
    seq_blind = 2
    assert (
        table.client.post(f"/api/campaigns/{table.id}/entries/{seq_blind}/reveal", headers=table.narrator).status_code
        == 201
    )
    export = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.other).json()
    assert [e["seq"] for e in export["entries"]] == [1, 2, 3, 4, 5]
    assert export["entries"][1]["body"] is None and export["entries"][4]["body"]["revealed"]["seq"] == 2
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    ok = subprocess.run([sys.executable, "-m", "app.verify", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "OK: 5 entries" in ok.stdout and "1 reveals checked" in ok.stdout
    export["entries"][0]["body"]["outcome"]["total"] += 1
    path.write_text(json.dumps(export))
    bad = subprocess.run([sys.executable, "-m", "app.verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "entry 1: body does not match body_hash" in bad.stdout
    verify = table.client.get(f"/api/campaigns/{table.id}/verify", headers=table.player).json()
    assert verify["ok"] is True and verify["count"] == 5 and verify["head"] == export["entries"][-1]["hash"]


def test_idempotency_key_returns_the_first_result(table: Table) -> None:
    body = {"system": "dice", "action": "roll", "params": {"expression": "1d1000"}}
    url = f"/api/campaigns/{table.id}/actions"
    first = table.client.post(url, json=body, headers={**table.player, "Idempotency-Key": "tap-1"})
    again = table.client.post(url, json=body, headers={**table.player, "Idempotency-Key": "tap-1"})
    assert first.status_code == 201 and again.status_code == 201
    assert again.json()["seq"] == first.json()["seq"] and again.json()["replayed"] is True
    assert again.json()["outcome"] == first.json()["outcome"]
    assert len(table.log(table.narrator)) == 1


def test_void_and_adjust_are_narrator_actions_on_the_log(table: Table) -> None:
    table.roll(table.player, "1d6")
    url = f"/api/campaigns/{table.id}/entries/1/void"
    assert table.client.post(url, json={"reason": "rolled the wrong die"}, headers=table.player).status_code == 403
    r = table.client.post(url, json={"reason": "rolled the wrong die"}, headers=table.narrator)
    assert r.status_code == 201 and r.json()["target_seq"] == 1 and r.json()["kind"] == "void"
    assert table.client.post(url, json={"reason": "again"}, headers=table.narrator).status_code == 409
    assert (
        table.client.post(url.replace("/1/", "/99/"), json={"reason": "x"}, headers=table.narrator).status_code == 404
    )
    adj = f"/api/campaigns/{table.id}/characters/{table.pia_char}/adjust"
    assert (
        table.client.post(
            adj, json={"changes": {"notes": "lost a boot"}, "reason": ""}, headers=table.narrator
        ).status_code
        == 422
    )
    r = table.client.post(adj, json={"changes": {"notes": "lost a boot"}, "reason": "the bog"}, headers=table.narrator)
    assert r.status_code == 201 and r.json()["kind"] == "adjust"
    campaign = table.client.get(f"/api/campaigns/{table.id}", headers=table.player).json()
    pia = next(c for c in campaign["characters"] if c["id"] == table.pia_char)
    assert pia["sheet"]["notes"] == "lost a boot" and pia["version"] == 2
    assert [e["kind"] for e in table.log(table.player)] == ["action", "void", "adjust"]


def test_player_cannot_roll_for_another_players_character(table: Table) -> None:
    r = table.roll(table.player, "1d6", character_id=table.otto_char)
    assert r.status_code == 403 and "your own characters" in r.json()["detail"]
    assert table.roll(table.player, "1d6", character_id=table.pia_char).status_code == 201
    assert table.roll(table.narrator, "1d6", character_id=table.otto_char).status_code == 201
    assert table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["last_seq"] == 2


def test_roll_prompt_locks_the_narrators_parameters(table: Table) -> None:
    url = f"/api/campaigns/{table.id}/prompts"
    r = table.client.post(
        url, json={"character_id": table.pia_char, "locked": {"expression": "1d20+5"}}, headers=table.narrator
    )
    assert r.status_code == 201, r.text
    prompt = r.json()["id"]
    assert table.client.post(url, json={"character_id": table.pia_char}, headers=table.player).status_code == 403
    # Otto cannot answer Pia's prompt; Pia can, and cannot change the dice.
    assert table.roll(table.other, "1d20", prompt_id=prompt).status_code == 403
    r = table.roll(table.player, "100d6", prompt_id=prompt)
    assert r.status_code == 201, r.text
    entry = r.json()
    assert entry["request"]["expression"] == "1d20+5" and entry["request"]["prompt_id"] == prompt
    assert entry["character_id"] == table.pia_char
    assert table.roll(table.player, "1d20", prompt_id=prompt).status_code == 409


def test_log_paging_with_after_and_limit(table: Table) -> None:
    for _ in range(7):
        table.roll(table.player, "1d4")
    r = table.client.get(f"/api/campaigns/{table.id}/log", params={"after": 3, "limit": 2}, headers=table.other)
    assert [e["seq"] for e in r.json()["entries"]] == [4, 5]
    assert (
        table.client.get(f"/api/campaigns/{table.id}/log", params={"limit": 0}, headers=table.other).status_code == 422
    )
