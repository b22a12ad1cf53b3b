"""The template environment reads each template once per process unless asked to watch the files."""

from __future__ import annotations

import pytest

from app import web


def test_templates_are_not_checked_for_changes_on_every_render(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FATEBOARD_TEMPLATE_RELOAD", raising=False)
    assert web.make_env().auto_reload is False


@pytest.mark.parametrize(("value", "reload"), [("1", True), ("0", False), ("", False)])
def test_template_reload_can_be_asked_for(monkeypatch: pytest.MonkeyPatch, value: str, reload: bool) -> None:
    monkeypatch.setenv("FATEBOARD_TEMPLATE_RELOAD", value)
    assert web.make_env().auto_reload is reload
