"""An encounter kind as a system declares it (issue 38): its typed state, what a viewer may read of it, whom it waits
for, whom it challenges, the title it made up and — where it has them — its teams. The core reads an encounter only
through its kind's declaration (RuleSystem.kind): never a key of its state.

Each hook gets the state as the kind's model, validated once from the stored JSON (`EncounterKind.load`); a step's
new state is stored with `Stored.stored()` (app/systems/base.py: stored_state), so the JSON keeps its shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from app.i18n import Summary
from app.systems.stored import Stored

S = TypeVar("S", bound=Stored)

# A participant as the core stores it: {character_id, side, name}.
Participant = Mapping[str, Any]


@dataclass(frozen=True)
class EncounterViewer:
    """Who is looking at an encounter: a narrator, or a player acting for `controls` (character ids)."""

    is_narrator: bool
    controls: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Team:
    """A side of an encounter whose players talk among themselves, out of the other teams' sight (app/talk: team talk).
    `name`: as the system keeps it (typed, or language-neutral: shown with `| tr`); `members`: character ids;
    `narrator`: a narrator-run team (the narrators read its talk)."""

    key: str
    name: Summary
    members: tuple[int, ...] = ()
    narrator: bool = False


def _whole(state: Stored, viewer: EncounterViewer) -> dict[str, Any]:
    return state.stored()


def _no_one(state: Stored, participants: Sequence[Participant]) -> Mapping[int, str]:
    return {}


def _no_challenge(state: Stored, participants: Sequence[Participant]) -> list[Participant]:
    return []


def _no_title(state: Stored) -> Summary | None:
    return None


@dataclass(frozen=True)
class EncounterKind(Generic[S]):
    """One kind of encounter a system runs (ART's "combat", a Rabbits "conflict", a cat-fight "duel")."""

    id: str
    # The typed state: the rules service hands a step this model (ctx.encounter["state"]) and stores what it returns.
    state: type[S]
    # What a viewer may read of the state (the state as stored → as shown): by default all of it; a system takes out
    # what is secret (a team's script before the reveal, a foe's levels). Every screen takes the state from here.
    view: Callable[[S, EncounterViewer], dict[str, Any]] = _whole
    # Who must act now: {character id: what it waits for (a key that changes with each new wait)}. A wait new after
    # a step notifies the character's player (app/notify); the between-sessions page lists them (app/between).
    awaited: Callable[[S, Sequence[Participant]], Mapping[int, str]] = _no_one
    # Who is challenged and has not answered yet (the campaign page offers them the encounter, in the words of
    # `challenge`: a template of the system's, given `encounter`, `mine` and `rival`).
    challenged: Callable[[S, Sequence[Participant]], list[Participant]] = _no_challenge
    challenge: str = ""
    # The title the system made up (language-neutral), shown before the stored one; None: the stored title.
    title: Callable[[S], Summary | None] = _no_title
    # The teams that talk among themselves (team talk), or None: this kind has no teams.
    teams: Callable[[S], Sequence[Team]] | None = None

    def load(self, stored: Mapping[str, Any]) -> S:
        """The stored JSON as this kind's model."""
        return self.state.model_validate(dict(stored))

    def shown(self, stored: Mapping[str, Any], viewer: EncounterViewer) -> dict[str, Any]:
        return self.view(self.load(stored), viewer)

    # The core's calls on the stored JSON: each loads the model only when the kind declared the hook.
    def waits(self, stored: Mapping[str, Any], participants: Sequence[Participant]) -> Mapping[int, str]:
        return {} if self.awaited is _no_one else self.awaited(self.load(stored), participants)

    def challenges(self, stored: Mapping[str, Any], participants: Sequence[Participant]) -> list[Participant]:
        return [] if self.challenged is _no_challenge else self.challenged(self.load(stored), participants)

    def made_up_title(self, stored: Mapping[str, Any]) -> Summary | None:
        return self.title(self.load(stored)) if self.title is not _no_title else None

    def team_list(self, stored: Mapping[str, Any]) -> Sequence[Team]:
        return () if self.teams is None else self.teams(self.load(stored))


def kind_table(kinds: Iterable[EncounterKind[Any]]) -> dict[str, EncounterKind[Any]]:
    """A system's encounter kinds by id, for RuleSystem.encounters."""
    table: dict[str, EncounterKind[Any]] = {}
    for kind in kinds:
        if kind.id in table:
            raise ValueError(f"two encounter kinds with the id {kind.id!r}")
        table[kind.id] = kind
    return table


# An encounter of a kind its system no longer declares (a state from before): read as it is, waiting for no one.
UNDECLARED: EncounterKind[Stored] = EncounterKind("", Stored)
