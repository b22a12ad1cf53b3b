""" "Download everything about me" (issue 35): it held my own entries only, not the whispers I received. Now it
also holds what others addressed to me — whispers and team talk naming me, pictures shown to me — and nothing
addressed to others (a narrator reads every shown picture, but only those shown to them are theirs)."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in


def test_the_download_holds_the_whispers_i_received_and_no_others(client: TestClient, new_client: Any) -> None:
    table = Table(client)
    members = client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    ids = {m["username"]: m["id"] for m in members}
    url = f"/api/campaigns/{table.id}/messages"
    to_pia = client.post(
        url, json={"text": "meet me at the well", "visibility": "whisper", "to": [ids["pia"]]}, headers=table.other
    )
    assert to_pia.status_code == 201, to_pia.text
    to_otto = client.post(
        url, json={"text": "the well is a trap", "visibility": "whisper", "to": [ids["otto"]]}, headers=table.narrator
    )
    assert to_otto.status_code == 201, to_otto.text
    mine = client.post(
        url, json={"text": "on my way", "visibility": "whisper", "to": [ids["otto"]]}, headers=table.player
    )
    assert mine.status_code == 201, mine.text

    data = json.loads(signed_in(new_client, "pia").get("/account/export.json").text)
    received = {e["seq"]: e for e in data["received"]}
    assert set(received) == {to_pia.json()["seq"]}, received
    assert received[to_pia.json()["seq"]]["summary"] == "meet me at the well"
    assert mine.json()["seq"] in {e["seq"] for e in data["entries"]}  # my own whisper: among my entries
    assert "the well is a trap" not in json.dumps(data)

    otto = json.loads(signed_in(new_client, "otto").get("/account/export.json").text)
    assert {e["seq"] for e in otto["received"]} == {to_otto.json()["seq"], mine.json()["seq"]}
    nora = json.loads(signed_in(new_client, "nora").get("/account/export.json").text)
    assert nora["received"] == []  # narrators do not read whispers


def test_after_deleting_the_account_the_landing_page_says_so_in_the_accounts_language(
    client: TestClient, new_client: Any
) -> None:
    """Issue 35: the landing page said nothing after a deletion, and in the browser's language (English here)."""
    Table(client)
    pia = signed_in(new_client, "pia")
    r = pia.post("/account/language", data={"locale": "da"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    gone = pia.post("/account/delete", data={"password": "correct horse"}, follow_redirects=False)
    assert gone.status_code == 303 and gone.headers["location"] == "/?account=deleted"
    page = pia.get("/?account=deleted")
    assert page.status_code == 200
    assert 'id="account-deleted"' in page.text and 'lang="da"' in page.text
    assert "Din konto er slettet" in page.text, page.text
    assert 'id="account-deleted"' not in pia.get("/").text  # only right after the deletion
