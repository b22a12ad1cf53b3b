"""Every live panel, one test per kind of page (issue 14): a change made from a second client — the narrator's or
the player's own API client, another browser — shows in the open page without a reload. One campaign with four
systems (dice, ART, Rabbits, cat fight) per test, built through the API.

1. Sheets (phone): #sheet, the recent log and the prompts panel of a dice, an ART, a Rabbits and a cat-fight sheet.
2. Pages (laptop): the ART, Rabbits and cat-fight pages (#system, #catfight-live), the campaign page's prompts
   list when a player answers elsewhere, the narrator screen's encounter list and open prompts.
3. Keyboard focus after swaps (phone): a duel move, an ART trait roll, a Rabbits test — after Enter the result
   (or the control next to it) has focus, never <body>.
4. The log (phone): "Jump to latest", the full date on tapping a time, a filtered log that takes only its entries.
axe-core checks every page state visited (0 serious or critical violations).
Skipped unless TEST_CHROMIUM names a Chromium binary (see tests/browser/conftest.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx2
import pytest
from playwright.sync_api import Page, expect
from utils.art import balanced
from utils.catfight import MIMI
from utils.rabbits_conflict import CLOVER, HAZEL

from . import axe
from .pages import Tab, Tabs, api_invite, api_user, sign_in, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.server]

WAIT = 20_000  # ms: a live change on a busy 2-core machine
TECKA = {"attack": 16, "defend": 14, "jump": 14, "sneak": 12, "quickness": 14}
FOCUS_JS = """() => { const e = document.activeElement;
  return !e || e === document.body ? "body" : e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\\s+/).join(".") : ""); }"""


@dataclass
class Table:
    """Nora narrates; Pia plays Wren (dice), Maren (ART), Clover (Rabbits) and Tecka (cat fight); Otto plays Mimi
    (cat fight). `who` holds each one's API auth (a second client of the same person)."""

    base: str
    id: int
    who: dict[str, dict[str, str]]
    ids: dict[str, int] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return f"/campaigns/{self.id}"

    def api(self, path: str, who: str, **body: Any) -> dict[str, Any]:
        """A POST to the campaign's JSON API: every one this test sends creates something (201)."""
        r = httpx2.post(f"{self.base}/api/campaigns/{self.id}{path}", headers=self.who[who], json=body)
        assert r.status_code == 201, r.text
        return r.json()

    def character(self, who: str, name: str, system: str, sheet: dict[str, Any] | None = None) -> int:
        made = self.api("/characters", who, name=name, system=system, **({"sheet": sheet} if sheet else {}))
        self.ids[name] = made["id"]
        return made["id"]

    def act(self, who: str, system: str, action: str, character: str | None = None, **params: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"system": system, "action": action, "params": params}
        if character:
            body["character_id"] = self.ids[character]
        if "prompt_id" in params:
            body["prompt_id"] = params.pop("prompt_id")
        return self.api("/actions", who, **body)

    def adjust(self, name: str, reason: str, **changes: Any) -> None:
        self.api(f"/characters/{self.ids[name]}/adjust", "nora", changes=changes, reason=reason)

    def call(self, name: str, system: str, action: str, note: str = "", **locked: Any) -> int:
        return self.api(
            "/prompts",
            "nora",
            character_id=self.ids[name],
            system=system,
            action=action,
            locked=locked,
            note=note,
        )["id"]


def _table(base: str) -> Table:
    who = {n: api_user(base, n) for n in ("nora", "pia", "otto")}
    r = httpx2.post(
        base + "/api/campaigns",
        headers=who["nora"],
        json={"name": "Four Tables", "systems": ["dice", "art", "rabbits", "catfight"]},
    )
    assert r.status_code == 201, r.text
    t = Table(base, r.json()["id"], who)
    for name in ("pia", "otto"):
        code = api_invite(base, t.id, who["nora"])
        assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=who[name]).status_code == 200
    t.character("pia", "Wren", "dice")
    t.character("pia", "Maren", "art", {k: v for k, v in balanced("Maren").items() if k != "name"})
    t.character("pia", "Clover", "rabbits", CLOVER)
    t.character("pia", "Tecka", "catfight", TECKA)
    t.character("otto", "Mimi", "catfight", MIMI)
    return t


def _mark(page: Page) -> None:
    page.evaluate("() => { window.__fateboardTestMark = true; }")


def _still_marked(page: Page) -> bool:
    return page.evaluate("() => window.__fateboardTestMark === true")


def _open(tab: Tab, url: str) -> Page:
    page = tab.page
    page.goto(url)
    wait_live(page)
    _mark(page)
    return page


def _seq(entry: dict[str, Any]) -> int:
    return int(entry["seq"])


# --- 1. sheets ---


def test_every_sheet_follows_the_stream(tabs: Tabs) -> None:
    base = tabs.base
    t = _table(base)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=t.path)
    problems: list[str] = []

    def sheet_of(name: str) -> Page:
        return _open(pia, f"{base}{t.path}/characters/{t.ids[name]}")

    # A dice character: the narrator's note lands in #sheet and the recent log; a prompt appears on the sheet
    # (with a toast); Pia answers it from her other client: it leaves, and the roll is in the recent log.
    page = sheet_of("Wren")
    expect(page.locator("#recent")).to_contain_text("Nothing yet.")
    t.adjust("Wren", "a debt", notes="Owes the ferryman a coin")
    expect(page.locator("#sheet")).to_contain_text("Owes the ferryman a coin", timeout=WAIT)
    expect(page.locator("#recent")).to_contain_text("adjusted Wren's sheet", timeout=WAIT)
    prompt = t.call("Wren", "dice", "roll", note="Can Wren hold the rope?", expression="1d20")
    expect(page.locator(f"#sheet-prompts #prompt-{prompt}")).to_be_visible(timeout=WAIT)
    expect(page.locator("#toast")).to_be_visible()
    problems += axe.violations(page, "panels-dice-sheet-prompt")
    rolled = _seq(t.act("pia", "dice", "roll", prompt_id=prompt))
    expect(page.locator(f"#sheet-prompts #prompt-{prompt}")).to_have_count(0, timeout=WAIT)
    expect(page.locator(f"#recent #entry-{rolled}")).to_be_visible(timeout=WAIT)
    assert _still_marked(page), "the dice sheet was reloaded"

    # ART: Fatigue set by the narrator; a trait roll from Pia's other client in the recent log and the sheet's
    # "Last roll"; a prompt for a roll appears.
    page = sheet_of("Maren")
    t.adjust("Maren", "a long march", fatigue=2)
    expect(page.locator("#sheet dd", has_text="on all rolls")).to_contain_text("−2", timeout=WAIT)
    rolled = _seq(t.act("pia", "art", "trait_roll", "Maren", attribute="AGI", difficulty="PR"))
    expect(page.locator(f"#recent #entry-{rolled}")).to_be_visible(timeout=WAIT)
    expect(page.locator("#art-last")).to_contain_text(f"#{rolled}", timeout=WAIT)
    prompt = t.call("Maren", "art", "trait_roll", attribute="AGI", difficulty="GD")
    expect(page.locator(f"#art-prompts #prompt-{prompt}")).to_be_visible(timeout=WAIT)
    problems += axe.violations(page, "panels-art-sheet")
    assert _still_marked(page), "the ART sheet was reloaded"

    # Rabbits: a condition from the narrator; a test from Pia's other client in the recent log and "Latest roll";
    # a prompt for a test appears, and goes when answered elsewhere.
    page = sheet_of("Clover")
    expect(page.locator("#rabbits-conditions")).to_contain_text("Fresh")
    t.adjust("Clover", "a cold night", conditions=["tired"])
    expect(page.locator("#rabbits-conditions")).to_contain_text("Tired", timeout=WAIT)
    rolled = _seq(t.act("pia", "rabbits", "test", "Clover", skill="Scout", ob=1))
    expect(page.locator(f"#recent #entry-{rolled}")).to_be_visible(timeout=WAIT)
    expect(page.locator("#rabbits-last")).to_contain_text(f"#{rolled}", timeout=WAIT)
    prompt = t.call("Clover", "rabbits", "test", note="Sniff out the fox", skill="Scout", ob=2)
    expect(page.locator(f"#rabbits-prompts #prompt-{prompt}")).to_be_visible(timeout=WAIT)
    problems += axe.violations(page, "panels-rabbits-sheet-prompt")
    t.act("pia", "rabbits", "test", "Clover", prompt_id=prompt)
    expect(page.locator(f"#rabbits-prompts #prompt-{prompt}")).to_have_count(0, timeout=WAIT)
    assert _still_marked(page), "the Rabbits sheet was reloaded"

    # A cat-fight cat: the narrator's health change; a duel called for by the narrator appears as a prompt; Otto
    # challenges from his client: the duel shows on Tecka's sheet.
    page = sheet_of("Tecka")
    t.adjust("Tecka", "a thorn bush", health=2)
    expect(page.locator("#sheet .catfight-health")).to_contain_text("2 / 3", timeout=WAIT)
    expect(page.locator("#recent")).to_contain_text("adjusted Tecka's sheet (a thorn bush)", timeout=WAIT)
    prompt = t.call("Tecka", "catfight", "challenge", opponent_id=t.ids["Mimi"])
    expect(page.locator(f"#catfight-prompts #prompt-{prompt}")).to_be_visible(timeout=WAIT)
    expect(page.locator(f"#catfight-prompts #prompt-{prompt}")).to_contain_text("Against Mimi")
    problems += axe.violations(page, "panels-catfight-sheet-prompt")
    t.act("otto", "catfight", "challenge", "Mimi", opponent_id=t.ids["Tecka"])
    expect(page.locator("#catfight-duels a")).to_have_text("Mimi vs Tecka", timeout=WAIT)
    expect(page.locator("#sheet .catfight-status")).to_contain_text("In a duel", timeout=WAIT)
    problems += axe.violations(page, "panels-catfight-sheet-duel")
    assert _still_marked(page), "the cat-fight sheet was reloaded"

    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], "\n".join(tabs.errors())


# --- 2. system pages, the campaign page's prompts, the narrator screen ---


def test_system_pages_prompts_and_the_narrator_screen_follow_the_stream(tabs: Tabs) -> None:
    base = tabs.base
    t = _table(base)
    nora = tabs.open("nora", desktop=True)
    sign_in(nora, base, "nora", next=t.path)
    problems: list[str] = []

    # The campaign page: a prompt the narrator sent from elsewhere shows; the player answers it on her client:
    # it leaves the list.
    page = _open(nora, base + t.path)
    prompt = t.call("Wren", "dice", "roll", expression="1d6")
    listed = page.locator(f"#prompts-panel #prompt-{prompt}")
    expect(listed).to_contain_text("Waiting for the player", timeout=WAIT)
    problems += axe.violations(page, "panels-campaign-prompt")
    t.act("pia", "dice", "roll", prompt_id=prompt)
    expect(listed).to_have_count(0, timeout=WAIT)
    expect(page.locator("#prompts-panel")).to_contain_text("No open prompts.")
    assert _still_marked(page), "the campaign page was reloaded"

    # The ART page: a roll made on Pia's client shows as Maren's last roll; a new adventurer joins the list.
    page = _open(nora, f"{base}{t.path}/systems/art")
    rolled = _seq(t.act("pia", "art", "trait_roll", "Maren", attribute="AGI", difficulty="PR"))
    expect(page.locator("#system .art-cast li", has_text="Maren")).to_contain_text(f"(#{rolled})", timeout=WAIT)
    t.character("otto", "Bram", "art", {k: v for k, v in balanced("Bram").items() if k != "name"})
    expect(page.locator("#system .art-cast").first).to_contain_text("Bram", timeout=WAIT)
    problems += axe.violations(page, "panels-art-page")
    assert _still_marked(page), "the ART page was reloaded"

    # The Rabbits page: a new rabbit; the turn set from the narrator's other client (her API token).
    page = _open(nora, f"{base}{t.path}/systems/rabbits")
    expect(page.locator("#system .table-head .badge")).to_have_text("narrator's turn")
    t.character("otto", "Hazel", "rabbits", HAZEL)
    expect(page.locator("#system")).to_contain_text("Hazel", timeout=WAIT)
    t.act("nora", "rabbits", "settings", turn="players", starting_fate=2, starting_persona=1)
    expect(page.locator("#system .table-head .badge")).to_have_text("players' turn", timeout=WAIT)
    problems += axe.violations(page, "panels-rabbits-page")
    assert _still_marked(page), "the Rabbits page was reloaded"

    # The cat-fight page: a duel Otto starts shows under Duels (#catfight-live); a new cat in the roster.
    page = _open(nora, f"{base}{t.path}/systems/catfight")
    expect(page.locator("#catfight-live")).to_contain_text("No duel is running.")
    t.act("otto", "catfight", "challenge", "Mimi", opponent_id=t.ids["Tecka"])
    expect(page.locator("#catfight-live a", has_text="Mimi vs Tecka")).to_be_visible(timeout=WAIT)
    expect(page.locator("#catfight-live .catfight-roster li", has_text="Tecka")).to_contain_text("fighting")
    t.character("otto", "Soot", "catfight", MIMI)
    expect(page.locator("#catfight-live .catfight-roster")).to_contain_text("Soot", timeout=WAIT)
    problems += axe.violations(page, "panels-catfight-page")
    assert _still_marked(page), "the cat-fight page was reloaded"

    # The narrator screen: Otto's first move moves the duel on a step; a second duel appears; a prompt answered
    # on the player's client leaves the open prompts.
    page = _open(nora, f"{base}{t.path}/narrator")
    duel = page.locator("#screen-live li", has_text="Mimi vs Tecka")
    expect(duel).to_contain_text("step 1")
    encounter = int(re.search(r"/encounters/(\d+)", duel.locator("a").get_attribute("href") or "").group(1))
    t.act("otto", "catfight", "move", "Mimi", encounter_id=encounter, version=1, move="begin")
    expect(duel).to_contain_text("step 2", timeout=WAIT)
    t.character("pia", "Pounce", "catfight", TECKA)
    t.act("pia", "catfight", "challenge", "Pounce", opponent_id=t.ids["Soot"])
    expect(page.locator("#screen-live li", has_text="Pounce vs Soot")).to_be_visible(timeout=WAIT)
    expect(page.locator("#screen-live")).to_contain_text("Pounce", timeout=WAIT)  # its glance too
    prompt = t.call("Wren", "dice", "roll", note="Does the bridge hold?", expression="1d4")
    open_prompt = page.locator(f"#screen-prompts li[data-prompt-id='{prompt}']")
    expect(open_prompt).to_be_visible(timeout=WAIT)
    problems += axe.violations(page, "panels-narrator-screen")
    t.act("pia", "dice", "roll", prompt_id=prompt)
    expect(open_prompt).to_have_count(0, timeout=WAIT)
    expect(page.locator("#screen-prompts")).to_contain_text("No open prompts.")
    problems += axe.violations(page, "panels-narrator-screen-after")
    assert _still_marked(page), "the narrator screen was reloaded"

    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], "\n".join(tabs.errors())


# --- 3. keyboard focus after a swap ---


def _focused(page: Page) -> str:
    return page.evaluate(FOCUS_JS)


HTMX_READY_JS = """(e) => { const f = e.closest("form") || e;
  return !!(f["htmx-internal-data"] && f["htmx-internal-data"].initHash); }"""


def _htmx_ready(page: Page, button: Any) -> None:
    """htmx takes over a swapped-in form when the swap settles (20 ms later, longer on a busy machine); a tap or
    Enter before that submits it natively (a GET that leaves the page). A person is slower; the test waits."""
    for _ in range(200):
        if button.evaluate(HTMX_READY_JS):
            return
        page.wait_for_timeout(25)
    raise AssertionError("htmx never took over the form")


def _press_enter_on(page: Page, button: Any) -> None:
    _htmx_ready(page, button)
    button.focus()
    expect(button).to_be_focused()
    page.keyboard.press("Enter")


def _tabs_to(page: Page, selector: str, most: int) -> int:
    """Tab until an element matching `selector` has focus; how many Tabs it took (most + 1: not reached)."""
    for n in range(most + 1):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return n
        page.keyboard.press("Tab")
    return most + 1


def test_keyboard_focus_stays_with_the_result(tabs: Tabs) -> None:
    base = tabs.base
    t = _table(base)
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=t.path)
    problems: list[str] = []

    # ART: a trait roll with the keyboard. The result is focused and in view; the form kept the choices; Tab goes
    # on inside the sheet, not from the top of the page.
    page = _open(pia, f"{base}{t.path}/characters/{t.ids['Maren']}")
    page.locator("#tr-attr").select_option("DEX")
    page.locator("#tr-diff").select_option("GD")
    _press_enter_on(page, page.locator("form:has(#tr-attr) button[type=submit]"))
    result = page.locator("#sheet .result")
    expect(result).to_be_focused(timeout=WAIT)
    expect(result).to_be_in_viewport()
    expect(page.locator("#tr-attr")).to_have_value("DEX")
    expect(page.locator("#tr-diff")).to_have_value("GD")
    problems += axe.violations(page, "focus-art-result")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.getElementById('sheet').contains(document.activeElement)"), _focused(page)

    # Rabbits: a test with the keyboard, the same.
    page = _open(pia, f"{base}{t.path}/characters/{t.ids['Clover']}")
    page.locator("#test-skill").select_option("Fighter")
    page.locator("#test-ob").fill("1")
    _press_enter_on(page, page.locator("#rabbits-test button[type=submit]"))
    result = page.locator("#sheet .result")
    expect(result).to_be_focused(timeout=WAIT)
    expect(result).to_be_in_viewport()
    expect(result).to_contain_text("Fighter")
    expect(page.locator("#test-skill")).to_have_value("Fighter")
    problems += axe.violations(page, "focus-rabbits-result")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.getElementById('sheet').contains(document.activeElement)"), _focused(page)

    # A duel, Pia on the keyboard (Tecka) and Otto tapping (Mimi, another phone). After each of Pia's moves the
    # result has focus; when the duel comes back to her, her next move is a Tab or two away — not 8 from the top.
    t.act("pia", "catfight", "challenge", "Tecka", opponent_id=t.ids["Mimi"])
    page = _open(pia, f"{base}{t.path}/characters/{t.ids['Tecka']}")
    duel_url = base + (page.locator("#catfight-duels a").get_attribute("href") or "")
    otto = tabs.open("otto")
    sign_in(otto, base, "otto", next=t.path)
    page, other = _open(pia, duel_url), _open(otto, duel_url)
    step = int(page.locator("#encounter").get_attribute("data-live-version") or 0)
    mine = 0
    far: list[str] = []
    history: list[str] = []
    for _ in range(80):
        for p in (page, other):  # both phones show the same step
            expect(p.locator("#encounter")).to_have_attribute("data-live-version", str(step), timeout=WAIT)
        if page.locator(".catfight-verdict").count():
            break
        if page.locator("button.catfight-move").count():
            if mine:  # the duel came back to Pia after Otto's move (a live swap): where is her focus?
                _htmx_ready(page, page.locator("button.catfight-move").first)  # the swap settled (app.js ran)
                before = _focused(page)
                took = _tabs_to(page, "button.catfight-move", 2)
                if took > 2:
                    far.append(f"step {step}: focus on {before}, then {_focused(page)} (moves: {history})")
            moves = page.locator("button.catfight-move").evaluate_all("els => els.map(e => e.value)")
            move = next(m for m in ("attack", "defend", "begin", "sneak", "jump", "flee") if m in moves)
            history.append(f"pia {move}")
            _press_enter_on(page, page.locator(f"#catfight-move-{move}"))
            expect(page.locator("#encounter")).to_have_attribute("data-live-version", str(step + 1), timeout=WAIT)
            now = page.locator("#catfight-now .result")
            expect(now).to_be_focused(timeout=WAIT)
            expect(now).to_be_in_viewport()
            if not mine:
                problems += axe.violations(page, "focus-duel-result")
            mine += 1
        else:
            moves = other.locator("button.catfight-move").evaluate_all("els => els.map(e => e.value)")
            assert moves, "nobody can move"
            move = next(m for m in ("attack", "jump", "begin", "sneak", "defend", "flee") if m in moves)
            history.append(f"otto {move}")
            _htmx_ready(other, other.locator(f"#catfight-move-{move}"))
            other.locator(f"#catfight-move-{move}").click()
        step += 1
    else:
        raise AssertionError("the duel did not end in 80 moves")
    assert mine >= 2, f"Pia moved {mine} times"
    assert far == [], "after Otto's move, Pia's next move was more than 2 Tabs away:\n" + "\n".join(far)
    problems += axe.violations(page, "focus-duel-over")
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], "\n".join(tabs.errors())


# --- 4. the log: jump to latest, the full date, a filtered log ---


def test_the_log_jumps_to_latest_shows_the_date_and_keeps_its_filter(tabs: Tabs) -> None:
    base = tabs.base
    t = _table(base)
    for _ in range(24):  # more than the log box shows on a phone
        t.act("nora", "dice", "roll", expression="1d6")
    pia = tabs.open("pia")
    sign_in(pia, base, "pia", next=t.path)
    page = _open(pia, base + t.path)
    log, jump = page.locator("#log-entries"), page.locator("#jump-latest")
    problems: list[str] = []

    # "Jump to latest": hidden at the bottom; scrolled up, it shows; a new entry arrives out of view; tapping it
    # brings the newest entry into view (and focus) and hides it again.
    expect(log.locator("li.entry")).to_have_count(24)
    assert log.evaluate("e => e.scrollHeight > e.clientHeight + 200"), "the log does not scroll"
    expect(jump).to_be_hidden()
    log.evaluate("e => { e.scrollTop = 0; e.dispatchEvent(new Event('scroll')); }")
    expect(jump).to_be_visible(timeout=WAIT)
    seq = _seq(t.act("nora", "dice", "roll", expression="2d6"))
    newest = page.locator(f"#entry-{seq}")
    expect(newest).to_be_attached(timeout=WAIT)
    expect(newest).not_to_be_in_viewport()
    assert log.evaluate("e => e.scrollTop") < 50, "a new entry pulled a log scrolled up back down"
    problems += axe.violations(page, "log-jump-shown")
    jump.tap()
    expect(newest).to_be_in_viewport()
    expect(newest).to_be_focused()
    expect(jump).to_be_hidden()

    # Tapping a time shows its full date (a phone has no hover), and tapping again the short time.
    time = newest.locator("time")
    short, full = time.inner_text(), time.get_attribute("title") or ""
    assert re.search(r"\d{4}", full), full
    time.tap()
    expect(time).to_have_text(full)
    problems += axe.violations(page, "log-full-date")
    time.tap()
    expect(time).to_have_text(short)

    # A log filtered by character (through the filter form) takes a live entry only when it matches.
    page.locator("details.log-filter > summary").tap()
    page.locator("#lf-character").select_option(label="Wren")
    page.locator("details.log-filter button.primary").tap()
    expect(page).to_have_url(re.compile(rf"character={t.ids['Wren']}"))
    wait_live(page)
    _mark(page)
    expect(log.locator("li.entry")).to_have_count(0)
    other = [
        _seq(t.act("nora", "dice", "roll", expression="1d4")),
        _seq(t.act("pia", "art", "trait_roll", "Maren", attribute="AGI", difficulty="PR")),
    ]
    wren = _seq(t.act("pia", "dice", "roll", "Wren", expression="1d8"))
    expect(page.locator(f"#entry-{wren}")).to_be_visible(timeout=WAIT)  # after the two others (one stream, in order)
    for seq in other:
        expect(page.locator(f"#entry-{seq}")).to_have_count(0)
    other.append(_seq(t.act("pia", "rabbits", "test", "Clover", skill="Scout", ob=1)))
    wren2 = _seq(t.act("pia", "dice", "roll", "Wren", expression="1d10"))
    expect(page.locator(f"#entry-{wren2}")).to_be_visible(timeout=WAIT)
    expect(log.locator("li.entry")).to_have_count(2)
    assert list(log.locator("li.entry").evaluate_all("els => els.map(e => e.id)")) == [
        f"entry-{wren}",
        f"entry-{wren2}",
    ]
    problems += axe.violations(page, "log-filtered")
    assert _still_marked(page), "the filtered log was reloaded"
    assert problems == [], "\n".join(problems)
    assert tabs.errors() == [], "\n".join(tabs.errors())
