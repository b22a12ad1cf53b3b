"""The export proves which picture was shown: `python -m app.verify export.json --media DIR` checks the pictures
saved beside it against the SHA-256 in the log's handout entries, and names one whose bytes do not match."""

from __future__ import annotations

from pathlib import Path

import pytest
from utils import pictures
from utils.tables import Table

from app.verify import main


def test_verify_checks_handout_files_beside_the_export(
    table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c, t = table.client, table
    ids = {m["username"]: m["id"] for m in c.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()["members"]}
    made = []
    for title in ("The mill", "The duke's letter"):
        r = c.post(
            f"/api/campaigns/{t.id}/handouts",
            headers=t.narrator,
            data={"title": title},
            files={"file": ("p.jpg", pictures.photo(300, 200), "image/jpeg")},
        )
        made.append(r.json())
    c.post(f"/api/campaigns/{t.id}/handouts/{made[0]['id']}/show", headers=t.narrator, json={"to": [ids["pia"]]})
    c.put(f"/api/campaigns/{t.id}/scene", headers=t.narrator, json={"handout_id": made[1]["id"]})
    export = tmp_path / "export.json"
    export.write_bytes(c.get(f"/api/campaigns/{t.id}/export", headers=t.player).content)
    media = tmp_path / "pictures"
    media.mkdir()
    (media / f"handout-{made[0]['id']}.jpg").write_bytes(c.get(made[0]["url"], headers=t.player).content)
    (media / f"{made[1]['sha256']}.jpg").write_bytes(c.get(made[1]["url"], headers=t.player).content)
    (media / "notes.txt").write_text("not a handout")
    assert main([str(export), "--media", str(media)]) == 0
    out = capsys.readouterr().out
    assert "2 handout file(s) match" in out and out.strip().endswith("commitments opened and checked")

    # one byte changed: the verifier names the file, the handout and the entry
    tampered = bytearray((media / f"handout-{made[0]['id']}.jpg").read_bytes())
    tampered[-3] ^= 0xFF
    (media / f"handout-{made[0]['id']}.jpg").write_bytes(bytes(tampered))
    assert main([str(export), "--media", str(media)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL handout-{made[0]['id']}.jpg: handout {made[0]['id']} (“The mill”, entry #1)" in out
    assert "BROKEN" in out

    # otto was not shown the mill: his export does not name its hash, so his folder cannot claim it
    export.write_bytes(c.get(f"/api/campaigns/{t.id}/export", headers=t.other).content)
    assert made[0]["sha256"] not in export.read_text()
    assert main([str(export), "--media", str(media)]) == 0
    assert "1 handout file(s) match the SHA-256 in the log, 0 do not" in capsys.readouterr().out  # the scene


def test_verify_without_the_folder_is_a_clear_error(table: Table, tmp_path: Path) -> None:
    export = tmp_path / "export.json"
    export.write_bytes(table.client.get(f"/api/campaigns/{table.id}/export", headers=table.player).content)
    assert main([str(export), "--media", str(tmp_path / "missing")]) == 2
