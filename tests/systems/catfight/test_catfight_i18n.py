"""The German catalog: committed compiled (.mo) and up to date with its .po, with every cat fight string
translated (the game's rules exist in English and German, so its screens and log lines do too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from app.i18n import LOCALE_DIR
from app.systems.catfight.log import describe

PO = LOCALE_DIR / "de" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")


def _frozen(value: object) -> object:
    return tuple(value) if isinstance(value, list | tuple) else value  # plural forms come as lists


def _messages(catalog: object) -> dict[object, object]:
    return {_frozen(m.id): _frozen(m.string) for m in catalog if m.id and m.string}  # type: ignore[attr-defined]


def test_the_committed_mo_matches_the_po(tmp_path: Path) -> None:
    assert MO.is_file(), "run `make messages-compile` and commit app/locale/de/LC_MESSAGES/messages.mo"
    fresh = tmp_path / "messages.mo"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "compile", "-i", str(PO), "-o", str(fresh), "-l", "de"],
        check=True,
        capture_output=True,
    )
    with open(MO, "rb") as committed, open(fresh, "rb") as compiled:
        assert _messages(read_mo(committed)) == _messages(read_mo(compiled)), (
            "messages.mo is older than messages.po: run `make messages-compile`"
        )


def test_every_cat_fight_string_has_its_german() -> None:
    with open(PO, "rb") as f:
        catalog = read_po(f)
    ours = [m for m in catalog if m.id and any("catfight" in path for path, _line in m.locations)]
    assert len(ours) > 80
    missing = [m.id for m in ours if not m.string or m.fuzzy]
    assert missing == []


def test_a_log_line_is_stored_once_and_read_in_each_language() -> None:
    from app.i18n import render

    event = {
        "kind": "defend",
        "result": "lucky_fate",
        "attacker": "a",
        "defender": "b",
        "attack_total": 18,
        "rolls": [
            {
                "cat": "b",
                "stat": "defend",
                "base": 12,
                "faces": [6, 6],
                "value": 6,
                "critical": "lucky_fate",
                "total": 18,
                "attempt": 1,
            }
        ],
        "damage": [],
        "next": "b",
    }
    names = {"a": "Tecka", "b": "Mimi"}
    assert render(describe([event], names), "en") == (
        "Mimi DEFEND 12 +6 (die 6·6) = 18: LUCKY FATE, parried so well that Mimi attacks now."
    )
    assert render(describe([event], names), "de") == (
        "Mimi DEFEND 12 +6 (Würfel 6·6) = 18: GLÜCKLICHE FÜGUNG, so gekonnt pariert, dass Mimi jetzt dran ist "
        "mit attackieren."
    )
