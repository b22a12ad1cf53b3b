"""Builders for the ART Engine tests: a balanced adventurer and a foe, `Play` (a table seated through the services,
actions through the rules service with scripted dice) and `Art` (the same table through the pages and the API).
Their fixtures, `play` and `art`, are in conftest.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from httpx2 import Response
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.characters.models import Character
from app.characters.service import create_character
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice
from utils.tables import Table, seat_table
from utils.web import signed_in

# Strength 9, Intelligence 11 (so Climbing +4 and Rock climbing +1 fit the starting 11 xp), Stamina 10.
PAIRS = {
    "AGI": (5, 4),
    "ALE": (4, 3),
    "CHA": (3, 2),
    "CRA": (1, 2),
    "CUN": (3, 1),
    "DEX": (5, 2),
    "FAT": (4, 1),
    "INT": (6, 5),
    "STA": (6, 4),
    "STR": (6, 3),
}


def balanced_fields(**extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"sheet_kind": "adventurer", "method": "balanced"}
    for code, (a, b) in PAIRS.items():
        fields[f"{code}_a"], fields[f"{code}_b"] = str(a), str(b)
    fields.update(extra)
    return fields


# A foe of its own (not a henchman): every level Poor, Defense Passable, damage 1.
GOBLIN = {
    "sheet_kind": "foe",
    **{f"level_{c}": "PR" for c in PAIRS},
    "level_ATK": "PR",
    "level_DEF": "PS",
    "health_0": "PR",
    "health_1": "PS",
    "health_2": "GD",
    "health_3": "GT",
    "damage_rating": "1",
}
# The same as an alert henchman (Alertness Incredible).
FOE = {**GOBLIN, "level_ALE": "IN", "henchman": "on"}


class Play:
    def __init__(self, app: FastAPI) -> None:
        self.factory: sessionmaker[Session] = app.state.sessionmaker
        with self.factory() as db:
            campaign, seated = seat_table(db, systems=("art",), name="Cliffs")
            users = list(seated.values())
            narrator = campaigns.access(db, users[0], campaign.id)
            db.commit()
            self.campaign_id = campaign.id
            self.user_ids = [u.id for u in users]
            self.hero = create_character(
                db,
                campaigns.access(db, users[1], campaign.id),
                name="Maren",
                system="art",
                sheet=balanced_fields(
                    skill_0="Climbing", skill_0_rating="4", skill_1="Rock climbing", skill_1_rating="1"
                ),
            ).id
            self.friend = create_character(
                db, campaigns.access(db, users[2], campaign.id), name="Tom", system="art", sheet=balanced_fields()
            ).id
            self.foe = create_character(db, narrator, name="Goblin", system="art", sheet=dict(FOE), kind="npc").id
            db.commit()

    def act(
        self, who: int, action: str, params: dict[str, Any], faces: list[int] | None = None, character: int | None = -1
    ) -> tuple[int, dict[str, Any]]:
        """The new (or replayed) entry's seq and body."""
        with self.factory() as db:
            acc = campaigns.access(db, db.get(User, self.user_ids[who]), self.campaign_id)
            cid = self.hero if character == -1 else character
            req = rolls.ActionRequest(system="art", action=action, character_id=cid, params=params)
            entry = rolls.perform_action(db, acc, req, dice=ScriptedDice(faces or [])).entry
            return entry.seq, entry.body

    def sheet(self, cid: int | None = None) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get_one(Character, cid or self.hero).sheet)

    def settings(self) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get_one(Campaign, self.campaign_id).settings or {})


NARRATOR, PIA, OTTO = 0, 1, 2


def balanced(name: str = "Maren", **extra: str) -> dict[str, str]:
    data = {"name": name, "sheet_kind": "adventurer", "method": "balanced"}
    for code, (a, b) in PAIRS.items():
        data[f"{code}_a"], data[f"{code}_b"] = str(a), str(b)
    data.update(extra)
    return data


class Art:
    def __init__(self, client: TestClient, new_client: Callable[[], TestClient]) -> None:
        self.t = Table(client, systems=("art",))
        self.client = client
        self.pia = signed_in(new_client, "pia")
        self.otto = signed_in(new_client, "otto")
        self.nora = signed_in(new_client, "nora")
        self.base = f"/campaigns/{self.t.id}"

    def create(self, who: TestClient, data: dict[str, str]) -> Response:
        data = {**data, "csrf_token": who.headers["X-CSRF-Token"]}
        return who.post(f"{self.base}/characters/new/art", data=data, follow_redirects=False)

    def hero(self, who: TestClient | None = None, **extra: str) -> int:
        r = self.create(who or self.pia, balanced(**extra))
        assert r.status_code == 303, r.text
        return int(r.headers["location"].rsplit("/", 1)[1])

    def act(self, who: TestClient, cid: int, action: str, data: dict[str, Any]) -> Response:
        return who.post(
            f"{self.base}/characters/{cid}/act/{action}",
            headers={"HX-Request": "true"},
            data={"idempotency_key": f"k-{action}-{len(str(data))}-{id(data)}", **data},
        )

    def api(self, who: dict[str, str], action: str, character: int | None, **params: Any) -> Response:
        return self.client.post(
            f"/api/campaigns/{self.t.id}/actions",
            headers=who,
            json={"system": "art", "action": action, "character_id": character, "params": params},
        )

    def sheet(self, cid: int) -> dict[str, Any]:
        r = self.client.get(f"/api/campaigns/{self.t.id}", headers=self.t.narrator)
        sheet: dict[str, Any] = next(c["sheet"] for c in r.json()["characters"] if c["id"] == cid)
        return sheet
