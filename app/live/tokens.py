"""What the action route keeps of a token that acted in a campaign (app/live/hub.py holds them; app/api.py reads
them): its user, the campaign row and its role, as plain column values, so that each job gets ORM objects of
its own."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from sqlalchemy import inspect

from app.accounts.models import User
from app.campaigns.models import Campaign


def _columns(model: type[Any]) -> tuple[str, ...]:
    return tuple(attr.key for attr in inspect(model).column_attrs)


_USER_COLUMNS = _columns(User)
# Not the log's head (last_seq, head_hash): it moves with every entry and is read under its lock
# (app/rolls/appending.py); a kept campaign has None there, so that nothing reads a stale head.
_CAMPAIGN_COLUMNS = tuple(key for key in _columns(Campaign) if key not in ("last_seq", "head_hash"))


@dataclass(frozen=True)
class TokenAccess:
    """What the action route needs of a token in a campaign (its user, the campaign, the role), as last read: each
    `rows()` gives new detached copies (a job may not share ORM objects with another thread, and may change them)."""

    user: dict[str, Any]
    campaign: dict[str, Any]
    role: str
    read_at: float

    @classmethod
    def of(cls, user: User, campaign: Campaign, role: str, read_at: float) -> TokenAccess:
        return cls(
            {key: getattr(user, key) for key in _USER_COLUMNS},
            {key: copy.deepcopy(getattr(campaign, key)) for key in _CAMPAIGN_COLUMNS},
            role,
            read_at,
        )

    def rows(self) -> tuple[User, Campaign]:
        # Scalars are immutable; only the campaign's JSON columns can be changed in place.
        campaign = {**self.campaign, "systems": list(self.campaign["systems"])}
        campaign["settings"] = copy.deepcopy(self.campaign["settings"])
        return User(**self.user), Campaign(**campaign)
