"""The campaign between sessions (issue 36) in real Chromium on 390x844 phones (the narrator too, where it says):

1. A player who was away: "Waiting for you" on the home page lists the roll call with the link that answers it and
   the campaign's unread count; the campaign page opens at a "new since your last visit" divider before the first
   unread line; answering the call from there empties "Waiting for you".
2. The narrator plans a session in their own time zone; both phones answer with one tap and read the time in theirs.
3. A player plays the X-card (one tap, then the confirm): every open page pauses, live, and nothing names her.
4. A recap page on a phone.
Screenshots: test-artifacts/screenshots/between-*.png. Skipped unless TEST_CHROMIUM names a Chromium binary."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from .pages import SHOTS, Tab, Tabs, api_campaign, api_log, api_roll, api_user, check_page, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _say(base: str, campaign_id: int, who: dict[str, str], text: str) -> int:
    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/messages", json={"text": text}, headers=who)
    assert r.status_code == 201, r.text
    return int(r.json()["seq"])


def _table(tabs: Tabs) -> tuple[str, int, dict[str, dict[str, str]], int]:
    base = tabs.base
    who = {name: api_user(base, name) for name in ("nora", "pia", "otto")}
    campaign_id = api_campaign(base, who["nora"], [who["pia"], who["otto"]])
    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/characters", json={"name": "Wren"}, headers=who["pia"])
    assert r.status_code == 201, r.text
    return base, campaign_id, who, int(r.json()["id"])


def _shot(tab: Tab, name: str, problems: list[str], buttons: list[str] | None = None) -> None:
    problems += check_page(tab, name, buttons or [])


def test_a_player_who_was_away_catches_up_and_answers_what_waits(tabs: Tabs) -> None:
    base, campaign_id, who, wren = _table(tabs)
    table = f"/campaigns/{campaign_id}"
    _say(base, campaign_id, who["nora"], "Welcome to the watch.")
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=table)  # she reads #1, then leaves
    pia.page.goto(f"{base}/account")
    first_new = _say(base, campaign_id, who["nora"], "The bell tolls twice.")
    api_roll(base, campaign_id, who["otto"], "2d6")
    _say(base, campaign_id, who["otto"], "Who rang it?")
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        json={"character_id": wren, "locked": {"expression": "1d20"}, "note": "Listen at the door"},
        headers=who["nora"],
    )
    assert r.status_code == 201, r.text
    problems: list[str] = []

    pia.page.goto(f"{base}/campaigns")
    waiting = pia.page.locator("#waiting")
    link = waiting.get_by_role("link", name="A roll for Wren: Listen at the door")
    expect(link).to_be_visible()
    expect(pia.page.locator(".campaigns .unread-count")).to_have_text("3")  # 2 messages, 1 roll (a call is no line)
    _shot(pia, "between-waiting", problems)

    link.click()
    expect(pia.page).to_have_url(f"{base}{table}#prompt-{r.json()['id']}")
    note = pia.page.locator("#unread-note")
    expect(note).to_contain_text("3 new lines since your last visit")
    divider = pia.page.locator("#log-entries > #unread-divider")
    expect(divider).to_be_visible()
    assert pia.page.locator(f"#entry-{first_new}").evaluate("e => e.previousElementSibling.id") == "unread-divider"
    wait_live(pia.page)
    _shot(pia, "between-unread-divider", problems, ["#unread-note a.button"])

    prompt = pia.page.locator("#prompts-panel li.prompt", has_text="Wren")
    prompt.get_by_role("button", name="Roll").click()
    # Answered: the call leaves the panel (the answer's own render, or the live refresh that may follow it).
    expect(pia.page.locator("#prompts-panel li.prompt", has_text="Wren")).to_have_count(0)
    assert [e["action"] for e in api_log(base, campaign_id, who["pia"])][-1] == "roll"

    pia.page.goto(f"{base}/campaigns")
    expect(pia.page.locator("#waiting")).to_contain_text("Nothing waits for you.")
    expect(pia.page.locator(".campaigns .unread-count")).to_have_count(0)  # the campaign page marked it read
    assert not problems, problems


def test_the_narrator_plans_a_session_and_both_phones_answer_in_one_tap(tabs: Tabs) -> None:
    base, campaign_id, who, _wren = _table(tabs)
    table = f"/campaigns/{campaign_id}"
    nora = tabs.open("nora", timezone_id="Europe/Copenhagen")
    pia = tabs.open("pia", timezone_id="Europe/Copenhagen")
    otto = tabs.open("otto", timezone_id="America/New_York")
    for tab in (nora, pia, otto):
        sign_in(tab, base, tab.name, next=table)
    problems: list[str] = []

    plan = nora.page.locator("#between details.plan")
    plan.locator("summary").click()
    expect(nora.page.locator("[data-zone-label]")).to_have_text("(Europe/Copenhagen)")
    nora.page.locator("#plan-start").fill("2030-01-02T19:30")
    nora.page.locator("#plan-title").fill("The Keep")
    _shot(nora, "between-plan-form", problems)
    nora.page.get_by_role("button", name="Propose").click()
    expect(nora.page.locator(".planned-session")).to_contain_text("The Keep")
    listed = httpx2.get(f"{base}/api/campaigns/{campaign_id}/schedule", headers=who["nora"]).json()["upcoming"]
    assert [(s["title"], s["starts_at"]) for s in listed] == [("The Keep", "2030-01-02T18:30:00Z")]

    for tab, answer in ((pia, "Yes"), (otto, "Maybe")):
        tab.page.reload()
        session = tab.page.locator(".planned-session", has_text="The Keep")
        session.get_by_role("button", name=answer, exact=True).click()
        expect(session.get_by_role("button", name=answer, exact=True)).to_have_attribute("aria-pressed", "true")
    expect(otto.page.locator(".planned-session time.local-time")).to_contain_text("1:30")  # 18:30 UTC in New York
    expect(pia.page.locator(".planned-session time.local-time")).to_contain_text("7:30")
    expect(otto.page.locator(".planned-session .countdown")).to_contain_text("in ")
    expect(otto.page.locator(".rsvp-counts")).to_contain_text("yes: 1 (pia)")
    expect(otto.page.locator(".rsvp-counts")).to_contain_text("maybe: 1 (otto)")
    _shot(otto, "between-rsvp", problems, [".rsvp button"])
    answers = httpx2.get(f"{base}/api/campaigns/{campaign_id}/schedule", headers=who["nora"]).json()["upcoming"][0]
    assert sorted(a["answer"] for a in answers["rsvps"]) == ["maybe", "yes"]
    ics = httpx2.get(f"{base}/api/campaigns/{campaign_id}/calendar.ics", headers=who["pia"])
    assert "DTSTART:20300102T183000Z" in ics.text
    assert not problems, problems


def test_an_x_card_pauses_every_open_page_and_names_nobody(tabs: Tabs) -> None:
    base, campaign_id, who, wren = _table(tabs)
    table = f"/campaigns/{campaign_id}"
    pia, otto = tabs.open("pia"), tabs.open("otto")
    nora = tabs.open("nora", desktop=True)
    for tab in (pia, otto):
        sign_in(tab, base, tab.name, next=table)
        wait_live(tab.page)
    sign_in(
        nora, base, "nora", next=f"{table}/characters/{wren}"
    )  # a sheet: no log on the page, the stream all the same
    wait_live(nora.page)
    problems: list[str] = []

    pia.page.locator(".xcard-button").click()
    confirm = pia.page.get_by_role("button", name="Yes, pause the table")
    expect(confirm).to_be_visible()
    _shot(pia, "between-xcard-confirm", problems)
    # What the phone shows (not the whole page): the button above the talk composer, its confirm open.
    pia.page.locator("#log-entries").scroll_into_view_if_needed()
    pia.page.screenshot(path=str(SHOTS / "between-xcard-screen-390.png"))
    box, send = (
        pia.page.locator(".xcard-button").bounding_box(),
        pia.page.locator("#composer-panel .composer-row button").bounding_box(),
    )
    assert box is not None and send is not None
    assert box["y"] + box["height"] <= send["y"] or send["y"] + send["height"] <= box["y"], (box, send)
    confirm.click()
    for tab in (pia, otto, nora):
        expect(tab.page.locator("#xcard-paused")).to_be_visible()
    for tab in (pia, otto):
        expect(tab.page.locator("#log-entries .kind-safety")).to_contain_text("The X-card was played")
    _shot(otto, "between-xcard-paused", problems)
    line = otto.page.locator("#log-entries .kind-safety").inner_text()
    assert "pia" not in line.lower()
    otto.page.locator("[data-xcard-close]").click()
    expect(otto.page.locator("#xcard-paused")).to_be_hidden()
    (entry,) = api_log(base, campaign_id, who["otto"])
    assert entry["kind"] == "safety" and entry["actor"] is None and entry["actor_id"] is None
    assert not problems, problems


def test_a_recap_on_a_phone(tabs: Tabs) -> None:
    base, campaign_id, who, wren = _table(tabs)
    table = f"/campaigns/{campaign_id}"
    nora = tabs.open("nora")
    sign_in(nora, base, "nora", next=table)
    nora.page.locator("#session-title").fill("Bells")
    nora.page.get_by_role("button", name="Start session").click()
    expect(nora.page.locator("#session-panel")).to_contain_text("Session 1: Bells")
    body: dict[str, Any] = {"text": "Halt!", "mode": "ic", "as_character_id": wren}
    assert httpx2.post(f"{base}/api/campaigns/{campaign_id}/messages", json=body, headers=who["pia"]).status_code == 201
    api_roll(base, campaign_id, who["pia"], "3d6")
    api_roll(base, campaign_id, who["nora"], "1d100", visibility="narrator")
    add = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/safety", json={"kind": "veil", "text": "spiders"}, headers=who["otto"]
    )
    assert add.status_code == 201
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}/sessions/1/recap")
    lines = pia.page.locator(".recap-lines li")
    expect(lines).to_have_count(3)  # the start, her line and her roll; the narrator's roll is not there at all
    expect(pia.page.locator(".recap-safety")).to_contain_text("spiders")
    problems: list[str] = []
    _shot(pia, "between-recap", problems)
    assert not problems, problems
