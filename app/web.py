"""Templates, HTMX helpers and small response helpers shared by every feature's routes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    Template,
    TemplateNotFound,
    nodes,
    select_autoescape,
)
from jinja2_fragments import BlockNotFoundError
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app import i18n
from app.accounts import display
from app.encounters.titles import encounter_title
from app.errors import FateboardError, RetryLater
from app.live.events import LiveEvent
from app.rolls.visibility import AUDIENCE_BADGES
from app.systems import ALWAYS_ON, FOLDERS, ROLLER, SYSTEMS
from app.talk import text as talk_text

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
HTMX_FILE = "htmx-2.0.11.min.js"


class SystemTemplates(BaseLoader):
    """Each registered system's templates, from its own folder: "art/sheet.html" is app/systems/art/templates/
    sheet.html. Read from the registry when asked, so a system registered later is found too."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        system_id, _slash, rest = template.partition("/")
        folder = FOLDERS.get(system_id)
        if folder is None or not rest:
            raise TemplateNotFound(template)
        return FileSystemLoader(folder / "templates").get_source(environment, rest)

    def list_templates(self) -> list[str]:
        found: list[str] = []
        for system_id, folder in FOLDERS.items():
            found += [f"{system_id}/{name}" for name in FileSystemLoader(folder / "templates").list_templates()]
        return sorted(found)


class SystemData(Mapping[str, Mapping[str, Any]]):
    """`system_data.<system id>.<name>` in templates: each registered system's RuleSystem.template_data."""

    def __getitem__(self, system_id: str) -> Mapping[str, Any]:
        return SYSTEMS[system_id].template_data

    def __iter__(self) -> Iterator[str]:
        return iter(SYSTEMS)

    def __len__(self) -> int:
        return len(SYSTEMS)


def system_stylesheets(campaign: object = None) -> list[str]:
    """The stylesheets of the systems a campaign uses (each system's static/*.css, served at
    /static/systems/<id>/, app/main.py): a page links only its campaign's."""
    hrefs: list[str] = []
    for system_id in getattr(campaign, "systems", None) or ():
        folder = FOLDERS.get(system_id)
        if folder is not None:
            hrefs += [f"/static/systems/{system_id}/{css.name}" for css in sorted((folder / "static").glob("*.css"))]
    return hrefs


def make_env() -> Environment:
    # Templates are read once per process: checking every template file's mtime on each render cost about a fifth
    # of a sheet page's server time (docs/PERFORMANCE.md). FATEBOARD_TEMPLATE_RELOAD=1 checks again (editing).
    reload = os.environ.get("FATEBOARD_TEMPLATE_RELOAD", "") not in ("", "0")
    env = Environment(
        loader=ChoiceLoader([SystemTemplates(), FileSystemLoader(TEMPLATES)]),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=reload,
    )
    # Added to the environment by the i18n extension above, so not in Environment's type.
    env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.globals["htmx_file"] = HTMX_FILE
    # The display choices of a page rendered outside a request (an error page from the ASGI middleware): the quiet
    # defaults; base_context gives each page its account's (app/accounts/display.py).
    env.globals["display"] = display.Display()
    # What each rule system's templates need (RuleSystem.template_data): `system_data.<system id>.<name>`.
    env.globals["system_data"] = SystemData()
    env.globals["system_stylesheets"] = system_stylesheets
    env.globals["roller"] = ROLLER  # the generic dice roller every campaign has (app/systems/__init__.py)
    env.globals["always_on"] = ALWAYS_ON
    # Numbers, chances, times and log lines in the reader's language (app/i18n.py; Babel's formats).
    env.filters["when"] = i18n.datetime_of
    env.filters["hm"] = i18n.time_of
    env.filters["date"] = i18n.date_of
    env.filters["number"] = i18n.number
    env.filters["percent"] = i18n.percent  # a chance 0..1
    env.filters["tr"] = i18n.render  # a summary or message (app.i18n.msg), or a plain string
    env.filters["log_line"] = i18n.log_line  # a log entry's body → its summary
    env.filters["talk_html"] = talk_text.to_html  # a message's words: the safe Markdown subset (app/talk/text.py)
    env.globals["encounter_title"] = encounter_title  # in the reader's language where the system named it
    env.globals["session_title"] = i18n.session_title  # "Session 3: Alley", never "Session 3: Session 3: Alley"
    # A text marked N_ where it is defined (a ruling, a description) in the reader's language, taken as it is:
    # `_()` in a template %-formats even without arguments, so "d%" would break it.
    env.filters["gettext"] = i18n.gettext
    env.filters["keyed"] = keyed  # participants | keyed("side") → {side: participant}
    env.globals["language_names"] = i18n.LANGUAGES
    # Labels owned by the Python that decides them (English msgids, shown with `| gettext`).
    env.globals["audience_badges"] = AUDIENCE_BADGES
    # The live events (app/live/events.py): a panel follows them with data-live="{{ live.ENTRY }}"; base.html
    # lists them all for static/js/app.js.
    env.globals["live"] = LiveEvent
    return env


def keyed(items: Iterable[Mapping[str, Any]], key: str, value: str | None = None) -> dict[Any, Any]:
    """A template's lookup table: each item under its `key` (the last one wins), or only its `value` field."""
    return {item[key]: item if value is None else item[value] for item in items}


ENV = make_env()


def has_template(name: str) -> bool:
    """Whether the template exists (a system's optional page, e.g. "<id>/campaign.html")."""
    try:
        ENV.get_template(name)
    except TemplateNotFound:
        return False
    return True


@lru_cache(maxsize=256)
def _layout_of(template: Template) -> Template | None:
    """The template this one `{% extends %}` (a constant name), or None."""
    env = template.environment
    if template.name is None or env.loader is None:
        return None
    extends = env.parse(env.loader.get_source(env, template.name)[0]).find(nodes.Extends)
    if extends is None or not isinstance(extends.template, nodes.Const):
        return None
    return env.get_template(extends.template.value, parent=template.name)


def render_block(env: Environment, template_name: str, block: str, context: dict[str, Any]) -> str:
    """One block of a page, as an HTMX fragment — also a block the page inherits from its layout (a sheet's
    `sheet` lives in characters/_sheet_page.html). jinja2-fragments reads only the template's own blocks; here
    the context gets every block along the `extends` chain, as Jinja does when it renders the whole page, so the
    layout's block renders with the page's overrides of the blocks inside it."""
    template = env.get_template(template_name)
    ctx = template.new_context(context)
    layout = _layout_of(template)
    while layout is not None:
        for name, func in layout.blocks.items():
            ctx.blocks.setdefault(name, []).append(func)
        layout = _layout_of(layout)
    if block not in ctx.blocks:
        raise BlockNotFoundError(block, template_name)
    try:
        return env.concat(ctx.blocks[block][0](ctx))
    except Exception:
        env.handle_exception()
        raise


@dataclass(frozen=True)
class HTMX:
    """The HTMX request headers, typed (django-htmx's idea)."""

    request: bool
    target: str | None
    trigger: str | None
    boosted: bool

    @classmethod
    def of(cls, request: Request) -> HTMX:
        """Routes take it as a dependency (`hx: Htmx`, app/deps.py); error handlers and templates call this."""
        return cls.from_headers(request.headers)

    @classmethod
    def from_headers(cls, h: Mapping[str, str]) -> HTMX:
        """The one place that reads the HX-* request headers (plain ASGI middleware passes its Headers)."""
        return cls(
            request=h.get("hx-request") == "true",
            target=h.get("hx-target"),
            trigger=h.get("hx-trigger"),
            boosted=h.get("hx-boosted") == "true",
        )


def base_context(request: Request) -> dict[str, Any]:
    return {
        "request": request,
        "csrf_token": request.scope["fb_session"]["csrf"],
        "user": getattr(request.state, "user", None),
        "display": display.of(getattr(request.state, "user", None)),
        "locale": i18n.get_locale(),
        "htmx": HTMX.of(request),
    }


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    block: str | None = None,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """A whole page, or with `block` one of its blocks as an HTMX fragment — from the same template."""
    ctx = {**base_context(request), **(context or {})}
    if block is None and status_code >= 400:
        ctx["refused"] = True  # base.html marks the page: static/js/app.js brings its first error into view
    html = ENV.get_template(template).render(ctx) if block is None else render_block(ENV, template, block, ctx)
    # The page's language, for the service worker (templates/notify/sw.js keeps the offline page in it).
    headers = {"Content-Language": i18n.get_locale(), **(headers or {})}
    return HTMLResponse(html, status_code=status_code, headers=headers)


def render_failure(
    request: Request,
    db: Session,
    exc: FateboardError,
    template: str,
    context: Callable[[dict[str, str]], dict[str, Any]],
    *,
    key: str = "form",
    by_field: bool = True,
    block: str | None = None,
    field_key: str | None = None,
) -> HTMLResponse:
    """The one path for a refused form: roll back, then render the form again (or its `block`) with the error
    next to its field — `exc.field`, else `key`; with by_field=False always `key` — and the error's status
    (Retry-After too when it has one). `context(errors)` builds the template's context after the rollback,
    so it shows what is in the database. `field_key`: also name the refused field under that key (a page that
    shows its errors above its moves can then show one next to its field instead)."""
    db.rollback()
    errors = {(exc.field or key) if by_field else key: exc.message}
    if field_key is not None:
        errors[field_key] = exc.field or ""
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RetryLater) else None
    return render(request, template, context(errors), block=block, status_code=exc.status_code, headers=headers)


REFUSAL = "refusal.html"  # a middleware's refusal as HTML (app/security/, app/inputs.py)


def render_text(template: str, block: str | None = None, **context: Any) -> str:
    context.setdefault("locale", i18n.get_locale())  # e.g. a log line kept in several languages
    if block is None:
        return ENV.get_template(template).render(context)
    return render_block(ENV, template, block, context)


# What RedirectResponse leaves unescaped; everything else (spaces, non-ASCII, quotes) is percent-encoded, so
# the HX-Redirect header and the Location header carry the same ASCII string.
_URL_SAFE = ":/%#?=@[]!$&'()*+,;~"


def same_origin_path(url: str | None, fallback: str = "/") -> str:
    """The one check for every redirect target that came from a request (`next`, a path): a path on this
    site, or `fallback`. Allowed: starts with exactly one "/" — not "//" or "/\\" (browsers read both as
    another host), no backslash anywhere, no control character (browsers drop tab and newline, so "/<tab>/evil"
    becomes "//evil"; CR/LF would split the header), and no scheme or host once parsed. Returned percent-
    encoded, ready for a header."""
    if not url or not url.startswith("/") or url.startswith("//") or "\\" in url:
        return fallback
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in url):
        return fallback
    encoded = quote(url, safe=_URL_SAFE)
    parts = urlsplit(encoded)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return fallback
    return encoded


def redirect(request: Request, url: str) -> Response:
    """After a form post: a 303 for plain browsers, HX-Redirect for HTMX (so it swaps the whole page).
    Every target goes through same_origin_path, so no redirect of ours leaves the site."""
    url = same_origin_path(url)
    if HTMX.of(request).request:
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)
