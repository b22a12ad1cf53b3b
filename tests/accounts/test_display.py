"""Display settings per account (issue 37): motion, theme, text size, sound and vibration are saved on the account,
shown on every page (base.html's data attributes) and refused field by field when not one of the offered values;
the narrator's table switch for the dice animation. docs/ACCESSIBILITY.md."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from starlette.testclient import TestClient
from utils.tables import Table
from utils.web import signed_in

from app.accounts.models import User

SAVE = {"motion": "off", "theme": "dark", "text_size": "150", "sound": "1"}


def _user(client: TestClient, name: str) -> User:
    app = client.app
    with app.state.sessionmaker() as db:  # type: ignore[attr-defined]
        user = db.query(User).filter_by(username=name).one()
        db.expunge(user)
        return user


def test_a_new_account_is_quiet_and_follows_the_device(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    Table(client)
    pia = signed_in(new_client, "pia")
    page = pia.get("/account").text
    assert 'data-theme="device" data-text-size="100"' in page
    assert 'data-motion="device"' in page and "data-sound" not in page and "data-vibrate" not in page
    assert 'id="motion-device" checked' in page and 'id="theme-device" checked' in page


def test_the_choices_are_saved_on_the_account_and_shown_on_every_page(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    table = Table(client)
    pia = signed_in(new_client, "pia")
    r = pia.post("/account/display", data=SAVE, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/account?display=saved")
    user = _user(client, "pia")
    assert (user.motion, user.theme, user.text_size, user.sound, user.vibration) == ("off", "dark", 150, True, False)
    # Another browser of the same account (a phone after the laptop) gets them too.
    again = signed_in(new_client, "pia")
    page = again.get(f"/campaigns/{table.id}").text
    assert 'data-theme="dark" data-text-size="150"' in page
    assert 'data-motion="off" data-sound' in page and "data-vibrate" not in page
    assert 'id="theme-dark" checked' in again.get("/account").text


@pytest.mark.parametrize(
    ("field", "value"),
    [("motion", "spin"), ("theme", "neon"), ("text_size", "400"), ("text_size", "big"), ("text_size", "")],
)
def test_a_value_not_offered_is_refused_next_to_its_field(
    client: TestClient, new_client: Callable[[], TestClient], field: str, value: str
) -> None:
    Table(client)
    pia = signed_in(new_client, "pia")
    r = pia.post("/account/display", data={**SAVE, field: value}, follow_redirects=False)
    assert r.status_code == 422
    assert f'id="{field}-error"' in r.text and 'aria-invalid="true"' in r.text
    user = _user(client, "pia")
    assert (user.motion, user.theme, user.text_size) == ("device", "device", 100)  # nothing half-saved


def test_the_narrator_turns_the_dice_animation_off_for_the_table(
    client: TestClient, new_client: Callable[[], TestClient]
) -> None:
    table = Table(client)
    nora, pia = signed_in(new_client, "nora"), signed_in(new_client, "pia")
    assert "data-table-still" not in pia.get(f"/campaigns/{table.id}").text
    assert pia.post(f"/campaigns/{table.id}/dice-animation", data={"animation": "off"}).status_code == 403
    r = nora.post(f"/campaigns/{table.id}/dice-animation", data={"animation": "off"}, follow_redirects=False)
    assert r.status_code == 303
    assert "data-table-still" in pia.get(f"/campaigns/{table.id}").text
    assert 'id="table-dice-off" checked' in nora.get(f"/campaigns/{table.id}/narrator").text
    assert nora.post(f"/campaigns/{table.id}/dice-animation", data={"animation": "maybe"}).status_code == 422
    nora.post(f"/campaigns/{table.id}/dice-animation", data={"animation": "on"})
    assert "data-table-still" not in pia.get(f"/campaigns/{table.id}").text
