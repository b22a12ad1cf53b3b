"""After a conflict roll: Fate (rabbits.en.md, "Rewards"; RULINGS.md, "Rabbits": every 6 is rolled again as a new
die, new 6s keep rerolling, once per roll) and the wise rerolls (Deeper understanding, Of course!), through the
ordinary tests' follow-ups (followups.py). A roll that can still be followed up waits for its player's choice;
then the exchange is settled (volley.settle_if_ready). The disposition roll: Fate only.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.i18n import _, join, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import counts
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.disposition import disposition_line, settle_disposition
from app.systems.rabbits.conflict.exchange import exchanges, settle_if_ready
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.state import say, step_state, team_of
from app.systems.rabbits.followups import WISE_REROLLS, open_follow_ups, spend_fate, wise_reroll
from app.systems.rabbits.play import faces_text
from app.systems.rabbits.sheet import RabbitSheet


class FateParams(BaseModel):
    encounter_id: int
    version: int
    spend: bool = False
    # A wise reroll instead (followups.WISE_REROLLS: "deeper" or "of_course") and the wise that backs it.
    wise_reroll: str = Field(default="", max_length=10)
    wise: str = Field(default="", max_length=60)


def resolve_fate(
    sheet: RabbitSheet, params: FateParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """A conflict roll waits for its roller while it can still be followed up (volley.resolve_roll):
    Fate, Deeper understanding, Of course! — the ordinary tests' follow-ups (followups.py) on the roll's memory —
    or Keep; once nothing is left (or Keep), the exchange is settled."""
    state = step_state(ctx)
    if state.phase == "disposition":
        return _disposition_fate(sheet, params, dice, ctx, state)
    current = state.current
    team = team_of(state, ctx.character_id)
    # The roll of this rabbit's team that waits (a team facing two opposing teams rolls in each exchange).
    roll = (
        next(
            (ex["rolls"][team] for ex in exchanges(current) if team in ex["rolls"] and ex["rolls"][team].get("fate")),
            None,
        )
        if current and team
        else None
    )
    if state.phase != "resolve" or roll is None or not roll.get("fate") or roll["member"] != ctx.character_id:
        raise ActionError(_("No roll of this rabbit is waiting for Fate."), field="encounter_id")
    assert team is not None
    name = state.teams[team].name
    before = list(roll["faces"])
    last = roll["last"]
    kind = params.wise_reroll.strip().lower()
    if kind:
        if kind not in WISE_REROLLS:
            raise ActionError(_("Choose Deeper understanding or Of course!."), field="wise_reroll")
        change = wise_reroll(sheet, last, dice, kind, params.wise, field="wise_reroll")
    elif params.spend:
        old = len(last["faces"])
        spend_fate(sheet, last, dice, field="spend")
    if kind or params.spend:
        roll["faces"] = list(last["faces"])
        roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
        roll["open"] = open_follow_ups(sheet, last)
        roll["fate"] = bool(roll["open"])
        line = say(
            state,
            counts.changed(name=name, change=change, n=roll["successes"])
            if kind
            else counts.fate_rerolls(name=name, faces=faces_text(roll["faces"][old:]), n=roll["successes"]),
        )
    else:
        roll.update(fate=False, open=[])
        line = say(state, counts.keeps(name=name, n=roll["successes"]))
    assert ctx.character_id is not None
    sheets: dict[int, RabbitSheet] = dict(ctx.others)
    sheets[ctx.character_id] = sheet
    notes, changed, openings = settle_if_ready(state, ctx, sheets)
    others = {cid: sheets[cid] for cid in changed if cid != ctx.character_id}
    return Resolution(
        request={"version": params.version, "spend": params.spend, "wise_reroll": kind, "wise": params.wise.strip()},
        summary=join([line, *notes], "; ") if notes else line,
        sheet=sheets[ctx.character_id],
        others=others,
        outcome={
            "team": team,
            "before": before,
            "faces": roll["faces"],
            "successes": roll["successes"],
            "waiting": roll["fate"],
            "openings": openings,
        },
        encounter={"state": state, "over": False},
    )


def _disposition_fate(
    sheet: RabbitSheet, params: FateParams, dice: Dice, ctx: Context[RabbitSheet], state: ConflictState
) -> Resolution[RabbitSheet]:
    """The captain's disposition roll showed a 6 with Fate in hand: spend it (every 6 rerolled, new 6s again) or
    keep the roll; then the disposition is final (ruling 7)."""
    team = team_of(state, ctx.character_id)
    t = state.teams[team] if team else None
    roll = t.roll if t else None
    if team is None or t is None or roll is None or not roll.get("fate") or t.captain != ctx.character_id:
        raise ActionError(_("No roll of this rabbit is waiting for Fate."), field="encounter_id")
    before = list(roll["faces"])
    if params.spend:
        if sheet.fate < 1:
            raise ActionError(_("This rabbit has no Fate left."), field="spend")
        roll["faces"] = list(rabbits.fate_reroll(dice, roll["faces"]))
        sheet.fate -= 1
        sheet.fate_spent += 1
    rolled = rabbits.disposition_of(state.conflict, t.base or "", roll["base_rating"], roll["faces"], roll["penalties"])
    roll.update(fate=False, successes=rolled.successes, total=rolled.total, note=rolled.note, fate_used=params.spend)
    kept = msg("Fate rerolls the 6s") if params.spend else counts.keeps(name=t.name, n=rolled.successes)
    line = say(state, join([kept, disposition_line(t, rolled)], ": "))
    paired = settle_disposition(state, team, rolled.total)
    if paired:
        line = join([line, *paired], "; ")
    return Resolution(
        request={"version": params.version, "spend": params.spend},
        summary=line,
        sheet=sheet,
        outcome={
            "team": team,
            "disposition": rolled.total,
            "before": before,
            "faces": roll["faces"],
            "successes": rolled.successes,
            "final": True,
        },
        encounter={"state": state, "over": False},
    )
