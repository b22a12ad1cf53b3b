"""Fate after a conflict roll (rabbits.en.md, "Rewards"; RULINGS.md, "Rabbits": every 6 is rolled again as a new
die, new 6s keep rerolling, once per roll). A roll with a 6 by a rabbit with Fate waits for its player's choice:
spend Fate or keep the roll; then the exchange is settled (conflict_volley.settle_if_ready).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.i18n import _, join, msg
from app.rules import rabbits
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, RecordingDice, Resolution
from app.systems.rabbits.conflict import disposition_line, say, settle_disposition, step_state, team_of
from app.systems.rabbits.conflict_volley import settle_if_ready
from app.systems.rabbits.play import faces_text
from app.systems.rabbits.sheet import dump, load


class FateParams(BaseModel):
    encounter_id: int
    version: int
    spend: bool = False


def resolve_fate(sheet_data: dict[str, Any], params: FateParams, dice: Dice, ctx: Context) -> Resolution:
    state = step_state(ctx)
    if state["phase"] == "disposition":
        return _disposition_fate(sheet_data, params, dice, ctx, state)
    current = state.get("current")
    team = team_of(state, ctx.character_id)
    roll = (current or {}).get("rolls", {}).get(team) if team else None
    if state["phase"] != "resolve" or roll is None or not roll.get("fate") or roll["member"] != ctx.character_id:
        raise ActionError(_("No roll of this rabbit is waiting for Fate."), field="encounter_id")
    sheet = load(sheet_data)
    name = state["teams"][team]["name"]
    recorder = RecordingDice(dice)
    if params.spend:
        if sheet.fate < 1:
            raise ActionError(_("This rabbit has no Fate left."), field="spend")
        old = len(roll["faces"])
        roll["faces"] = list(rabbits.fate_reroll(recorder, roll["faces"]))
        roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
        roll["last"].update(faces=roll["faces"], fate_used=True)
        sheet.fate -= 1
        sheet.fate_spent += 1
        line = say(state, msg("{name}: Fate rerolls the 6s {faces} → {n} successes", name=name,
                              faces=faces_text(roll["faces"][old:]), n=roll["successes"]))
    else:
        line = say(state, msg("{name} keeps the roll ({n} successes)", name=name, n=roll["successes"]))
    roll["fate"] = False
    assert ctx.character_id is not None
    sheets: dict[int, dict[str, Any]] = {cid: dict(s) for cid, s in ctx.others.items()}
    sheets[ctx.character_id] = dump(sheet)
    notes, changed, openings = settle_if_ready(state, ctx, sheets)
    others = {cid: sheets[cid] for cid in changed if cid != ctx.character_id}
    return Resolution(request={"version": params.version, "spend": params.spend}, dice=recorder.rolled,
                      summary=join([line, *notes], "; ") if notes else line, sheet=sheets[ctx.character_id],
                      others=others, outcome={"team": team, "faces": roll["faces"], "successes": roll["successes"],
                                              "openings": openings},
                      encounter={"state": state, "over": False})


def _disposition_fate(sheet_data: dict[str, Any], params: FateParams, dice: Dice, ctx: Context,
                      state: dict[str, Any]) -> Resolution:
    """The captain's disposition roll showed a 6 with Fate in hand: spend it (every 6 rerolled, new 6s again) or
    keep the roll; then the disposition is final (ruling 7)."""
    team = team_of(state, ctx.character_id)
    t = state["teams"][team] if team else None
    roll = t["roll"] if t else None
    if t is None or roll is None or not roll.get("fate") or t["captain"] != ctx.character_id:
        raise ActionError(_("No roll of this rabbit is waiting for Fate."), field="encounter_id")
    sheet = load(sheet_data)
    recorder = RecordingDice(dice)
    if params.spend:
        if sheet.fate < 1:
            raise ActionError(_("This rabbit has no Fate left."), field="spend")
        roll["faces"] = list(rabbits.fate_reroll(recorder, roll["faces"]))
        sheet.fate -= 1
        sheet.fate_spent += 1
    rolled = rabbits.disposition_of(state["conflict"], t["base"], roll["base_rating"], roll["faces"],
                                    roll["penalties"])
    roll.update(fate=False, successes=rolled.successes, total=rolled.total, note=rolled.note,
                fate_used=params.spend)
    line = say(state, join([msg("Fate rerolls the 6s") if params.spend else msg("{name} keeps the roll ({n} successes)",
                            name=t["name"], n=rolled.successes), disposition_line(t, rolled)], ": "))
    settle_disposition(state, team, rolled.total)
    return Resolution(request={"version": params.version, "spend": params.spend}, dice=recorder.rolled,
                      summary=line, sheet=dump(sheet),
                      outcome={"team": team, "disposition": rolled.total, "faces": roll["faces"],
                               "successes": rolled.successes, "final": True},
                      encounter={"state": state, "over": False})
