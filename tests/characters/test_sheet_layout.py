"""The one sheet layout (templates/characters/_sheet_page.html): every rule system's sheet extends it, so the
live hooks are on every sheet, and a prompt the narrator calls for reaches the player's open sheet live. Every sheet
puts what a player does most first (issue 21): its key numbers ([data-key]) and its main roll ([data-primary]) come
before any other card, the rest folds (<details class="card fold">); a narrator's call ([data-narrator-call]) comes
first for the narrator. tests/browser/test_sheet_layout_browser.py measures it on a 390x844 screen."""

from __future__ import annotations

import queue
import re
import threading
from html.parser import HTMLParser

import httpx2
import pytest
from jinja2 import nodes
from utils.server import LiveServer
from utils.sheets import CASES
from utils.web import CSRF_RE

from app.characters.routes import template_for
from app.systems import SYSTEMS
from app.web import ENV

LAYOUT = "characters/_sheet_page.html"
PASSWORD = "correct horse"


def _source(name: str) -> str:
    assert ENV.loader is not None
    return ENV.loader.get_source(ENV, name)[0]


def _blocks(name: str) -> set[str]:
    return {b.name for b in ENV.parse(_source(name)).find_all(nodes.Block)}


def test_every_system_has_a_case() -> None:
    assert set(CASES) == set(SYSTEMS)


@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_the_sheet_extends_the_one_layout(system_id: str) -> None:
    name = template_for(SYSTEMS[system_id], "sheet")
    extends = ENV.parse(_source(name)).find(nodes.Extends)
    assert extends is not None and isinstance(extends.template, nodes.Const) and extends.template.value == LAYOUT
    layout_blocks, own = _blocks(LAYOUT), _blocks(name)
    # It fills only blocks the layout declares, and never replaces `sheet` (the fragment every action renders)
    # or `content` (the live hooks), so the layout's scaffolding is on every sheet.
    assert own <= layout_blocks - {"sheet", "content"}, own - layout_blocks
    assert {"sheet", "sheet_body"} <= layout_blocks
    assert "data-stream" not in _source(name) and "prompts-changed" not in _source(name)
    # The `sheet` fragment the routes render comes from the layout, with the system's blocks inside.
    assert "sheet" in ENV.get_template(LAYOUT).blocks


def test_the_layout_holds_the_live_hooks_once() -> None:
    src = _source(LAYOUT)
    assert src.count("data-stream=") == 1 and src.count('{{ live_panel("sheet", character.id) }}') == 1
    # The prompts panel follows the stream's `prompts` event (static/js/app.js refetches [data-live] panels from
    # their fragment URL: the prompts panel is inside the sheet's; app/panels `sheet_prompts`).
    assert 'data-prompts {{ live_panel("sheet_prompts", character.id) }}' in _source("characters/_sheet_macros.html")
    assert src.count('{% include "characters/_sheet_head.html" %}') == 1
    assert src.count('{% include "characters/_recent.html" %}') == 1


class _Panel(HTMLParser):
    """The prompts panel ([data-prompts]) of a page, and the live events it follows (data-live)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.panels = 0
        self.inside: list[str] = []
        self.hooks: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self.depth:
            self.depth += tag not in ("input", "br", "img", "meta", "link")
            self.inside.append(f"{tag} {a.get('id') or ''}")
        elif "data-prompts" in a:
            self.panels += 1
            self.depth = 1
            self.hooks.append(a)

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1


def _panel(html: str) -> _Panel:
    parser = _Panel()
    parser.feed(html)
    return parser


def _token(base: str, name: str) -> dict[str, str]:
    httpx2.post(base + "/api/users", json={"username": name, "password": PASSWORD})
    r = httpx2.post(base + "/api/tokens", json={"username": name, "password": PASSWORD})
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _signed_in(base: str, name: str) -> httpx2.Client:
    client = httpx2.Client(base_url=base, timeout=20)
    match = CSRF_RE.search(client.get("/signin").text)
    assert match
    r = client.post("/signin", data={"username": name, "password": PASSWORD, "csrf_token": match.group(1)})
    assert r.status_code == 303, r.text
    return client


def _listen(client: httpx2.Client, path: str, events: queue.Queue, ready: threading.Event) -> None:
    try:
        with client, client.stream("GET", path) as response:
            ready.set()
            for line in response.iter_lines():
                if line.startswith("event: "):
                    events.put(line[7:])
    except httpx2.TransportError:  # the server stopped at the end of the test
        pass


@pytest.mark.server
@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_a_prompt_appears_live_on_the_open_sheet(live_server: LiveServer, system_id: str) -> None:
    base = live_server.url
    sheet, action, locked = CASES[system_id]
    nora, pia = _token(base, "nora"), _token(base, "pia")
    systems = [] if system_id == "dice" else [system_id]
    cid = httpx2.post(base + "/api/campaigns", json={"name": "Live sheet", "systems": systems}, headers=nora).json()[
        "id"
    ]
    code = httpx2.post(f"{base}/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=pia).status_code == 200
    r = httpx2.post(
        f"{base}/api/campaigns/{cid}/characters",
        headers=pia,
        json={"name": "Hero", "system": system_id, "sheet": sheet},
    )
    assert r.status_code == 201, r.text
    hero = r.json()["id"]

    # Pia opens her sheet: the stream and the prompts panel, which follows the `prompts` event, are on it.
    browser = _signed_in(base, "pia")
    url = f"/campaigns/{cid}/characters/{hero}"
    page = browser.get(url)
    assert page.status_code == 200
    assert f'data-stream="/campaigns/{cid}/stream"' in page.text
    before = _panel(page.text)
    assert before.panels == 1 and not before.inside
    [hook] = before.hooks
    assert "prompts" in (hook["data-live"] or "").split() and hook["id"]
    assert hook["data-live-url"] == f"/campaigns/{cid}/panels/sheet_prompts?of={hero}"

    events: queue.Queue = queue.Queue()
    ready = threading.Event()
    stream = httpx2.Client(base_url=base, timeout=20, cookies=browser.cookies)
    threading.Thread(target=_listen, args=(stream, f"/campaigns/{cid}/stream", events, ready), daemon=True).start()
    assert ready.wait(10)

    r = httpx2.post(
        f"{base}/api/campaigns/{cid}/prompts",
        headers=nora,
        json={"character_id": hero, "system": system_id, "action": action, "locked": locked, "note": "Now!"},
    )
    assert r.status_code == 201, r.text
    prompt_id = r.json()["id"]

    # The stream announces it; the refetch (app.js's GET of the panel's fragment, taken by its id) shows it.
    while (event := events.get(timeout=10)) != "prompts":
        assert event in ("entry", "encounter"), event
    after = _panel(browser.get(hook["data-live-url"]).text)
    assert after.panels == 1
    assert f"section prompt-{prompt_id}" in after.inside, after.inside
    assert re.search(r"Now!", browser.get(url).text)
    browser.close()


class _Cards(HTMLParser):
    """The cards of #sheet in order (sections and details with the class card), with their markers."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict[str, str | None]] = []
        self.depth = 0  # inside #sheet: its element depth (0 = not yet)
        self.card_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("input", "br", "img", "meta", "link", "option"):
            return
        if not self.depth:
            if a.get("id") == "sheet":
                self.depth = 1
            return
        self.depth += 1
        classes = (a.get("class") or "").split()
        if tag in ("section", "details") and "card" in classes and not self.card_depth:
            self.cards.append({"tag": tag, **a})
            self.card_depth = self.depth
        elif "data-prompts" in a and not self.card_depth:
            self.cards.append({"tag": tag, **a})

    def handle_endtag(self, tag: str) -> None:
        if tag in ("input", "br", "img", "meta", "link", "option") or not self.depth:
            return
        if self.card_depth == self.depth:
            self.card_depth = 0
        self.depth -= 1


def _cards(html: str) -> list[dict[str, str | None]]:
    parser = _Cards()
    parser.feed(html)
    return parser.cards


def _first_screen(cards: list[dict[str, str | None]], narrator: bool) -> list[str]:
    """Problems: cards before the main roll other than the key numbers, the prompts and the narrator's call."""
    problems = []
    marks = [
        next((k for k in ("data-primary", "data-key", "data-narrator-call", "data-prompts") if k in c), "")
        for c in cards
    ]
    if "data-primary" not in marks:
        return ["no main roll marked data-primary"]
    before = marks[: marks.index("data-primary")]
    problems += [f"a card before the main roll: {cards[i]}" for i, m in enumerate(before) if not m]
    if "data-key" not in before and "data-key" in marks:
        problems.append("the key numbers come after the main roll")
    if narrator and "data-narrator-call" in marks and "data-narrator-call" not in before:
        problems.append("the narrator's call comes after the main roll")
    folds_before = [
        cards[i]
        for i in range(len(before))
        if "fold" in (cards[i].get("class") or "").split() and marks[i] != "data-narrator-call"
    ]
    problems += [f"a fold before the main roll: {c}" for c in folds_before]
    return problems


def test_the_first_screen_check_fails_a_sheet_that_puts_the_roll_last() -> None:
    last = (
        '<div id="sheet"><section class="card" data-key></section><section class="card"><h2>Traits</h2>'
        '</section><section class="card" data-primary><button>Roll</button></section></div>'
    )
    assert _first_screen(_cards(last), narrator=False) == [
        "a card before the main roll: {'tag': 'section', 'class': 'card'}"
    ]
    folded_first = (
        '<div id="sheet"><section class="card" data-key></section><details class="card fold" data-x>'
        '<summary>Traits</summary></details><section class="card" data-primary></section></div>'
    )
    assert _first_screen(_cards(folded_first), narrator=False)
    first = (
        '<div id="sheet"><section class="card" data-key></section><section class="card" data-primary>'
        '</section><details class="card fold"><summary>Traits</summary></details></div>'
    )
    assert _first_screen(_cards(first), narrator=False) == []
    assert _first_screen(_cards('<div id="sheet"><section class="card"></section></div>'), narrator=False)
    call_last = first.replace("</div>", '<details class="card fold" data-narrator-call></details></div>')
    assert _first_screen(_cards(call_last), narrator=True) == ["the narrator's call comes after the main roll"]


@pytest.mark.server
@pytest.mark.parametrize("system_id", list(SYSTEMS))
def test_every_sheet_puts_its_main_roll_first(live_server: LiveServer, system_id: str) -> None:
    """A new character's sheet, for its player and for the narrator: key numbers, (the narrator's call), the main
    roll, and only then everything else, folded."""
    base = live_server.url
    sheet, _action, _locked = CASES[system_id]
    nora, pia = _token(base, "nora"), _token(base, "pia")
    systems = [] if system_id == "dice" else [system_id]
    cid = httpx2.post(base + "/api/campaigns", json={"name": "First screen", "systems": systems}, headers=nora).json()[
        "id"
    ]
    code = httpx2.post(f"{base}/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
    assert httpx2.post(f"{base}/api/invites/{code}/accept", headers=pia).status_code == 200
    r = httpx2.post(
        f"{base}/api/campaigns/{cid}/characters",
        headers=pia,
        json={"name": "Hero", "system": system_id, "sheet": sheet},
    )
    assert r.status_code == 201, r.text
    for who, narrator in (("pia", False), ("nora", True)):
        browser = _signed_in(base, who)
        try:
            page = browser.get(f"/campaigns/{cid}/characters/{r.json()['id']}")
        finally:
            browser.close()
        assert page.status_code == 200
        cards = _cards(page.text)
        assert cards, page.text[:500]
        problems = _first_screen(cards, narrator)
        assert not problems, (who, problems)
