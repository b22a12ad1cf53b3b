"""The end of a conflict: a team at 0 (both at once: both win, each owes a major compromise, ruling 5), the
compromise the winner owes (ruling 6), shown to the narrator with its figures, who records it in words on the
log (and may choose another level: the override is logged), and the conditions the outcome brings, which land
on the sheets. rabbits.en.md, "Conflicts", step 11; RULINGS.md, "Rabbits", rulings 5 and 6.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from app.i18n import N_, Summary, _, join, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.state import SIDES, compromise_word, opening, say, side_out, step_state, team_keys
from app.systems.rabbits.sheet import RabbitSheet, condition_word


def open_rest(state: ConflictState, encounter_id: int, keys: list[str] | None = None) -> list[dict[str, Any]]:
    """The actions of the volley that were never played, published too, so every commitment is checked (`keys`:
    those teams only — a team out of the conflict, or one left without an opponent)."""
    found = []
    shown = {(o["volley"], o["index"], o["team"]) for o in state.opened}
    for key in team_keys(state) if keys is None else keys:
        t = state.teams[key]
        if not t.locked:
            continue
        for index in range(len(t.script or [])):
            if (state.volley, index, key) not in shown:
                found.append(opening(state, encounter_id, index, key))
    return found


def finish(state: ConflictState, ctx: Context[RabbitSheet]) -> list[dict[str, Any]]:
    """A side is at 0 (every team of it; with two teams, one team): the conflict stops (step 8) and the
    compromise is worked out (step 11) — for each team of the winning side, by ruling 6."""
    assert ctx.encounter is not None
    found = open_rest(state, ctx.encounter["id"])
    teams = state.teams
    keys = team_keys(state)
    out = side_out(state)
    if len(out) == 2:
        result: dict[str, Any] = {
            "both": True,
            "winner": None,
            "owed": {key: {"start": teams[key].start, "remaining": 0, "ruling": "major"} for key in keys},
        }
        say(
            state,
            msg(
                "Both teams reached 0 in the same action: both get their goal, and each owes a major "
                "compromise (ruling 5)."
            ),
        )
    else:
        winners = [key for key in keys if SIDES[key] != out[0]]
        owed: dict[str, Any] = {}
        for winner in winners:
            start, remaining = teams[winner].started(), teams[winner].left()
            level = rabbits.compromise(start, remaining)
            owed[winner] = {"start": start, "remaining": remaining, "ruling": level}
            say(
                state,
                msg(
                    "{team} wins with {remaining} of {start}: by ruling 6 it owes no compromise.",
                    team=teams[winner].name,
                    remaining=remaining,
                    start=start,
                )
                if level == "none"
                else msg(
                    "{team} wins with {remaining} of {start}: by ruling 6 it owes {level} compromise.",
                    team=teams[winner].name,
                    remaining=remaining,
                    start=start,
                    level=compromise_word(level),
                ),
            )
        result = {"both": False, "winner": winners[0], "owed": owed}
        if len(winners) > 1:
            result["winners"] = winners
    state.put(phase="end", result=result, pending=[])
    return found


class EndParams(BaseModel):
    encounter_id: int
    version: int
    words: str = Field(default="", max_length=500, title=N_("The compromise, in words"))
    level: str = Field(default="", max_length=12, title=N_("Compromise"))
    conditions: list[str] = Field(default_factory=list, max_length=30)


def _conditions(params: EndParams, members: set[int]) -> dict[int, list[str]]:
    chosen: dict[int, list[str]] = {}
    for item in params.conditions:
        cid_text, _sep, key = item.partition(":")
        if not cid_text.isascii() or not cid_text.isdigit() or int(cid_text) not in members:
            raise ActionError(_("Conditions go to the conflict's rabbits."), field="conditions")
        if key not in rabbits.CONDITIONS:
            raise ActionError(_("Choose one of the five conditions."), field="conditions")
        chosen.setdefault(int(cid_text), []).append(key)
    return chosen


def resolve_end(
    sheet: RabbitSheet, params: EndParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Step 11: the narrator records the compromise in words (the level by ruling 6 or 5 unless overridden,
    on the log) and gives the conditions the outcome brings, which land on the sheets."""
    state = step_state(ctx)
    if state.phase != "end" or state.result is None:
        raise ActionError(_("The conflict is not over yet: a team must reach 0."), field="encounter_id")
    words = params.words.strip()
    if not words:
        raise ActionError(_("Say what the compromise is, in words."), field="words")
    result = state.result
    level = params.level.strip().lower()
    if level and level not in rabbits.COMPROMISES:
        raise ActionError(_("Choose none, minor, compromise or major."), field="level")
    owed: Mapping[str, Any] = result["owed"]
    parts: list[Summary] = []
    overridden = False
    for key, figures in owed.items():
        chosen = level or figures["ruling"]
        figures["recorded"] = chosen
        overridden = overridden or chosen != figures["ruling"]
        rule = 5 if result["both"] else 6
        team, owes, ruled = state.teams[key].name, compromise_word(chosen), compromise_word(figures["ruling"])
        parts.append(
            msg(
                "{team} owes {level} (ruling {rule} says {ruling}; the narrator's call)",
                team=team,
                level=owes,
                rule=rule,
                ruling=ruled,
            )
            if chosen != figures["ruling"]
            else msg(
                "{team} owes {level} (ruling {rule}: {remaining} of {start} left)",
                team=team,
                level=owes,
                rule=rule,
                remaining=figures["remaining"],
                start=figures["start"],
            )
        )
    members = {cid for t in state.teams.values() for cid in t.members}
    given = _conditions(params, members)
    others: dict[int, RabbitSheet] = {}
    notes: list[Summary] = []
    for cid, keys in given.items():
        rabbit = ctx.others[cid]
        rabbit.conditions = [c for c in rabbits.CONDITIONS if c in {*rabbit.conditions, *keys}]
        others[cid] = rabbit
        notes.append(
            msg(
                "{name}: {conditions}",
                name=ctx.other_names.get(cid, "?"),
                conditions=join([condition_word(k) for k in keys]),
            )
        )
    result.update(words=words, overridden=overridden, conditions={str(k): v for k, v in given.items()})
    state.phase = "over"
    line = say(
        state,
        msg(
            "Compromise: {owed} — {words}. Conditions: {conditions}",
            owed=join(parts, "; "),
            words=words,
            conditions=join(notes, "; "),
        )
        if notes
        else msg("Compromise: {owed} — {words}", owed=join(parts, "; "), words=words),
    )
    return Resolution(
        request={"version": params.version, "words": words, "level": level, "conditions": list(params.conditions)},
        summary=line,
        others=others,
        outcome={
            "owed": dict(owed),
            "words": words,
            "overridden": overridden,
            "conditions": {str(k): v for k, v in given.items()},
        },
        encounter={"state": state, "over": True},
    )


# --- calling a conflict off (the narrator) -------------------------------------------------------------------


class CallOffParams(BaseModel):
    encounter_id: int
    version: int
    reason: str = Field(default="", max_length=300, title=N_("Why the conflict is called off"))


def resolve_call_off(
    sheet: RabbitSheet, params: CallOffParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """The narrator stops a conflict before a team is at 0 (the story moved on, the table must stop): the reason
    goes on the log, the conflict ends with no winner and no compromise, and nothing lands on the sheets. The
    locked actions of the volley are opened, as at any end, so every commitment is checked; a script that was
    never locked was never committed and is thrown away unseen (docs/RABBITS-CONFLICTS.md)."""
    state = step_state(ctx)
    assert ctx.encounter is not None
    if state.phase == "end":
        raise ActionError(_("A team is at 0: record the compromise instead."), field="encounter_id")
    if state.phase == "over":
        raise ActionError(_("The conflict is over."), field="encounter_id")
    reason = params.reason.strip()
    if not reason:
        raise ActionError(_("Say why the conflict is called off."), field="reason")
    found = open_rest(state, ctx.encounter["id"])
    for t in state.teams.values():
        if not t.locked:
            t.put(script=None, scripted=False)
    state.put(
        phase="over",
        pending=[],
        result={"called_off": True, "reason": reason, "both": False, "winner": None, "owed": {}},
    )
    line = say(
        state,
        msg("The narrator called the conflict off: {reason}. Nobody wins and no compromise is owed.", reason=reason),
    )
    return Resolution(
        request={"version": params.version, "reason": reason},
        summary=line,
        outcome={"called_off": True, "reason": reason, "openings": found},
        encounter={"state": state, "over": True},
    )
