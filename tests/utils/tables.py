"""A campaign with a narrator and players: `seat_table` through the services (for service-level tests), `Table`
through the JSON API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from httpx2 import Response
from starlette.testclient import TestClient

from utils.web import api_token

if TYPE_CHECKING:  # the app is imported when a table is seated, not when conftest.py imports this module
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.campaigns.models import Campaign


def seat_table(
    db: Session,
    names: tuple[str, ...] = ("nora", "pia", "otto"),
    *,
    systems: tuple[str, ...] = (),
    name: str = "Table",
    password: str = "correct horse",
) -> tuple[Campaign, dict[str, User]]:
    """A campaign made through the services (for service-level tests, and bench/'s seeding): the first user
    narrates, the others join by invite. Flushed, not committed: the caller adds what it needs and commits."""
    from app.accounts.service import create_user
    from app.campaigns import service as campaigns

    users = {n: create_user(db, n, password) for n in names}
    campaign = campaigns.create_campaign(db, users[names[0]], name=name, systems=list(systems))
    db.flush()
    narrator = campaigns.access(db, users[names[0]], campaign.id)
    for n in names[1:]:
        campaigns.accept_invite(db, users[n], campaigns.create_invite(db, narrator).code)
    db.flush()
    return campaign, users


class Table:
    """A campaign with a narrator, two players and a character each, made through the API."""

    def __init__(
        self,
        client: TestClient,
        suffix: str = "",
        systems: tuple[str, ...] = ("dice",),
        names: tuple[str, str, str] = ("nora", "pia", "otto"),
    ) -> None:
        """`names`: the narrator's, the player's and the other player's usernames (before `suffix`)."""
        self.client = client
        self.narrator = api_token(client, names[0] + suffix)
        self.player = api_token(client, names[1] + suffix)
        self.other = api_token(client, names[2] + suffix)
        self.outsider = api_token(client, "olga" + suffix)
        r = client.post("/api/campaigns", json={"name": "Night Watch", "systems": list(systems)}, headers=self.narrator)
        assert r.status_code == 201, r.text
        self.id: int = r.json()["id"]
        for who in (self.player, self.other):
            code = client.post(f"/api/campaigns/{self.id}/invites", json={}, headers=self.narrator).json()["code"]
            assert client.post(f"/api/invites/{code}/accept", headers=who).status_code == 200
        self.pia_char = self.character(self.player, f"{names[1].title()}'s hero")
        self.otto_char = self.character(self.other, f"{names[2].title()}'s hero")

    def character(
        self,
        who: dict[str, str],
        name: str,
        system: str = "dice",
        sheet: dict[str, Any] | None = None,
        kind: str | None = None,
    ) -> int:
        """A character made through the JSON API: its system's new sheet unless `sheet` (the creation fields) is
        given; `kind` "npc" for a narrator's character."""
        body: dict[str, Any] = {"name": name, "system": system}
        if sheet is not None:
            body["sheet"] = sheet
        if kind is not None:
            body["kind"] = kind
        r = self.client.post(f"/api/campaigns/{self.id}/characters", json=body, headers=who)
        assert r.status_code == 201, r.text
        character_id: int = r.json()["id"]
        return character_id

    def roll(self, who: dict[str, str], expression: str = "2d6", visibility: str = "public", **extra: Any) -> Response:
        body: dict[str, Any] = {
            "system": "dice",
            "action": "roll",
            "params": {"expression": expression},
            "visibility": visibility,
        }
        body.update(extra)
        return self.client.post(f"/api/campaigns/{self.id}/actions", json=body, headers=who)

    def log(self, who: dict[str, str]) -> list[dict[str, Any]]:
        r = self.client.get(f"/api/campaigns/{self.id}/log", params={"limit": 500}, headers=who)
        assert r.status_code == 200, r.text
        entries: list[dict[str, Any]] = r.json()["entries"]
        return entries
