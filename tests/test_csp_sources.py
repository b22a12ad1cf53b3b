"""The pages run under a strict CSP (style-src 'self', script-src 'self': app/security.py). Nothing the app ships may
need an exception to it: no style="" attribute, inline <style> or inline <script> in a template, no inline event
handler, and no script that writes a style attribute (the browser refuses each and reports a violation). The
browser tests check the rendered pages too (tests/browser/conftest.py fails any test that saw a CSP report)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.security import CSP

ROOT = Path(__file__).resolve().parents[1]
# The app's templates and each rule system's own (app/systems/<id>/templates/).
TEMPLATES = sorted((ROOT / "templates").rglob("*.html")) + sorted(
    (ROOT / "app" / "systems").glob("*/templates/**/*.html")
)
SCRIPTS = [p for p in sorted((ROOT / "static" / "js").glob("*.js")) if not p.name.startswith("htmx-")]

STYLE_ATTRIBUTE = re.compile(r"<[a-zA-Z][^>]*?\sstyle\s*=", re.S)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)
SCRIPT = re.compile(r"<script\b([^>]*)>", re.I)
HANDLER = re.compile(r"<[a-zA-Z][^>]*?\son[a-z]+\s*=", re.S)
# A script writing a style attribute: setAttribute("style"…), el.style = / el.style.x = / cssText, or HTML with
# a style attribute handed to innerHTML / insertAdjacentHTML. The one exception: a CSS custom property set on the
# root through the CSSOM (`document.documentElement.style.setProperty("--…")`, a measured length the stylesheet
# reads; CSP does not govern CSSOM writes, and no style attribute is parsed from markup).
SCRIPT_STYLE = re.compile(
    r"setAttribute\(\s*[\"']style|\.style\s*(\.(?!setProperty\(\s*[\"']--)|=|\[)|cssText|style\s*=\s*\\?[\"']"
)


def test_the_policy_forbids_inline_styles_and_scripts() -> None:
    directives = dict(d.strip().split(" ", 1) for d in CSP.split(";") if d.strip())
    assert directives["style-src"] == "'self'" and directives["script-src"] == "'self'"


def test_the_checks_recognise_what_they_look_for() -> None:
    assert STYLE_ATTRIBUTE.search('<p class="x" style="color: red">')
    assert STYLE_ATTRIBUTE.search('<div\n  style="width: 3px">')
    assert not STYLE_ATTRIBUTE.search('<p>{{ sheet.style }} style="a" in the text</p>')
    assert STYLE_ELEMENT.search("<style>.a{}</style>")
    assert HANDLER.search('<button onclick="go()">')
    assert not HANDLER.search('<button hx-on="x" data-confirm="y">')
    assert SCRIPT_STYLE.search('el.style.display = "none"') and SCRIPT_STYLE.search("e.setAttribute('style', s)")
    assert not SCRIPT_STYLE.search("var KEEP = 'select';")


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_needs_an_inline_exception(path: Path) -> None:
    # Jinja comments may mention what they avoid; they never reach the page.
    source = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.S)
    assert not STYLE_ATTRIBUTE.search(source), "a style= attribute: use a class in static/css/app.css"
    assert not STYLE_ELEMENT.search(source), "an inline <style>: put it in static/css/app.css"
    for attrs in SCRIPT.findall(source):
        assert re.search(r"\ssrc=", attrs), "an inline <script>: the only script is static/js/app.js"
    assert not HANDLER.search(source), "an inline event handler: static/js/app.js listens instead"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_script_writes_a_style_attribute(path: Path) -> None:
    source = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(encoding="utf-8"), flags=re.S)
    found = SCRIPT_STYLE.search(source)
    assert found is None, f"{path.name} writes a style attribute: {found.group(0) if found else ''} (toggle a class)"


def test_htmx_applies_no_inline_style() -> None:
    """htmx would inject its indicator <style> and, while settling a swap, copy a style attribute someone else put
    on an element (a screenshot's caret style, a browser extension) onto the new one: both refused by the CSP."""
    import json

    base = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    found = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", base)
    assert found
    config = json.loads(found.group(1))
    assert config["includeIndicatorStyles"] is False
    assert "style" not in config["attributesToSettle"] and "class" in config["attributesToSettle"]
    assert ".htmx-indicator" in (ROOT / "static" / "css" / "app.css").read_text(encoding="utf-8")
