"""A message's words as safe HTML: a small Markdown subset (bold, italics, links with http/https only, line breaks)
rendered by markdown-it-py and cleaned by nh3 (an allow-list sanitiser). Nothing else is markup: raw HTML, images,
headings, lists and code are shown as the characters that were typed. Pure: no app imports."""

from __future__ import annotations

import re

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

MAX_LENGTH = 4000
LINK_REL = "nofollow noopener noreferrer"
_SCHEMES = ("http://", "https://")

# "zero" has only paragraphs and text; we switch on emphasis, links and hard line breaks. html=False: a tag is text.
_md = MarkdownIt("zero", {"breaks": True, "html": False, "linkify": False}).enable(["emphasis", "link", "newline"])


def _valid_link(url: str) -> bool:
    return url.strip().lower().startswith(_SCHEMES)


_md.validateLink = _valid_link  # type: ignore[method-assign]  # markdown-it's hook for allowed link targets

_TAGS = {"p", "br", "strong", "em", "a"}
_ATTRIBUTES = {"a": {"href"}}


def to_html(text: str | None) -> Markup:
    """The message as HTML that can go into a page as it is (and stays within the CSP: no style, no script)."""
    if not text:
        return Markup("")
    rendered = _md.render(text)
    return Markup(
        nh3.clean(
            rendered,
            tags=_TAGS,
            attributes=_ATTRIBUTES,
            url_schemes={"http", "https"},
            link_rel=LINK_REL,
            strip_comments=True,
        )
    )


MENTION = re.compile(r"(?<![\w@])@(\w{1,40})", re.UNICODE)


def mentioned_names(text: str) -> list[str]:
    """`@username` mentions, case-folded, in order, each once (a name ends at a non-word character)."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        name = match.group(1).casefold()
        if name not in seen:
            seen.append(name)
    return seen
