"""A tied versus action in a conflict (RULINGS.md, "Rabbits", ruling 12; the pure steps are
app.systems.rabbits.rules.settle_tie): first either side's roller may give the tie away with a trait (2 checks), then
every side that still can may spend Fate on its roll, then a tiebreaker roll — Will or Health by the conflict,
Nature when the tied test was Will or Health. Only a tiebreaker that ties too changes no disposition.

The exchange keeps the tie in `ex["tie"]`: step ("trait", "fate", "tiebreak"; None once settled), declined
(the teams that kept the tie), fate ({team: True while that side may still choose}), tiebreak (the rolls).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.i18n import _, join, msg
from app.rules.dice import Dice
from app.systems.base import ActionError, Context, Resolution
from app.systems.rabbits import rules as rabbits
from app.systems.rabbits.conflict.exchange import exchanges, settle_if_ready
from app.systems.rabbits.conflict.models import ConflictState
from app.systems.rabbits.conflict.result import opponent, settle
from app.systems.rabbits.conflict.state import say, step_state, team_of
from app.systems.rabbits.followups import spend_fate
from app.systems.rabbits.play import faces_text
from app.systems.rabbits.pools import PoolChoices, plan_pool
from app.systems.rabbits.sheet import RabbitSheet, ability_word, find_trait

CHOICES = ("concede", "keep", "fate", "tiebreak")


class TieParams(BaseModel):
    encounter_id: int
    version: int
    choice: str = Field(max_length=10)
    trait: str = Field(default="", max_length=60)
    front: int | None = Field(default=None, ge=0, le=9)


def fate_open(sheet: RabbitSheet, roll: dict[str, Any]) -> bool:
    """Ruling 12's second step: a side may spend Fate on its tied roll if it was not yet used on that roll (and
    there is Fate in hand and a 6 to reroll)."""
    last = roll.get("last") or {}
    return bool(not last.get("fate_used") and sheet.fate > 0 and 6 in roll["faces"])


def tiebreak_ability(state: ConflictState, ex: dict[str, Any]) -> str:
    """Ruling 12's tiebreaker for this exchange: Nature if the tied test was Will or Health."""
    tested = [str((roll.get("last") or {}).get("tiebreak_kind", "skill")) for roll in ex["rolls"].values()]
    kind = next((k for k in tested if k in rabbits.TIEBREAK_PICKS), "skill")
    return rabbits.conflict_tiebreak_ability(state.conflict, kind, state.tiebreak)


def _ability_pool(sheet: RabbitSheet, ability: str) -> int:
    plan = plan_pool(
        sheet,
        PoolChoices(skill=ability),
        settings={},
        session=None,
        helper_conditions=[],
        actor_is_narrator=True,
        versus=True,
    )
    return plan.pool.dice


def _decide(state: ConflictState, ex: dict[str, Any], sheets: dict[int, RabbitSheet]) -> tuple[list[Any], set[int]]:
    """Ask the ruling where the tie stands; settle the exchange once it has an answer."""
    x, y = ex["teams"]
    tie = ex["tie"]
    tb = tie.get("tiebreak")
    result = rabbits.settle_tie(
        ex["rolls"][x]["successes"],
        ex["rolls"][y]["successes"],
        conceded_by=None if tie.get("conceded_by") is None else ("a" if tie["conceded_by"] == x else "b"),
        traits_done=len(tie["declined"]) >= 2,
        fate_done=not any(tie["fate"].values()),
        tiebreak=None if tb is None else (tb[x]["successes"], tb[y]["successes"]),
    )
    tie["step"] = result.step
    if result.step == "tiebreak":
        tie["ability"] = tiebreak_ability(state, ex)  # shown on the button
    if not result.settled:
        return [], set()
    winner = None if result.winner is None else (x if result.winner == "a" else y)
    notes, changed = settle(state, ex, sheets, decided=(winner, result.margin))
    tie["step"] = None
    return notes, changed


def resolve_tie(
    sheet: RabbitSheet, params: TieParams, dice: Dice, ctx: Context[RabbitSheet]
) -> Resolution[RabbitSheet]:
    """Ruling 12, one choice of one tied side's roller: give the tie away with a trait or keep it; spend Fate or
    not; roll the tiebreaker (both sides' pools at once, the server's dice)."""
    state = step_state(ctx)
    current = state.current
    team = team_of(state, ctx.character_id)
    tied = (
        [ex for ex in exchanges(current) if (ex.get("tie") or {}).get("step") and team in ex["sides"]]
        if current and team and state.phase == "resolve"
        else []
    )
    if params.front is not None:
        tied = [ex for i, ex in enumerate(exchanges(current or {})) if i == params.front and ex in tied]
    if not tied or team is None:
        raise ActionError(_("No tied action of this rabbit's team is waiting."), field="choice")
    ex = tied[0]
    tie, roll = ex["tie"], ex["rolls"][team]
    if roll["member"] != ctx.character_id:
        raise ActionError(
            _("The tie is for {name}, who rolled the action, to settle.").format(
                name=ctx.other_names.get(roll["member"], "?")
            ),
            field="choice",
        )
    choice = params.choice.strip().lower()
    if choice not in CHOICES:
        raise ActionError(_("Choose what to do with the tie."), field="choice")
    t = state.teams[team]
    step = tie["step"]
    sheets_now: dict[int | None, RabbitSheet] = dict(ctx.others.items())
    sheets_now[ctx.character_id] = sheet
    if step == "trait" and choice == "concede":
        if not params.trait.strip():
            raise ActionError(_("Choose the trait that gives the tie away."), field="trait")
        if params.trait.strip().lower() in {d.lower() for d in t.disarmed}:
            raise ActionError(_("That trait was disarmed for the rest of the conflict."), field="trait")
        trait = find_trait(sheet, params.trait)
        earned = rabbits.CHECKS_EARNED["concede_tie"]
        sheet.checks += earned
        tie["conceded_by"] = team
        line = msg(
            "{team} gives the tie away with the trait {trait} (+{n} checks)", team=t.name, trait=trait.name, n=earned
        )
    elif step == "trait" and choice == "keep":
        if team in tie["declined"]:
            raise ActionError(_("This side has already kept the tie; waiting for the other side."), field="choice")
        tie["declined"].append(team)
        line = msg("{team} keeps the tie", team=t.name)
        if len(tie["declined"]) >= 2:
            tie["fate"] = {
                key: fate_open(sheets_now[ex["rolls"][key]["member"]], ex["rolls"][key]) for key in ex["teams"]
            }
    elif step == "fate" and choice in ("fate", "keep"):
        if not tie["fate"].get(team):
            raise ActionError(
                _("This side cannot spend Fate on the tie (no Fate, no 6, or already used)."), field="choice"
            )
        if choice == "fate":
            old = len(roll["faces"])
            spend_fate(sheet, roll["last"], dice, field="choice")
            roll["faces"] = list(roll["last"]["faces"])
            roll["successes"] = rabbits.successes(roll["faces"]) + roll.get("weapon_hits", 0)
            line = msg(
                "{team}: Fate rerolls the 6s {faces}; successes now: {n}",
                team=t.name,
                faces=faces_text(roll["faces"][old:]),
                n=roll["successes"],
            )
        else:
            line = msg("{team} spends no Fate on the tie", team=t.name)
        tie["fate"][team] = False
    elif step == "tiebreak" and choice == "tiebreak":
        ability = tiebreak_ability(state, ex)
        rolled: dict[str, Any] = {}
        for key in ex["teams"]:
            member = ex["rolls"][key]["member"]
            try:
                pool = _ability_pool(sheets_now[member], ability)
            except ActionError:
                pool = 0
            faces = rabbits.roll_pool(dice, pool)
            rolled[key] = {"member": member, "dice": pool, "faces": list(faces), "successes": rabbits.successes(faces)}
        tie["tiebreak"] = {**rolled, "ability": ability}
        x, y = ex["teams"]
        line = msg(
            "tiebreaker on {ability}: {a} {a_faces} {a_n} to {b} {b_faces} {b_n}",
            ability=ability_word(ability),
            a=state.teams[x].name,
            a_faces=faces_text(rolled[x]["faces"]),
            a_n=rolled[x]["successes"],
            b=state.teams[y].name,
            b_faces=faces_text(rolled[y]["faces"]),
            b_n=rolled[y]["successes"],
        )
    else:
        raise ActionError(_("That is not the tie's next step."), field="choice")
    say(state, line)
    assert ctx.character_id is not None
    sheets: dict[int, RabbitSheet] = dict(ctx.others)
    sheets[ctx.character_id] = sheet
    found, changed = _decide(state, ex, sheets)
    if found:
        say(state, msg("Action {n}: {notes}", n=current["index"] + 1 if current else 1, notes=join(found, "; ")))
    notes, more, openings = settle_if_ready(state, ctx, sheets) if tie["step"] is None else ([], set(), [])
    changed |= more
    others = {cid: sheets[cid] for cid in changed if cid != ctx.character_id}
    return Resolution(
        request={"version": params.version, "choice": choice, "trait": params.trait.strip()},
        summary=join([line, *found, *notes], "; "),
        sheet=sheets[ctx.character_id],
        others=others,
        outcome={
            "team": team,
            "tie": dict(tie.items()),
            "opponent": opponent(ex, team),
            "openings": openings,
        },
        encounter={"state": state, "over": False},
    )
