"""The demo's log on a phone (390×844), in English and in Danish (issue 21, points 11 and 12): no line names its
character twice ("juno (Vex Marlow) Vex Marlow rolls…"), no "scar(s)"-style pseudo-plural, no "1f"/"2s"
abbreviation, and a session typed "Session 1: Alley" shows once. Screenshots:
test-artifacts/screenshots/log-wording-<lang>-390.png."""

from __future__ import annotations

import re

import pytest
from utils.server import LiveServer

from .pages import DEMO_PASSWORD, SHOTS, Tabs, seed_demo, sign_in

pytestmark = pytest.mark.browser

REPEATED = re.compile(r"\((?P<name>[^()]+(?:\([^()]*\))?)\) (?P=name)\b")


@pytest.mark.parametrize("lang", ["en", "da"])
def test_the_demo_log_reads_like_a_book_on_a_phone(lang: str, tabs: Tabs, live_server: LiveServer) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    tab = tabs.open("nora", extra_http_headers={"Accept-Language": lang})
    sign_in(tab, base, "nora", DEMO_PASSWORD, next=f"/campaigns/{campaign_id}")
    page = tab.page
    page.locator("#session-title").fill("Session 1: Alley")  # typed with its number, as people do
    page.locator("#session-title").press("Enter")
    page.locator("#session-panel").get_by_text("Alley").wait_for()
    page.reload()
    lines = page.locator("li.entry .summary").all_inner_texts()
    assert len(lines) > 5
    assert [line for line in lines if REPEATED.search(line)] == []
    assert any(line.startswith("pia · Tecka ") for line in lines), lines  # the duel's line starts with its cat
    assert [line for line in lines if re.search(r"\w\((s|e|n|er|r)\)|\b\d+[sf]\b", line)] == []
    text = page.locator("body").inner_text()
    assert "Session 1: Session 1" not in text and "Spilgang 1: Session 1" not in text
    assert ("Session 1: Alley" if lang == "en" else "Spilgang 1: Alley") in text
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"log-wording-{lang}-390.png"), full_page=False)
    page.locator("li.entry").last.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"log-wording-{lang}-390-log.png"), full_page=False)
    assert tabs.csp_violations() == []
