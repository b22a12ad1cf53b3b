"""The test suite's own layout (STYLE.md, "Tests mirror modules"): fixtures live in conftest.py files and reach tests
by name, builders live in tests/utils/ and are imported from there. Nothing imports a conftest module (pytest loads
each non-package conftest.py as the top-level `conftest`, so such an import finds whichever was loaded last), and
no fixture is imported from another module (an imported fixture is a second copy that shadows the conftest one)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
APP = TESTS.parent / "app"
# Folders that mirror no app package: the builders, the browser suite (it spans every feature), and the security
# suite (permissions, CSRF, headers and leaks across every route).
NOT_MIRRORS = {"utils", "browser", "security"}


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    yield from _parsed()


@functools.cache
def _parsed() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module under tests/, parsed once for all the checks here."""
    return tuple(
        (path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for path in sorted(TESTS.rglob("*.py"))
        if "__pycache__" not in path.parts
    )


@functools.cache
def _files() -> frozenset[Path]:
    return frozenset(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path, tree: ast.Module) -> Iterator[tuple[int, Path | None, str, list[str]]]:
    """Each import as (line, the file under tests/ it resolves to or None, the module as written, the names)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, _resolve(path, alias.name, 0), alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [alias.name for alias in node.names]
            yield node.lineno, _resolve(path, module, node.level), "." * node.level + module, names
            for name in names:  # `from . import conftest`, `from utils import art`
                submodule = f"{module}.{name}" if module else name
                yield node.lineno, _resolve(path, submodule, node.level), "." * node.level + submodule, []


def _resolve(path: Path, module: str, level: int) -> Path | None:
    return _resolve_from(path.parents[level - 1] if level else None, module)


@functools.cache
def _resolve_from(package: Path | None, module: str) -> Path | None:
    """The file under tests/ an import names, as pytest's default import mode finds it: tests/ is on the path
    (pyproject.toml), and so is every folder of test modules that is not a package, once pytest has collected it."""
    parts = [p for p in module.split(".") if p]
    files = _files()
    for base in [package] if package is not None else _search_path():
        for candidate in (
            base.joinpath(*parts).with_suffix(".py") if parts else None,
            base.joinpath(*parts, "__init__.py"),
        ):
            if candidate in files:
                return candidate
    return None


@functools.cache
def _search_path() -> list[Path]:
    """tests/ and every folder of test modules that is not a package (walked once, not once per import)."""
    return [TESTS, *(d for d in sorted(TESTS.rglob("*")) if d.is_dir() and not (d / "__init__.py").exists())]


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr == "fixture"
    return isinstance(target, ast.Name) and target.id == "fixture"


def _fixtures(tree: ast.Module) -> set[str]:
    return {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(_is_fixture(d) for d in node.decorator_list)
    }


def test_nothing_imports_a_conftest_module() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{line} imports {module}"
        for path, tree in _modules()
        for line, target, module, _ in _imports(path, tree)
        if module.split(".")[-1] == "conftest" or (target is not None and target.name == "conftest.py")
    ]
    assert not found, "builders come from tests/utils/, fixtures reach tests by name:\n" + "\n".join(found)


def test_no_fixture_is_imported_from_the_module_that_defines_it() -> None:
    trees = dict(_modules())
    fixtures = {path: _fixtures(tree) for path, tree in trees.items() if path.name != "conftest.py"}
    found = []
    for path, tree in trees.items():
        for line, target, module, names in _imports(path, tree):
            defined = fixtures.get(target, set()) if target is not None else set()
            imported = defined if "*" in names or (defined and not names) else defined.intersection(names)
            if imported:
                found.append(f"{path.relative_to(TESTS)}:{line} imports fixture(s) {sorted(imported)} from {module}")
    assert not found, "a shared fixture belongs in a conftest.py:\n" + "\n".join(found)


def _fixture_system(folder: Path) -> bool:
    """A throwaway rule system the tests ship (tests/systems/<x>/ with its package in folder/<x>/, which a test puts
    on app.systems' path: the fifth-system proof): its tests mirror the package it ships, its folder is test data."""
    parts = folder.parts
    if len(parts) < 2 or parts[0] != "systems":
        return False
    return (TESTS / "systems" / parts[1] / "folder" / parts[1] / "__init__.py").is_file()


def test_each_test_folder_mirrors_a_part_of_app() -> None:
    folders = [
        p.relative_to(TESTS)
        for p in sorted(TESTS.rglob("*"))
        if p.is_dir() and "__pycache__" not in p.parts and p.relative_to(TESTS).parts[0] not in NOT_MIRRORS
    ]
    folders = [f for f in folders if not _fixture_system(f)]
    strays = [
        f"tests/{f}/"
        for f in folders
        if not (APP / f / "__init__.py").is_file() and not (APP / f).with_suffix(".py").is_file()
    ]
    assert not strays, "each folder under tests/ mirrors a package or module of app/: " + ", ".join(strays)
