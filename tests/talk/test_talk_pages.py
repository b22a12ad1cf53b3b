"""Table talk on the pages: the composer (campaign page, sheets), the log's talk lines (speech, table talk, whispers,
edits, withdrawals), the filter and search, the team talk panel; hostile text stays text."""

from __future__ import annotations

import re
from typing import Any

from starlette.testclient import TestClient
from utils.rabbits_conflict import warren
from utils.tables import Table
from utils.web import csrf_of, signed_in


def _hx(b: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(b, "/account"), "HX-Request": "true"}


def _ids(table: Table) -> dict[str, int]:
    members = table.client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    return {m["username"]: m["id"] for m in members}


def _log(b: TestClient, table: Table, **query: str) -> str:
    r = b.get(f"/campaigns/{table.id}", params=query)
    assert r.status_code == 200
    return r.text.split('id="log-entries"')[1].split("</ol>")[0]


def test_composer_on_the_campaign_page_and_on_sheets(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    page = pia.get(f"/campaigns/{table.id}").text
    assert 'id="composer-panel"' in page and 'name="audience"' in page and "data-talk-text" in page
    sheet = pia.get(f"/campaigns/{table.id}/characters/{table.pia_char}").text
    assert 'id="composer-panel"' in sheet
    assert re.search(rf'<option value="{table.pia_char}" selected>', sheet)  # speaks as the sheet's character
    assert f'<option value="{table.otto_char}"' not in sheet  # not as another player's


def test_post_from_the_composer_shows_speech_and_table_talk(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    r = pia.post(
        f"/campaigns/{table.id}/talk",
        data={"text": "Who's there?", "as": str(table.pia_char), "audience": "public", "idempotency_key": "c1"},
        headers=_hx(pia),
    )
    assert r.status_code == 200 and "Sent (#1)" in r.text
    assert re.search(rf'<option value="{table.pia_char}" selected>', r.text)  # the voice is kept
    assert "Who&#39;s there?" not in r.text.split("</textarea>")[0].split("<textarea")[1]  # the text is not
    again = pia.post(
        f"/campaigns/{table.id}/talk",
        data={"text": "Who's there?", "as": str(table.pia_char), "idempotency_key": "c1"},
        headers=_hx(pia),
    )
    assert "already sent" in again.text
    pia.post(f"/campaigns/{table.id}/talk", data={"text": "brb, *coffee*"}, headers=_hx(pia))
    log = _log(signed_in(new_client, "otto"), table)
    assert 'class="talk-text talk-ic"' in log and "Pia&#39;s hero" in log
    assert "<em>coffee</em>" in log


def test_composer_errors_stay_next_to_the_text(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    r = pia.post(f"/campaigns/{table.id}/talk", data={"text": "x" * 4001}, headers=_hx(pia))
    assert r.status_code == 422 and "at most 4,000 characters" in r.text
    assert "x" * 4001 in r.text  # what they typed is kept
    r = pia.post(f"/campaigns/{table.id}/talk", data={"text": "hi", "audience": "whisper"}, headers=_hx(pia))
    assert r.status_code == 422 and "Choose whom to whisper to" in r.text
    assert table.log(table.narrator) == []


def test_slash_r_from_the_composer(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    r = pia.post(f"/campaigns/{table.id}/talk", data={"text": "/r 2d6+1 # jump"}, headers=_hx(pia))
    assert r.status_code == 200 and "#1:" in r.text
    entry = table.log(table.narrator)[0]
    assert entry["kind"] == "action" and entry["note"] == "jump"


HOSTILE = [
    ("<script>alert(1)</script>", "&lt;script&gt;"),
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
    ("![cat](https://example.com/cat.png)", 'href="https://example.com/cat.png"'),
    ('<img src=x onerror="alert(1)">', "&lt;img"),
    ("[ok](https://example.com)", 'rel="nofollow noopener noreferrer"'),
    ("<a href='https://evil.test'>hi</a>", "&lt;a href="),
    ("line one\nline two", "line one<br>"),
]


def test_hostile_text_stays_text(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    for text, _shown in HOSTILE:
        assert pia.post(f"/campaigns/{table.id}/talk", data={"text": text}, headers=_hx(pia)).status_code == 200
    log = _log(signed_in(new_client, "otto"), table)
    for _text, shown in HOSTILE:
        assert shown in log, shown
    assert "<script" not in log and "<img" not in log and 'href="javascript' not in log
    assert re.search(r"<[a-z][^>]*onerror", log) is None and "<a href='" not in log


def test_whispers_show_their_readers_only_to_them(table: Table, new_client: Any) -> None:
    ids = _ids(table)
    pia = signed_in(new_client, "pia")
    r = pia.post(
        f"/campaigns/{table.id}/talk",
        data={"text": "the key is under the mat", "audience": "whisper", "to": str(ids["otto"])},
        headers=_hx(pia),
    )
    assert r.status_code == 200, r.text
    otto_log = _log(signed_in(new_client, "otto"), table)
    assert "the key is under the mat" in otto_log and "Whisper to otto" in otto_log
    assert '<span class="badge vis">whisper</span>' not in otto_log  # the heading says it: no badge repeating it
    for who in ("nora",):
        log = _log(signed_in(new_client, who), table)
        assert "under the mat" not in log and "Whisper to" not in log and "pia whispered to someone" in log
    # The search finds it for its readers only.
    assert "under the mat" in _log(signed_in(new_client, "otto"), table, q="mat")
    assert "hidden entry" not in _log(signed_in(new_client, "nora"), table, q="mat")


def test_edit_history_and_withdraw_on_the_page(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    pia.post(f"/campaigns/{table.id}/talk", data={"text": "teh plan"}, headers=_hx(pia))
    r = pia.post(f"/campaigns/{table.id}/talk/1/edit", data={"text": "the plan"}, headers=_hx(pia))
    assert r.status_code == 200 and 'id="entry-1"' in r.text and "edited" in r.text
    assert "the plan" in r.text and "teh plan" in r.text  # the earlier text one tap away
    otto = signed_in(new_client, "otto")
    line = otto.get(f"/campaigns/{table.id}/talk/1").text
    assert "Edit or withdraw" not in line and "talk-history" in line
    assert otto.post(f"/campaigns/{table.id}/talk/1/retract", headers=_hx(otto)).status_code == 403
    nora = signed_in(new_client, "nora")
    r = nora.post(f"/campaigns/{table.id}/talk/1/retract", headers=_hx(nora))
    assert r.status_code == 200 and "withdrawn" in r.text and "the plan" not in r.text
    log = _log(otto, table)
    assert "withdrawn" in log and "nora" in log
    assert otto.get(f"/campaigns/{table.id}/talk/2").status_code == 404  # an edit is not a message


def test_log_filter_by_kind(table: Table, new_client: Any) -> None:
    ids = _ids(table)
    pia = signed_in(new_client, "pia")
    table.roll(table.player, "1d6")
    pia.post(f"/campaigns/{table.id}/talk", data={"text": "ooc line"}, headers=_hx(pia))
    pia.post(f"/campaigns/{table.id}/talk", data={"text": "ic line", "as": str(table.pia_char)}, headers=_hx(pia))
    pia.post(
        f"/campaigns/{table.id}/talk",
        data={"text": "quiet line", "audience": "whisper", "to": str(ids["otto"])},
        headers=_hx(pia),
    )
    otto = signed_in(new_client, "otto")
    assert list(re.findall(r'data-seq="(\d+)"', _log(otto, table, kind="talk"))) == ["2", "3", "4"]
    assert re.findall(r'data-seq="(\d+)"', _log(otto, table, kind="rolls")) == ["1"]
    assert re.findall(r'data-seq="(\d+)"', _log(otto, table, kind="ic")) == ["3"]
    assert re.findall(r'data-seq="(\d+)"', _log(otto, table, kind="whispers")) == ["4"]
    assert 'data-filter-kind="talk"' in otto.get(f"/campaigns/{table.id}", params={"kind": "talk"}).text


def test_mentions_mark_the_line_for_the_mentioned(table: Table, new_client: Any) -> None:
    pia = signed_in(new_client, "pia")
    pia.post(f"/campaigns/{table.id}/talk", data={"text": "@otto your turn"}, headers=_hx(pia))
    assert "mentions-me" in _log(signed_in(new_client, "otto"), table)
    assert "mentions-me" not in _log(signed_in(new_client, "nora"), table)
    assert 'data-mention="otto"' in pia.get(f"/campaigns/{table.id}").text  # the suggestion list


def test_team_talk_panel_on_the_conflict_page(app: Any, new_client: Any) -> None:
    conflict = warren(app, fox=True)
    conflict.setup()
    eid = conflict.encounter_id
    pia = signed_in(new_client, "pia")
    page = pia.get(f"/campaigns/{conflict.campaign_id}/encounters/{eid}").text
    assert 'id="team-talk"' in page and 'data-live="talk"' in page and "Only your team reads this" in page
    r = pia.post(
        f"/campaigns/{conflict.campaign_id}/talk",
        data={"text": "feint, then attack", "panel": "team", "encounter": str(eid), "audience": f"team:{eid}"},
        headers=_hx(pia),
    )
    assert r.status_code == 200 and "feint, then attack" in r.text and 'id="team-talk"' in r.text
    panels = {
        who: signed_in(new_client, who).get(f"/campaigns/{conflict.campaign_id}/panels/team_talk?of={eid}").text
        for who in ("nora", "otto")
    }
    for panel in panels.values():
        assert "feint" not in panel  # that a team talked, never what
    # On the other team, otto's panel counts the other team's lines and lists none; the narrator's says who talked.
    assert "Another team talked once here" in panels["otto"] and "pia talked with their team" not in panels["otto"]
    assert "pia talked with their team" in panels["nora"]
    assert "<form" not in panels["nora"]  # the narrator is on no team: nothing to write with
    assert "<form" in panels["otto"] and 'Team talk: <span translate="no">Raiders</span>' in panels["otto"]  # his own
    composer = pia.get(f"/campaigns/{conflict.campaign_id}/panels/composer").text
    assert f'value="team:{eid}"' in composer
    assert (
        f'value="team:{eid}"'
        not in signed_in(new_client, "nora").get(f"/campaigns/{conflict.campaign_id}/panels/composer").text
    )
