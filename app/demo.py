"""`python -m app.demo`: seed a demo campaign (idempotent) and print the logins."""

from __future__ import annotations

import sys

from sqlalchemy import select

from app.accounts.models import User
from app.accounts.service import create_user
from app.campaigns import service as campaigns
from app.characters.service import create_character
from app.config import Settings
from app.db import make_engine, make_sessionmaker
from app.rolls import prompts
from app.rolls import service as rolls
from app.rolls.appending import append_note
from app.rules.dice import ScriptedDice
from app.systems import SYSTEMS

PASSWORD = "fateboard-demo"
DEMO_USERS = ("nora", "pia", "otto")


def seed(settings: Settings) -> tuple[int, bool]:
    engine = make_engine(settings.database_url)
    factory = make_sessionmaker(engine)
    try:
        with factory() as db:
            if db.scalar(select(User).where(User.username_key == "nora")) is not None:
                campaign = db.scalars(select(campaigns.Campaign).order_by(campaigns.Campaign.id)).first()
                return (campaign.id if campaign else 0), False
            users = {name: create_user(db, name, PASSWORD) for name in DEMO_USERS}
            campaign = campaigns.create_campaign(
                db, users["nora"], name="Demo: The Lantern Road",
                description="A demo table: roll some dice, call for a roll, watch the log update live.",
                systems=list(SYSTEMS))
            db.flush()
            nora = campaigns.access(db, users["nora"], campaign.id)
            for name in ("pia", "otto"):
                invite = campaigns.create_invite(db, nora)
                campaigns.accept_invite(db, users[name], invite.code)
            db.commit()
            pia = campaigns.access(db, users["pia"], campaign.id)
            hero = create_character(db, pia, name="Wren the Lamplighter", system="dice")
            create_character(db, nora, name="The Toll-Keeper", system="dice", kind="npc")
            db.commit()
            append_note(db, nora, kind="session", action="start", summary="started the demo")
            # Scripted faces keep the demo's first lines the same on every machine; later rolls use the server's dice.
            rolls.perform_action(db, pia, rolls.ActionRequest(system="dice", action="roll", character_id=hero.id,
                                 params={"expression": "2d6+1"}, note="climb the lamp post"), dice=ScriptedDice([4, 5]))
            rolls.perform_action(db, nora, rolls.ActionRequest(system="dice", action="roll",
                                 params={"expression": "1d20"}, visibility="blind"), dice=ScriptedDice([17]))
            prompts.create_prompt(db, nora, character_id=hero.id, system="dice", action="roll",
                                locked={"expression": "1d20+2"}, note="Does Wren spot the toll-keeper's trick?")
            # Each rule system adds its own examples (characters, foes, an encounter) to the demo.
            for system in SYSTEMS.values():
                if system.seed_demo is not None:
                    system.seed_demo(db, nora, pia)
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
