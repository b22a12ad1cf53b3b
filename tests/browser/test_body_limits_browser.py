"""A phone that sends more than a form takes (issue 21): Chromium posts the sign-in form with 2 MB in it, the
server refuses it with 413 from the Content-Length and closes, and the phone shows the error page — in the
reader's language, under the strict CSP, nothing sideways — rather than a broken connection."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from utils.server import LiveServer

from .pages import Tabs, check_page

STUFF_THE_FORM = """
(size) => {
  const form = document.querySelector("#signin-form");
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = "notes";
  field.value = "x".repeat(size);
  form.appendChild(field);
}
"""


WORDS = {"en": "This is too large to send: at most 1 MB", "de": "Das ist zu groß zum Senden: hier gehen höchstens 1 MB"}


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize(("language", "how"), [("en", "htmx"), ("de", "htmx"), ("en", "page"), ("da", "page")])
def test_an_oversized_form_is_refused_in_words_on_a_phone(
    tabs: Tabs, live_server: LiveServer, language: str, how: str
) -> None:
    """`htmx`: the form's own request (HX-Request) gets the message in place of the form, as other refusals do;
    `page`: a plain form post (no script) gets the whole error page."""
    tab = tabs.open(f"phone-{language}-{how}", locale=language, extra_http_headers={"Accept-Language": language})
    page = tab.page
    page.goto(live_server.url + "/signin")
    page.locator("#signin-form #username").fill("nobody")
    page.locator("#signin-form #password").fill("whatever-it-is")
    page.evaluate(STUFF_THE_FORM, 2 * 1024 * 1024)
    if how == "htmx":
        page.locator("#signin-form button").click()
    else:
        with page.expect_navigation():
            page.evaluate("() => document.querySelector('#signin-form').submit()")
        assert page.title() == "413 · Fateboard"
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text({"da": "Det er for stort at sende", **WORDS}[language])
    assert page.locator("html").get_attribute("lang") == language
    assert check_page(tab, f"body-too-large-{how}-{language}", []) == []
    assert tabs.csp_violations() == []
