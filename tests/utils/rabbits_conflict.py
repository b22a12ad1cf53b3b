"""A rabbit conflict through the rules service (docs/RABBITS-CONFLICTS.md): nora narrates, pia plays Clover
(team A), otto plays Hazel (team B); `Conflict` walks the steps with scripted dice."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.models import Character
from app.characters.service import create_character
from app.encounters.models import Encounter
from app.rolls import chain
from app.rolls import service as rolls
from app.rolls.models import LogEntry
from app.rules.dice import ScriptedDice
from utils.tables import seat_table

CLOVER = {
    "nature": 4,
    "will": 3,
    "health": 4,
    "skills": {"Scout": 3, "Fighter": 3, "Pathfinder": 2},
    "wises": ["Fox-wise"],
    "traits": [{"name": "Quick", "level": 1}],
}
HAZEL = {"nature": 3, "will": 4, "health": 3, "skills": {"Fighter": 2, "Scout": 2, "Persuader": 2}}


class Conflict:
    """Steps of one conflict, each a perform_action with scripted faces (all of them must be used)."""

    def __init__(self, factory: sessionmaker[Session], campaign_id: int, users: dict[str, int]) -> None:
        self.factory = factory
        self.campaign_id = campaign_id
        self.users = users
        self.ids: dict[str, int] = {}
        self.encounter_id: int | None = None

    def acc(self, db: Session, who: str) -> campaigns.Access:
        return campaigns.access(db, db.get(User, self.users[who]), self.campaign_id)

    def rabbit(self, who: str, name: str, sheet: dict[str, Any]) -> int:
        with self.factory() as db:
            ch = create_character(
                db,
                self.acc(db, who),
                name=name,
                system="rabbits",
                sheet=dict(sheet),
                kind="npc" if who == "nora" else "pc",
            )
            db.commit()
            self.ids[name] = ch.id
            return ch.id

    def act(
        self,
        who: str,
        action: str,
        character: str | None = None,
        faces: list[int] | None = None,
        exact: bool = True,
        **params: Any,
    ) -> LogEntry:
        with self.factory() as db:
            dice = ScriptedDice(list(faces or []))
            if self.encounter_id is not None and action != "conflict_setup":
                params.setdefault("encounter_id", self.encounter_id)
                params.setdefault("version", db.get_one(Encounter, self.encounter_id).version)
            req = rolls.ActionRequest(
                system="rabbits", action=action, character_id=self.ids[character] if character else None, params=params
            )
            done = rolls.perform_action(db, self.acc(db, who), req, dice=dice)
            assert not exact or dice.remaining == 0, f"{action}: {dice.remaining} scripted faces left over"
            if done.encounter_id is not None:
                self.encounter_id = done.encounter_id
            entry = done.entry
            if entry in db:  # a replayed entry is read from the session; a new one comes back detached
                db.refresh(entry)
                db.expunge(entry)
            return entry

    def setup(
        self,
        conflict: str = "fight",
        a: tuple[str, ...] = ("Clover",),
        b: tuple[str, ...] = ("Hazel",),
        b_narrator: bool = False,
        **extra: Any,
    ) -> LogEntry:
        return self.act(
            "nora",
            "conflict_setup",
            conflict=conflict,
            a_name="Warren",
            a_goal="Keep the burrow",
            a_members=[self.ids[n] for n in a],
            b_name="Raiders",
            b_goal="Take the clover field",
            b_members=[self.ids[n] for n in b],
            b_narrator=b_narrator,
            **extra,
        )

    def state(self) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get_one(Encounter, self.encounter_id).state)

    def encounter(self) -> Encounter:
        with self.factory() as db:
            encounter = db.get_one(Encounter, self.encounter_id)
            db.expunge(encounter)
            return encounter

    def sheet(self, name: str) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get_one(Character, self.ids[name]).sheet)

    def export(self) -> list[dict[str, Any]]:
        """The campaign's log as the export writes it (every field the verifier reads)."""
        with self.factory() as db:
            entries = db.scalars(
                select(LogEntry).where(LogEntry.campaign_id == self.campaign_id).order_by(LogEntry.seq)
            ).all()
            return [
                {
                    **e.header(),
                    **{k: e.body.get(k) for k in chain.HIDDEN_FIELDS},
                    "body": e.body,
                    "salt": e.salt,
                    "body_hash": e.body_hash,
                    "prev_hash": e.prev_hash,
                    "hash": e.hash,
                }
                for e in entries
            ]

    def script(self, who: str, character: str, actions: list[str], members: list[str], lock: bool = True) -> LogEntry:
        params: dict[str, Any] = {"lock": lock}
        for n, (action, member) in enumerate(zip(actions, members), start=1):
            params[f"action_{n}"] = action
            params[f"member_{n}"] = self.ids[member]
        return self.act(who, "conflict_script", character, **params)


def warren(app: FastAPI, *, fox: bool = False) -> Conflict:
    """A Rabbits campaign "Warren" (tests/utils/tables.seat_table) with Pia's Clover and Otto's Hazel; with `fox`,
    also the narrator's Fox."""
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, systems=("rabbits",), name="Warren")
        db.commit()
        table = Conflict(app.state.sessionmaker, campaign.id, {n: u.id for n, u in users.items()})
    table.rabbit("pia", "Clover", CLOVER)
    table.rabbit("otto", "Hazel", HAZEL)
    if fox:
        table.rabbit("nora", "Fox", {"nature": 5, "will": 3, "health": 5, "skills": {"Fighter": 4}})
    return table
