"""Builders for the Cat tests: the new cats' creation fields (NEW_CAT, ROOF_RUNNER; bench/ imports them too), and
`CatTable`, a campaign with a narrator (nora) and two players (pia, otto), cats made through the characters service,
and actions through the rules service with scripted dice. The app is imported when a table is seated, not when
this module is imported."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI
    from sqlalchemy.orm import Session, sessionmaker

    from app.campaigns.service import Access
    from app.rolls.service import ActionResult

NEW_CAT = {
    "human_name": "Mister Buttons",
    "cat_name": "Smoke",
    "secret_name": "Ashwhisker",
    "rank_claws": "strong",
    "rank_coat": "good",
    "rank_face": "best",
    "rank_fangs": "strong",
    "rank_legs": "strong",
    "rank_tail": "good",
    "rep_name_1": "Best mouser",
    "rep_rank_1": "3",
    "rep_name_2": "Never lost",
    "rep_rank_2": "2",
    "rep_name_3": "Friend of the baker",
    "rep_rank_3": "2",
}

# Another new cat: Claws at Best (a strong fighter; the live and browser tests' Smoke).
ROOF_RUNNER = {
    "human_name": "Mister Buttons",
    "cat_name": "Smoke",
    "secret_name": "Ash",
    "rank_claws": "best",
    "rank_coat": "strong",
    "rank_face": "strong",
    "rank_fangs": "strong",
    "rank_legs": "good",
    "rank_tail": "good",
    "rep_name_1": "Roof runner",
    "rep_rank_1": "3",
    "rep_name_2": "Night walker",
    "rep_rank_2": "2",
    "rep_name_3": "Fishmonger's friend",
    "rep_rank_3": "2",
}


class CatTable:
    def __init__(self, app: FastAPI, *, session: bool = True) -> None:
        from utils.tables import seat_table

        self.factory: sessionmaker[Session] = app.state.sessionmaker
        with self.factory() as db:
            campaign, users = seat_table(db, systems=("cat",), name="Rooftops")
            db.commit()
            self.campaign_id = campaign.id
            self.user_ids = {n: u.id for n, u in users.items()}
        if session:
            self.start_session()

    def access(self, db: Session, who: str) -> Access:
        from app.accounts.models import User
        from app.campaigns import service as campaigns

        return campaigns.access(db, db.get(User, self.user_ids[who]), self.campaign_id)

    def start_session(self) -> None:
        from app.campaigns import service as campaigns

        with self.factory() as db:
            campaigns.start_session(db, self.access(db, "nora"))
            db.commit()

    def end_session(self) -> None:
        from app.campaigns import service as campaigns

        with self.factory() as db:
            campaigns.end_session(db, self.access(db, "nora"))
            db.commit()

    def cat(self, who: str = "pia", name: str = "Smoke", **changes: Any) -> int:
        from app.characters.service import create_character

        with self.factory() as db:
            ch = create_character(db, self.access(db, who), name=name, system="cat", sheet={**NEW_CAT, **changes})
            db.commit()
            return ch.id

    def foe(self, template: str = "dog", name: str = "Ship dog", **fields: Any) -> int:
        from app.characters.service import create_character

        with self.factory() as db:
            ch = create_character(
                db,
                self.access(db, "nora"),
                name=name,
                system="cat",
                kind="npc",
                sheet={"foe_template": template, **fields},
            )
            db.commit()
            return ch.id

    def act(
        self, who: str, action: str, character_id: int | None, faces: list[int] | None = None, **params: Any
    ) -> ActionResult:
        from app.rolls import service as rolls
        from app.rules.dice import ScriptedDice

        with self.factory() as db:
            req = rolls.ActionRequest(system="cat", action=action, character_id=character_id, params=params)
            result = rolls.perform_action(db, self.access(db, who), req, dice=ScriptedDice(list(faces or [])))
            return result

    def sheet(self, character_id: int) -> dict[str, Any]:
        from app.characters.models import Character

        with self.factory() as db:
            return dict(db.get_one(Character, character_id).sheet)

    def set_sheet(self, character_id: int, **changes: Any) -> None:
        """Arrange a situation directly (a test fixture, not a game step)."""
        from app.characters.models import Character

        with self.factory() as db:
            ch = db.get_one(Character, character_id)
            ch.sheet = {**ch.sheet, **changes}
            db.commit()
