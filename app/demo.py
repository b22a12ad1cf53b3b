"""`python -m app.demo`: seed a demo campaign (idempotent) and print the logins."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import create_user
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.characters.service import create_character
from app.config import Settings
from app.db import make_engine, make_sessionmaker
from app.i18n import msg
from app.rolls import prompts
from app.rolls import service as rolls
from app.rolls.appending import append_note
from app.rolls.visibility import Visibility
from app.rules.dice import ScriptedDice
from app.systems import SYSTEMS
from app.systems.base import Role

PASSWORD = "fateboard-demo"
DEMO_USERS = ("nora", "pia", "otto")


class DemoSeeder:
    """The services behind a system's demo (app.systems.base.Seeder), for one system: each system adds its
    own examples (characters, foes, an encounter) through this, and never imports a service itself."""

    def __init__(self, db: Session, system: str, accesses: Mapping[Role, campaigns.Access]) -> None:
        self.db, self.system, self.accesses = db, system, accesses

    def character(self, role: Role, name: str, sheet: Mapping[str, Any] | None = None, kind: str = "pc") -> int:
        acc = self.accesses.get(role)
        if acc is None:  # no second player in this campaign: the narrator keeps the character
            acc, kind = self.accesses["narrator"], "npc"
        character = create_character(
            self.db, acc, name=name, system=self.system, sheet=dict(sheet) if sheet is not None else None, kind=kind
        )
        self.db.commit()
        return character.id

    def act(
        self,
        role: Role,
        action: str,
        character_id: int | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        note: str = "",
        visibility: str = "public",
        dice_faces: list[int] | None = None,
    ) -> None:
        request = rolls.ActionRequest(
            system=self.system,
            action=action,
            character_id=character_id,
            params=dict(params or {}),
            note=note,
            visibility=Visibility(visibility),
        )
        rolls.perform_action(
            self.db, self.accesses[role], request, dice=ScriptedDice(dice_faces) if dice_faces is not None else None
        )

    def prompt(self, role: Role, character_id: int, action: str, locked: Mapping[str, Any], note: str = "") -> None:
        prompts.create_prompt(
            self.db,
            self.accesses[role],
            character_id=character_id,
            system=self.system,
            action=action,
            locked=dict(locked),
            note=note,
        )


def seed(settings: Settings) -> tuple[int, bool]:
    engine = make_engine(settings.database_url)
    factory = make_sessionmaker(engine)
    try:
        with factory() as db:
            if db.scalar(select(User).where(User.username_key == "nora")) is not None:
                campaign = db.scalars(select(Campaign).order_by(Campaign.id)).first()
                return (campaign.id if campaign else 0), False
            users = {name: create_user(db, name, PASSWORD) for name in DEMO_USERS}
            campaign = campaigns.create_campaign(
                db,
                users["nora"],
                name="Demo: The Lantern Road",
                description="A demo table: roll some dice, call for a roll, watch the log update live.",
                systems=list(SYSTEMS),
            )
            db.flush()
            nora = campaigns.access(db, users["nora"], campaign.id)
            for name in ("pia", "otto"):
                invite = campaigns.create_invite(db, nora)
                campaigns.accept_invite(db, users[name], invite.code)
            db.commit()
            accesses = {
                "narrator": nora,
                "player": campaigns.access(db, users["pia"], campaign.id),
                "other_player": campaigns.access(db, users["otto"], campaign.id),
            }
            append_note(db, nora, kind="session", action="start", summary=msg("started the demo"))
            # Each rule system adds its own examples (characters, foes, rolls, an encounter) to the demo.
            for system in SYSTEMS.values():
                if system.seed_demo is not None and system.id in campaign.systems:
                    system.seed_demo(DemoSeeder(db, system.id, accesses))
                    db.commit()
            return campaign.id, True
    finally:
        engine.dispose()


def main() -> int:
    settings = Settings()
    campaign_id, created = seed(settings)
    verb = "Seeded" if created else "Found"
    print(f"{verb} the demo campaign (id {campaign_id}) in {settings.database_url}")
    print(f"Demo logins (password '{PASSWORD}'): nora (narrator), pia and otto (players)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
