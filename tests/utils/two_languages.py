"""The two-languages table (tests/test_two_languages_table.py, issue 15): a German and a Danish player at one
table. The core test seats the table and reads the log; what each system plays there is its own step,
tests/systems/<id>/two_languages.py (`STEP = Step(play)`), loaded for every registered system that has one."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.testclient import TestClient

from utils.dice import scripted
from utils.leak import SYSTEM_TESTS
from utils.tables import Table
from utils.web import signed_in

READERS = {"greta": "de", "dorte": "da"}


class TwoLanguages:
    """The table: `t` (API tokens: narrator nora, player greta, other dorte) and a signed-in browser each."""

    def __init__(self, client: TestClient, new_client: Any, systems: tuple[str, ...]) -> None:
        self.client = client
        self.t = Table(client, systems=systems, names=("nora", "greta", "dorte"))
        self.base = f"/campaigns/{self.t.id}"
        self.tokens = {"nora": self.t.narrator, "greta": self.t.player, "dorte": self.t.other}
        self.browsers = {name: signed_in(new_client, name) for name in ("nora", "greta", "dorte")}
        for name, lang in READERS.items():  # the account's language, chosen on the account page
            r = self.browsers[name].post("/account/language", data={"locale": lang}, follow_redirects=False)
            assert r.status_code == 303, r.text
            assert f'<html lang="{lang}">' in self.browsers[name].get("/account").text
        r = self.post("nora", f"{self.base}/sessions/start", {})
        assert r.status_code == 200, r.text

    def post(self, who: str, path: str, data: dict[str, Any]) -> Any:
        return self.browsers[who].post(path, data=data, headers={"HX-Request": "true"}, follow_redirects=False)

    def character(self, who: str, name: str, system: str, sheet: dict[str, Any], kind: str = "pc") -> int:
        r = self.client.post(
            f"/api/campaigns/{self.t.id}/characters",
            headers=self.tokens[who],
            json={"name": name, "system": system, "sheet": sheet, "kind": kind},
        )
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    def act(self, who: str, character: int, action: str, faces: list[int], **data: Any) -> Any:
        """A sheet form (`/characters/{id}/act/{action}`), with these dice."""
        with scripted(faces):
            r = self.post(
                who,
                f"{self.base}/characters/{character}/act/{action}",
                {"idempotency_key": f"{who}-{action}-{self.last_seq()}", **data},
            )
        assert r.status_code == 200, r.text
        return r

    def log(self, who: str = "nora", lang: str = "en") -> list[dict[str, Any]]:
        r = self.client.get(
            f"/api/campaigns/{self.t.id}/log",
            params={"limit": 500},
            headers={**self.tokens[who], "Accept-Language": lang},
        )
        assert r.status_code == 200, r.text
        entries: list[dict[str, Any]] = r.json()["entries"]
        return entries

    def last_seq(self) -> int:
        entries = self.log()
        return int(entries[-1]["seq"]) if entries else 0

    def sheet(self, character: int) -> dict[str, Any]:
        campaign = self.client.get(f"/api/campaigns/{self.t.id}", headers=self.t.narrator).json()
        return dict(next(c["sheet"] for c in campaign["characters"] if c["id"] == character))


def percentages(text: str) -> list[str]:
    """The percentages a page shows ("72,2 %", "72.2%")."""
    return re.findall(r"\d+(?:[.,]\d+)?(?:\s|&nbsp;|\xa0)?%", text)


@dataclass(frozen=True)
class Played:
    """What one system's step did at the table."""

    entries: int  # how many log entries it wrote
    odds: list[str] = field(default_factory=list)  # the percentages Greta (de) was shown
    typed: set[str] = field(default_factory=set)  # words the players typed (names): not a translation's business
    # Words that must not appear in a line read in that language although no catalog holds them (values).
    never: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """A system's part of the scenario: plays it through the pages' forms, with scripted dice."""

    play: Callable[[TwoLanguages], Played]


def steps() -> dict[str, Step]:
    """Each registered system's tests/systems/<id>/two_languages.py STEP, in the registry's order (a system
    without one takes no part)."""
    from app.systems import SYSTEMS

    found: dict[str, Step] = {}
    for system_id in SYSTEMS:
        path = SYSTEM_TESTS / system_id / "two_languages.py"
        if not path.exists():
            continue
        spec = importlib.util.spec_from_file_location(f"two_languages_{system_id}", path)
        assert spec is not None and spec.loader is not None, path
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        step: Step = module.STEP
        found[system_id] = step
    return found
