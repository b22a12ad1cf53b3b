"""Every page of the demo table in German and in Danish, on a phone: no English UI text left.

The demo campaign (all four systems, their sheets and creation forms, the demo's duel and an ART combat, an ART
exploration scene, a Rabbits conflict and a Cat fight started for the test, the campaign, narrator and system
pages, the chain check's result, the account, help, invite (valid and not), error and signed-out pages) is opened
with `Accept-Language: de` (then `da`), 390×844, by the narrator and by a player, every <details> opened first
(innerText skips a closed one).
"English UI text" is a word of the source strings (the .pot's msgids) that no translation in that language
uses (so words both languages share — "Name", "Start" — do not count), outside the names and texts people
typed (characters, campaign, notes, usernames) and a small allow-list of proper nouns. The test fails until
the catalogs are complete, listing the English words page by page. Screenshots: test-artifacts/screenshots/
lang-<lang>-<page>-390.png. Every page is also checked with axe-core (0 serious or critical violations).
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
import sqlalchemy
from playwright.sync_api import expect
from utils.english import ALLOWED
from utils.english import catalog_words as _catalog_words
from utils.english import words as _words
from utils.server import LiveServer

from . import axe
from .pages import (
    DEMO_PASSWORD,
    PHONE,
    Tabs,
    api_invite,
    api_user,
    demo_encounters,
    demo_pages,
    encounter_pages,
    screenshot,
    seed_demo,
)

pytestmark = pytest.mark.browser


def _typed(base: str, campaign_id: int, who: dict[str, str]) -> set[str]:
    """Words people typed: names, the campaign, notes, titles, usernames."""
    found: set[str] = set()
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=who).json()
    found |= _words(str(campaign.get("name", ""))) | _words(str(campaign.get("description", "")))
    for c in campaign.get("characters", []):
        found |= _words(c["name"])
    for m in campaign.get("members", []):
        found |= _words(str(m.get("username", "")))
    log = httpx2.get(f"{base}/api/campaigns/{campaign_id}/log", params={"limit": 500}, headers=who).json()["entries"]
    for e in log:
        found |= _words(str(e.get("note") or "")) | _words(str((e.get("request") or {}).get("reason") or ""))
        found |= _words(str((e.get("request") or {}).get("title") or ""))
    return found


def _sheet_names(database_url: str, campaign_id: int) -> set[str]:
    """Words people typed into sheets: a cat's Reputations ("Never lost"), an ART adventurer's skills
    ("Rock climbing") and gear ("Sword"), a rabbit's wises ("Fox-wise"). Names chosen from a table are not among
    them."""
    engine = sqlalchemy.create_engine(database_url)
    found: set[str] = set()
    try:
        with engine.connect() as db:
            rows = db.execute(
                sqlalchemy.text("SELECT system, sheet FROM characters WHERE campaign_id = :c"), {"c": campaign_id}
            ).all()
    finally:
        engine.dispose()
    for system, sheet in rows:
        sheet = json.loads(sheet) if isinstance(sheet, str) else (sheet or {})
        if system == "cat":
            typed = [r.get("name", "") for r in sheet.get("reputations", [])]
        elif system == "art":
            # Skills and gear are named by the player ("Sword" is the demo's item, not the Rabbits' weapon table).
            typed = [s.get("name", "") for s in sheet.get("skills", [])] + [
                i.get("name", "") for i in sheet.get("gear", [])
            ]
        elif system == "rabbits":
            typed = list(sheet.get("wises", []))
        else:
            typed = []
        for text in typed:
            found |= _words(str(text))
    return found


def _prompt_notes(database_url: str, campaign_id: int) -> set[str]:
    """Words of the narrators' roll prompts ("Does Wren spot the toll-keeper's trick?"): typed, not UI text."""
    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as db:
            notes = db.execute(
                sqlalchemy.text("SELECT note FROM roll_prompts WHERE campaign_id = :c"), {"c": campaign_id}
            ).scalars()
            return set().union(*(_words(str(n or "")) for n in notes))
    finally:
        engine.dispose()


VISIBLE_TEXT_JS = """
() => {
  const parts = [document.title, document.body.innerText];
  document.querySelectorAll("[placeholder],[aria-label],[title]").forEach(e => {
    for (const a of ["placeholder", "aria-label", "title"]) if (e.getAttribute(a)) parts.push(e.getAttribute(a));
  });
  document.querySelectorAll("option").forEach(o => parts.push(o.textContent));
  return parts.join("\\n");
}
"""

# Text a person typed that no log entry or API name holds (a sheet's wises, traits, beliefs; a roll prompt's note):
# the templates mark it translate="no" (the HTML attribute that keeps browser translators off it too).
TYPED_TEXT_JS = """
() => Array.from(document.querySelectorAll("[translate=no]"), e => e.textContent).join("\\n")
"""


OPEN_DETAILS_JS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"

# Names typed in the setup below (team names and goals of the Rabbits conflict, the scene's title).
SETUP_TYPED = {"Warren", "Keep", "the", "burrow", "Foxes", "Take", "clover", "field", "Old", "library"}


def _sign_in(tab: Any, base: str, name: str) -> None:
    page = tab.page
    page.goto(base + "/signin?next=/campaigns")
    page.locator("input[name=username]").fill(name)
    page.locator("input[name=password]").fill(DEMO_PASSWORD)
    page.locator("#signin-form button.primary").click()
    expect(page).to_have_url(base + "/campaigns")


@pytest.mark.parametrize("lang", ["de", "da"])
def test_every_page_of_the_demo_in_the_readers_language(lang: str, tabs: Tabs, live_server: LiveServer) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    pia = api_user(base, "pia", DEMO_PASSWORD, create=False)
    demo_encounters(base, campaign_id, nora)
    invite = api_invite(base, campaign_id, nora)
    english, translated = _catalog_words(lang)
    allowed = ALLOWED | _typed(base, campaign_id, nora) | _prompt_notes(live_server.database_url, campaign_id)
    allowed |= _sheet_names(live_server.database_url, campaign_id)
    allowed |= {"nora", "pia", "otto"} | SETUP_TYPED
    found: dict[str, list[str]] = {}
    inaccessible: list[str] = []  # serious or critical axe-core violations, page by page

    def read(tab: Any, name: str) -> None:
        tab.page.evaluate(OPEN_DETAILS_JS)  # innerText skips a closed <details>: open them all first
        screenshot(tab.page, f"lang-{lang}-{name}-390")
        inaccessible.extend(axe.violations(tab.page, f"lang-{lang}-{name}"))
        words = _words(tab.page.evaluate(VISIBLE_TEXT_JS))
        typed = _words(tab.page.evaluate(TYPED_TEXT_JS))
        left = sorted(w for w in words if w in english and w not in translated and w not in allowed | typed)
        if left:
            found[name] = left

    def check(tab: Any, name: str, path: str) -> None:
        tab.page.goto(base + path)
        expect(tab.page.locator("main")).to_be_visible()
        read(tab, name)

    headers = {"extra_http_headers": {"Accept-Language": lang}, "locale": lang}
    anonymous = tabs.open(f"anonymous-{lang}", **headers)
    for name, path in (
        ("landing", "/"),
        ("signin", "/signin"),
        ("signup", "/signup"),
        ("join", f"/join/{invite}"),
        ("join-invalid", "/join/no-such-invite"),
        ("anonymous-404", "/no/such/page"),
    ):
        check(anonymous, name, path)

    narrator = tabs.open(f"nora-{lang}", **headers)
    _sign_in(narrator, base, "nora")
    pages = demo_pages(base, campaign_id, nora) + encounter_pages(narrator, base, campaign_id)
    assert len([p for p in pages if p[0].startswith("encounter-")]) >= 5, pages  # duel, combat, scene, conflict, fight
    pages += [("narrator", f"/campaigns/{campaign_id}/narrator"), ("join-member", f"/join/{invite}")]
    for name, path in pages:
        check(narrator, f"nora-{name}", path)
    # The chain check's result, as the campaign page shows it.
    narrator.page.goto(f"{base}/campaigns/{campaign_id}")
    narrator.page.evaluate(OPEN_DETAILS_JS)
    narrator.page.locator(f'button[hx-get="/campaigns/{campaign_id}/verify"]').click()
    expect(narrator.page.locator("#verify-result p")).to_be_visible()
    read(narrator, "nora-verify")

    player = tabs.open(f"pia-{lang}", **headers)
    _sign_in(player, base, "pia")
    for name, path in demo_pages(base, campaign_id, pia) + encounter_pages(player, base, campaign_id):
        check(player, f"pia-{name}", path)

    assert PHONE["viewport"] == {"width": 390, "height": 844}
    report = "\n".join(f"{name}: {', '.join(words[:40])}" for name, words in sorted(found.items()))
    assert not found, f"English UI text on {len(found)} pages in {lang}:\n{report}"
    assert inaccessible == [], "\n".join(inaccessible)
    assert tabs.csp_violations() == [], "\n".join(tabs.csp_violations())
