"""Every model, imported in one place so Alembic and create_all see the whole schema."""

from app.accounts.models import AccountToken, ApiToken, AuthCounter, LoginSession, User
from app.between.models import (
    CalendarFeed,
    DigestChoice,
    PlannedSession,
    ReadMark,
    Replay,
    Rsvp,
    SafetyCounter,
    SafetyItem,
)
from app.campaigns.models import Campaign, GameSession, Invite, Membership
from app.characters.models import Character
from app.db import Base
from app.encounters.models import Encounter
from app.handouts.models import Handout, HandoutShow, Scene, ScenePin
from app.notify.models import DiscordBridge, NotifyChoice, OutboxItem, PushSubscription
from app.rolls.models import LogEntry, RollPrompt

__all__ = [
    "AccountToken",
    "ApiToken",
    "AuthCounter",
    "Base",
    "CalendarFeed",
    "Campaign",
    "Character",
    "DigestChoice",
    "DiscordBridge",
    "Encounter",
    "GameSession",
    "Handout",
    "HandoutShow",
    "Invite",
    "LogEntry",
    "LoginSession",
    "Membership",
    "NotifyChoice",
    "OutboxItem",
    "PlannedSession",
    "PushSubscription",
    "ReadMark",
    "Replay",
    "RollPrompt",
    "Rsvp",
    "SafetyCounter",
    "SafetyItem",
    "Scene",
    "ScenePin",
    "User",
]
