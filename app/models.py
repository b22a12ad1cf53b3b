"""Every model, imported in one place so Alembic and create_all see the whole schema."""

from app.accounts.models import ApiToken, AuthCounter, LoginSession, User
from app.campaigns.models import Campaign, GameSession, Invite, Membership
from app.characters.models import Character
from app.db import Base
from app.encounters.models import Encounter
from app.handouts.models import Handout, HandoutShow, Scene, ScenePin
from app.rolls.models import LogEntry, RollPrompt

__all__ = [
    "ApiToken", "AuthCounter", "Base", "Campaign", "Character", "Encounter", "GameSession", "Handout", "HandoutShow", "Invite", "LogEntry",
    "LoginSession", "Membership", "RollPrompt", "Scene", "ScenePin", "User",
]
