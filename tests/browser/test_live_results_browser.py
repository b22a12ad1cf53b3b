"""The result lands where the player is looking (issue 14), with the keyboard, in real Chromium on a 390x844 phone:

1. Answering a dice prompt on the campaign page: the result shows in the prompts panel, announced and focused
   (not the next prompt's "Roll" button).
2. A form keeps the player's choices after a roll: checkboxes and numbers too (ART skills, Rabbits' Ob,
   helpers and modifiers), not only selects and radios.
3. The narrator screen's group call for a system's action; a new character appears in its tick list live.
axe-core checks every page state visited (0 serious or critical violations).
Skipped unless TEST_CHROMIUM names a Chromium binary (see tests/browser/conftest.py)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect
from utils.art import balanced_fields
from utils.rabbits import NEW_RABBIT

from . import axe
from .pages import Tab, Tabs, api_invite, api_user, check_page, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _table(base: str, systems: list[str]) -> tuple[int, dict[str, dict[str, str]]]:
    who = {n: api_user(base, n) for n in ("nora", "pia")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "Lanterns", "systems": systems}, headers=who["nora"])
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    code = api_invite(base, campaign_id, who["nora"])
    assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who["pia"]).status_code == 200
    return campaign_id, who


def _character(
    base: str, campaign_id: int, who: dict[str, str], name: str, system: str, sheet: dict[str, Any] | None = None
) -> int:
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who,
        json={"name": name, "system": system, **({"sheet": sheet} if sheet else {})},
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _prompt(
    base: str,
    campaign_id: int,
    narrator: dict[str, str],
    character_id: int,
    system: str,
    action: str,
    locked: dict[str, Any],
) -> None:
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        headers=narrator,
        json={"character_id": character_id, "system": system, "action": action, "locked": locked},
    )
    assert r.status_code == 201, r.text


def _axe(tab: Tab, label: str, problems: list[str]) -> None:
    problems.extend(axe.violations(tab.page, label))


def test_a_dice_prompt_answered_on_the_campaign_page_focuses_its_result(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base, ["dice"])
    wren = _character(base, campaign_id, who["pia"], "Wren", "dice")
    moss = _character(base, campaign_id, who["pia"], "Moss", "dice")
    _prompt(base, campaign_id, who["nora"], wren, "dice", "roll", {"expression": "1d6"})
    _prompt(base, campaign_id, who["nora"], moss, "dice", "roll", {"expression": "1d8"})
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}")
    page = pia.page
    wait_live(page)
    problems: list[str] = []
    _axe(pia, "results-prompts-phone", problems)

    # With the keyboard: focus Wren's "Roll", press Enter.
    first = page.locator("#prompts-panel li.prompt", has_text="Wren").get_by_role("button", name="Roll")
    first.focus()
    page.keyboard.press("Enter")
    result = page.locator("#prompts-panel .result")
    expect(result).to_contain_text("Rolled: #")
    expect(result).to_be_focused()  # not Moss's "Roll", which is now the first button in the panel
    expect(result).to_be_in_viewport()
    expect(result).to_have_attribute("aria-live", "polite")
    expect(page.locator("#prompts-panel li.prompt")).to_have_count(1)
    _axe(pia, "results-prompt-answered-phone", problems)
    # Tab goes on from the result: to Moss's prompt, the next thing in the panel.
    page.keyboard.press("Tab")
    expect(page.locator("#prompts-panel li.prompt", has_text="Moss").get_by_role("button", name="Roll")).to_be_focused()
    problems += check_page(pia, "results-prompt-answered", ["#prompts-panel button.primary"])
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


MAREN = balanced_fields(skill_0="Climbing", skill_0_rating="2", skill_1="Swimming", skill_1_rating="1")


def test_forms_keep_checkboxes_and_numbers_but_not_what_spends(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base, ["art", "rabbits"])
    maren = _character(base, campaign_id, who["pia"], "Maren", "art", MAREN)
    clover = _character(base, campaign_id, who["pia"], "Clover", "rabbits", NEW_RABBIT)
    _character(base, campaign_id, who["nora"], "Moss", "rabbits", NEW_RABBIT)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}/characters/{maren}")
    page = pia.page
    wait_live(page)
    problems: list[str] = []

    # ART: a skill ticked and a modifier typed survive the roll; Fame spent before it goes back to 0.
    form = page.locator("form.art-roll", has=page.locator("#tr-attr"))
    form.get_by_label("Climbing").check()
    page.locator("#tr-extras > summary").click()  # Fame, the modifier and taking 25 fold inside the form
    page.locator("#tr-mod").fill("2")
    page.locator("#tr-fame").fill("1")
    _axe(pia, "results-art-form-phone", problems)
    form.get_by_role("button", name="Roll").focus()
    page.keyboard.press("Enter")
    result = page.locator("#sheet .result")
    expect(result).to_be_focused()
    form = page.locator("form.art-roll", has=page.locator("#tr-attr"))
    expect(form.get_by_label("Climbing")).to_be_checked()
    expect(form.get_by_label("Swimming")).not_to_be_checked()
    expect(page.locator("#tr-mod")).to_have_value("2")
    expect(page.locator("#tr-fame")).to_have_value("0")  # spends Fame: never kept for the next roll
    _axe(pia, "results-art-kept-phone", problems)

    # Rabbits: the Ob, a helper and the trait kept; Persona (it spends) back to 0.
    page.goto(f"{base}/campaigns/{campaign_id}/characters/{clover}")
    wait_live(page)
    dialog = page.locator("#rabbits-test")
    page.locator("#test-ob").fill("3")
    dialog.locator("details.rabbits-extras > summary").click()
    dialog.get_by_label("Moss").check()
    page.locator("#test-trait").select_option("Quick")
    page.locator("#test-persona").select_option("1")
    _axe(pia, "results-rabbits-form-phone", problems)
    dialog.get_by_role("button", name="Roll the test").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sheet .result")).to_be_focused()
    dialog = page.locator("#rabbits-test")
    expect(page.locator("#test-ob")).to_have_value("3")
    expect(dialog.get_by_label("Moss")).to_be_checked()
    expect(page.locator("#test-trait")).to_have_value("Quick")
    expect(page.locator("#test-persona")).to_have_value("0")
    expect(dialog.locator("details.rabbits-extras")).to_have_attribute("open", "")  # still open, as left
    problems += check_page(pia, "results-rabbits-kept", ["#rabbits-test button[type=submit]"])
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def test_the_narrator_screen_calls_a_systems_roll_and_its_tick_list_follows(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base, ["rabbits"])
    _character(base, campaign_id, who["pia"], "Clover", "rabbits", NEW_RABBIT)
    nora = tabs.open("nora", desktop=True)
    sign_in(nora, base, "nora", next=f"/campaigns/{campaign_id}/narrator")
    page = nora.page
    wait_live(page)
    problems: list[str] = []
    call = page.locator("#group-call")
    call.get_by_label("Clover").check()
    # A player makes a rabbit: it can be ticked at once, and Clover stays ticked.
    _character(base, campaign_id, who["pia"], "Moss", "rabbits", NEW_RABBIT)
    expect(call.get_by_label("Moss")).to_be_visible()
    expect(call.get_by_label("Clover")).to_be_checked()
    call.get_by_label("Moss").check()
    call.get_by_label("Rabbits: a test").check()
    page.locator("#group-rabbits-skill").select_option("Scout")
    page.locator("#group-rabbits-ob").fill("3")
    _axe(nora, "results-group-call-laptop", problems)
    call.get_by_role("button", name="Send to all ticked").click()
    result = page.locator("#group-call .result")
    expect(result).to_contain_text("Clover, Moss")
    expect(result).to_be_focused()
    expect(page.locator("#screen-prompts li[data-prompt-id]")).to_have_count(2)
    expect(page.locator("#group-rabbits-ob")).to_have_value("3")
    problems += check_page(nora, "results-group-call", ["#group-call button.primary"], width=1280)
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def test_a_new_prompt_shows_a_toast_on_a_systems_page(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base, ["rabbits"])
    clover = _character(base, campaign_id, who["pia"], "Clover", "rabbits", NEW_RABBIT)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}/systems/rabbits")
    page = pia.page
    wait_live(page)
    expect(page.locator("#toast")).to_have_count(0)
    # A prompt for someone else's character: nothing for Pia.
    moss = _character(base, campaign_id, who["nora"], "Moss", "rabbits", NEW_RABBIT)
    _prompt(base, campaign_id, who["nora"], moss, "rabbits", "test", {"skill": "Scout", "ob": 2})
    _prompt(base, campaign_id, who["nora"], clover, "rabbits", "test", {"skill": "Scout", "ob": 3})
    toast = page.locator("#toast")
    expect(toast).to_be_visible()
    problems: list[str] = []
    _axe(pia, "results-toast-system-page-phone", problems)
    link = toast.get_by_role("link")
    expect(link).to_have_attribute("href", f"/campaigns/{campaign_id}/characters/{clover}#prompt-2")
    link.click()
    expect(page).to_have_url(f"{base}/campaigns/{campaign_id}/characters/{clover}#prompt-2")
    expect(page.locator("#prompt-2")).to_be_visible()
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def test_a_searched_log_takes_only_matching_live_entries(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who = _table(base, ["dice"])
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=f"/campaigns/{campaign_id}?q=gate")
    page = pia.page
    wait_live(page)
    problems: list[str] = []
    _axe(pia, "results-log-search-phone", problems)
    expect(page.locator("#lf-q")).to_have_value("gate")
    for note in ("the GATE creaks", "nothing here"):
        r = httpx2.post(
            f"{base}/api/campaigns/{campaign_id}/actions",
            headers=who["nora"],
            json={"system": "dice", "action": "roll", "params": {"expression": "1d6"}, "note": note},
        )
        assert r.status_code == 201, r.text
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/actions",
        headers=who["nora"],
        json={"system": "dice", "action": "roll", "params": {"expression": "1d8"}, "note": "gate again"},
    )
    assert r.status_code == 201, r.text
    expect(page.locator("#log-entries li.entry")).to_have_count(2)  # #1 and #3: #2 does not match
    expect(page.locator("#log-entries li.entry").last).to_contain_text("gate again")
    expect(page.locator("#entry-2")).to_have_count(0)
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], tabs.errors()


def test_a_form_submitted_before_htmx_took_it_over_stays_on_the_page(tabs: Tabs) -> None:
    """A form swapped in a moment ago and tapped at once (a phone is quick) must not go out as a plain GET, which
    would leave the page and put its fields — an Idempotency-Key too — in the URL: app.js hands it to htmx."""
    base = tabs.base
    campaign_id, _who = _table(base, ["dice"])
    nora = tabs.open("nora")
    sign_in(nora, base, "nora", next=f"/campaigns/{campaign_id}")
    page = nora.page
    wait_live(page)
    url = page.url
    # A copy of the session form that htmx has never seen (as right after a swap, before it is processed).
    page.evaluate("""() => {
        const form = document.querySelector('#session-panel form');
        const copy = form.cloneNode(true);
        copy.id = 'unprocessed';
        copy.querySelector('input[name=title]').value = 'Fresh';
        form.replaceWith(copy);
        copy.requestSubmit();
    }""")
    expect(page.locator("#session-panel")).to_contain_text("Fresh")
    assert page.url == url and "title=" not in page.url
    assert tabs.errors() == [], tabs.errors()
