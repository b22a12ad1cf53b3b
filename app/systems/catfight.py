"""The turn-based cat fight (app/rules/catfight.py) as a Fateboard system: cat sheets, duels as encounters.

Health lives in the duel's state while the cats fight and is copied to both cats' sheets on every step
(Resolution.sheet for the cat that moved, Resolution.others for its opponent), so a sheet always shows the
health its cat has now. A cat that escaped keeps the server time of its escape (`escaped_at`) and regains a
point per `regen_minutes` (campaign setting) from then on (ruling 11); the regained points are counted
when it next fights, and shown on its sheet meanwhile.

Log lines are written in English (`summary`) and, for this game's other rules language, German too
(`outcome.summaries`); the log shows each viewer the one in their language.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.i18n import gettext as _
from app.i18n import translations
from app.rules import catfight
from app.rules.dice import Dice
from app.systems.base import Action, ActionError, Context, RecordingDice, Resolution, RuleSystem

STATS = catfight.STATS
SUMMARY_LOCALES = ("en", "de")  # the languages the rules text exists in
DEFAULT_REGEN_MINUTES = 5
Gettext = Callable[[str], str]


class CatSheet(BaseModel):
    attack: int = Field(default=14, ge=1)
    defend: int = Field(default=14, ge=1)
    jump: int = Field(default=14, ge=1)
    sneak: int = Field(default=14, ge=1)
    quickness: int = Field(default=14, ge=1)
    health: int = Field(default=catfight.MAX_HEALTH, ge=0, le=catfight.MAX_HEALTH)
    fighting: bool = False  # in a duel now (one at a time)
    escaped_at: float | None = None  # server time of its last escape: it regenerates from then on

    @model_validator(mode="after")
    def _sums_to_70(self) -> CatSheet:
        total = sum(getattr(self, stat) for stat in STATS)
        if total != catfight.STAT_TOTAL:
            raise ValueError(f"the five values add up to {total}; they must add up to exactly {catfight.STAT_TOTAL}")
        return self


def stat_label(stat: str) -> str:
    """Both rules texts call the values Attack, Defend, Jump, Sneak and Quickness: not translated."""
    return stat.capitalize()


# --- creating a cat ("EXAMPLE CAT", ruling 12) ---

def create_cat(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The creation form's five values → a new cat's sheet; the first problem is named next to its field."""
    values: dict[str, int] = {}
    for stat in STATS:
        raw = fields.get(stat)
        text = str(raw).strip() if raw is not None and not isinstance(raw, bool) else ""
        try:
            values[stat] = int(text)
        except ValueError:
            raise ActionError(_("%(stat)s must be a whole number.") % {"stat": stat_label(stat)}, field=stat) from None
        if values[stat] < 1:
            raise ActionError(_("%(stat)s must be at least 1.") % {"stat": stat_label(stat)}, field=stat)
    total = sum(values.values())
    if total != catfight.STAT_TOTAL:
        raise ActionError(_("The five values add up to %(total)d; they must add up to exactly 70.") % {"total": total},
                          field="total")
    return CatSheet(**values).model_dump(mode="json")


# --- regeneration (ruling 11) ---

def regen_seconds(settings: Mapping[str, Any]) -> int:
    minutes = settings.get("regen_minutes", DEFAULT_REGEN_MINUTES)
    return max(1, int(minutes if isinstance(minutes, int | float) else DEFAULT_REGEN_MINUTES)) * 60


def health_now(sheet: Mapping[str, Any], settings: Mapping[str, Any], now: float) -> int:
    """The health a cat has at `now`: a cat set aside after escaping regains points with time."""
    health = int(sheet.get("health", catfight.MAX_HEALTH))
    escaped_at = sheet.get("escaped_at")
    if escaped_at is None or sheet.get("fighting"):
        return health
    return catfight.regenerate(health, float(escaped_at), now, regen_seconds(settings))


def rest_view(sheet: Mapping[str, Any], settings: Mapping[str, Any] | None = None,
              now: float | None = None) -> dict[str, Any]:
    """For the pages: health now, whether the cat is resting, and the minutes to its next point."""
    settings = settings or {}
    now = time.time() if now is None else now
    health = health_now(sheet, settings, now)
    resting = sheet.get("escaped_at") is not None and not sheet.get("fighting") and health < catfight.MAX_HEALTH
    next_in = None
    if resting:
        interval = regen_seconds(settings)
        elapsed = max(0.0, now - float(sheet["escaped_at"]))
        next_in = max(1, round((interval - elapsed % interval) / 60))
    return {"health": health, "max": catfight.MAX_HEALTH, "resting": resting, "next_in_minutes": next_in,
            "minutes": regen_seconds(settings) // 60, "knocked_out": health == 0 and not sheet.get("fighting")}


# --- the log, in words: one line per step, in each rules language ---

def _roll_text(roll: Mapping[str, Any], names: Mapping[str, str], _: Gettext) -> str:
    faces = "·".join(str(f) for f in roll["faces"])
    if roll["stat"] is None:  # BEGINNING: a plain d6
        return _("%(cat)s rolls %(face)s") % {"cat": names[roll["cat"]], "face": faces}
    return _("%(cat)s %(stat)s %(base)d %(value)+d (die %(faces)s) = %(total)d") % {
        "cat": names[roll["cat"]], "stat": roll["stat"].upper(), "base": roll["base"], "value": roll["value"],
        "faces": faces, "total": roll["total"]}


def _rolls_text(rolls: list[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
    """Opposed rolls in pairs; a tie rolls again (rulings 1–3)."""
    pairs = [rolls[i:i + 2] for i in range(0, len(rolls), 2)] if len(rolls) > 1 else [rolls]
    parts = [", ".join(_roll_text(r, names, _) for r in pair) for pair in pairs]
    return (" — " + _("tie, again:") + " ").join(parts)


def _damage_text(damage: list[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
    return "".join(" " + _("%(cat)s loses %(points)d, health %(health)d.") % {
        "cat": names[d["cat"]], "points": d["points"], "health": d["health"]} for d in damage)


def describe_event(event: Mapping[str, Any], names: Mapping[str, str], _: Gettext) -> str:
    n = {key: names[event[key]] for key in ("attacker", "defender", "runner", "chaser", "starter", "sneaker", "cat",
                                            "winner") if event.get(key) in names}
    kind, result = event["kind"], event["result"]
    rolls = _rolls_text(event.get("rolls", []), names, _) if event.get("rolls") else ""
    if kind == "begin":
        text = _("Who starts? %(rolls)s: %(starter)s starts and sneaks up.") % {"rolls": rolls, **n}
    elif kind == "sneak":
        other = names["b" if event["sneaker"] == "a" else "a"]
        text = (_("SNEAK: %(rolls)s: %(sneaker)s sneaks up and attacks.") if result == "sneaked_up"
                else _("SNEAK: %(rolls)s: %(other)s notices and attacks.")) % {"rolls": rolls, "other": other, **n}
    elif kind == "attack":
        text = {"rolled": _("%(rolls)s: %(defender)s chooses DEFEND or JUMP."),
                "critical_hit": _("%(rolls)s: CRITICAL HIT, it cannot be parried; %(attacker)s attacks again."),
                "critical_goof": _("%(rolls)s: CRITICAL GOOF, the paw misses; %(defender)s attacks now.")}[result]
        text %= {"rolls": rolls, **n}
    elif kind == "defend":
        text = {"parried": _("%(rolls)s against %(attack)d: parried; %(attacker)s attacks again."),
                "hit": _("%(rolls)s against %(attack)d: a hit; %(attacker)s attacks again."),
                "lucky_fate": _("%(rolls)s: LUCKY FATE, parried so well that %(defender)s attacks now."),
                "unlucky_cat": _("%(rolls)s: UNLUCKY CAT, %(defender)s falls off the wall.")}[result]
        text %= {"rolls": rolls, "attack": event.get("attack_total") or 0, **n}
    elif kind == "jump":
        text = (_("JUMP: %(rolls)s: %(defender)s jumps clear and attacks now.") if result == "dodged"
                else _("JUMP: %(rolls)s: %(attacker)s follows, a hit; %(attacker)s attacks again.")) % {
            "rolls": rolls, **n}
    elif kind == "flee":
        text = {"escaped": _("%(runner)s flees. %(rolls)s: %(runner)s escapes."),
                "caught": _("%(runner)s flees. %(rolls)s: %(chaser)s catches up and attacks."),
                "stumbled": _("%(runner)s flees. %(rolls)s: %(runner)s stumbles and is caught."),
                "chaser_injured": _("%(runner)s flees. %(rolls)s: %(chaser)s gets hurt giving chase; "
                                    "%(runner)s escapes.")}[result] % {"rolls": rolls, **n}
        if event.get("criticals_cancelled"):
            text += " " + _("(Criticals on both sides cancel out.)")
    elif kind == "escape":
        return _("%(cat)s got away and rests.") % n
    elif kind == "knockout":
        return _("%(cat)s is knocked out: %(winner)s wins.") % n
    else:  # pragma: no cover - every kind of app.rules.catfight.EVENT_RESULTS is above
        text = kind
    return text + _damage_text(event.get("damage", []), names, _)


def describe(events: list[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
    return " ".join(describe_event(event, names, _) for event in events)


def summaries(events: list[Mapping[str, Any]], names: Mapping[str, str]) -> dict[str, str]:
    return {loc: describe(events, names, translations(loc).gettext) for loc in SUMMARY_LOCALES}


def both(make: Callable[[Gettext], str]) -> dict[str, str]:
    """One line in every rules language, from one function of gettext."""
    return {loc: make(translations(loc).gettext) for loc in SUMMARY_LOCALES}


# --- the duel's state as the pages need it ---

def _fraction(chance: Fraction) -> dict[str, Any]:
    return {"num": chance.numerator, "den": chance.denominator, "percent": round(float(chance) * 100, 1)}


def chances(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """Before the defender rolls: the exact chance of a DEFEND and of a JUMP (shown on the buttons)."""
    if state.get("over") or state.get("phase") != "respond":
        return None
    attacker = state["attacker"]
    defender = "b" if attacker == "a" else "a"
    return {"attack": state["pending_attack"],
            "defend": _fraction(catfight.exact_defend_chance(state[defender]["defend"], state["pending_attack"])),
            "jump": _fraction(catfight.exact_jump_chance(state[defender]["jump"], state[attacker]["jump"]))}


def with_view(state: dict[str, Any]) -> dict[str, Any]:
    """The state plus what the duel page shows: whose move, the legal moves, the defender's chances."""
    state["to_move"] = catfight.to_move(state)
    state["legal"] = sorted(catfight.legal_moves(state))
    state["chances"] = chances(state)
    return state


def _side_of(encounter: Mapping[str, Any], character_id: int | None) -> str | None:
    return next((p["side"] for p in encounter["participants"] if p["character_id"] == character_id), None)


def _names(encounter: Mapping[str, Any]) -> dict[str, str]:
    return {p["side"]: p["name"] for p in encounter["participants"]}


def _after_duel(sheet: Mapping[str, Any], state: Mapping[str, Any], side: str, now: float) -> dict[str, Any]:
    """A cat's sheet after a step: its duel health; out of the duel when it ends, resting if it escaped."""
    new = {**sheet, "health": state[side]["health"], "fighting": not state["over"]}
    if state["over"]:
        new["escaped_at"] = now if state.get("escaped") == side else None
    return new


def _recent(state: Mapping[str, Any], texts: dict[str, str]) -> list[dict[str, Any]]:
    """The last few steps in words, newest first, for the duel page (the log has them all)."""
    return ([{"round": state["round"], "summaries": texts}] + list(state.get("recent", [])))[:6]


# --- actions ---

class ChallengeParams(BaseModel):
    opponent_id: int = Field(title="Opponent")


class MoveParams(BaseModel):
    encounter_id: int
    version: int
    move: Literal["begin", "sneak", "attack", "defend", "jump", "flee"]


class CallOffParams(BaseModel):
    encounter_id: int
    version: int


class SettingsParams(BaseModel):
    regen_minutes: int = Field(ge=1, le=1440, title="Minutes per health point")


class HealParams(BaseModel):
    pass


def _fit_to_fight(sheet: Mapping[str, Any], name: str, field: str, ctx: Context) -> dict[str, Any]:
    if sheet.get("fighting"):
        raise ActionError(_("%(name)s is already in a duel.") % {"name": name}, field=field)
    health = health_now(sheet, ctx.campaign_settings, ctx.now)
    if health < 1:
        raise ActionError(_("%(name)s is knocked out and cannot fight until a narrator heals it.") % {"name": name},
                          field=field)
    return {**sheet, "health": health, "escaped_at": None, "fighting": True}


def resolve_challenge(sheet: dict[str, Any], params: ChallengeParams, dice: Dice, ctx: Context) -> Resolution:
    """A duel of two cats (several cats: a brawl is a series of such duels, ruling 13). Health comes back
    regenerated (ruling 11); the duel starts with the BEGINNING roll."""
    name_a, name_b = ctx.character_name or "?", ctx.other_names[params.opponent_id]
    mine = _fit_to_fight(sheet, name_a, "character_id", ctx)
    theirs = _fit_to_fight(ctx.others[params.opponent_id], name_b, "opponent_id", ctx)
    try:
        state = catfight.start_duel({"name": name_a, **{s: mine[s] for s in STATS}, "health": mine["health"]},
                                    {"name": name_b, **{s: theirs[s] for s in STATS}, "health": theirs["health"]})
    except catfight.CatfightError as exc:
        raise ActionError(exc.message, field="opponent_id") from exc
    texts = both(lambda _: _("%(a)s challenges %(b)s to a duel.") % {"a": name_a, "b": name_b})
    state["recent"] = [{"round": 0, "summaries": texts}]
    with_view(state)
    participants = [{"character_id": ctx.character_id, "side": "a", "name": name_a},
                    {"character_id": params.opponent_id, "side": "b", "name": name_b}]
    return Resolution(
        request={"opponent_id": params.opponent_id}, dice=[],
        outcome={"health": {"a": mine["health"], "b": theirs["health"]}, "summaries": texts},
        summary=texts["en"], sheet=mine, others={params.opponent_id: theirs},
        encounter={"kind": "duel", "title": f"{name_a} vs {name_b}", "participants": participants, "state": state,
                   "over": False})


def resolve_move(sheet: dict[str, Any], params: MoveParams, dice: Dice, ctx: Context) -> Resolution:
    """One move of the duel for the cat whose move it is (catfight.to_move)."""
    encounter = ctx.encounter
    assert encounter is not None
    state = dict(encounter["state"])
    side = _side_of(encounter, ctx.character_id)
    names = _names(encounter)
    if side is None:
        raise ActionError(_("That cat is not in this duel."), field="character_id")
    if params.move not in catfight.legal_moves(state):
        raise ActionError(_("That move is not possible now."), field="move")
    turn = catfight.to_move(state)
    if turn != side:
        raise ActionError(_("It is %(name)s's move, not %(other)s's.") % {"name": names[turn], "other": names[side]},
                          field="move")
    recorder = RecordingDice(dice)
    try:
        new, events = catfight.step(state, params.move, recorder)
    except catfight.CatfightError as exc:
        raise ActionError(exc.message, field="move") from exc
    texts = summaries(events, names)
    new["recent"] = _recent(new, texts)
    with_view(new)
    others: dict[int, dict[str, Any]] = {}
    for p in encounter["participants"]:
        if p["side"] != side and p["character_id"] in ctx.others:
            others[p["character_id"]] = _after_duel(ctx.others[p["character_id"]], new, p["side"], ctx.now)
    return Resolution(
        request={"move": params.move, "version": params.version}, dice=recorder.rolled,
        outcome={"move": params.move, "events": events, "summaries": texts, "over": new["over"],
                 "result": new["outcome"], "winner": new["winner"], "escaped": new["escaped"],
                 "health": {"a": new["a"]["health"], "b": new["b"]["health"]}},
        summary=texts["en"], sheet=_after_duel(sheet, new, side, ctx.now), others=others,
        encounter={"state": new, "over": new["over"]})


def resolve_call_off(sheet: dict[str, Any], params: CallOffParams, dice: Dice, ctx: Context) -> Resolution:
    """The narrator ends a duel without a result (players gone, a mistake): both cats keep their health."""
    encounter = ctx.encounter
    assert encounter is not None
    state = dict(encounter["state"])
    state.update(over=True, phase="over", attacker=None, pending_attack=None, outcome="called_off")
    names = _names(encounter)
    texts = both(lambda _: _("The duel %(a)s vs %(b)s is called off.") % {"a": names["a"], "b": names["b"]})
    state["recent"] = _recent(state, texts)
    with_view(state)
    others = {p["character_id"]: {**ctx.others[p["character_id"]], "fighting": False}
              for p in encounter["participants"] if p["character_id"] in ctx.others}
    return Resolution(request={"version": params.version}, dice=[], outcome={"summaries": texts}, summary=texts["en"],
                      others=others, encounter={"state": state, "over": True})


def resolve_settings(sheet: dict[str, Any], params: SettingsParams, dice: Dice, ctx: Context) -> Resolution:
    """REGENERATION: the narrator sets how many real minutes an escaped cat needs per health point."""
    texts = both(lambda _: _("Escaped cats now regain 1 health every %(n)d minutes.") % {"n": params.regen_minutes})
    return Resolution(request={"regen_minutes": params.regen_minutes}, dice=[], outcome={"summaries": texts},
                      summary=texts["en"], settings={**ctx.campaign_settings, "regen_minutes": params.regen_minutes})


def resolve_heal(sheet: dict[str, Any], params: HealParams, dice: Dice, ctx: Context) -> Resolution:
    """The narrator brings a cat back to full health (a knocked-out cat wakes up; OTHER RULES)."""
    if sheet.get("fighting"):
        raise ActionError(_("%(name)s is in a duel; heal it afterwards.") % {"name": ctx.character_name},
                          field="heal")
    texts = both(lambda _: _("%(name)s is back to full health.") % {"name": ctx.character_name})
    return Resolution(request={}, dice=[], outcome={"summaries": texts}, summary=texts["en"],
                      sheet={**sheet, "health": catfight.MAX_HEALTH, "escaped_at": None})


def public_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """A duel is fought in the open: everyone sees a cat's values and health."""
    return dict(sheet)


def seed_demo(db: Any, narrator: Any, player: Any) -> None:
    """Tecka (the rules' example cat) for the player and a rival for another player (or the narrator), and a
    duel between them, ready for its first roll."""
    from sqlalchemy import select

    from app.accounts.models import User
    from app.campaigns import service as campaigns
    from app.errors import NotFound
    from app.characters.service import create_character
    from app.rolls import service as rolls

    otto = db.scalar(select(User).where(User.username_key == "otto"))
    rival_owner = narrator
    if otto is not None:
        try:
            rival_owner = campaigns.access(db, otto, narrator.campaign.id)
        except NotFound:  # not a member: the narrator keeps the rival
            rival_owner = narrator
    tecka = create_character(db, player, name="Tecka", system="catfight",
                             sheet={s: catfight.TECKA[s] for s in STATS})
    rival = create_character(db, rival_owner, name="Mimi", system="catfight",
                             sheet={"attack": 12, "defend": 16, "jump": 14, "sneak": 14, "quickness": 14},
                             kind="pc" if rival_owner is not narrator else "npc")
    db.commit()
    rolls.perform_action(db, player, rolls.ActionRequest(system="catfight", action="challenge",
                                                         character_id=tecka.id, params={"opponent_id": rival.id}))


SYSTEM = RuleSystem(
    id="catfight",
    name="Cat fight",
    description="The turn-based cat fight: two cats duel with the plus-minus d6 (English and German rules).",
    has_pages=True,
    sheet=CatSheet,
    public_sheet=public_sheet,
    create=create_cat,
    seed_demo=seed_demo,
    rulings=(
        "The plus-minus d6: even faces add, odd faces subtract; a first 6 or 5 is confirmed by a second roll "
        "(the server rolls it and the log shows it); an unconfirmed 6 counts +6, an unconfirmed 5 −5.",
        "Beginning: each cat rolls a plain d6, higher starts by sneaking; ties roll again (SNEAK, JUMP and "
        "QUICKNESS ties too). DEFEND wins ties.",
        "After a hit the attacker attacks again. Critical hit: the defender loses 1 at once and gets no choice. "
        "Critical goof: the other cat attacks. Lucky fate: parried, the defender attacks. Unlucky cat: the "
        "defender loses 2 in all. JUMP has no criticals.",
        "Fleeing: only the cat about to attack may flee; QUICKNESS against QUICKNESS, criticals first; two "
        "criticals cancel. An escaped cat regains 1 health per 5 real minutes (narrator's setting), up to 3.",
        "Health 3; at 0 a cat is knocked out and the duel ends; a narrator can heal a cat back to 3.",
        "A cat's five values are whole numbers of at least 1 that add up to 70. A brawl is a series of duels "
        "that the narrator pairs up; a cat fights one duel at a time.",
    ),
    actions={
        "challenge": Action(
            id="challenge", name="Challenge", params=ChallengeParams, resolve=resolve_challenge,
            involves=("opponent_id",), takes_context=True, encounter="create",
            description="Start a duel with another cat."),
        "move": Action(
            id="move", name="Move", params=MoveParams, resolve=resolve_move, takes_context=True,
            encounter="step", description="The next move of a duel: begin, sneak, attack, defend, jump or flee."),
        "call_off": Action(
            id="call_off", name="Call off the duel", params=CallOffParams, resolve=resolve_call_off,
            takes_context=True, encounter="step", narrator_only=True, needs_character=False),
        "settings": Action(
            id="settings", name="Regeneration time", params=SettingsParams, resolve=resolve_settings,
            takes_context=True, narrator_only=True, needs_character=False),
        "heal": Action(
            id="heal", name="Heal", params=HealParams, resolve=resolve_heal, takes_context=True,
            narrator_only=True),
    },
)


def _register_template_helpers() -> None:
    """The sheet and campaign pages show health as it is now (regeneration runs on the server's clock)."""
    from app.web import ENV

    ENV.globals["catfight_rest"] = rest_view


_register_template_helpers()
