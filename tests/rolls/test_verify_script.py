"""The offline verifier as a console script (issue 21, item 13): `fateboard-verify export.json --head SEQ:HASH`,
declared in pyproject.toml [project.scripts], runs the same code as `python -m app.verify`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest
from utils.tables import Table

from app import verify

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "fateboard-verify"


def _declared() -> EntryPoint:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    return EntryPoint(name=SCRIPT, value=scripts[SCRIPT], group="console_scripts")


def _export(table: Table, tmp_path: Path) -> tuple[Path, str]:
    table.roll(table.player, "1d6")
    table.roll(table.narrator, "2d6")
    data = table.client.get(f"/api/campaigns/{table.id}/export", headers=table.player).json()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    return path, f"{data['head']['seq']}:{data['head']['hash']}"


def test_the_console_script_is_the_verifiers_main() -> None:
    assert _declared().load() is verify.main


def test_the_console_script_checks_an_export_as_an_installed_command_would(table: Table, tmp_path: Path) -> None:
    """What pip's generated `fateboard-verify` does — load the entry point, call it, exit with its result — in a
    fresh interpreter, on a real export: OK with the right head; a wrong head fails; the usage names the command."""
    path, head = _export(table, tmp_path)
    runner = (
        "import sys; from importlib.metadata import EntryPoint; sys.argv[0] = 'fateboard-verify'; "
        f"sys.exit(EntryPoint(name='fateboard-verify', value={_declared().value!r}, "
        "group='console_scripts').load()(sys.argv[1:]))"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", runner, *args], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
        )

    done = run(str(path), "--head", head)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("OK: 2 entries")
    seq = head.split(":")[0]
    wrong = run(str(path), "--head", f"{seq}:{'0' * 64}")
    assert wrong.returncode == 1 and "BROKEN" in wrong.stdout
    usage = run("--help")
    assert usage.returncode == 0 and usage.stdout.startswith("usage: fateboard-verify")


def test_the_installed_command_when_the_package_is_installed(table: Table, tmp_path: Path) -> None:
    installed = [ep for ep in entry_points(group="console_scripts") if ep.name == SCRIPT]
    command = shutil.which(SCRIPT, path=str(Path(sys.executable).parent))
    if not installed or command is None:
        pytest.skip("the package was installed before [project.scripts] had fateboard-verify: run `make dev`")
    assert installed[0].value == _declared().value
    path, head = _export(table, tmp_path)
    done = subprocess.run([command, str(path), "--head", head], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "OK: 2 entries" in done.stdout, done.stderr
