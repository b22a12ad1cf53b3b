"""The log, in words: one line per step of a duel, in each rules language.

Log lines are written in English (`summary`) and, for this game's other rules language, German too
(`outcome.summaries`); the log shows each viewer the one in their language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.i18n import translations

SUMMARY_LOCALES = ("en", "de")  # the languages the rules text exists in
Gettext = Callable[[str], str]


def _roll_text(roll: Mapping[str, Any], names: Mapping[str, str], _: Gettext) -> str:
    faces = "·".join(str(f) for f in roll["faces"])
    if roll["stat"] is None:  # BEGINNING: a plain d6
        return _("%(cat)s rolls %(face)s") % {"cat": names[roll["cat"]], "face": faces}
    return _("%(cat)s %(stat)s %(base)d %(value)+d (die %(faces)s) = %(total)d") % {
        "cat": names[roll["cat"]], "stat": roll["stat"].upper(), "base": roll["base"], "value": roll["value"],
        "faces": faces, "total": roll["total"]}


def _rolls_text(rolls: Sequence[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
    """Opposed rolls in pairs; a tie rolls again (rulings 1–3)."""
    pairs = [rolls[i:i + 2] for i in range(0, len(rolls), 2)] if len(rolls) > 1 else [rolls]
    parts = [", ".join(_roll_text(r, names, _) for r in pair) for pair in pairs]
    return (" — " + _("tie, again:") + " ").join(parts)


def _damage_text(damage: Sequence[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
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


def describe(events: Sequence[Mapping[str, Any]], names: Mapping[str, str], _: Gettext) -> str:
    return " ".join(describe_event(event, names, _) for event in events)


def summaries(events: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> dict[str, str]:
    return {loc: describe(events, names, translations(loc).gettext) for loc in SUMMARY_LOCALES}


def both(make: Callable[[Gettext], str]) -> dict[str, str]:
    """One line in every rules language, from one function of gettext."""
    return {loc: make(translations(loc).gettext) for loc in SUMMARY_LOCALES}
