"""Helpers for the browser tests (their fixtures are in conftest.py): phone and desktop tabs that collect console
errors and CSP violations, API shortcuts to set up tables quickly, sign-in, and a page check (screenshot, sideways
overflow, tap-target sizes)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect
from utils.server import LiveServer

from . import axe

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PASSWORD = "correct horse"
DEMO_PASSWORD = "fateboard-demo"
TAP = 44  # px: the smallest comfortable tap target (and what app.css promises)

# Runs in every page before its own scripts (through the DevTools protocol, so the CSP does not apply to it):
# turns each CSP violation into a console error, which the console listener below collects.
REPORT_CSP = """
document.addEventListener("securitypolicyviolation", function (e) {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
                " in " + e.sourceFile + ":" + e.lineNumber);
});
"""


class Tab:
    """One browser context (its own cookies) with one page, and the console errors it logged."""

    def __init__(self, browser: Any, name: str, options: dict[str, Any]) -> None:
        self.name = name
        self.context = browser.new_context(**options)
        self.context.add_init_script(REPORT_CSP)
        axe.install(self.context)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"{self.name}: uncaught {exc}"))
        # A destructive one-tap button asks first (hx-confirm): the person says yes unless a test says otherwise
        # (accept_dialogs = False); every question asked is kept.
        self.dialogs: list[str] = []
        self.accept_dialogs = True
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        if self.accept_dialogs:
            dialog.accept()
        else:
            dialog.dismiss()

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        url = msg.location.get("url", "")
        if url.endswith("/favicon.ico"):
            return  # Chromium asks every site for one; the app has none (a 404, not a page error)
        self.errors.append(f"{self.name} at {self.page.url}: {msg.text} ({url})")

    def csp_violations(self) -> list[str]:
        return [e for e in self.errors if "CSP violation" in e or "Content Security Policy" in e]


class Tabs:
    def __init__(self, browser: Any, server: LiveServer) -> None:
        self.browser = browser
        self.base = server.url
        self.opened: list[Tab] = []

    def open(self, name: str, *, desktop: bool = False, **extra: Any) -> Tab:
        tab = Tab(self.browser, name, {**(DESKTOP if desktop else PHONE), **extra})
        self.opened.append(tab)
        return tab

    def errors(self) -> list[str]:
        return [e for tab in self.opened for e in tab.errors]

    def csp_violations(self) -> list[str]:
        return [e for tab in self.opened for e in tab.csp_violations()]


# A request that did not succeed is part of flows the tests visit on purpose (a form answered 4xx with the error
# next to its field, a 503 or a dropped network answered with a retry): Chromium logs the failed load and htmx its
# responseError. Nothing else is expected.
REFUSED = re.compile(
    r"Failed to load resource: |Response Status Error Code \d{3} from |"
    r": htmx:(sendError|sendAbort|afterRequest|timeout|responseError), "
)


def page_level_problems(tabs: Tabs) -> list[str]:
    """What no browser test may leave behind (conftest.py checks it after every test): a CSP violation (the
    app breaking its own policy), an uncaught exception, or a console error that is not a failed request."""
    return [e for e in tabs.errors() if "CSP violation" in e or "Content Security Policy" in e or not REFUSED.search(e)]


# --- the API, for setting up tables quickly (the tests drive the browser only where the browser is the point) ---


def api_user(base: str, name: str, password: str = PASSWORD, *, create: bool = True) -> dict[str, str]:
    if create:
        r = httpx2.post(base + "/api/users", json={"username": name, "password": password})
        assert r.status_code == 201, r.text
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": password})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def api_invite(base: str, campaign_id: int, narrator: dict[str, str]) -> str:
    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/invites", json={}, headers=narrator)
    assert r.status_code == 201, r.text
    return r.json()["code"]


def api_campaign(
    base: str,
    narrator: dict[str, str],
    players: list[dict[str, str]],
    name: str = "Night Watch",
    systems: tuple[str, ...] = (),
) -> int:
    r = httpx2.post(base + "/api/campaigns", json={"name": name, "systems": list(systems)}, headers=narrator)
    assert r.status_code == 201, r.text
    campaign_id = r.json()["id"]
    for player in players:
        code = api_invite(base, campaign_id, narrator)
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=player).status_code == 200
    return campaign_id


def api_roll(
    base: str, campaign_id: int, who: dict[str, str], expression: str, visibility: str = "public", note: str = ""
) -> int:
    body = {"system": "dice", "action": "roll", "params": {"expression": expression}, "visibility": visibility}
    if note:
        body["note"] = note
    r = httpx2.post(f"{base}/api/campaigns/{campaign_id}/actions", json=body, headers=who)
    assert r.status_code == 201, r.text
    return r.json()["seq"]


def api_log(base: str, campaign_id: int, who: dict[str, str]) -> list[dict[str, Any]]:
    r = httpx2.get(f"{base}/api/campaigns/{campaign_id}/log", params={"limit": 500}, headers=who)
    assert r.status_code == 200, r.text
    return r.json()["entries"]


# --- the browser ---


def sign_in(tab: Tab, base: str, username: str, password: str = PASSWORD, next: str = "/campaigns") -> None:
    page = tab.page
    page.goto(f"{base}/signin?next={next}")
    # By id, not by label: the page may be in the reader's language (Benutzername, Brugernavn).
    page.locator("#signin-form #username").fill(username)
    page.locator("#signin-form #password").fill(password)
    page.locator("#signin-form button").click()
    # argon2 on a machine shared with other work can take seconds: the sign-in is not what these tests time.
    expect(page).to_have_url(base + next, timeout=30_000)


def at_the_table(tabs: Tabs, base: str, table: str) -> tuple[Tab, Tab, Tab]:
    """Pia and Otto on phones and Nora on a laptop, each signed in and on `table` (a campaign page)."""
    pia, otto = tabs.open("pia"), tabs.open("otto")
    nora = tabs.open("nora", desktop=True)
    for tab in (pia, otto, nora):
        sign_in(tab, base, tab.name, next=table)
    return pia, otto, nora


def sign_up(page: Page, username: str, password: str = PASSWORD) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password, again").fill(password)
    page.get_by_role("button", name="Create account").click()


def wait_live(page: Page) -> None:
    """The page's EventSource is open (app.js sets the status on its open event)."""
    expect(page.locator("#live-status")).to_have_text("live")


OVERFLOWING_JS = """
(width) => Array.from(document.querySelectorAll("body *")).filter(e => {
  if (e.closest(".sr-only") || ["INPUT", "TEXTAREA", "SELECT"].includes(e.tagName)) return false;
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return false;
  // past the right edge of the screen, or content wider than its own box (a long word, a wide table)
  return r.right > width + 0.5 || e.scrollWidth > e.clientWidth + 1;
}).map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
  (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\\s+/).join(".") : "") +
  " right=" + Math.round(e.getBoundingClientRect().right) + " content=" + e.scrollWidth + "/" + e.clientWidth)
"""


# A whole-page screenshot is for a person to look at; the checks read the page itself. Chromium sometimes cannot
# capture a tall page ("Unable to capture screenshot": once in CI, on the Danish languages walk, under load): the
# picture is cut at SHOT_MAX_HEIGHT CSS px (8,000 device px at the phone's scale 2, inside every texture limit) and
# taken once more if Chromium still refuses.
SHOT_MAX_HEIGHT = 4000


def screenshot(page: Page, name: str) -> None:
    """The whole page into test-artifacts/screenshots/<name>.png, cut at SHOT_MAX_HEIGHT CSS pixels."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    width, height = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    clip = {"x": 0, "y": 0, "width": width, "height": SHOT_MAX_HEIGHT} if height > SHOT_MAX_HEIGHT else None
    try:
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True, clip=clip)
    except PlaywrightError as error:
        if "Unable to capture screenshot" not in str(error):
            raise
        page.wait_for_timeout(500)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True, clip=clip)


def page_problems(page: Page, name: str, width: int = 390, overflow_ok: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with the page as it is now: sideways overflow (except in elements whose description contains
    one of `overflow_ok`: parts that scroll sideways by design) and serious or critical accessibility violations
    (axe-core). The one check every page state a browser test visits goes through (check_page, and the tests'
    own helpers that screenshot differently)."""
    problems = []
    scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
    if scroll_width > width:
        problems.append(f"{name}: the page is {scroll_width}px wide, more than {width}px")
    sticking_out = [e for e in page.evaluate(OVERFLOWING_JS, width) if not any(t in e for t in overflow_ok)]
    if sticking_out:
        problems.append(f"{name}: elements past the right edge: {sticking_out[:12]}")
    problems += axe.violations(page, name)
    return problems


def check_page(tab: Tab, name: str, buttons: list[str], width: int = 390) -> list[str]:
    """Screenshot the page; return what is wrong with it: sideways overflow, serious or critical accessibility
    violations (axe-core), main buttons too small to tap."""
    page = tab.page
    expect(page.locator("main")).to_be_visible()
    screenshot(page, f"{name}-{width}")
    # Playwright's screenshot hides the caret with an inline style on inputs (so would a browser extension): it is
    # left in place on purpose. htmx settles no style attribute (htmx-config in templates/base.html), so the next
    # swap applies none and the page-level CSP check (conftest.py) stays quiet.
    problems = page_problems(page, name, width)
    for selector in buttons:
        button = page.locator(selector)
        expect(button.first).to_be_visible()
        for box in (button.nth(i).bounding_box() for i in range(button.count())):
            assert box is not None
            if box["height"] < TAP:
                problems.append(f"{name}: {selector} is {box['height']:.0f}px tall, less than {TAP}px")
    return problems


def seed_demo(env: dict[str, str]) -> int:
    """Seed the demo campaign into the live server's database; its id."""
    out = subprocess.run(
        [sys.executable, "-m", "app.demo"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout
    found = re.search(r"\(id (\d+)\)", out)
    assert found, out
    return int(found.group(1))


def character_named(base: str, campaign_id: int, who: dict[str, str], name: str) -> dict[str, Any]:
    r = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=who)
    assert r.status_code == 200, r.text
    return next(c for c in r.json()["characters"] if c["name"] == name)


# --- the demo table's pages (seed_demo, then demo_encounters) ---


def character_ids(base: str, campaign_id: int, nora: dict[str, str]) -> dict[str, int]:
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=nora).json()
    return {c["name"]: c["id"] for c in campaign.get("characters", [])}


def act(
    base: str,
    campaign_id: int,
    who: dict[str, str],
    system: str,
    action: str,
    params: dict[str, Any],
    character_id: int | None = None,
) -> None:
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/actions",
        headers=who,
        json={"system": system, "action": action, "character_id": character_id, "params": params},
    )
    assert r.status_code == 201, r.text


def demo_encounters(base: str, campaign_id: int, nora: dict[str, str]) -> None:
    """Besides the demo's duel: an ART combat, an ART exploration scene, a Rabbits conflict and a Cat fight,
    each started as the narrator does (the JSON API: the same rules service as the pages)."""
    ids = character_ids(base, campaign_id, nora)
    maren, goblin = ids["Maren Quickhand"], ids["Goblin Chieftain"]
    act(
        base,
        campaign_id,
        nora,
        "art",
        "combat_setup",
        {"adventurers": [maren], "foes": [goblin], "bands": 8, "adventurer_band": 2, "foe_band": 2},
    )
    act(
        base,
        campaign_id,
        nora,
        "art",
        "explore_start",
        {"title": "The old library", "scale": "minutes", "participants": [maren]},
    )
    act(
        base,
        campaign_id,
        nora,
        "rabbits",
        "conflict_setup",
        {
            "conflict": "fight",
            "a_name": "Warren",
            "a_goal": "Keep the burrow",
            "a_members": [ids["Clover Quickfoot"]],
            "b_name": "Foxes",
            "b_goal": "Take the clover field",
            "b_members": [ids["Old Red (fox)"]],
            "b_narrator": True,
        },
    )
    act(base, campaign_id, nora, "cat", "start_foe_fight", {"cat_id": ids["Smoke"]}, character_id=ids["Ship dog"])


def demo_pages(base: str, campaign_id: int, who: dict[str, str]) -> list[tuple[str, str]]:
    """Every page of a campaign a member opens (tests/browser/test_languages_browser.py, test_a11y_browser.py):
    (a short name, its path)."""
    table = f"/campaigns/{campaign_id}"
    pages = [
        ("campaigns", "/campaigns"),
        ("campaign", table),
        ("account", "/account"),
        ("help", "/help"),
        ("not-found", f"{table}/characters/999999"),
        ("no-page", "/no/such/page"),
    ]
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=who).json()
    for c in campaign.get("characters", []):
        pages.append((f"sheet-{c['system']}-{c['id']}", f"{table}/characters/{c['id']}"))
    for system in sorted({c["system"] for c in campaign.get("characters", [])} - {"dice"}):
        pages.append((f"system-{system}", f"{table}/systems/{system}"))
    for system in sorted({c["system"] for c in campaign.get("characters", [])}):
        pages.append((f"new-{system}", f"{table}/characters/new/{system}"))
    return pages


def encounter_pages(tab: Any, base: str, campaign_id: int) -> list[tuple[str, str]]:
    """The encounters the campaign page links to (the demo's duel and the four demo_encounters starts)."""
    tab.page.goto(f"{base}/campaigns/{campaign_id}")
    hrefs = tab.page.evaluate(
        "() => Array.from(document.querySelectorAll('a[href*=\"/encounters/\"]'), a => a.getAttribute('href'))"
    )
    found = sorted({h.split("?")[0].split("#")[0] for h in hrefs if h.rstrip("/").split("/")[-1].isdigit()})
    return [(f"encounter-{h.rsplit('/', 1)[1]}", h) for h in found]
