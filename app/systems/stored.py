"""The base of an encounter's typed state (issue 23 §3, RuleSystem.encounter_states): a model the rules service
validates the stored JSON with before a step and dumps back after it, keeping the JSON's shape."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Stored(BaseModel):
    """A part of the stored state: no unknown key is dropped (extra="forbid" would refuse a state an older or newer
    version wrote; "allow" keeps it through a step)."""

    model_config = ConfigDict(extra="allow")

    def unset(self, name: str) -> None:
        """Take a key out of the stored JSON (the dict's `pop`): back to its default and left out of the dump."""
        setattr(self, name, type(self).model_fields[name].get_default(call_default_factory=True))
        self.model_fields_set.discard(name)

    def put(self, **values: Any) -> None:
        """Set several keys at once (the dict's `update`): each is then stored."""
        for name, value in values.items():
            setattr(self, name, value)

    def stored(self) -> dict[str, Any]:
        """The JSON to store: the keys the state had or was given, nothing it never had."""
        return self.model_dump(mode="json", exclude_unset=True)
