"""Browser tests: a real Chromium, phone-sized (390x844), against a real uvicorn on 127.0.0.1 (live_server).

Skipped unless TEST_CHROMIUM names a Chromium binary (CI: TEST_CHROMIUM=/usr/bin/chromium). They run on SQLite
only: the database_url fixture is overridden below, so no PostgreSQL variant is collected (the routes underneath
are the ones the API tests already run on both databases). Screenshots go to test-artifacts/screenshots/ for a
person to look at. The pages run under a strict CSP, so waits use expect(), never a JavaScript string predicate
(Playwright evaluates those with eval, which the CSP rightly refuses).

Every browser test is held to the page-level rules here, whatever it asserts itself: each tab collects its console
errors, uncaught exceptions and `securitypolicyviolation` events (pages.Tab), and a test whose tabs saw a CSP
violation, an uncaught exception or a console error other than a refused request's status fails
(pytest_runtest_call below)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright
from utils.server import LiveServer

from .pages import LAUNCH_ARGS, Tabs, page_level_problems

CHROMIUM = os.environ.get("TEST_CHROMIUM", "")
NO_CHROMIUM = "browser tests: set TEST_CHROMIUM=/usr/bin/chromium (a Chromium binary) to run them"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The one place browser tests are skipped: every collected test marked `browser`, when there is no Chromium.
    Reported as skipped with the reason, never an error."""
    if CHROMIUM and os.path.isfile(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=NO_CHROMIUM)
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After the test's own body: no CSP report, no uncaught exception, no unexpected console error in any tab
    it opened (a failure of the test itself, not of its teardown)."""
    result = yield
    tabs = getattr(item, "funcargs", {}).get("tabs")
    if isinstance(tabs, Tabs):
        problems = page_level_problems(tabs)
        assert not problems, "page-level problems in the browser:\n" + "\n".join(problems)
    return result


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """Overrides tests/conftest.py's sqlite/postgres pair: browser tests run on SQLite only, to keep CI short."""
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per module. Not per session: Playwright's sync API keeps an event loop running in the main thread
    while it is open, and every later test that runs its own loop (anyio.run, asyncio.run) would fail beside it."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def tabs(browser: Any, live_server: LiveServer) -> Iterator[Tabs]:
    opened = Tabs(browser, live_server)
    yield opened
    for tab in opened.opened:
        tab.context.close()
