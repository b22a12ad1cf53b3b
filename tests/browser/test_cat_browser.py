"""Cat on real phones (Chromium, 390x844) against a real server: a cat made through the creation form (a mistake
shown next to its field first), the roll dialog's exact chance changing as dice are added, a narrator's prompt
answered on the player's sheet, scars placed, the narrator's view, the Cat page, and a fight between cats
answered on the other phone. Screenshots: test-artifacts/screenshots/cat-*.png.
Skipped unless TEST_CHROMIUM names a Chromium binary (see tests/browser/conftest.py)."""

from __future__ import annotations

import re

import httpx2
import pytest
from playwright.sync_api import expect
from utils.cat import ROOF_RUNNER

from .pages import (
    Tabs,
    api_invite,
    api_user,
    check_page,
    sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.server]

TOM = {
    **ROOF_RUNNER,
    "human_name": "Sir Reginald",
    "cat_name": "Tom",
    "secret_name": "Nightpaw",
    "rep_name_1": "Terror of the docks",
}


def _campaign(base: str) -> tuple[int, dict[str, dict[str, str]], int]:
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(base + "/api/campaigns", json={"name": "Rooftops", "systems": ["cat"]}, headers=who["nora"])
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    for name in ("pia", "otto"):
        code = api_invite(base, campaign_id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/characters",
        headers=who["otto"],
        json={"name": "Tom", "system": "cat", "sheet": TOM},
    )
    assert r.status_code == 201, r.text
    return campaign_id, who, r.json()["id"]


def test_a_cat_is_made_rolls_with_exact_odds_and_fights_on_two_phones(tabs: Tabs) -> None:
    base = tabs.base
    campaign_id, who, tom = _campaign(base)
    table = f"/campaigns/{campaign_id}"
    problems: list[str] = []

    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=table)
    page = pia.page
    page.goto(f"{base}{table}/characters/new/cat")
    page.get_by_label("Name on the table").fill("Smoke")
    page.get_by_label("The name humans use").fill("Mister Buttons")
    page.get_by_label("Cat name").fill("Smoke-on-the-Roof")
    page.get_by_label("Secret name").fill("Ashwhisker")
    for trait, rank in (
        ("claws", "best"),
        ("coat", "strong"),
        ("face", "best"),
        ("fangs", "strong"),
        ("legs", "strong"),
        ("tail", "good"),
    ):
        page.locator(f"#rank_{trait}").select_option(rank)
    for i, (name, rank) in enumerate((("Best mouser", "3"), ("Never lost", "2"), ("Quiet paws", "2")), 1):
        page.locator(f"#rep_name_{i}").fill(name)
        page.locator(f"#rep_rank_{i}").select_option(rank)
    page.get_by_role("button", name="Create the cat").click()
    # Two Best Traits: the mistake is shown next to the second Best, and the form keeps what was typed.
    expect(page.locator("#err-rank_face")).to_contain_text("one Best, three Strong and two Good")
    expect(page.get_by_label("Secret name")).to_have_value("Ashwhisker")
    problems += check_page(pia, "cat-create-error", ["#create-form button.primary"])
    page.locator("#rank_face").select_option("good")
    page.get_by_role("button", name="Create the cat").click()
    expect(page.locator("#sheet h1")).to_have_text("Smoke")
    smoke = int(page.url.rsplit("/", 1)[1])
    expect(page.locator(".cat-secret")).to_contain_text("Ashwhisker")

    # The roll dialog: the exact chance before rolling, updated as dice are added.
    dialog = page.locator("#test-fate")
    dialog.locator("select[name=trait]").select_option("legs")
    expect(dialog.locator(".cat-odds")).to_contain_text("68.8% (exactly 11/16)")
    dialog.get_by_text("Hard").click()
    expect(dialog.locator(".cat-odds")).to_contain_text("31.2% (exactly 5/16)")
    problems += check_page(pia, "cat-sheet-player", ["#test-fate button[type=submit]"])

    nora = tabs.open("nora")
    sign_in(nora, base, "nora", next=table)
    nora.page.goto(f"{base}{table}/characters/{smoke}")
    expect(nora.page.locator(".cat-secret")).to_contain_text("Ashwhisker")
    nora.page.locator("#cat-narrator > summary").click()  # the narrator's tools, folded at the top of the sheet
    call = nora.page.locator("details", has_text="Call for a test of fate")
    call.locator("select[name='locked.trait']").select_option("legs")
    call.locator("select[name='locked.difficulty']").select_option("hard")
    call.locator("select[name='locked.dangerous']").select_option("true")
    call.get_by_label("What is at stake").fill("Leap the gap between the warehouses")
    call.get_by_role("button", name="Call for the roll").click()

    # The prompt reaches Pia's sheet live; she answers it with the locked values.
    prompt = page.locator("#cat-prompts .prompt")
    expect(prompt).to_contain_text("Leap the gap between the warehouses", timeout=15_000)
    expect(prompt.locator(".cat-locked").first).to_contain_text("Legs")
    expect(prompt.locator(".cat-odds")).to_contain_text("exactly 5/16")
    problems += check_page(pia, "cat-prompt", ["#cat-prompts button[type=submit]"])
    prompt.get_by_role("button", name="Test fate").click()
    expect(page.locator("#sheet .result")).to_contain_text("tests fate")
    expect(page.locator(".cat-faces .cat-die")).to_have_count(4)
    if page.locator("#pending").count():
        pending = page.locator("#pending")
        needed = int(re.match(r"(\d+)", pending.locator("h2").inner_text()).group(1))  # type: ignore[union-attr]
        problems += check_page(pia, "cat-scars", ["#pending button.primary", "#pending button.danger"])
        pending.get_by_label("Legs").fill(str(needed))
        pending.get_by_label("Why there?").fill("landed hard on the gutter")
        pending.get_by_role("button", name="Place the scars").click()
        expect(page.locator("#sheet .result")).to_contain_text("places")

    nora.page.reload()
    problems += check_page(nora, "cat-sheet-narrator", ["#test-fate button[type=submit]"])

    # Otto sees Smoke without her secret name.
    otto = tabs.open("otto")
    sign_in(otto, base, "otto", next=table)
    otto.page.goto(f"{base}{table}/characters/{smoke}")
    expect(otto.page.locator("#sheet h1")).to_have_text("Smoke")
    assert "Ashwhisker" not in otto.page.content()
    problems += check_page(otto, "cat-sheet-other", [])

    # A fight: Pia challenges Tom; Otto answers on his own phone.
    page.goto(f"{base}{table}/characters/{smoke}")
    page.locator("#cat-challenge > summary").click()  # folded below the test of fate
    page.locator("#ch-opp").select_option(str(tom))
    page.locator("#ch-weapon").select_option("claws")
    page.get_by_role("button", name="Challenge").click()
    page.get_by_role("link", name="Open the fight").click()
    expect(page.locator("#encounter")).to_contain_text("Waiting for Tom's player")
    fight = page.url
    otto.page.goto(fight)
    problems += check_page(otto, "cat-fight-answer", ["#encounter button.big"])
    otto.page.get_by_role("button", name="Fangs").click()
    expect(otto.page.locator("#encounter")).to_contain_text("Scars taken")
    expect(page.locator("#encounter")).to_contain_text("Scars taken", timeout=15_000)  # live on Pia's phone
    problems += check_page(pia, "cat-fight-done", [])

    nora.page.goto(f"{base}{table}/systems/cat")
    problems += check_page(nora, "cat-campaign-narrator", ["#system button.primary"])

    assert problems == [], "\n".join(problems)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
    # The creation form's mistake is a 422 by design: the browser logs the status, htmx swaps the form in.
    expected = ("status of 422", "Response Status Error Code 422")
    errors = [e for e in tabs.errors() if not any(x in e for x in expected)]
    assert errors == [], "\n".join(errors)
