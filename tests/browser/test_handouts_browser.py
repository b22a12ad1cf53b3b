"""Handouts and the scene in real browsers (issue 25's "done when"): Nora on a laptop uploads a photo in the
narrator screen's library, shows it to Pia only (Otto never gets it), sets another picture as the scene, places
two pins by tapping it and reveals one. Both 390x844 phones see what they should, live: Pia the photo in her
Handouts panel and the log (full screen on a tap), Otto neither; both the scene with the revealed pin only.
Screenshots in test-artifacts/screenshots/handouts-*.png; zero CSP violations; axe-core on every state.
Skipped unless TEST_CHROMIUM names a Chromium binary (see tests/browser/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import httpx2
import pytest
from playwright.sync_api import expect
from utils import pictures
from utils.server import LiveServer, start_server, stop_server

from .pages import SHOTS, Tabs, api_campaign, api_user, page_problems, screenshot, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]

WAIT = 20_000


@pytest.fixture
def live_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """The app with its pictures in this test's folder (not the repository's instance/)."""
    server = start_server(database_url, tmp_path, extra_env={"FATEBOARD_MEDIA_DIR": str(tmp_path / "media")})
    yield server
    stop_server(server)


def test_a_handout_for_one_player_and_a_scene_with_pins(tabs: Tabs, tmp_path: Path) -> None:
    base = tabs.base
    nora_api, pia_api, otto_api = (api_user(base, n) for n in ("nora", "pia", "otto"))
    cid = api_campaign(base, nora_api, [pia_api, otto_api], name="The Drowned Mill")
    members = {
        m["username"]: m["id"] for m in httpx2.get(f"{base}/api/campaigns/{cid}", headers=nora_api).json()["members"]
    }
    table = f"/campaigns/{cid}"
    pia, otto, nora = tabs.open("pia"), tabs.open("otto"), tabs.open("nora", desktop=True)
    for tab, where in ((pia, table), (otto, table), (nora, f"{table}/narrator")):
        sign_in(tab, base, tab.name, next=where)
        wait_live(tab.page)
    problems: list[str] = []

    # The narrator uploads a photo from the laptop (the file picker), with a title; the library shows it.
    photo = tmp_path / "mill.jpg"
    photo.write_bytes(pictures.photo(2400, 1600))
    n = nora.page
    n.locator("#handout-file").set_input_files(str(photo))
    expect(n.locator("#handout-title")).to_have_value("mill")  # the file's name, until one is typed
    n.locator("#handout-title").fill("The mill at dusk")
    n.locator("#handout-upload button").click()
    expect(n.locator("#library-panel .result")).to_contain_text("The mill at dusk", timeout=WAIT)
    handout = n.locator(".library-item").first
    hid = int((handout.get_attribute("id") or "").removeprefix("library-"))

    # Shown to Pia only: it appears live in her Handouts panel and her log; Otto's page never gets it.
    handout.locator("summary", has_text="Show").click()
    handout.locator(f"#show-{hid}-{members['pia']}").check()
    handout.get_by_role("button", name="Show", exact=True).click()
    expect(n.locator(f"#library-{hid}")).to_contain_text("shown to pia", timeout=WAIT)
    expect(pia.page.locator("#handouts-panel img[alt='The mill at dusk']")).to_be_visible(timeout=WAIT)
    expect(pia.page.locator(".entry.kind-handout .handout-card img")).to_be_visible(timeout=WAIT)
    expect(otto.page.locator(".entry.kind-handout")).to_have_count(1, timeout=WAIT)  # a hidden entry, no more
    expect(otto.page.locator(".entry.kind-handout .handout-card")).to_have_count(0)
    expect(otto.page.locator("#handouts-panel img")).to_have_count(0)
    assert "The mill at dusk" not in otto.page.content()

    # Pia's phone downloads the phone-sized copy, not the 2400-pixel original.
    src = pia.page.locator("#handouts-panel img").evaluate("img => img.currentSrc")
    assert "?w=" in src, src
    pia.page.locator("#handouts-panel .handout-thumb").click()
    viewer = pia.page.locator("#handout-viewer")
    expect(viewer).to_be_visible()
    expect(viewer.locator("img")).to_have_js_property("complete", True)
    pia.page.screenshot(path=str(SHOTS / "handouts-pia-viewer-390.png"))
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_be_hidden()

    # The scene: another picture, uploaded and set from the library; both phones show it live.
    valley = tmp_path / "valley.png"
    valley.write_bytes(pictures.landscape(2400, 1600))
    n.locator("#handout-file").set_input_files(str(valley))
    n.locator("#handout-title").fill("The valley")
    n.locator("#handout-upload button").click()
    expect(n.locator("#library-panel .result")).to_contain_text("The valley", timeout=WAIT)
    n.locator(".library-item", has_text="The valley").get_by_role("button", name="Set as the scene").click()
    for tab in (pia, otto):
        expect(tab.page.locator("#scene-panel .scene-stage img")).to_be_visible(timeout=WAIT)
    assert otto.page.locator("#scene-panel img").get_attribute("alt") == "The valley"

    # Two pins placed by tapping the picture on the campaign page (hidden at first), one revealed.
    n.goto(base + table)
    wait_live(n)
    stage = n.locator("#scene-panel .scene-stage img")
    expect(stage).to_be_visible()
    for label, (fx, fy) in (("The old well", (0.3, 0.6)), ("Smugglers' door", (0.75, 0.25))):
        stage.scroll_into_view_if_needed()  # the page opens on its chat (issue 35): the scene is above it
        box = _box_of(stage)
        n.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
        n.locator("#pin-label").fill(label)
        n.locator(".pin-form button").click()
        expect(n.locator("#scene-panel svg text", has_text=label)).to_have_count(1, timeout=WAIT)
    n.locator("#pin-tools summary").click()
    n.locator(".pin-row", has_text="").filter(has=n.locator("input[value='The old well']")).get_by_role(
        "button", name="Reveal to players"
    ).click()
    expect(n.locator(".pin-row").filter(has=n.locator("input[value='The old well']"))).to_contain_text(
        "Hide from players", timeout=WAIT
    )
    for tab in (pia, otto):
        expect(tab.page.locator("#scene-panel svg text", has_text="The old well")).to_have_count(1, timeout=WAIT)
        expect(tab.page.locator("#scene-panel svg text", has_text="Smugglers")).to_have_count(0)
        assert "Smugglers" not in tab.page.content()
    assert "The mill at dusk" not in otto.page.content()  # still: the scene did not show Otto the other picture
    expect(otto.page.locator("#handouts-panel img")).to_have_count(1)  # the valley only
    # the pin sits where it was tapped (in the picture's own coordinates)
    well = n.locator("#scene-panel g.pin", has_text="The old well").get_attribute("transform") or ""
    x, y = (float(v) for v in well.removeprefix("translate(").removesuffix(")").split())
    assert abs(x / 2400 - 0.3) < 0.02 and abs(y / 1600 - 0.6) < 0.02, well

    # Full screen, the scene keeps its pins (issue 35): the visible one, on the picture, never the hidden one.
    otto.page.locator("#scene-panel .scene-stage img").click()
    viewer = otto.page.locator("#handout-viewer")
    expect(viewer).to_be_visible()
    expect(viewer.locator("svg.scene-pins text", has_text="The old well")).to_have_count(1)
    expect(viewer.locator("svg.scene-pins text", has_text="Smugglers")).to_have_count(0)
    expect(viewer.locator(".viewer-stage img")).to_have_js_property("complete", True)
    picture = viewer.locator(".viewer-stage img").bounding_box()
    pin = viewer.locator("svg.scene-pins g.pin circle").first.bounding_box()
    assert picture and pin, (picture, pin)
    # on the drawn picture, where it was tapped (0.3, 0.6 of the picture)
    assert abs((pin["x"] + pin["width"] / 2 - picture["x"]) / picture["width"] - 0.3) < 0.03, (picture, pin)
    assert abs((pin["y"] + pin["height"] / 2 - picture["y"]) / picture["height"] - 0.6) < 0.03, (picture, pin)
    otto.page.screenshot(path=str(SHOTS / "handouts-otto-viewer-pins-390.png"))
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_be_hidden()

    for tab, name in ((pia, "pia"), (otto, "otto")):
        tab.page.locator("#scene-panel").scroll_into_view_if_needed()
        screenshot(tab.page, f"handouts-{name}-390")
        problems += page_problems(tab.page, f"handouts-{name}")
    screenshot(n, "handouts-nora-1280")
    problems += page_problems(n, "handouts-nora", width=1280)
    nora.page.goto(f"{base}{table}/narrator")
    screenshot(nora.page, "handouts-nora-library-1280")
    problems += page_problems(nora.page, "handouts-nora-library", width=1280)

    # The narrator's library and the campaign page's scene on a phone too (in Danish: the words are ours).
    phone = tabs.open("nora-phone", locale="da-DK", extra_http_headers={"Accept-Language": "da"})
    sign_in(phone, base, "nora", next=f"{table}/narrator")
    expect(phone.page.locator("#library-panel h2")).to_have_text("Billedbibliotek")
    phone.page.locator("#library-panel").scroll_into_view_if_needed()
    screenshot(phone.page, "handouts-nora-library-da-390")
    problems += page_problems(phone.page, "handouts-nora-library-da")
    phone.page.goto(f"{base}{table}")
    expect(phone.page.locator("#scene-panel .scene-stage img")).to_be_visible()
    screenshot(phone.page, "handouts-scene-da-390")
    problems += page_problems(phone.page, "handouts-scene-da")

    assert not problems, problems
    assert not tabs.csp_violations(), tabs.csp_violations()
    assert not tabs.errors(), tabs.errors()
    # The log proves it: Otto reads that a hidden entry exists; Pia reads the picture's hash.
    otto_log = httpx2.get(f"{base}/api/campaigns/{cid}/log", headers=otto_api).json()["entries"]
    pia_log = httpx2.get(f"{base}/api/campaigns/{cid}/log", headers=pia_api).json()["entries"]
    assert [e["outcome"] for e in otto_log if e["kind"] == "handout"] == [None]
    shown = next(e for e in pia_log if e["kind"] == "handout")["outcome"]
    picture = httpx2.get(f"{base}/api/campaigns/{cid}/handouts/{hid}/image", headers=pia_api)
    assert pictures.sha256(picture.content) == shown["sha256"]


def _box_of(stage: Any) -> dict[str, float]:
    """The picture's box once it holds still: a live swap of the scene panel (the pin's own answer, then the
    `scene` event's refresh) can detach the element between finding and measuring it (Playwright then says None)."""
    for _ in range(50):
        box = stage.bounding_box()
        if box is not None:
            return cast(dict[str, float], box)
        stage.page.wait_for_timeout(100)
    raise AssertionError("the scene's picture never held still")
