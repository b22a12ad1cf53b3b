"""Accessibility, tested end to end (issue 37, docs/ACCESSIBILITY.md): one live server and one demo table for the
whole module (the demo's four systems, the encounters of test_languages_browser.py, a roll prompt open for Pia, a
whisper to her and a picture shown), so each test only opens pages.

- The axe walk: every page × role (narrator, player, outsider) × language × size, no WCAG 2.2 A/AA violation of
  any impact.
- Heard: a roll in each system and language reads the same in Chromium's accessibility tree as on screen (its
  words, its total, its marks); a new line is said once, politely for others', at once for my own.
- Seen: 320 px wide and 200 % text without sideways scroll; the dark theme passes axe's contrast rules too.
- Calm dice: the entry is visible as soon as it arrives, with the animation on or off; the animation is the
  server's faces moving for at most 600 ms, off under reduced motion, the account's "no animation" and the
  narrator's table switch; a tap stops it.
- Keyboard only: skip links, a roll, a whisper and an answered roll call with Tab, Shift+Tab, Enter, Space and
  arrows; focus always visible.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect
from utils import pictures
from utils.server import LiveServer, serve_in_thread, stop_server

from . import axe
from .pages import (
    DEMO_PASSWORD,
    DESKTOP,
    PHONE,
    SHOTS,
    Tab,
    Tabs,
    act,
    api_log,
    api_roll,
    api_user,
    demo_encounters,
    demo_pages,
    encounter_pages,
    page_problems,
    screenshot,
    seed_demo,
    sign_in,
)

pytestmark = pytest.mark.browser

LANGUAGES = ("en", "de", "da")
SIZES = {"phone": PHONE, "laptop": DESKTOP}
OPEN_DETAILS_JS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
# Then to the page's end: there the pinned composer (app.css .composer) sits in the flow and covers no control,
# so axe's target-size rule measures the targets themselves, not what happens to scroll under the composer.
TO_THE_END_JS = "() => window.scrollTo(0, document.documentElement.scrollHeight)"


@dataclass
class Demo:
    base: str
    id: int
    nora: dict[str, str]
    pia: dict[str, str]
    otto: dict[str, str]
    mine: dict[str, int]  # Pia's character in each system


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    tmp: Path = tmp_path_factory.mktemp("a11y")
    running = serve_in_thread(f"sqlite:///{tmp / 'test.db'}", tmp)
    yield running
    stop_server(running)


@pytest.fixture
def tabs(browser: Any, server: LiveServer) -> Iterator[Tabs]:
    """conftest.py's tabs, on this module's one server (its page-level checks still run after each test)."""
    opened = Tabs(browser, server)
    yield opened
    for tab in opened.opened:
        with contextlib.suppress(Exception):  # closed by the test already (the walk closes each tab when done)
            tab.context.close()


def _member_ids(base: str, campaign_id: int, who: dict[str, str]) -> dict[str, int]:
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=who).json()
    return {m["username"]: m["id"] for m in campaign["members"]}


@pytest.fixture(scope="module")
def demo(server: LiveServer) -> Demo:
    """The demo table with its panels in changed states: the encounters started, a prompt open for Pia's dice
    roll, a whisper from Nora to Pia, a picture shown to everyone; Olga signed up as the outsider."""
    base = server.url
    campaign_id = seed_demo(server.env)
    nora = api_user(base, "nora", DEMO_PASSWORD, create=False)
    pia = api_user(base, "pia", DEMO_PASSWORD, create=False)
    otto = api_user(base, "otto", DEMO_PASSWORD, create=False)
    api_user(base, "olga")
    demo_encounters(base, campaign_id, nora)
    campaign = httpx2.get(f"{base}/api/campaigns/{campaign_id}", headers=nora).json()
    members = _member_ids(base, campaign_id, nora)
    mine: dict[str, int] = {}
    for c in campaign["characters"]:
        if c["owner_id"] == members["pia"] and c["kind"] == "pc":
            mine.setdefault(c["system"], c["id"])
    assert {"cat", "art", "rabbits"} <= set(mine), mine
    dice_char = mine.get("dice") or mine["cat"]
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/prompts",
        json={"character_id": dice_char, "note": "Spot the trap"},
        headers=nora,
    )
    assert r.status_code == 201, r.text
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/messages",
        json={"text": "Meet me at the mill", "visibility": "whisper", "to": [members["pia"]]},
        headers=nora,
    )
    assert r.status_code == 201, r.text
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/handouts",
        headers=nora,
        data={"title": "The mill"},
        files={"file": ("mill.jpg", pictures.photo(800, 600), "image/jpeg")},
    )
    assert r.status_code == 201, r.text
    r = httpx2.post(
        f"{base}/api/campaigns/{campaign_id}/handouts/{r.json()['id']}/show", json={"to": "all"}, headers=nora
    )
    assert r.status_code == 201, r.text
    return Demo(base, campaign_id, nora, pia, otto, mine)


def _open(tabs: Tabs, name: str, lang: str, size: str, user: str | None, password: str = DEMO_PASSWORD) -> Tab:
    tab = tabs.open(
        f"{name}-{lang}-{size}",
        desktop=size == "laptop",
        extra_http_headers={"Accept-Language": lang},
        locale=lang,
    )
    if user is not None:
        sign_in(tab, tabs.base, user, password, next="/campaigns")
    return tab


def _visit(tab: Tab, base: str, path: str) -> None:
    tab.page.goto(base + path)
    expect(tab.page.locator("main")).to_be_visible()


# --- the axe walk ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_role_and_size_has_no_wcag_violation(lang: str, tabs: Tabs, demo: Demo) -> None:
    """Every page of the demo table as the narrator, a player and an outsider, in `lang`, on a phone and a laptop,
    each <details> opened (the forms inside count too): 0 violations of WCAG 2.2 A/AA rules, of any impact."""
    base = demo.base
    found: list[str] = []
    for size in SIZES:
        anonymous = _open(tabs, "anonymous", lang, size, None)
        for name, path in (("landing", "/"), ("signin", "/signin"), ("signup", "/signup"), ("404", "/no/such")):
            anonymous.page.goto(base + path)
            found += axe.wcag_violations(anonymous.page, f"anonymous {lang} {size} {name}")
        outsider = _open(tabs, "olga", lang, size, None)
        sign_in(outsider, base, "olga", next="/campaigns")
        for name, path in (("campaigns", "/campaigns"), ("account", "/account"), ("help", "/help")):
            _visit(outsider, base, path)
            outsider.page.evaluate(OPEN_DETAILS_JS)
            found += axe.wcag_violations(outsider.page, f"outsider {lang} {size} {name}")
        _visit(outsider, base, f"/campaigns/{demo.id}")  # not a member: the refusal page
        found += axe.wcag_violations(outsider.page, f"outsider {lang} {size} refused")
        for user, headers in (("nora", demo.nora), ("pia", demo.pia)):
            tab = _open(tabs, user, lang, size, user)
            pages = demo_pages(base, demo.id, headers) + encounter_pages(tab, base, demo.id)
            if user == "nora":
                pages.append(("narrator", f"/campaigns/{demo.id}/narrator"))
            for name, path in pages:
                _visit(tab, base, path)
                tab.page.evaluate(OPEN_DETAILS_JS)
                tab.page.evaluate(TO_THE_END_JS)
                found += axe.wcag_violations(tab.page, f"{user} {lang} {size} {name}")
                if size == "phone" and name in ("campaign", "account") or name.startswith("encounter"):
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    screenshot(tab.page, f"a11y-{user}-{lang}-{name}-{size}")
            tab.context.close()
        anonymous.context.close()
        outsider.context.close()
    assert found == [], f"{len(found)} WCAG violations:\n" + "\n".join(found)


# --- heard: the accessibility tree reads what the screen shows -------------------------------------------------


@pytest.fixture(scope="module")
def rolled(demo: Demo) -> dict[str, int]:
    """A roll of Pia's in each system (the duel's: the demo's own last move): system -> seq."""
    base, cid, pia, mine = demo.base, demo.id, demo.pia, demo.mine
    act(base, cid, pia, "cat", "test_fate", {"trait": "legs", "difficulty": "moderate"}, character_id=mine["cat"])
    act(base, cid, pia, "art", "trait_roll", {"attribute": "STR", "difficulty": "PR"}, character_id=mine["art"])
    act(base, cid, pia, "rabbits", "test", {"skill": "Scout", "ob": 3}, character_id=mine["rabbits"])
    api_roll(base, cid, pia, "4d6kh3+1")
    seqs: dict[str, int] = {}
    for entry in api_log(base, cid, demo.nora):
        if entry["kind"] == "action" and entry["visibility"] == "public" and entry.get("outcome"):
            seqs[entry["system"]] = entry["seq"]
    assert set(seqs) >= {"dice", "cat", "catfight", "art", "rabbits"}, seqs
    return seqs


WORDS = re.compile(r"\w+")

ENTRY_TEXT_JS = """
(el) => {
  const shown = (sel) => Array.from(el.querySelectorAll(sel), e => e.innerText).join(" ");
  const marks = Array.from(el.querySelectorAll(".die .sr-only"), e => e.textContent.trim());
  const hidden = Array.from(el.querySelectorAll(".summary, .total, .faces")).some(e => e.closest("[aria-hidden=true]"));
  return {summary: shown(".summary"), total: shown(".total"), marks: marks, hidden: hidden};
}
"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_roll_in_each_system_reads_the_same_in_the_accessibility_tree(
    lang: str, tabs: Tabs, demo: Demo, rolled: dict[str, int]
) -> None:
    """Chromium's accessibility tree (Playwright's aria snapshot) of each system's roll holds every word of its
    line as shown, its total, and each die mark in words (not only a colour or a glyph)."""
    tab = _open(tabs, "pia", lang, "phone", "pia")
    problems: list[str] = []
    for system, seq in sorted(rolled.items()):
        _visit(tab, demo.base, f"/campaigns/{demo.id}?system={system}")
        entry = tab.page.locator(f"#entry-{seq}")
        expect(entry).to_be_attached()
        tree = entry.aria_snapshot()
        shown = entry.evaluate(ENTRY_TEXT_JS)
        assert not shown["hidden"], f"{system}: the result is hidden from the accessibility tree"
        heard = set(WORDS.findall(tree))
        missing = [w for w in WORDS.findall(shown["summary"] + " " + shown["total"]) if w not in heard]
        missing += [m for m in shown["marks"] if m.strip("() ") not in tree]
        if missing:
            problems.append(f"{lang} {system} #{seq}: {missing} not in\n{tree}")
    assert problems == [], "\n".join(problems)


WATCH_ANNOUNCERS_JS = """
() => {
  window.fbSaid = [];
  for (const id of ["announce-polite", "announce-now"]) {
    const region = document.getElementById(id);
    new MutationObserver(() => { if (region.textContent) window.fbSaid.push([id, region.textContent]); })
      .observe(region, {childList: true, characterData: true, subtree: true});
  }
}
"""


def test_a_new_line_is_said_once_politely_and_my_own_result_at_once(tabs: Tabs, demo: Demo) -> None:
    tab = _open(tabs, "pia", "en", "laptop", "pia")
    _visit(tab, demo.base, f"/campaigns/{demo.id}")
    expect(tab.page.locator("#live-status")).to_have_text("live")
    tab.page.evaluate(WATCH_ANNOUNCERS_JS)
    theirs = api_roll(demo.base, demo.id, demo.nora, "2d6+1", note="the narrator's")
    expect(tab.page.locator(f"#entry-{theirs}")).to_be_visible()
    expect(tab.page.locator("#announce-polite")).to_contain_text("the narrator's")
    mine = api_roll(demo.base, demo.id, demo.pia, "3d6")
    expect(tab.page.locator(f"#entry-{mine}")).to_be_visible()
    expect(tab.page.locator("#announce-now")).to_contain_text("3d6")
    said = tab.page.evaluate("() => window.fbSaid")
    assert [region for region, text in said if "the narrator's" in text] == ["announce-polite"], said
    assert [region for region, text in said if "3d6" in text] == ["announce-now"], said
    total = next(e for e in api_log(demo.base, demo.id, demo.pia) if e["seq"] == mine)["outcome"]["total"]
    assert str(total) in next(s[1] for s in said if "3d6" in s[1])


# --- seen: reflow, text size, the dark theme -------------------------------------------------------------------


def _reflow_pages(demo: Demo) -> list[tuple[str, str]]:
    wanted = ("campaign", "account", "sheet-", "narrator")
    return [(n, p) for n, p in demo_pages(demo.base, demo.id, demo.nora) if n.startswith(wanted)] + [
        ("narrator", f"/campaigns/{demo.id}/narrator")
    ]


def _set_display(tab: Tab, base: str, **choices: str) -> None:
    """The account page's form, as a person fills it (each choice a radio or box by its id)."""
    _visit(tab, base, "/account")
    for field, value in choices.items():
        box = tab.page.locator(f"#{field}-{value}" if field != "sound" else "#display-sound")
        box.check()
    tab.page.locator("#display button.primary").click()
    expect(tab.page.locator("#display [role=status]")).to_be_visible()


def test_320_px_wide_and_200_percent_text_need_no_sideways_scroll(tabs: Tabs, demo: Demo) -> None:
    """WCAG 1.4.10 (a 320 CSS px window) and 1.4.4 (text at 200 %, the account's setting, on a laptop)."""
    problems: list[str] = []
    narrow = _open(tabs, "nora", "en", "phone", "nora")
    narrow.page.set_viewport_size({"width": 320, "height": 700})
    pages = _reflow_pages(demo)
    for name, path in pages:
        _visit(narrow, demo.base, path)
        problems += page_problems(narrow.page, f"320px {name}", width=320)
    big = _open(tabs, "nora", "en", "laptop", "nora")
    _set_display(big, demo.base, text_size="200")
    try:
        for name, path in pages:
            _visit(big, demo.base, path)
            problems += page_problems(big.page, f"200% {name}", width=1280)
        big.page.screenshot(path=str(SHOTS / "a11y-text-200-1280.png"))
    finally:
        _set_display(big, demo.base, text_size="100")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("how", ["device", "account"])
def test_the_dark_theme_keeps_every_contrast(how: str, tabs: Tabs, demo: Demo) -> None:
    """Dark from the device (prefers-color-scheme) or from the account's choice: axe's WCAG rules (contrast among
    them) pass on the campaign page, every sheet, the encounters and the narrator screen."""
    tab = _open(tabs, "nora", "en", "phone", "nora")
    if how == "device":
        tab.page.emulate_media(color_scheme="dark")
    else:
        _set_display(tab, demo.base, theme="dark")
    found: list[str] = []
    try:
        pages = _reflow_pages(demo) + encounter_pages(tab, demo.base, demo.id)
        for name, path in pages:
            _visit(tab, demo.base, path)
            assert tab.page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(20, 19, 24)"
            tab.page.evaluate(OPEN_DETAILS_JS)
            tab.page.evaluate(TO_THE_END_JS)
            found += axe.wcag_violations(tab.page, f"dark ({how}) {name}")
            if name in ("campaign",) or name.startswith("sheet-cat"):
                tab.page.screenshot(path=str(SHOTS / f"a11y-dark-{how}-{name}-390.png"))
    finally:
        if how == "account":
            _set_display(tab, demo.base, theme="device")
    assert found == [], "\n".join(found)


# --- calm dice -------------------------------------------------------------------------------------------------

# When an entry arrives (app.js's fateboard:arrived, dispatched just before the entry is put in the log), measure in
# the same task's microtask — before the browser could paint anything else — whether it is in the log and visible,
# and which animations run on it (each one's end, in ms).
WATCH_ENTRIES_JS = """
() => {
  window.fbEntries = {};
  document.addEventListener("fateboard:arrived", (ev) => {
    const t0 = performance.now();
    queueMicrotask(() => {
      const el = document.getElementById("entry-" + ev.detail.seq);
      window.fbEntries[ev.detail.seq] = {
        ms: performance.now() - t0,
        shown: !!el && el.checkVisibility({opacityProperty: true, visibilityProperty: true}) &&
          Array.from(el.querySelectorAll(".die, .total")).every(d => getComputedStyle(d).opacity === "1"),
        rolling: !!el && el.classList.contains("rolling"),
        ends: el ? el.getAnimations({subtree: true}).map(a => a.effect.getComputedTiming().endTime) : [],
      };
    });
  });
}
"""


def _arrival(tab: Tab, demo: Demo, who: dict[str, str]) -> dict[str, Any]:
    tab.page.evaluate(WATCH_ENTRIES_JS)
    seq = api_roll(demo.base, demo.id, who, "4d6")
    expect(tab.page.locator(f"#entry-{seq}")).to_be_visible()
    seen: dict[str, Any] = tab.page.evaluate(f"() => window.fbEntries[{seq}]")
    seen["seq"] = seq
    return seen


def test_the_entry_is_there_at_once_and_the_animation_obeys_every_off_switch(tabs: Tabs, demo: Demo) -> None:
    tab = _open(tabs, "pia", "en", "phone", "pia")
    nora = _open(tabs, "nora", "en", "laptop", "nora")
    timings: dict[str, float] = {}
    try:
        for motion, reduced, table_on, animated in (
            ("on", "no-preference", True, True),
            ("device", "no-preference", True, True),
            ("device", "reduce", True, False),
            ("off", "no-preference", True, False),
            ("on", "no-preference", False, False),
        ):
            _set_display(tab, demo.base, motion=motion)
            _visit(nora, demo.base, f"/campaigns/{demo.id}/narrator")
            nora.page.locator("#table-dice-on" if table_on else "#table-dice-off").check()
            nora.page.locator("#table-dice button.primary").click()
            expect(nora.page.locator("#table-dice [role=status]")).to_be_visible()
            tab.page.emulate_media(reduced_motion=reduced)
            _visit(tab, demo.base, f"/campaigns/{demo.id}")
            expect(tab.page.locator("#live-status")).to_have_text("live")
            seen = _arrival(tab, demo, demo.nora)
            case = f"motion={motion} reduced={reduced} table={'on' if table_on else 'off'}"
            assert seen["shown"], f"{case}: the entry was not visible when it arrived: {seen}"
            assert seen["ms"] < 50, f"{case}: {seen}"
            timings[case] = seen["ms"]
            if animated:
                assert seen["rolling"] and seen["ends"], f"{case}: no animation: {seen}"
                assert max(seen["ends"]) <= 600, f"{case}: {seen}"
            else:
                assert not seen["ends"], f"{case}: animated: {seen}"
        # A tap stops it at once.
        _set_display(tab, demo.base, motion="on")
        nora.page.locator("#table-dice-on").check()
        nora.page.locator("#table-dice button.primary").click()
        _visit(tab, demo.base, f"/campaigns/{demo.id}")
        expect(tab.page.locator("#live-status")).to_have_text("live")
        seen = _arrival(tab, demo, demo.nora)
        entry = tab.page.locator(f"#entry-{seen['seq']}")
        entry.locator(".summary").click()
        expect(entry).not_to_have_class(re.compile(r"\brolling\b"))
    finally:
        _set_display(tab, demo.base, motion="device")
    print("entry to visible (ms):", timings)


def test_a_blind_roll_shows_a_question_mark_die_to_whoever_may_not_see_it(tabs: Tabs, demo: Demo) -> None:
    seq = api_roll(demo.base, demo.id, demo.pia, "2d6", visibility="blind")
    pia = _open(tabs, "pia", "en", "phone", "pia")
    _visit(pia, demo.base, f"/campaigns/{demo.id}")
    expect(pia.page.locator(f"#entry-{seq} .die-unknown")).to_have_text("?")
    expect(pia.page.locator(f"#entry-{seq} .total")).to_have_count(0)
    nora = _open(tabs, "nora", "en", "phone", "nora")
    _visit(nora, demo.base, f"/campaigns/{demo.id}")
    expect(nora.page.locator(f"#entry-{seq} .total")).to_be_visible()
    expect(nora.page.locator(f"#entry-{seq} .die-unknown")).to_have_count(0)


# --- keyboard only ---------------------------------------------------------------------------------------------

FOCUS_JS = """
() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const s = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  return {id: e.id, tag: e.tagName, text: (e.innerText || e.value || "").slice(0, 40),
          ring: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2,
          seen: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight};
}
"""


def _tab_to(page: Page, selector: str, *, back: bool = False, limit: int = 250) -> None:
    """Tab (or Shift+Tab) until `selector` has focus; every stop on the way has a visible focus ring (past the
    page's last control the browser's own UI takes focus once: the page's <body> then, and the next Tab is back)."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        focus = page.evaluate(FOCUS_JS)
        if focus is None:
            continue
        assert focus["ring"] and focus["seen"], f"focus not visible on {focus}"
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} not reached with {'Shift+' if back else ''}Tab")


def test_skip_links_a_roll_a_whisper_and_a_roll_call_by_keyboard_only(tabs: Tabs, demo: Demo) -> None:
    tab = _open(tabs, "pia", "en", "laptop", "pia")
    page = tab.page
    _visit(tab, demo.base, f"/campaigns/{demo.id}")
    expect(page.locator("#live-status")).to_have_text("live")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-links a").first).to_be_focused()
    expect(page.locator(".skip-links a").first).to_be_in_viewport()
    _tab_to(page, ".skip-links a[href='#log-entries']")
    page.keyboard.press("Enter")
    expect(page.locator("#log-entries")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    _tab_to(page, ".skip-links a[href='#talk-text']", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("#talk-text")).to_be_focused()

    # Talk: type and Enter (a laptop's keyboard sends).
    page.keyboard.type("Lanterns out, everyone")
    page.keyboard.press("Enter")
    expect(page.locator("#log-entries")).to_contain_text("Lanterns out, everyone")

    # A whisper to the narrator: the composer's options, the audience by arrows, her box by Space.
    _tab_to(page, ".composer-options > summary", back=True)
    page.keyboard.press("Enter")
    _tab_to(page, "#talk-audience")
    for _ in range(8):
        if page.locator("#talk-audience").input_value() == "whisper":
            break
        page.keyboard.press("ArrowDown")
    assert page.locator("#talk-audience").input_value() == "whisper"
    _tab_to(page, ".whisper-to input[type=checkbox]")
    page.keyboard.press("Space")
    _tab_to(page, "#talk-text")
    page.keyboard.type("Only you should know")
    page.keyboard.press("Enter")
    expect(page.locator("#log-entries .vis-whisper").last).to_contain_text("Only you should know")

    # The roll call waiting for Pia: Tab to its dice, type, Enter.
    _visit(tab, demo.base, f"/campaigns/{demo.id}")
    prompt_field = "#prompts-panel input[name=expression]"
    _tab_to(page, prompt_field)
    page.keyboard.type("1d20+2")
    page.keyboard.press("Enter")
    expect(page.locator("#prompts-panel .result")).to_contain_text("#")
    expect(page.locator("#prompts-panel .result")).to_be_focused()

    # The dice box: d20 by keyboard, focus on the result.
    _tab_to(page, "#expression")
    page.keyboard.type("d20")
    page.keyboard.press("Enter")
    expect(page.locator("#dicebox-panel .result")).to_be_focused()


# What a die looks like beyond its colours: a mark must change one of these, so that a person who cannot tell the
# colours apart (protanopia, deuteranopia, a grey screen) still sees it; its words are the die's .sr-only text.
SHAPE_JS = """
(marks) => {
  const shape = (cls) => {
    const die = document.createElement("span");
    die.className = "die " + cls;
    die.textContent = "5";
    document.querySelector("main").appendChild(die);
    const s = getComputedStyle(die), after = getComputedStyle(die, "::after");
    const seen = [s.borderTopStyle, s.borderTopWidth, s.textDecorationLine, s.fontStyle, after.content].join(" ");
    die.remove();
    return seen;
  };
  const plain = shape("");
  return marks.filter(m => shape("die-" + m) === plain);
}
"""


def test_no_die_mark_is_told_by_colour_alone(tabs: Tabs, demo: Demo) -> None:
    from app.systems import SYSTEMS
    from app.systems.marks import CORE_MARKS

    # Every declared mark a die can carry (its class die-<mark>); a value mark (ART's kicker, "%(k)s") is never a die's
    # class: it is a badge beside the die, in words.
    every = {**CORE_MARKS, **{k: m for system in SYSTEMS.values() for k, m in system.marks.items()}}
    declared = sorted(k for k, m in every.items() if "%(k)s" not in m.label)
    tab = _open(tabs, "pia", "en", "phone", "pia")
    _visit(tab, demo.base, f"/campaigns/{demo.id}")
    assert tab.page.evaluate(SHAPE_JS, declared) == []


def _last_seq(demo: Demo) -> int:
    return max(e["seq"] for e in api_log(demo.base, demo.id, demo.nora))


def _keyboard(tab: Tab, demo: Demo, selector: str, key: str = "Enter") -> None:
    """Tab to `selector`, press `key`; the log grows (the move was made) and focus stays on the page."""
    before = _last_seq(demo)
    _tab_to(tab.page, selector)
    tab.page.keyboard.press(key)
    for _ in range(100):
        if _last_seq(demo) > before:
            break
        tab.page.wait_for_timeout(100)
    else:
        errors = tab.page.locator(".error").all_inner_texts()
        raise AssertionError(f"{tab.name}: {selector} by keyboard made no move: {errors}")
    tab.page.wait_for_timeout(300)  # the answer's swap and the live refresh
    assert tab.page.evaluate(FOCUS_JS) is not None, f"{tab.name}: focus lost after {selector}"


def _first_shown(tab: Tab, selectors: list[str]) -> str | None:
    for selector in selectors:
        found = tab.page.locator(selector)
        if found.count() and found.first.is_visible() and found.first.is_enabled():
            return selector
    return None


def _encounter(tab: Tab, demo: Demo, marker: str) -> None:
    """The encounter page (of those the campaign page links to) that shows `marker`."""
    for _name, path in encounter_pages(tab, demo.base, demo.id):
        _visit(tab, demo.base, path)
        if tab.page.locator(marker).count():
            return
    raise AssertionError(f"no encounter shows {marker}")


def test_a_turn_in_each_system_by_keyboard_only(tabs: Tabs, demo: Demo) -> None:
    """Cat: test fate from the sheet (a trait by arrows, Enter). Cat fight: a duel move. ART: initiative, an attack,
    a move and a defence in a combat. Rabbits: disposition, the three scripted actions (Space on each), the lock
    and the first roll of a conflict. Tab, Shift+Tab, Enter, Space and arrows only."""
    ids = {
        c["name"]: c["id"]
        for c in httpx2.get(f"{demo.base}/api/campaigns/{demo.id}", headers=demo.nora).json()["characters"]
    }
    pia = _open(tabs, "pia", "en", "laptop", "pia")
    nora = _open(tabs, "nora", "en", "laptop", "nora")

    # Cat: test fate.
    _visit(pia, demo.base, f"/campaigns/{demo.id}/characters/{demo.mine['cat']}")
    _tab_to(pia.page, "#test-fate select[name=trait]")
    pia.page.keyboard.press("ArrowDown")
    _keyboard(pia, demo, "#test-fate button[type=submit], #test-fate button.primary")

    # Cat fight: whoever's move it is in the demo's duel makes one.
    moved = False
    for tab in (pia, nora):
        _encounter(tab, demo, "#catfight-now")
        move = _first_shown(tab, ["[id^=catfight-move-]"])
        if move:
            _keyboard(tab, demo, move)
            moved = True
            break
    assert moved, "nobody could move in the duel"

    # ART: the combat of demo_encounters (Maren, Pia's, against the Goblin Chieftain, the narrator's).
    maren, goblin = ids["Maren Quickhand"], ids["Goblin Chieftain"]
    for tab in (pia, nora):
        _encounter(tab, demo, "#combat-track")
    done: set[str] = set()  # what Pia did by keyboard in this combat
    this_turn: dict[str, set[str]] = {"pia": set(), "nora": set()}  # one attack, one move roll a turn
    pia_moves = [
        f"#combat-initiative-{maren}",
        "#combat-fumble",
        "#combat-defend",
        "#combat-parry-0",
        "#combat-take",
        "#combat-attack",
        "#combat-move-roll",
        "[id^=combat-move-free-]",
        "#combat-end-turn",
    ]
    nora_moves = [f"#combat-initiative-{goblin}", "#combat-fumble", "#combat-foe-attack", "#combat-end-turn"]
    once = {"#combat-attack", "#combat-move-roll", "[id^=combat-move-free-]", "#combat-foe-attack"}
    for _ in range(16):
        if {"#combat-attack", "#combat-move-roll", "#combat-defend"} <= done:
            break
        for who, tab, moves in (("pia", pia, pia_moves), ("nora", nora, nora_moves)):
            move = _first_shown(tab, [m for m in moves if not (m in once and m in this_turn[who])])
            if move:
                _keyboard(tab, demo, move)
                this_turn[who] = set() if move == "#combat-end-turn" else this_turn[who] | {move}
                if who == "pia":
                    done.add(move)
                break
        else:
            pia.page.reload()
            nora.page.reload()
    state = {
        t.name: t.page.locator("#combat-status, #combat-turn, #combat-pending, #combat-waiting").all_inner_texts()
        for t in (pia, nora)
    }
    assert {"#combat-attack", "#combat-move-roll", "#combat-defend"} <= done, f"{done} {state}"

    # Rabbits: the conflict of demo_encounters (Clover, Pia's, for the Warren; the Foxes are the narrator's).
    for tab in (pia, nora):
        _encounter(tab, demo, "[id^=rc-]")
    for tab, key in ((pia, "a"), (nora, "b")):
        _keyboard(tab, demo, f"#rc-roll-dispo-{key}")
        keep = _first_shown(tab, [f"#rc-dfate-form-{key} button[value=false]"])
        if keep:
            _keyboard(tab, demo, keep)
    for tab, key in ((pia, "a"), (nora, "b")):
        tab.page.reload()
        for n in (1, 2, 3):
            _tab_to(tab.page, f"#rc-script-{key} input[name=action_{n}]")
            tab.page.keyboard.press("Space")
        before = _last_seq(demo)
        _tab_to(tab.page, f"#rc-lock-{key}")
        tab.page.keyboard.press("Enter")
        expect(tab.page.locator(f"#rc-lock-{key}")).to_have_count(0)
        assert _last_seq(demo) >= before
    for tab in (pia, nora):
        tab.page.reload()
    rolled = False
    for tab, key in ((pia, "a"), (nora, "b")):
        roll = _first_shown(tab, [f"[id^=rc-roll-{key}]"])
        if roll:
            _keyboard(tab, demo, roll)
            rolled = True
            break
    assert rolled, "no first roll of the volley"
