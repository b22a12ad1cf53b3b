"""Bad input is a 4xx with words a person can read, never a 500, and nothing is half written: one test per

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too
class of input the attacker's probes found (docs/INPUT_LIMITS.md). Runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import csrf_of, form_post

from app.characters.models import Character
from app.inputs import MAX_INT
from app.rolls.models import LogEntry
from app.systems import SYSTEMS

HUGE = "9999999999999999999999999"


def signin(client: TestClient, username: str) -> TestClient:
    r = client.post(
        "/signin",
        data={"username": username, "password": "correct horse", "csrf_token": csrf_of(client, "/signin")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return client


def entries(app, campaign_id: int) -> int:
    with app.state.sessionmaker() as db:
        return db.scalar(select(func.count(LogEntry.id)).where(LogEntry.campaign_id == campaign_id)) or 0


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (f"/api/campaigns/{HUGE}", "Campaign must be at most 2147483647."),
        (f"/api/campaigns/{MAX_INT + 1}", "Campaign must be at most 2147483647."),
        ("/api/campaigns/0", "Campaign must be at least 1."),
        ("/api/campaigns/{id}/log?after=2147483648", "After entry must be at most 2147483647."),
        (f"/api/campaigns/{{id}}/events?after={HUGE}", "After entry must be at most 2147483647."),
    ],
)
def test_integers_out_of_range_in_paths_and_queries_are_422(table: Table, path: str, words: str) -> None:
    r = table.client.get(path.format(id=table.id), headers=table.narrator)
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == words


@pytest.mark.parametrize(
    "extra",
    [
        '"character_id": 9223372036854775808',
        '"character_id": true',
        '"prompt_id": "7"',
        '"expected_version": 2147483648',
        '"params": {"expression": "1d6", "opponent_id": 1099511627776}',
        '"params": {"expression": "1d6", "depth": 1e999}',
        '"params": {"expression": "1d6", "depth": NaN}',
    ],
)
def test_json_numbers_out_of_range_or_of_the_wrong_type_are_422(app, table: Table, extra: str) -> None:
    payload = '{"system": "dice", "action": "roll", "params": {"expression": "1d6"}, ' + extra + "}"
    r = table.client.post(
        f"/api/campaigns/{table.id}/actions",
        content=payload,
        headers={**table.narrator, "Content-Type": "application/json"},
    )
    assert r.status_code == 422, r.text
    assert set(r.json()) <= {"detail", "field", "errors"}
    assert entries(app, table.id) == 0


def test_max_uses_true_is_not_one(table: Table) -> None:
    r = table.client.post(f"/api/campaigns/{table.id}/invites", json={"max_uses": True}, headers=table.narrator)
    assert r.status_code == 422 and r.json()["field"] == "max_uses", r.text


def test_unicode_digits_and_huge_numbers_in_forms_are_422_next_to_the_field(app, table: Table, new_client) -> None:
    nora = signin(new_client(), "nora")
    base = f"/campaigns/{table.id}"
    for value in ("²", "١", HUGE, "-1", "1.5"):
        r = form_post(nora, f"{base}/roll", {"expression": "1d6", "character_id": value})
        assert r.status_code == 422, (value, r.text)
        assert "Enter a whole number from 1 to 2147483647." in r.text
        # (the generic sheet shows no form for the dice roll, so only the status is there to see)
        r = form_post(
            nora,
            f"{base}/characters/{table.pia_char}/act/roll",
            {"expression": "1d6", "expected_version": value, "idempotency_key": "k"},
        )
        assert r.status_code == 422, (value, r.text)
        r = form_post(nora, f"{base}/characters/{table.pia_char}/act/roll", {"expression": "1d6", "prompt_id": value})
        assert r.status_code == 422, (value, r.text)
        r = form_post(nora, f"{base}/characters", {"name": "Extra", "system": "dice", "owner_id": value})
        assert r.status_code == 422 and "Enter a whole number" in r.text, (value, r.text)
        r = form_post(nora, f"{base}/prompts", {"character_id": value, "expression": "1d20"})
        assert r.status_code == 422 and "Enter a whole number" in r.text, (value, r.text)
    r = form_post(nora, f"{base}/roll", {"expression": "1d6", "idempotency_key": "k" * 101})
    assert r.status_code == 422 and "reload the page" in r.text
    assert entries(app, table.id) == 0


@pytest.mark.parametrize("header", ["²", "10000000000000000000000000", "-3", "x"])
def test_a_bad_last_event_id_is_422_before_the_stream_starts(table: Table, header: str) -> None:
    r = table.client.get(
        f"/api/campaigns/{table.id}/events", headers={**table.narrator, "Last-Event-ID": header.encode()}
    )
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "Last-Event-ID"


def test_owner_must_be_a_member(app, table: Table, new_client) -> None:
    for owner in (424242, MAX_INT):
        r = table.client.post(
            f"/api/campaigns/{table.id}/characters", json={"name": "Ghost", "owner_id": owner}, headers=table.narrator
        )
        assert r.status_code == 422 and r.json()["field"] == "owner_id", r.text
    nora = signin(new_client(), "nora")
    r = form_post(nora, f"/campaigns/{table.id}/characters", {"name": "Ghost", "system": "dice", "owner_id": "424242"})
    assert r.status_code == 422 and "must be a member" in r.text
    with app.state.sessionmaker() as db:
        assert db.scalar(select(func.count(Character.id)).where(Character.name == "Ghost")) == 0


@pytest.mark.parametrize("text", ["\ud800", "a\udc00b", "nul\x00here"])
def test_text_with_lone_surrogates_or_nul_is_422(app, table: Table, text: str) -> None:
    c, who = table.client, table.narrator
    raw = ('"' + "".join(c if 32 <= ord(c) < 127 else f"\\u{ord(c):04x}" for c in text) + '"').encode()
    assert table.roll(who).status_code == 201
    calls = [
        (
            "POST",
            f"/api/campaigns/{table.id}/actions",
            b'{"system": "dice", "action": "roll", "params": {"expression": "1d6"}, "note": ' + raw + b"}",
        ),
        ("POST", "/api/campaigns", b'{"name": ' + raw + b"}"),
        ("POST", f"/api/campaigns/{table.id}/entries/1/void", b'{"reason": ' + raw + b"}"),
        ("POST", "/api/tokens", b'{"username": ' + raw + b', "password": "correct horse"}'),
        ("POST", f"/api/campaigns/{table.id}/characters", b'{"name": "x", "sheet": {' + raw + b": 1}}"),
    ]
    for method, path, body in calls:
        r = c.request(method, path, content=body, headers={**who, "Content-Type": "application/json"})
        assert r.status_code == 422, (path, r.text)
        assert "not allowed" in r.json()["detail"]
    assert entries(app, table.id) == 1


@pytest.mark.engines
@pytest.mark.parametrize(
    "content_type", ["Application/JSON", "APPLICATION/JSON; charset=UTF-8", "application/Vnd.X+JSON", None]
)
@pytest.mark.parametrize("text", ["\ud800", "nul\x00here"])
def test_media_types_are_case_insensitive_to_the_guard(app, table: Table, content_type: str | None, text: str) -> None:
    """Issue 35: `Application/JSON` is JSON (media types ignore case), and so is a body without a Content-Type
    (FastAPI reads it as JSON): a NUL or a lone surrogate in it is a 422 from the guard, never stored (SQLite) or a
    500 (PostgreSQL)."""
    raw = ('"' + "".join(c if 32 <= ord(c) < 127 else f"\\u{ord(c):04x}" for c in text) + '"').encode()
    body = b'{"system": "dice", "action": "roll", "params": {"expression": "1d6"}, "note": ' + raw + b"}"
    headers = {**table.narrator, **({"Content-Type": content_type} if content_type else {})}
    r = table.client.post(f"/api/campaigns/{table.id}/actions", content=body, headers=headers)
    assert r.status_code == 422, r.text
    assert "not allowed" in r.json()["detail"]
    r = table.client.post(f"/api/campaigns/{table.id}/messages", content=b'{"text": ' + raw + b"}", headers=headers)
    assert r.status_code == 422, r.text
    assert entries(app, table.id) == 0


def test_nul_in_forms_queries_paths_and_headers_is_422(app, table: Table, new_client) -> None:
    anonymous = new_client()
    r = anonymous.post(
        "/signin", data={"username": "no\x00body", "password": "x", "csrf_token": csrf_of(anonymous, "/signin")}
    )
    assert r.status_code == 422 and "username" in r.text
    r = table.client.post("/api/invites/%00/accept", headers=table.narrator)
    assert r.status_code == 422
    r = table.client.get(f"/api/campaigns/{table.id}/log?after=1%00", headers=table.narrator)
    assert r.status_code == 422
    r = table.client.post(
        f"/api/campaigns/{table.id}/actions",
        headers={**table.narrator, "Idempotency-Key": "a\x00"},
        json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}},
    )
    assert r.status_code == 422 and r.json()["field"] == "idempotency-key"
    nora = signin(new_client(), "nora")
    r = form_post(nora, f"/campaigns/{table.id}/roll", {"expression": "1d6", "note": "x\x00y"})
    assert r.status_code == 422 and "note" in r.text
    assert entries(app, table.id) == 0


@pytest.mark.parametrize("action", ["trait_roll", "defend", "attack"])
def test_dice_box_odds_for_another_system_is_a_clear_422(table: Table, new_client, action: str) -> None:
    nora = signin(new_client(), "nora")
    r = nora.get(f"/campaigns/{table.id}/odds", params={"expression": "1", "system": "art", "action": action})
    assert r.status_code == 422 and "odds are on the character" in r.text


def _with_a_number_to_adjust() -> list[str]:
    """The registered systems whose sheet has a whole-number field the narrator's "Adjust sheet" form edits."""
    from app.forms import editable_fields

    return [
        sid
        for sid, s in SYSTEMS.items()
        if any(f.kind == "int" for f in editable_fields(s.sheet, s.default_sheet(), s.labels))
    ]


@pytest.mark.parametrize("system", _with_a_number_to_adjust())
def test_adjust_sheet_form_round_trips_and_names_a_bad_field(app, client: TestClient, new_client, system: str) -> None:
    table = Table(client, systems=(system,))
    with app.state.sessionmaker() as db:
        user_id = db.scalar(select(Character.owner_id).where(Character.id == table.pia_char))
        ch = Character(
            campaign_id=table.id,
            owner_id=user_id,
            system=system,
            name="Sheet",
            kind="pc",
            sheet=SYSTEMS[system].default_sheet(),
        )
        db.add(ch)
        db.commit()
        cid = ch.id
    nora = signin(new_client(), "nora")
    page = nora.get(f"/campaigns/{table.id}").text
    form = dict(re.findall(rf'id="adj-{cid}-[^"]+" name="(sheet\.[^"]+)" value="([^"]*)"', page))
    form.update(
        re.findall(
            rf'<select id="adj-{cid}-[^"]+" name="(sheet\.[^"]+)">\s*<option value="(true|false)"'
            rf"(?: selected)?",
            page,
        )
    )
    assert form, "the form offers the fields a text box can edit"
    r = form_post(nora, f"/campaigns/{table.id}/characters/{cid}/adjust", {**form, "reason": "as it was"})
    assert r.status_code == 200, r.text  # it used to be a 422: every field went back as text
    int_field, label = next(
        (f.name, f.label)
        for f in __import__("app.forms", fromlist=["x"]).editable_fields(
            SYSTEMS[system].sheet, SYSTEMS[system].default_sheet(), SYSTEMS[system].labels
        )
        if f.kind == "int"
    )
    r = form_post(
        nora, f"/campaigns/{table.id}/characters/{cid}/adjust", {**form, f"sheet.{int_field}": "²", "reason": "typo"}
    )
    assert r.status_code == 422
    assert f"{label}: enter a whole number." in r.text  # the field's label ("Lives"), not its key
    field_html = r.text[r.text.index(f'id="adj-{cid}-{int_field}"') :]
    assert field_html.index("enter a whole number") < field_html.index("</form>")  # next to its field
    with app.state.sessionmaker() as db:
        before = db.scalar(select(Character.sheet).where(Character.id == cid))
    # A field the form does not show (a text where the sheet keeps a mapping): refused in words, under the form.
    r = form_post(nora, f"/campaigns/{table.id}/characters/{cid}/adjust", {"sheet.ranks": "x", "reason": "r"})
    assert r.status_code == 422
    assert re.search(
        rf'hx-post="/campaigns/{table.id}/characters/{cid}/adjust">'
        r'.*?</form>\s*</details>\s*<p class="error" role="alert">[^<]+: this field cannot be changed here\.</p>',
        r.text,
        re.S,
    ), r.text
    with app.state.sessionmaker() as db:
        assert db.scalar(select(Character.sheet).where(Character.id == cid)) == before


def test_every_api_error_is_documented_with_one_body(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            documented = set(op["responses"])
            assert "422" in documented, (method, path)
            # No credentials needed: sign-up, tokens, the push key (contract §6), and a member's calendar feed (its
            # secret URL is the credential: calendar apps send no header; a wrong secret is a 404).
            if path not in ("/api/users", "/api/tokens", "/api/push/key", "/api/calendar-feed/{secret}.ics"):
                assert "401" in documented, (method, path)
            if "{campaign_id}" in path or "{code}" in path:
                assert "404" in documented, (method, path)
            for code in documented - {"200", "201", "204"}:  # 204: no content, by definition
                schema = op["responses"][code]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
    assert "HTTPValidationError" not in spec["components"]["schemas"]
