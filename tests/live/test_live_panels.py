"""One way a page updates live (issue 22): every live panel is declared once in app/panels (its page, block,
builder, events) and a template names it with `{{ live_panel("name") }}`, which writes its declared events
(app/live/events.py) and its one URL; static/js/app.js fetches that URL when the stream announces one of the events
and swaps the element with the panel's id. Checked twice: in every template's source, and on real pages, where
each panel's URL must answer a fragment (not a page) holding the panel."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from utils.web import signed_in

from app.live.events import LiveEvent
from app.panels import PANELS

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
APP_JS = ROOT / "static" / "js" / "app.js"
# A tag (Jinja expressions in it may hold ">"): its attributes up to the closing ">".
TAG = re.compile(r"<[a-zA-Z][\w-]*(?:\{\{.*?\}\}|\{%.*?%\}|[^>{])*>", re.S)
ATTR = re.compile(r'\s([\w-]+)="((?:\{\{.*?\}\}|\{%.*?%\}|[^"])*)"', re.S)
PANEL = re.compile(r"\{\{ live_panel\(\"(\w+)\"")


def _live_tags(source: str) -> list[tuple[str, dict[str, str]]]:
    """Each tag that is a live panel: (the tag, its attributes)."""
    tags = []
    for tag in TAG.findall(source):
        attrs = dict(ATTR.findall(tag))
        if "data-live" in attrs or "live_panel(" in tag:
            tags.append((tag, attrs))
    return tags


def _templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


def test_the_checks_find_the_panels() -> None:
    """The walk below sees the panels it checks (a regex that found none would pass everything)."""
    found = {p.relative_to(TEMPLATES).as_posix() for p in _templates() if _live_tags(p.read_text("utf-8"))}
    assert {
        "campaigns/table.html",
        "campaigns/narrator.html",
        "characters/_recent.html",
        "characters/_sheet_page.html",
        "handouts/_scene.html",
        "talk/team.html",
        "encounters/encounter.html",
    } <= found, found


@pytest.mark.parametrize("path", _templates(), ids=lambda p: p.relative_to(TEMPLATES).as_posix())
def test_every_live_panel_in_the_templates_is_a_declared_panel_with_an_id(path: Path) -> None:
    source = path.read_text("utf-8")
    # The other mechanism is gone: no htmx element follows a "<event>-changed" body event.
    assert "-changed from:body" not in source
    for tag, attrs in _live_tags(source):
        assert attrs.get("id"), f"{path.name}: a live panel without an id: {tag}"
        assert "data-live" not in attrs, f"{path.name}: events and URL written by hand, not by live_panel: {tag}"
        [name] = PANEL.findall(tag)
        assert name in PANELS, f"{path.name}: {name!r} is not declared in app/panels"
        assert PANELS[name].events or PANELS[name].own, f"{path.name}: {name!r} follows no event"
    for name in re.findall(r"\blive\.(\w+)", source):
        assert name in LiveEvent.__members__, f"{path.name}: live.{name} is not declared"


def test_every_declared_panel_follows_declared_events_and_has_its_block() -> None:
    """The registry itself: events are LiveEvents; each template named by a string has the panel's block."""
    for name, panel in PANELS.items():
        assert all(isinstance(e, LiveEvent) for e in (*panel.events, *panel.own)), name
        if isinstance(panel.template, str) and panel.block is not None:
            source = (TEMPLATES / panel.template).read_text("utf-8")
            assert f"{{% block {panel.block} %}}" in source, (name, panel.template)


def test_the_script_names_no_event() -> None:
    """app.js reads the events from the page (<body data-live-events>, data-live-toast): none is spelled there,
    besides `entry`, the stream's own entries."""
    js = APP_JS.read_text("utf-8")
    for event in LiveEvent:
        if event is LiveEvent.ENTRY:
            continue
        for spelled in (f'announce("{event}"', f'addEventListener("{event}"', f'=== "{event}"', f'["{event}"'):
            assert spelled not in js, spelled
    assert "X-Fateboard-Live" not in js  # read by no server code: gone
    assert "-changed" not in js


class _Panels(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.panels: list[dict[str, str]] = []
        self.ids: set[str] = set()
        self.body: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "body":
            self.body = a
        if "data-live" in a:
            self.panels.append(a)


def _parse(html: str) -> _Panels:
    parser = _Panels()
    parser.feed(html)
    return parser


def test_every_live_panel_on_real_pages_fetches_its_own_fragment(table, new_client) -> None:
    """The pages as they are served: each [data-live] has an id, declared events and a URL whose answer is a
    fragment (no whole page) that holds the element with that id — what app.js swaps in."""
    cid = table.id
    narrator = signed_in(new_client, "nora")
    player = signed_in(new_client, "pia")
    pages = [
        (narrator, f"/campaigns/{cid}"),
        (narrator, f"/campaigns/{cid}/narrator"),
        (narrator, f"/campaigns/{cid}/characters/{table.pia_char}"),
        (player, f"/campaigns/{cid}"),
        (player, f"/campaigns/{cid}/characters/{table.pia_char}"),
    ]
    declared = {e.value for e in LiveEvent}
    seen: set[str] = set()
    for browser, path in pages:
        r = browser.get(path)
        assert r.status_code == 200, (path, r.status_code)
        page = _parse(r.text)
        assert set(page.body.get("data-live-events", "").split()) == declared
        assert page.panels, path
        for panel in page.panels:
            pid, url = panel.get("id"), panel.get("data-live-url")
            assert pid and url, (path, panel)
            for event in panel["data-live"].split():
                kind, _, rest = event.partition(":")
                assert kind in declared and (not rest or rest.isdigit()), (path, event)
            fragment = browser.get(url)
            assert fragment.status_code == 200, (path, url, fragment.status_code)
            assert "<html" not in fragment.text and "<body" not in fragment.text, (path, url)  # a fragment
            assert pid in _parse(fragment.text).ids, (path, url, pid)
            seen.add(pid)
    assert {"session-panel", "prompts-panel", "characters-panel", "members-panel", "dice-as", "recent", "sheet"} <= seen
    assert {"screen-live", "group-call-who", "encounters-panel"} <= seen


def test_an_unknown_panel_is_a_404(table, new_client) -> None:
    narrator = signed_in(new_client, "nora")
    for url in (
        f"/campaigns/{table.id}/panels/log",
        f"/campaigns/{table.id}/panels/nothing",
        f"/campaigns/{table.id}/panels/sheet",  # a panel of a character, without one
        f"/campaigns/{table.id}/panels/sheet?of=99999",
        f"/campaigns/{table.id}/panels/encounter?of=99999",
        f"/campaigns/{table.id}/panels/system?of=nothing",
    ):
        r = narrator.get(url)
        assert r.status_code in (404, 422), (url, r.status_code)
    assert narrator.get(f"/campaigns/{table.id}/panels/sheet?of=x").status_code == 422  # not a number
    player = signed_in(new_client, "pia")
    assert player.get(f"/campaigns/{table.id}/panels/screen_live").status_code == 403


def test_the_dice_box_answer_draws_only_its_block(table, new_client) -> None:
    """The roller's own answer renders the dice box from its own context: the roll's result, no other panel."""
    player = signed_in(new_client, "pia")
    page = player.get(f"/campaigns/{table.id}").text
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page)
    assert key
    r = player.post(
        f"/campaigns/{table.id}/roll",
        data={"expression": "2d6", "visibility": "public", "idempotency_key": key.group(1)},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 200, r.text
    answer = _parse(r.text)
    assert "dicebox-panel" in answer.ids and "dice-as" in answer.ids
    assert not {"members-panel", "characters-panel", "prompts-panel", "log-entries"} & answer.ids
    assert 'role="status"' in r.text
