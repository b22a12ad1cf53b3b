"""A campaign with a narrator and players: `seat_table` through the services (for service-level tests), `Table`
through the JSON API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from httpx2 import Response
from starlette.testclient import TestClient

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
    """A campaign with a narrator, two players and a character each, seated through the services (the HTTP paths of
    sign-up, tokens, invites and characters have tests of their own); read and played through the JSON API."""

    def __init__(
        self,
        client: TestClient,
        suffix: str = "",
        systems: tuple[str, ...] = ("dice",),
        names: tuple[str, str, str] = ("nora", "pia", "otto"),
    ) -> None:
        """`names`: the narrator's, the player's and the other player's usernames (before `suffix`)."""
        from app.accounts.service import create_token, create_user
        from app.campaigns.service import access
        from app.characters.service import create_character

        self.client = client
        app: Any = client.app
        with app.state.sessionmaker() as db:
            campaign, users = seat_table(db, tuple(n + suffix for n in names), systems=systems, name="Night Watch")
            users["olga"] = create_user(db, "olga" + suffix, "correct horse")
            narrator, player, other = (users[n + suffix] for n in names)
            outsider = users["olga"]
            tokens = [create_token(db, u, "API token")[1] for u in (narrator, player, other, outsider)]
            heroes = []
            for user, name in ((player, names[1]), (other, names[2])):
                acc = access(db, user, campaign.id)
                heroes.append(create_character(db, acc, name=f"{name.title()}'s hero", system="dice").id)
            db.commit()
            self.id: int = campaign.id
        self.narrator, self.player, self.other, self.outsider = ({"Authorization": f"Bearer {t}"} for t in tokens)
        self.pia_char, self.otto_char = heroes

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
