"""Gear in slots (2 ready, 4 at hand, 9 stowed), armor, and the campaign's own Action Results Table.

art-engine.md, ch. 2 "Gear", "Armor & Defense", "Shields", "Weapons & Attack"; RULINGS.md, ART Engine
ruling 1; ch. 3 "Combined Efforts", "Compounding Tasks".
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.i18n import N_, _, join, msg, rule_message, sentence
from app.rules.dice import Dice
from app.systems.art import rules as art
from app.systems.art.rules import FORTUNE_RANKS, Level
from app.systems.base import ActionError, Context, Resolution

from . import core
from .sheet import ArtSheet, Item, check_slots, level_word, ready

MAX_TABLE_CHARS = 20_000


class AddItemParams(BaseModel):
    name: str = Field(default="", max_length=80)
    slot: Literal["ready", "at_hand", "stowed"] = "stowed"
    type: Literal["item", "weapon", "shield", "medkit"] = "item"
    cost: str | None = None
    weapon: Literal["melee_1h", "melee_2h", "ranged_1h", "ranged_2h", "shotgun"] | None = None
    thrown: bool = False
    reach: bool = False
    uses: int | None = Field(default=None, ge=0, le=99)
    bonus: int = Field(default=0, ge=-10, le=10)
    kickers: list[int] = Field(default_factory=list, max_length=10)
    effect: str = Field(default="", max_length=200)


class MoveItemParams(BaseModel):
    item: int = Field(ge=0, le=40)
    slot: Literal["ready", "at_hand", "stowed", "drop"]


class ArmorParams(BaseModel):
    armor: str = ""


class TableParams(BaseModel):
    csv: str = Field(default="", max_length=MAX_TABLE_CHARS)


class CombineParams(BaseModel):
    participants: list[int] = Field(default_factory=list, max_length=20)
    compounding: bool = False
    helpers: list[str] = Field(default_factory=list, max_length=10)


def _cost(value: str | None, field: str) -> str:
    if not value:
        raise ActionError(_("Choose its Fortune cost."), field=field)
    try:
        return FORTUNE_RANKS[art.fortune_rank(value)]
    except art.ArtRuleError as exc:
        raise ActionError(_("{value} is not a Fortune rank.").format(value=value), field=field) from exc


def _affordable(sheet: Any, cost: str, field: str) -> None:
    """Starting equipment may not cost more than your Fortune (ch. 2, "Gear"); gear found during an adventure
    (trophies) may."""
    if sheet.between_adventures and sheet.fortune and art.fortune_rank(cost) > art.fortune_rank(sheet.fortune):
        raise ActionError(
            _("{cost} is above your Fortune ({fortune}).").format(cost=_(cost), fortune=_(sheet.fortune)), field=field
        )


def resolve_add_item(
    sheet: ArtSheet, params: AddItemParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if sheet.kind != "adventurer" or not ready(sheet):
        raise ActionError(_("Only an adventurer with attributes carries gear."), field="name")
    if not params.name.strip():
        raise ActionError(_("Name the item."), field="name")
    fields = params.model_dump()
    fields["name"] = params.name.strip()
    if any(k not in range(10) for k in params.kickers):
        raise ActionError(_("Kicker faces are 0 to 9."), field="kickers")
    if params.type in ("weapon", "shield"):
        fields["cost"] = _cost(params.cost, "cost")
        _affordable(sheet, fields["cost"], "cost")
    else:
        fields["cost"] = None
    if params.type == "weapon":
        if params.weapon is None:
            raise ActionError(_("Choose the kind of weapon."), field="weapon")
        if params.thrown and params.weapon != "melee_1h":
            raise ActionError(_("Only one-handed melee weapons can be thrown."), field="thrown")
        if params.reach and params.weapon != "melee_2h":  # ch. 2: "Weapons with reach must be two-handed."
            raise ActionError(_("Only two-handed melee weapons can have reach."), field="reach")
    else:
        fields["weapon"], fields["thrown"], fields["reach"] = None, False, False
    if params.type == "medkit" and not params.uses:
        raise ActionError(_("How many uses does the med-kit have?"), field="uses")
    item = Item.model_validate(fields)
    gear = [*sheet.gear, item]
    check_slots(gear)
    sheet.gear = gear
    return Resolution(
        request=params.model_dump(),
        outcome={"item": item.name},
        summary=msg("adds {name} ({slot})", name=item.name, slot=msg(SLOT_WORDS[item.slot])),
        sheet=sheet,
    )


SLOT_WORDS = {"ready": N_("ready"), "at_hand": N_("at hand"), "stowed": N_("stowed")}


def resolve_move_item(
    sheet: ArtSheet, params: MoveItemParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if params.item >= len(sheet.gear):
        raise ActionError(_("No such item."), field="item")
    item = sheet.gear[params.item]
    if params.slot == "drop":
        sheet.gear = [g for i, g in enumerate(sheet.gear) if i != params.item]
        text = msg("drops {name}", name=item.name)
    else:
        item.slot = params.slot
        check_slots(sheet.gear)
        text = msg("moves {name} to {slot}", name=item.name, slot=msg(SLOT_WORDS[params.slot]))
    return Resolution(request=params.model_dump(), outcome={}, summary=text, sheet=sheet)


def resolve_armor(sheet: ArtSheet, params: ArmorParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """Defense = Agility adjusted by the armor's cost; armor needs its Strength (ch. 2, "Armor")."""
    if sheet.kind != "adventurer" or not ready(sheet):
        raise ActionError(_("Only an adventurer with attributes wears armor."), field="armor")
    if not params.armor:
        sheet.armor = None
        text = msg("takes off the armor")
    else:
        cost = _cost(params.armor, "armor")
        _affordable(sheet, cost, "armor")
        try:
            art.defense(sheet.attributes["AGI"] or 0, cost, strength=sheet.attributes["STR"])
        except art.ArtRuleError as exc:
            raise ActionError(sentence(rule_message(exc)), field="armor") from exc
        sheet.armor = cost
        text = msg("wears {cost} armor", cost=msg(cost))  # a Fortune rank, translated when read
    return Resolution(request=params.model_dump(), outcome={"armor": sheet.armor}, summary=text, sheet=sheet)


def resolve_upload_table(
    sheet: ArtSheet, params: TableParams, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    """The campaign's own ART, in the same CSV shape, validated before it is used (ruling 1)."""
    text = params.csv.strip()
    if not text:
        raise ActionError(_("Paste the table as CSV: a header row, then rows 0 to 30."), field="csv")
    try:
        art.load_table(text)
    except art.TableError as exc:
        where = [
            _("row {n}").format(n=exc.row) if exc.row is not None else "",
            _("column {name}").format(name=exc.column) if exc.column else "",
        ]
        place = ", ".join(part for part in where if part)
        error = f"{place}: {rule_message(exc)}" if place else sentence(rule_message(exc))
        raise ActionError(error if error.endswith(".") else error + ".", field="csv") from exc
    return Resolution(
        request={"rows": text.count("\n")},
        outcome={"table": "campaign"},
        summary=msg("uses the campaign's own Action Results Table"),
        settings={"table_csv": text + "\n"},
    )


def resolve_default_table(
    sheet: ArtSheet, params: BaseModel, dice: Dice, ctx: Context[ArtSheet]
) -> Resolution[ArtSheet]:
    if not ctx.campaign_settings.get("table_csv"):
        raise ActionError(_("The campaign already uses the default table."), field="default_table")
    return Resolution(
        request={},
        outcome={"table": "default"},
        summary=msg("goes back to the default Action Results Table"),
        settings={},
    )


def resolve_combine(sheet: ArtSheet, params: CombineParams, dice: Dice, ctx: Context[ArtSheet]) -> Resolution[ArtSheet]:
    """A group's single result from each player's latest roll and narrator characters' ratings (ch. 3)."""
    if not params.participants:
        raise ActionError(_("Tick the adventurers whose rolls combine."), field="participants")
    rolled, names = [], []
    for cid in params.participants:
        last = ctx.others[cid].last_roll
        name = ctx.other_names.get(cid, str(cid))
        if not last:
            raise ActionError(_("{name} has not rolled yet.").format(name=name), field="participants")
        rolled.append(Level[last["result"]])
        names.append(msg("{name} {level} (#{seq})", name=name, level=level_word(last["result"]), seq=last["seq"]))
    helpers = [core.parse_level(code, "helpers", N_("the helper's level")) for code in params.helpers if code]
    effort = art.combined_effort(rolled, compounding=params.compounding, helpers=helpers)
    how = msg("compounding") if params.compounding else msg("best result")
    parts: list[Any] = [msg("combines efforts ({how}): {names}", how=how, names=join(names))]
    if helpers:
        parts.append(msg(", helpers {levels}", levels=join(level_word(h) for h in helpers)))
    parts.append(msg(" → {level}", level=level_word(effort.result)))
    if effort.disaster:
        parts.append(msg("; a Catastrophic roll: the effort ends in disaster"))
    text = join(parts, "")
    return Resolution(
        request=params.model_dump(),
        outcome={"result": effort.result.name, "disaster": effort.disaster, "total": effort.result.name},
        summary=text,
    )
