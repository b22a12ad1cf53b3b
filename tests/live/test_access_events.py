"""What takes access away is announced after its commit (app/live/access.py), whichever way it is written: an
ORM change, a deleted row, a bulk statement; nothing for a rollback, nothing for what only grants access."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import delete, update
from utils.tables import seat_table

from app.accounts import service as accounts
from app.accounts.models import ApiToken, LoginSession, User
from app.campaigns import service as campaigns
from app.campaigns.models import Membership
from app.live import access

pytestmark = pytest.mark.engines


@pytest.fixture
def heard(app: FastAPI) -> list[tuple[int, str, int | None]]:
    found: list[tuple[int, str, int | None]] = []
    access.watch(app.state.engine, lambda *message: found.append(message))
    return found


def _seat(app: FastAPI) -> tuple[int, dict[str, int]]:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db)
        db.commit()
        return campaign.id, {name: user.id for name, user in users.items()}


def test_granting_access_announces_nothing(app: FastAPI, heard: list[Any]) -> None:
    _seat(app)  # accounts, a campaign, invites accepted: memberships made
    with app.state.sessionmaker() as db:
        user = db.query(User).filter(User.username == "pia").one()
        accounts.create_token(db, user, "new")
        accounts.start_login_session(db, user)
        db.commit()
    assert heard == []


def test_a_removal_a_promotion_and_a_revocation_are_announced_after_their_commit(
    app: FastAPI, heard: list[Any]
) -> None:
    campaign_id, ids = _seat(app)
    with app.state.sessionmaker() as db:
        nora = campaigns.access(db, db.get_one(User, ids["nora"]), campaign_id)
        campaigns.remove_member(db, nora, ids["pia"])
        assert heard == []  # not before the commit
        db.commit()
    assert heard == [(campaign_id, access.ACCESS, ids["pia"])]
    with app.state.sessionmaker() as db:
        nora = campaigns.access(db, db.get_one(User, ids["nora"]), campaign_id)
        campaigns.promote_member(db, nora, ids["otto"])
        db.commit()
    assert heard[-1] == (campaign_id, access.ACCESS, ids["otto"])
    with app.state.sessionmaker() as db:
        row, _token = accounts.create_token(db, db.get_one(User, ids["otto"]), "t")
        db.commit()
        accounts.revoke_token(db, db.get_one(User, ids["otto"]), row.id)
        db.commit()
    assert heard[-1] == (access.EVERY_CAMPAIGN, access.ACCESS, ids["otto"])


def test_bulk_statements_are_announced_for_the_rows_they_change(app: FastAPI, heard: list[Any]) -> None:
    campaign_id, ids = _seat(app)
    with app.state.sessionmaker() as db:
        sid = accounts.start_login_session(db, db.get_one(User, ids["pia"]))
        db.commit()
        accounts.end_login_session(db, sid)  # sign-out: a bulk DELETE
        db.commit()
    assert heard == [(access.EVERY_CAMPAIGN, access.ACCESS, ids["pia"])]
    with app.state.sessionmaker() as db:
        accounts.create_token(db, db.get_one(User, ids["otto"]), "t")
        db.commit()
    heard.clear()
    with app.state.sessionmaker() as db:
        db.execute(update(ApiToken).where(ApiToken.user_id == ids["otto"]).values(name="x"))
        db.execute(delete(Membership).where(Membership.user_id == ids["otto"]))
        db.execute(delete(LoginSession).where(LoginSession.user_id == -1))  # no row: nobody
        db.commit()
    assert sorted(heard) == [
        (access.EVERY_CAMPAIGN, access.ACCESS, ids["otto"]),
        (campaign_id, access.ACCESS, ids["otto"]),
    ]


def test_a_rollback_announces_nothing(app: FastAPI, heard: list[Any]) -> None:
    campaign_id, ids = _seat(app)
    with app.state.sessionmaker() as db:
        nora = campaigns.access(db, db.get_one(User, ids["nora"]), campaign_id)
        campaigns.remove_member(db, nora, ids["pia"])
        db.flush()
        db.rollback()
    with app.state.sessionmaker() as db:
        db.commit()
    assert heard == []
