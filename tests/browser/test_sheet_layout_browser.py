"""The one sheet layout in a phone-sized Chromium (390x844): an ART sheet, which had no live hooks before it,
shows a prompt the narrator calls for without a reload. Screenshot: test-artifacts/screenshots/layout-*.png."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from playwright.sync_api import expect

from .pages import DEMO_PASSWORD, Tabs, api_user, character_named, check_page, seed_demo, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.server]


def test_a_prompt_reaches_an_open_art_sheet_live(tabs: Tabs, live_server: Any) -> None:
    base = tabs.base
    campaign_id = seed_demo(live_server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    maren = character_named(base, campaign_id, nora, "Maren Quickhand")
    sheet_path = f"/campaigns/{campaign_id}/characters/{maren['id']}"

    pia = tabs.open("pia")
    sign_in(pia, base, "pia", DEMO_PASSWORD, next=sheet_path)
    page = pia.page
    expect(page.locator("#sheet h1")).to_have_text("Maren Quickhand")
    called = page.locator(".art-prompt", has_text="Cross the rope bridge")
    expect(called).to_have_count(0)
    expect(page.locator("form:has(#tr-attr) .art-odds")).not_to_be_empty()  # htmx is running
    page.wait_for_timeout(1000)  # the stream starts at "now": let it open before the prompt is called

    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/prompts", headers=nora, json={
        "character_id": maren["id"], "system": "art", "action": "trait_roll",
        "locked": {"attribute": "DEX", "difficulty": "PR"}, "note": "Cross the rope bridge"})
    assert r.status_code == 201, r.text

    expect(called).to_have_count(1, timeout=15_000)
    expect(called.locator(".art-odds")).to_contain_text("against Poor")
    problems = check_page(pia, "layout-art-prompt", [".art-prompt button[type=submit]"])
    assert not problems, problems
