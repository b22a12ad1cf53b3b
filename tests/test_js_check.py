"""The JS check of `make lint` (tools/check_js.mjs): the shipped scripts pass it, and each rule catches what it
names without tripping over what only looks like it (a `==` in a string, a regex, a comment or a template). Needs
node; without it these tests are skipped, as `make lint` skips the check (docs/ARCHITECTURE.md, "Quality gate")."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: the JS check is skipped too")


def run(*targets: Path | str) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    command = [NODE, str(ROOT / "tools" / "check_js.mjs"), *map(str, targets)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def check(tmp_path: Path, source: str) -> list[str]:
    """The rules `source` breaks (empty when clean)."""
    path = tmp_path / "case.js"
    path.write_text(source, encoding="utf-8", newline="")
    done = run(path)
    rules = [line.split(": ")[1] for line in done.stderr.splitlines() if f"{path.name}:" in line]
    assert (done.returncode == 0) == (rules == []), done.stderr
    return rules


def wrapped(body: str) -> str:
    return '(function () {\n  "use strict";\n' + body + "\n})();\n"


def test_the_shipped_scripts_pass() -> None:
    done = run()
    assert done.returncode == 0, done.stderr
    shipped = [p for p in (ROOT / "static" / "js").glob("*.js") if not p.name.endswith(".min.js")]
    assert f"{len(shipped)} file(s) clean" in done.stdout


def test_es5_and_es2015_that_only_look_wrong_pass(tmp_path: Path) -> None:
    body = """  var a = "x == y", b = 'z != w'; // == in a comment
  /* != in a block comment */
  const re = /==|!=[/]/g, half = 10 / 2 / 1;
  let t = `a ${ { k: "==" }.k } b ${`${1 === 1}`} != c`;
  const f = (x) => x === a || x !== b ? re.test(t) : half;
  setTimeout(function () { f(t); }, 0);
  if (true) { } /re/.test(t);
  console.warn("something went wrong", f);"""
    assert check(tmp_path, wrapped(body)) == []
    assert check(tmp_path, '"use strict";\nvar top = 1;\n') == []


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ("  var a = 1;\n  if (a == 2) { a = 3; }", "eqeqeq"),
        ("  var a = 1;\n  if (a != null) { a = 3; }", "eqeqeq"),
        ('  var a = eval("1");', "no-eval"),
        ('  var f = new Function("return 1");', "no-eval"),
        ('  setTimeout("go()", 10);', "no-eval"),
        ("  setInterval(`go()`, 10);", "no-eval"),
        ("  debugger;", "no-debug"),
        ("  console.log(1);", "no-debug"),
        ("  var a = 1;\t", "text"),
        ("  var a = 1;   ", "text"),
        ("  var s = '" + "x" * 160 + "';", "text"),
        ("  var a = ;", "syntax"),
    ],
)
def test_each_rule_catches_what_it_names(tmp_path: Path, body: str, rule: str) -> None:
    assert rule in check(tmp_path, wrapped(body))


def test_strict_mode_and_line_ends(tmp_path: Path) -> None:
    assert check(tmp_path, "(function () {\n  var a = 1;\n})();\n") == ["strict"]
    assert check(tmp_path, 'var a = 1;\n"use strict";\n') == ["strict"]  # a directive only counts first
    assert check(tmp_path, wrapped("  var a = 1;").replace("\n", "\r\n")) == ["text"]
    assert check(tmp_path, wrapped("  var a = 1;").rstrip("\n")) == ["text"]


def test_a_module_is_parsed_as_one_and_needs_no_directive(tmp_path: Path) -> None:
    assert check(tmp_path, 'import { a } from "./a.js";\nexport const b = a === 1;\n') == []
    assert check(tmp_path, 'import { a } from "./a.js";\nexport const b = ;\n') == ["syntax"]
    assert check(tmp_path, 'import { a } from "./a.js";\nexport const b = a == 1;\n') == ["eqeqeq"]


def test_vendored_minified_files_are_left_out(tmp_path: Path) -> None:
    (tmp_path / "lib-1.0.min.js").write_text("var a=1;if(a==2){eval('x')}", encoding="utf-8")
    (tmp_path / "ours.js").write_text(wrapped("  var a = 1;"), encoding="utf-8")
    done = run(tmp_path)
    assert done.returncode == 0 and "1 file(s) clean" in done.stdout, done.stderr
