"""Setting up a combat: the narrator's adventurers and foes (a foe may stand for a group), the range track and its
features; the state it starts (models.py).

art-engine.md, ch. 5 "Combat Rounds", "The Range Track"; RULINGS.md, ART Engine 11-33.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, _, msg, render
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution

from ..sheet import ArtSheet, defeated
from .models import CombatState
from .state import MAX_BANDS, say

FEATURE_KINDS = ("exit", "rough", "hazard")


class SetupParams(BaseModel):
    title: str = Field(default="", max_length=80)
    adventurers: list[int] = Field(default_factory=list, max_length=12)
    foes: list[int] = Field(default_factory=list, max_length=24)
    bands: int = Field(default=8, ge=2, le=MAX_BANDS, title=N_("Bands on the track"))
    adventurer_band: int = Field(default=2, ge=0, lt=MAX_BANDS)
    foe_band: int = Field(default=5, ge=0, lt=MAX_BANDS)
    groups: list[str] = Field(default_factory=list, max_length=24)  # "<foe id>:<how many>"
    features: str = Field(default="", max_length=1000)  # one a line: "<band> exit|rough|hazard [label]"


def _groups(entries: list[str]) -> dict[int, int]:
    sizes: dict[int, int] = {}
    for entry in entries:
        cid, _sep, size = entry.partition(":")
        if not (cid.isdigit() and size.isdigit() and 1 <= int(size) <= 20):
            raise ActionError(_("A group is a foe and how many of them (1 to 20)."), field="groups")
        sizes[int(cid)] = int(size)
    return sizes


def parse_features(text: str, bands: int) -> list[dict[str, Any]]:
    """The narrator's features, one a line: "3 rough rubble", "0 exit door", "5 hazard fire pit"."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if len(words) < 2 or not words[0].isdigit() or words[1].lower() not in FEATURE_KINDS:
            raise ActionError(
                _(
                    "Line {n}: write a band number, then exit, rough or hazard, then a name if you "
                    "like (e.g. “3 rough rubble”)."
                ).format(n=number),
                field="features",
            )
        band = int(words[0])
        if band >= bands:
            raise ActionError(
                _("Line {n}: the track has bands 0 to {last}.").format(n=number, last=bands - 1), field="features"
            )
        found.append({"band": band, "kind": words[1].lower(), "label": " ".join(words[2:])[:40]})
    return found


def resolve_setup(sheet: ArtSheet, params: SetupParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """The narrator sets up a combat: adventurers and foes (a foe may stand for a group), the range track
    and its features. Initiative comes next: the players roll Alertness, foes use their rating."""
    if not params.adventurers:
        raise ActionError(_("Choose at least one adventurer."), field="adventurers")
    if not params.foes:
        raise ActionError(_("Choose at least one foe."), field="foes")
    if len(set(params.adventurers + params.foes)) != len(params.adventurers) + len(params.foes):
        raise ActionError(_("Each character takes part once."), field="foes")
    for band, name in ((params.adventurer_band, "adventurer_band"), (params.foe_band, "foe_band")):
        if band >= params.bands:
            raise ActionError(_("The track has bands 0 to {last}.").format(last=params.bands - 1), field=name)
    sizes = _groups(params.groups)
    fighters: list[dict[str, Any]] = []
    participants: list[dict[str, Any]] = []
    for cid, side in [(c, "adventurer") for c in params.adventurers] + [(c, "foe") for c in params.foes]:
        sheet_of: ArtSheet = ctx.others[cid]
        name = ctx.other_names.get(cid, "?")
        if sheet_of.kind != side:
            message = _("{name} is not an adventurer.") if side == "adventurer" else _("{name} is not a foe.")
            raise ActionError(message.format(name=name), field="adventurers" if side == "adventurer" else "foes")
        if defeated(sheet_of) or (side == "adventurer" and sheet_of.unconscious):
            raise ActionError(_("{name} is defeated and cannot fight.").format(name=name), field="foes")
        if side == "foe" and "ALE" not in sheet_of.levels:
            raise ActionError(_("{name} has no Alertness level for its initiative.").format(name=name), field="foes")
        count = sizes.get(cid, 1)
        fighters.append(
            {
                "id": cid,
                "name": name if count == 1 else f"{name} ×{count}",
                "side": side,
                "count": count,
                "band": params.adventurer_band if side == "adventurer" else params.foe_band,
                "initiative": sheet_of.levels["ALE"] if side == "foe" else None,
                "tie": [],
                "out": False,
                "skip": False,
                "prone": False,
                "dodge": None,
                "penalty": None,
                "next": [],
                "now": [],
                "grapple": None,
                "aim": 0,
                "acted_round": None,
            }
        )
        participants.append({"character_id": cid, "side": side, "name": name})
    extra = set(sizes) - set(params.foes)
    if extra:
        raise ActionError(_("Groups are made of the foes chosen."), field="groups")
    state = CombatState.model_validate(
        {
            "phase": "initiative",
            "bands": params.bands,
            "features": parse_features(params.features, params.bands),
            "fighters": fighters,
            "simplified": bool(ctx.campaign_settings.get("simplified_initiative")),
            "initiative": None,
            "round": 0,
            "order": [],
            "waited": [],
            "turn": None,
            "pending": None,
            "recent": [],
        }
    )
    foe_names = ", ".join(f.name for f in state.fighters if f.side == "foe")
    if not params.title.strip():  # a title the system makes up: language-neutral, read in each reader's language
        state.title = msg("Combat: {foes}", foes=foe_names)
    title = params.title.strip() or render(state.title)
    heroes = ", ".join(f.name for f in state.fighters if f.side == "adventurer")
    summary = say(
        state,
        msg("A combat begins: {heroes} against {foes}. Roll initiative (Alertness).", heroes=heroes, foes=foe_names),
    )
    return Resolution(
        request=params.model_dump(),
        outcome={"bands": params.bands},
        summary=summary,
        encounter={"kind": "combat", "title": title[:120], "participants": participants, "state": state, "over": False},
    )
