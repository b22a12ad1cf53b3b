"""Blueprints never import each other: no app/**/routes.py imports another routes module (shared form helpers
live in app/forms.py, page contexts in <feature>/views.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(APP.parent).with_suffix("").parts)


def routes_imports(source: str, module: str) -> list[str]:
    """The routes modules that `module`'s source imports (absolute or relative, `import` or `from … import`)."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        found += [name for name in names if name.split(".")[-1] == "routes" and name != module]
    return found


ROUTE_MODULES = sorted(APP.rglob("routes.py"))


def test_the_walk_finds_the_route_modules() -> None:
    assert {p.parent.name for p in ROUTE_MODULES} >= {"accounts", "campaigns", "characters", "encounters", "rolls"}


@pytest.mark.parametrize("path", ROUTE_MODULES, ids=lambda p: _module_name(p))
def test_a_route_module_imports_no_other_route_module(path: Path) -> None:
    assert routes_imports(path.read_text("utf-8"), _module_name(path)) == []


@pytest.mark.parametrize(
    "source",
    [
        "from app.campaigns.routes import table_context",
        "from app.characters import routes",
        "import app.characters.routes as other",
        "from ..campaigns.routes import table_context",
        "from ..campaigns import routes",
        "def later():\n    from app.characters.routes import act_from_form",
    ],
)
def test_the_check_sees_every_way_to_import_a_route_module(source: str) -> None:
    assert routes_imports(source, "app.rolls.routes") != []


def test_the_check_lets_services_and_views_through() -> None:
    source = (
        "from app.campaigns.views import table_context\n"
        "from app.rolls import service\n"
        "from app.forms import act_from_form"
    )
    assert routes_imports(source, "app.rolls.routes") == []


# The write path (the rules service, appending, talk, handouts, prompts) never calls up into a feature above it:
# it declares its effects (app/rolls/effects.py) and the notifications subscribe (issue 38).
WRITE_PATH = sorted(p for package in ("rolls", "talk", "handouts") for p in (APP / package).rglob("*.py"))
ABOVE_THE_WRITE_PATH = ("app.notify",)


def imported_modules(source: str, module: str) -> list[str]:
    """Every module name `module`'s source imports (absolute or relative, at any depth of the code)."""
    package = module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            found += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return found


def climbs(source: str, module: str) -> list[str]:
    return [
        name
        for name in imported_modules(source, module)
        if any(name == above or name.startswith(above + ".") for above in ABOVE_THE_WRITE_PATH)
    ]


def test_the_walk_finds_the_write_path() -> None:
    names = {_module_name(p) for p in WRITE_PATH}
    assert {"app.rolls.service", "app.rolls.appending", "app.talk.service", "app.handouts.service"} <= names


@pytest.mark.parametrize("path", WRITE_PATH, ids=lambda p: _module_name(p))
def test_the_write_path_never_imports_notify(path: Path) -> None:
    assert climbs(path.read_text("utf-8"), _module_name(path)) == []


@pytest.mark.parametrize(
    "source",
    [
        "from app.notify.service import queue_waits",
        "from app.notify import service",
        "import app.notify.service",
        "from ..notify.service import queue_talk",
        "def later():\n    from app.notify.service import queue_discord",
    ],
)
def test_the_climb_check_sees_every_way_to_import_notify(source: str) -> None:
    assert climbs(source, "app.talk.service") != []


def test_the_climb_check_lets_the_effects_through() -> None:
    assert (
        climbs("from app.rolls.effects import TalkPosted, emit\nfrom app.live.events import LiveEvent", "app.x") == []
    )
