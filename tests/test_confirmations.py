"""A destructive button that acts on one tap asks first (issue 21): the form carries hx-confirm, which htmx asks
through the browser's own confirm dialog (no inline script: the CSP stays strict). The list, decided once:

- asks: end an ART combat, end the game session, revoke an invite, remove a member, revoke an API token, call off a
  cat duel, spend a Life to dodge scars, cancel a planned session, revoke the calendar link, remove a line or veil;
- does not ask, because the form already takes a deliberate step (a reason typed, a choice made): void an entry
  (a reason), call off a Rabbits conflict (a reason), end a Cat fight (its outcome chosen), end an ART session (who
  took part), end the turn (the normal way forward), the X-card (one tap opens it, a second tap on its own
  confirm plays it: no browser dialog in the way of someone who needs the table to stop).

tests/browser/test_phone_forms_browser.py taps one in a browser (a no keeps the session running)."""

from __future__ import annotations

import re

import pytest

from app.web import ENV

# (template, the form's hx-post ends with)
ASKS = [
    ("art/_combat.html", "combat_end"),
    ("campaigns/table.html", "/sessions/end"),
    ("campaigns/table.html", "/invites/{{ inv.id }}/revoke"),
    ("campaigns/table.html", "/members/{{ u.id }}/remove"),
    ("accounts/account.html", "/account/tokens/{{ t.id }}/revoke"),
    ("catfight/encounter.html", "/act/call_off"),
    ("cat/sheet.html", "dodge_with_life"),
    ("between/panel.html", "/between/schedule/{{ s.id }}/cancel"),
    ("between/panel.html", "/between/feed/revoke"),
    ("between/panel.html", "/between/safety/{{ item.id }}/delete"),
]


def _source(name: str) -> str:
    assert ENV.loader is not None
    return ENV.loader.get_source(ENV, name)[0]


def _form(source: str, ending: str) -> str:
    found = [
        m.group(0)
        for m in re.finditer(r"<form\b[^>]*>", source)
        if re.search(r'hx-post="[^"]*' + re.escape(ending) + '"', m.group(0))
    ]
    assert len(found) == 1, (ending, found)
    return found[0]


@pytest.mark.parametrize(("template", "ending"), ASKS, ids=[e for _, e in ASKS])
def test_a_destructive_one_tap_form_asks_first(template: str, ending: str) -> None:
    form = _form(_source(template), ending)
    question = re.search(r'hx-confirm="([^"]+)"', form)
    assert question, form
    # The question is translated ({{ _('…') }}), never a bare English string in the page.
    assert question.group(1).startswith("{{ _(") and question.group(1).endswith("}}"), question.group(1)


def test_the_check_finds_a_form_that_does_not_ask() -> None:
    src = '<form hx-post="/x/sessions/end" class="inline"><button>End</button></form>'
    assert "hx-confirm" not in _form(src, "/sessions/end")
