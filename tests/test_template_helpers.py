"""What the templates read from Python instead of spelling it themselves (docs/ARCHITECTURE.md, Templates): the
audience badges and dice-mark labels, the `keyed` lookup filter, the refusal and short answers as templates."""

from __future__ import annotations

from app import i18n
from app.rolls import faces
from app.rolls.visibility import AUDIENCE_BADGES, READER_LISTS, RECIPIENTS, Visibility
from app.systems import SYSTEMS
from app.systems.dice import marks as dice_marks
from app.systems.marks import CORE_MARKS
from app.web import ENV, REFUSAL, keyed, render_text


def test_every_audience_but_public_has_its_badge_in_each_language() -> None:
    audiences = {*Visibility, RECIPIENTS, *READER_LISTS} - {Visibility.PUBLIC}
    assert set(AUDIENCE_BADGES) == audiences
    assert ENV.globals["audience_badges"] is AUDIENCE_BADGES
    assert i18n.translations("de").gettext(AUDIENCE_BADGES[Visibility.SELF]) != AUDIENCE_BADGES[Visibility.SELF]


def test_every_mark_a_die_can_carry_has_a_label() -> None:
    # the dice roller's own marks, the default die marks and every system's own (faces.marks_of, RuleSystem.marks)
    assert dice_marks._DICE_MARKS | {"critical", "fumble"} <= set(CORE_MARKS)
    for system_id, system in SYSTEMS.items():
        assert set(system.marks) <= set(faces.marks_of(system_id))
        for mark in faces.marks_of(system_id).values():
            assert i18n.translations("de").gettext(mark.label) != mark.label, mark.label


def test_a_badge_and_a_mark_render_from_the_python_tables() -> None:
    before = i18n.get_locale()
    i18n.set_locale("de")
    try:
        html = ENV.from_string(
            "{% from 'rolls/_marks.html' import mark_words %}{{ audience_badges['self'] | gettext }}|"
            "{{ mark_words(badge) }}|{{ mark_words(kicker) }}"
        ).render(
            badge={"mark": "dropped", "label": "dropped"}, kicker={"mark": "k", "label": "kicker: %(k)s", "value": 4}
        )
    finally:
        i18n.set_locale(before)
    de = i18n.translations("de")
    assert html == f"{de.gettext('private')}|{de.gettext('dropped')}|{de.gettext('kicker: %(k)s') % {'k': 4}}"


def test_keyed_builds_a_lookup_table() -> None:
    people = [{"side": "a", "name": "Tecka"}, {"side": "b", "name": "Mimi"}]
    assert keyed(people, "side") == {"a": people[0], "b": people[1]}
    assert keyed(people, "side", "name") == {"a": "Tecka", "b": "Mimi"}
    assert ENV.from_string('{{ (people | keyed("side")).b.name }}').render(people=people) == "Mimi"


def test_a_refusal_is_a_template_and_escapes_its_message() -> None:
    html = render_text(REFUSAL, message='Too big: <script>"x"</script>')
    assert html == '<p class="error" role="alert">Too big: &lt;script&gt;&#34;x&#34;&lt;/script&gt;</p>'
