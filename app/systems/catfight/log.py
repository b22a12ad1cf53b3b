"""The log, in words: one line per step of a duel, stored language-neutral (app.i18n.msg) and read in each
viewer's language. (Entries written before that kept an English `summary` and a German copy in
`outcome.summaries`; `_old_line` reads them back for app.i18n.log_line.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.i18n import N_, Text, join, msg, old_lines
from app.systems.catfight.sheet import STAT_NAMES


def _roll_text(roll: Mapping[str, Any], names: Mapping[str, str]) -> Text:
    faces = "·".join(str(f) for f in roll["faces"])
    if roll["stat"] is None:  # BEGINNING: a plain d6
        return msg("%(cat)s rolls %(face)s", cat=names[roll["cat"]], face=faces)
    name = STAT_NAMES.get(roll["stat"])
    stat = msg(name) if name else str(roll["stat"]).upper()
    return msg(
        "%(cat)s %(stat)s %(base)d %(value)+d (die %(faces)s) = %(total)d",
        cat=names[roll["cat"]],
        stat=stat,
        base=roll["base"],
        value=roll["value"],
        faces=faces,
        total=roll["total"],
    )


def _rolls_text(rolls: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> Text:
    """Opposed rolls in pairs; a tie rolls again (rulings 1–3)."""
    pairs = [rolls[i : i + 2] for i in range(0, len(rolls), 2)] if len(rolls) > 1 else [rolls]
    parts = [join(_roll_text(r, names) for r in pair) for pair in pairs]
    return join(parts, join([" — ", msg("tie, again:"), " "], ""))


def _damage_text(damage: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[Text | str]:
    out: list[Text | str] = []
    for d in damage:
        out += [
            " ",
            msg(
                "%(cat)s loses %(points)d, health %(health)d.",
                cat=names[d["cat"]],
                points=d["points"],
                health=d["health"],
            ),
        ]
    return out


# Tables of msgids (N_: extracted here, translated when read).
_ATTACK = {
    "rolled": N_("%(rolls)s: %(defender)s chooses DEFEND or JUMP."),
    "critical_hit": N_("%(rolls)s: CRITICAL HIT, it cannot be parried; %(attacker)s attacks again."),
    "critical_goof": N_("%(rolls)s: CRITICAL GOOF, the paw misses; %(defender)s attacks now."),
}
_DEFEND = {
    "parried": N_("%(rolls)s against %(attack)d: parried; %(attacker)s attacks again."),
    "hit": N_("%(rolls)s against %(attack)d: a hit; %(attacker)s attacks again."),
    "lucky_fate": N_("%(rolls)s: LUCKY FATE, parried so well that %(defender)s attacks now."),
    "unlucky_cat": N_("%(rolls)s: UNLUCKY CAT, %(defender)s falls off the wall."),
}
_FLEE = {
    "escaped": N_("%(runner)s flees. %(rolls)s: %(runner)s escapes."),
    "caught": N_("%(runner)s flees. %(rolls)s: %(chaser)s catches up and attacks."),
    "stumbled": N_("%(runner)s flees. %(rolls)s: %(runner)s stumbles and is caught."),
    "chaser_injured": N_("%(runner)s flees. %(rolls)s: %(chaser)s gets hurt giving chase; %(runner)s escapes."),
}


def describe_event(event: Mapping[str, Any], names: Mapping[str, str]) -> Text:
    n = {
        key: names[event[key]]
        for key in ("attacker", "defender", "runner", "chaser", "starter", "sneaker", "cat", "winner")
        if event.get(key) in names
    }
    kind, result = event["kind"], event["result"]
    rolls: Text | str = _rolls_text(event.get("rolls", []), names) if event.get("rolls") else ""
    parts: list[Text | str]
    if kind == "begin":
        parts = [msg("Who starts? %(rolls)s: %(starter)s starts and sneaks up.", rolls=rolls, **n)]
    elif kind == "sneak":
        other = names["b" if event["sneaker"] == "a" else "a"]
        parts = [
            msg("SNEAK: %(rolls)s: %(sneaker)s sneaks up and attacks.", rolls=rolls, other=other, **n)
            if result == "sneaked_up"
            else msg("SNEAK: %(rolls)s: %(other)s notices and attacks.", rolls=rolls, other=other, **n)
        ]
    elif kind == "attack":
        parts = [msg(_ATTACK[result], rolls=rolls, **n)]
    elif kind == "defend":
        parts = [msg(_DEFEND[result], rolls=rolls, attack=event.get("attack_total") or 0, **n)]
    elif kind == "jump":
        parts = [
            msg("JUMP: %(rolls)s: %(defender)s jumps clear and attacks now.", rolls=rolls, **n)
            if result == "dodged"
            else msg("JUMP: %(rolls)s: %(attacker)s follows, a hit; %(attacker)s attacks again.", rolls=rolls, **n)
        ]
    elif kind == "flee":
        parts = [msg(_FLEE[result], rolls=rolls, **n)]
        if event.get("criticals_cancelled"):
            parts += [" ", msg("(Criticals on both sides cancel out.)")]
    elif kind == "escape":
        return msg("%(cat)s got away and rests.", **n)
    elif kind == "knockout":
        return msg("%(cat)s is knocked out: %(winner)s wins.", **n)
    else:  # pragma: no cover - every kind of app.systems.catfight.rules.EVENT_RESULTS is above
        parts = [kind]
    return join(parts + _damage_text(event.get("damage", []), names), "")


def describe(events: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> Text:
    return join((describe_event(event, names) for event in events), " ")


def _old_line(body: Mapping[str, Any], locale: str) -> str | None:
    """A duel's line from before language-neutral lines: its copy in the reader's language, if it kept one."""
    if body.get("system") not in (None, "catfight"):
        return None
    outcome = body.get("outcome")
    summaries = outcome.get("summaries") if isinstance(outcome, Mapping) else None
    found = summaries.get(locale) if isinstance(summaries, Mapping) else None
    return str(found) if found else None


old_lines(_old_line)
