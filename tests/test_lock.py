"""The lock (uv.lock) is what gets installed, and it agrees with pyproject.toml (issue 33; docs/DEVELOPING.md).
`make dev` puts the pinned uv in .uv/; without it (pytest run outside make) these are skipped with the reason."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import check_lock  # noqa: E402  (tools/ is not a package)

UV = ROOT / ".uv" / "bin" / "uv"

pytestmark = pytest.mark.skipif(not UV.exists(), reason="uv is installed by `make dev` into .uv/; run `make test`")


def uv(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(UV), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_lock_agrees_with_pyproject() -> None:
    done = uv("lock", "--check", "--offline")
    assert done.returncode == 0, done.stderr


def test_a_dependency_changed_without_the_lock_fails_the_check(tmp_path: Path) -> None:
    """Both gates of `make lint` refuse it: ours names the requirement that moved (offline, whatever uv's cache holds);
    uv's own check fails too (on a fresh machine its cache may lack the packages it would need to say more)."""
    shutil.copy(ROOT / "uv.lock", tmp_path / "uv.lock")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"nh3>=0.2.17"' in pyproject
    (tmp_path / "pyproject.toml").write_text(pyproject.replace('"nh3>=0.2.17"', '"nh3>=0.2.18"'))
    assert check_lock.differences(tmp_path) == [
        "pyproject.toml asks for nh3>=0.2.18, uv.lock does not lock it",
        "uv.lock locks nh3>=0.2.17, pyproject.toml no longer asks for it",
    ]
    assert check_lock.differences(ROOT) == []
    done = uv("lock", "--check", "--offline", cwd=tmp_path)
    assert done.returncode != 0


def test_the_installed_packages_are_exactly_the_lock() -> None:
    """What `pip freeze` would list (less the project itself) equals the lock's packages for this platform."""
    done = uv(
        "export", "--frozen", "--extra", "dev", "--no-hashes", "--no-emit-project", "--no-header", "--no-annotate"
    )
    assert done.returncode == 0, done.stderr
    locked: dict[str, str] = {}
    for line in done.stdout.splitlines():
        requirement, _, marker = line.partition(";")
        if "==" not in requirement or (marker.strip() and not Marker(marker.strip()).evaluate()):
            continue
        name, version = requirement.split("==")
        locked[canonicalize_name(name.split("[")[0].strip())] = version.strip()
    installed = {
        canonicalize_name(d.metadata["Name"]): d.version
        for d in importlib.metadata.distributions()
        if canonicalize_name(d.metadata["Name"]) != "fateboard"
    }
    assert len(locked) > 100
    assert installed == locked
