"""The import graph of app/, read from the source: no cycle, and the rule systems and the rules stay apart
from the features and the web stack ("The service calls a rule system, never the other way")."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"

# What a module in app/systems/ may never import, even inside a function: the features, the web, the database.
NOT_FROM_SYSTEMS = (
    "app.accounts",
    "app.campaigns",
    "app.characters",
    "app.encounters",
    "app.rolls",
    "app.live",
    "app.web",
    "app.api",
    "app.main",
    "app.deps",
    "app.db",
    "app.demo",
    "fastapi",
    "starlette",
    "sqlalchemy",
    "jinja2",
)
# app/rules/ is pure: nothing of the app but app.rules itself, and none of the web stack.
NOT_FROM_RULES = (*NOT_FROM_SYSTEMS, "app.systems", "jinja2_fragments", "uvicorn", "httpx")


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(APP.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, a function's lazy import too (a lazy import still makes the module
    depend on the other: the cycle the seed_demo functions closed was one), but not under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node):
            for other in node.orelse:
                yield from import_nodes(ast.Module(body=[other], type_ignores=[]))
        else:
            yield from import_nodes(node)


def imported(name: str, path: Path, nodes: Iterator[ast.Import | ast.ImportFrom], known: set[str]) -> set[str]:
    """The modules these import statements name; `from pkg import sub` names the submodule when it is one."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = {f"{target}.{alias.name}" for alias in node.names} & known
            found.update(subs or {target})
            if subs and len(subs) < len(node.names):
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = {m for m in imported(name, path, import_nodes(tree), known) if m in known and m != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def all_imports(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (a function's lazy import counts too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return imported(module_name(path), path, import_nodes(tree), set(modules()))


def test_the_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    assert "app.systems.base" in graph["app.systems.dice.roll"]
    assert "app.systems.cat.play" in graph["app.systems.cat.actions"]  # `from app.systems.cat import play`
    assert "app.systems.art.rolling" in graph["app.systems.art.skirmish"]  # `from .rolling import …`


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_type_checking_imports_are_left_out(tmp_path: Path) -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import app.web\nimport app.i18n\n"
    tree = ast.parse(source)
    assert imported("app.x", tmp_path / "x.py", import_nodes(tree), {"app.web", "app.i18n"}) == {"typing", "app.i18n"}


def test_app_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def _files(folder: str) -> list[Path]:
    return sorted((APP / folder).rglob("*.py"))


def _forbidden(path: Path, banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in all_imports(path) if any(m == b or m.startswith(b + ".") for b in banned))


@pytest.mark.parametrize("path", _files("systems"), ids=lambda p: str(p.relative_to(APP)))
def test_a_rule_system_never_imports_a_feature_or_the_web(path: Path) -> None:
    assert _forbidden(path, NOT_FROM_SYSTEMS) == []


def _rules_files() -> list[Path]:
    """The shared rules (app/rules/) and each system's own (app/systems/<x>/rules/)."""
    return _files("rules") + sorted(p for p in (APP / "systems").glob("*/rules/**/*.py"))


def _rules_package(path: Path) -> str:
    """The package a rules module may import besides app.rules: its own system's rules/ (or app.rules itself)."""
    parts = path.relative_to(APP).parts
    return f"app.systems.{parts[1]}.rules" if parts[0] == "systems" else "app.rules"


@pytest.mark.parametrize("path", _rules_files(), ids=lambda p: str(p.relative_to(APP)))
def test_the_rules_import_nothing_of_the_app_or_the_web(path: Path) -> None:
    own = _rules_package(path)
    outside = [
        m
        for m in all_imports(path)
        if m.startswith("app.") and not (m == "app.rules" or m.startswith(("app.rules.", own + ".")) or m == own)
    ]
    banned = [m for m in _forbidden(path, NOT_FROM_RULES) if not (m == own or m.startswith(own + "."))]
    assert outside + banned == []


def test_each_system_s_rules_are_checked() -> None:
    """The rules test above reads every system's rules/ folder, not only app/rules/."""
    checked = {_rules_package(p) for p in _rules_files()}
    systems_with_rules = {f"app.systems.{d.name}.rules" for d in (APP / "systems").iterdir() if (d / "rules").is_dir()}
    assert systems_with_rules <= checked
    assert _rules_package(APP / "systems" / "cat" / "rules" / "fate.py") == "app.systems.cat.rules"


def test_a_lazy_import_counts() -> None:
    """The old demos imported the services inside seed_demo: that closed the cycle and must be caught."""
    tree = ast.parse("def seed_demo(db):\n    from app.characters.service import create_character\n")
    name = "app.systems.cat.demo"
    found = imported(name, APP / "systems" / "cat" / "demo.py", import_nodes(tree), set(modules()))
    assert found == {"app.characters.service"}
