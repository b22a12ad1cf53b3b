"""A message's words as HTML (app/talk/text.py): the Markdown subset, and nothing else becomes markup."""

from __future__ import annotations

import re

import pytest

from app.talk import service
from app.talk.text import mentioned_names, to_html


@pytest.mark.parametrize(
    "text,want",
    [
        ("**bold** and *italics*", "<p><strong>bold</strong> and <em>italics</em></p>"),
        (
            "[map](https://example.com/map)",
            '<a href="https://example.com/map" rel="nofollow noopener noreferrer">map</a>',
        ),
        ("[map](http://example.com)", 'href="http://example.com"'),
        ("one\ntwo", "one<br>\ntwo"),
        ("<b>not bold</b>", "&lt;b&gt;not bold&lt;/b&gt;"),
        ("# not a heading", "<p># not a heading</p>"),
        ("`not code`", "<p>`not code`</p>"),
    ],
)
def test_the_subset(text: str, want: str) -> None:
    assert want in str(to_html(text))


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html,hi)",
        "![img](https://example.com/a.png)",
        '<img src=x onerror="alert(1)">',
        "<iframe src=//evil.test>",
        "[x](vbscript:msgbox)",
        '<a href="javascript:alert(1)">x</a>',
        "<style>body{}</style>",
        "[x](//evil.test)",
        "&lt;script&gt;",
        "<!-- hi -->",
    ],
)
def test_hostile_input_is_text(text: str) -> None:
    html = str(to_html(text))
    assert re.findall(r"<(\w+)", html) == [
        t for t in re.findall(r"<(\w+)", html) if t in {"p", "br", "strong", "em", "a"}
    ]
    assert "<img" not in html and "<script" not in html and "<iframe" not in html and "<style" not in html
    for href in re.findall(r'<a [^>]*href="([^"]*)"', html):
        assert href.startswith(("http://", "https://")), href
    assert re.search(r"<\w[^>]*\son\w+=", html) is None


def test_limits_and_controls() -> None:
    assert service.clean_text("  hi \r\n there  ") == "hi \n there"
    assert len(service.clean_text("é" * 4000)) == 4000
    for bad in ("", "   ", "x" * 4001, "a\x00b", "a\x1bb", "a\x7fb"):
        with pytest.raises(service.BadRequest):
            service.clean_text(bad)


def test_roll_text_and_mentions() -> None:
    assert service.roll_text("/r 2d6+1 # jump the gap") == ("2d6+1", "jump the gap")
    assert service.roll_text("  /ROLL d20") == ("d20", "")
    assert service.roll_text("/rain dance") is None and service.roll_text("/r") is None
    assert mentioned_names("hey @Otto, @pia! mail a@b.c @otto @x_y") == ["otto", "pia", "x_y"]
