"""The template line check that `make lint` runs (tools/check_templates.py): it finds a long line wherever a
template lives, and the repository's templates have none."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_templates", ROOT / "tools" / "check_templates.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_templates"] = module
    spec.loader.exec_module(module)
    return module


def test_a_line_over_160_characters_fails_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check = _checker()
    (tmp_path / "ok.html").write_text("<p>{{ _('short') }}</p>\n" + "x" * 160 + "\n", encoding="utf-8")
    nested = tmp_path / "cat"
    nested.mkdir()
    (nested / "sheet.html").write_text("<p>\n" + "y" * 161 + "\n</p>\n", encoding="utf-8")
    assert list(check.long_lines(tmp_path)) == [(nested / "sheet.html", 2, 161)]
    assert check.main([str(tmp_path)]) == 1
    assert "sheet.html:2: 161 characters" in capsys.readouterr().out


def test_the_check_reads_system_template_folders_too() -> None:
    roots = _checker().template_roots(ROOT)
    assert roots[0] == ROOT / "templates"
    assert all(root.name == "templates" for root in roots)


def test_no_template_line_is_over_160_characters() -> None:
    check = _checker()
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for root in check.template_roots(ROOT)
        for path, line, _ in check.long_lines(root)
    ]
    assert found == []
