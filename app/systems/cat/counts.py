"""The Cat's log lines that carry a count ("1 even", "3 scars", "2 weeks"), each read in the reader's plural
form (`msgn`), and the msgids they replaced, so entries logged before still read correctly (`retire`)."""

from __future__ import annotations

from typing import Any

from app.i18n import Text, msg, msgn, retire


def evens_text(n: int) -> Text:
    """ "1 even", "3 evens" in a log line (the reader's plural form)."""
    return msgn("{n} even", "{n} evens", n)


def scars_text(n: int) -> Text:
    return msgn("{n} scar", "{n} scars", n)


def dice_text(n: int) -> Text:
    return msgn("{n} die", "{n} dice", n)


def life_wins(**a: Any) -> Text:
    return msgn(
        "spends a Life to win a {what} ({n} Life left)",
        "spends a Life to win a {what} ({n} Lives left)",
        a["lives"],
        what=a["what"],
    )


def evens_with_style(**a: Any) -> Text:
    return msgn("{n} even + {style} Style", "{n} evens + {style} Style", a["n"], style=a["style"])


def fate_line(**a: Any) -> Text:
    """ "tests fate: a hard Risk with Claws, 3 dice (Claws 3): 1 even of 2 needed — Fate intervenes"."""
    return msg(
        "tests fate: {what}, {dice} ({words}): {evens} of {needed} needed — ",
        what=a["what"],
        dice=dice_text(a["pool"]),
        words=a["words"],
        evens=a["evens"],
        needed=a["needed"],
    )


def to_place(**a: Any) -> Text:
    return msgn(", {n} scar to place", ", {n} scars to place", a["n"])


def rank_change(**a: Any) -> Text:
    return msgn(
        "{trait} {before}→{n} die", "{trait} {before}→{n} dice", a["after"], trait=a["trait"], before=a["before"]
    )


def places(**a: Any) -> Text:
    return msgn(
        "places {n} scar: {where} — “{reason}”",
        "places {n} scars: {where} — “{reason}”",
        a["scars"],
        where=a["where"],
        reason=a["reason"],
    )


def life_dodges(**a: Any) -> Text:
    return msgn(
        "spends a Life to dodge {scars} ({source}); {n} Life left",
        "spends a Life to dodge {scars} ({source}); {n} Lives left",
        a["lives"],
        scars=scars_text(a["scars"]),
        source=a["source"],
    )


def grants(**a: Any) -> Text:
    if "reason" in a:
        return msgn(
            "narrator grants {n} Advantage Die for {reason} ({unused} unused)",
            "narrator grants {n} Advantage Dice for {reason} ({unused} unused)",
            a["n"],
            reason=a["reason"],
            unused=a["unused"],
        )
    return msgn(
        "narrator grants {n} Advantage Die ({unused} unused)",
        "narrator grants {n} Advantage Dice ({unused} unused)",
        a["n"],
        unused=a["unused"],
    )


# Entries logged before the counts had plural forms read with the messages above.
retire("spends a Life to win a {what} ({lives} Lives left)", lambda a: life_wins(**a))
retire("{n} even(s) + {style} Style", lambda a: evens_with_style(**a))
retire("{n} even(s)", lambda a: evens_text(a["n"]))
retire("tests fate: {what}, {pool} dice ({words}): {evens} of {needed} — ", lambda a: fate_line(**a))
retire(", {n} scar(s) to place", lambda a: to_place(**a))
retire("{trait} {before}→{after} dice", lambda a: rank_change(**a))
retire("places {scars} scar(s): {where} — “{reason}”", lambda a: places(**a))
retire("spends a Life to dodge {scars} scar(s) ({source}); {lives} Lives left", lambda a: life_dodges(**a))
retire("narrator grants {n} Advantage Die/Dice for {reason} ({unused} unused)", lambda a: grants(**a))
retire("narrator grants {n} Advantage Die/Dice ({unused} unused)", lambda a: grants(**a))


def scuffle_line(**a: Any) -> Text:
    """ "Tom (Claws, 2 evens) vs Mia (Fangs, 1 even): Tom wins; Tom takes 1 scar, Mia takes 2 scars"."""
    return msg(
        "{a} ({a_weapon}, {a_evens}) vs {b} ({b_weapon}, {b_evens}): {result}; {a} takes {a_scars}, {b} takes "
        "{b_scars}",
        **{
            **a,
            "a_evens": evens_text(a["a_evens"]),
            "b_evens": evens_text(a["b_evens"]),
            "a_scars": scars_text(a["a_scars"]),
            "b_scars": scars_text(a["b_scars"]),
        },
    )


def round_line(**a: Any) -> Text:
    return msg(
        "round {n}: {cat} ({weapon}, {cat_evens}) vs {foe} ({foe_trait}, {foe_evens}): {cat} takes {cat_scars}"
        "{cancelled}, {foe} takes {foe_scars}",
        **{
            **a,
            "cat_evens": evens_text(a["cat_evens"]),
            "foe_evens": evens_text(a["foe_evens"]),
            "cat_scars": scars_text(a["cat_scars"]),
            "foe_scars": scars_text(a["foe_scars"]),
        },
    )


# Entries logged before the counts had plural forms.
retire(
    "{a} ({a_weapon}, {a_evens} even(s)) vs {b} ({b_weapon}, {b_evens} even(s)): {result}; {a} takes {a_scars} "
    "scar(s), {b} takes {b_scars}",
    lambda a: scuffle_line(**a),
)
retire(
    "round {n}: {cat} ({weapon}, {cat_evens} even(s)) vs {foe} ({foe_trait}, {foe_evens}): {cat} takes {cat_scars} "
    "scar(s){cancelled}, {foe} takes {foe_scars}",
    lambda a: round_line(**a),
)


def healed(**a: Any) -> Text:
    return msgn("{n} scar on {trait}", "{n} scars on {trait}", a["n"], trait=a["trait"])


def weeks_pass(**a: Any) -> Text:
    """ "2 weeks of game time pass (week 5): Tom heals 1 scar on Claws, 1 scar on Legs"."""
    if "healed" in a:
        return msgn(
            "{n} week of game time passes (week {week}): {healed}",
            "{n} weeks of game time pass (week {week}): {healed}",
            a["n"],
            week=a["week"],
            healed=a["healed"],
        )
    return msgn(
        "{n} week of game time passes (week {week})",
        "{n} weeks of game time pass (week {week})",
        a["n"],
        week=a["week"],
    )


# Entries logged before the counts had plural forms.
retire("{n} {trait}", lambda a: healed(**a))
retire("{n} week(s) of game time pass (week {week}): {healed}", lambda a: weeks_pass(**a))
retire("{n} week(s) of game time pass (week {week})", lambda a: weeks_pass(**a))
