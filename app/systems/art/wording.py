"""ART log wording: counts in the reader's plural form ("1 round", "3 bands"), the text's abbreviations said in
words ("Passable (1 failure)" for "Passable, 1f"; "a kicker of 5" for "kicker 5"), and the msgids these
replaced, so entries logged before still read the new way (`retire`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.i18n import N_, Text, msg, msgn, ngettext, retire


def outcome_words(successes: int) -> Text:
    """A roll's successes or failures in words: 2 → "2 successes", -1 → "1 failure" (ch. 1, "Abbreviations":
    the text's "2s", "1f")."""
    if successes > 0:
        return msgn("{n} success", "{n} successes", successes)
    return msgn("{n} failure", "{n} failures", -successes)


_ABBREVIATION = re.compile(r"^(\d+)([sf])$")


def label_words(label: Any) -> Any:
    """An old entry's label ("2s", "1f") in words; anything else as it is."""
    found = _ABBREVIATION.match(label) if isinstance(label, str) else None
    if not found:
        return label
    return outcome_words(int(found[1]) * (1 if found[2] == "s" else -1))


def _with_words(message: str) -> Any:
    """A builder for `retire`: the same message shape, its `label` argument in words."""

    def build(a: Mapping[str, Any]) -> Text:
        return msg(message, **{**a, "label": label_words(a.get("label"))})

    return build


# --- counts (the combat's log lines) -----------------------------------------------------------------------------


def may_move(**a: Any) -> Text:
    return msgn(
        "may move up to {n} band with the action, or {free} as a free action",
        "may move up to {n} bands with the action, or {free} as a free action",
        a.get("n", 1),
        free=a["free"],
    )


def encounter_range(**a: Any) -> Text:
    return msgn(
        "the text's encounter range for the highest roll: {n} band",
        "the text's encounter range for the highest roll: {n} bands",
        a["n"],
    )


def pushes_back(**a: Any) -> Text:
    return msgn("pushes {name} back {n} foot", "pushes {name} back {n} feet", a["n"], name=a["name"])


def pushed_back(**a: Any) -> Text:
    return msgn(
        "{name} pushes {me} back {n} foot", "{name} pushes {me} back {n} feet", a["n"], name=a["name"], me=a["me"]
    )


def pinned(**a: Any) -> Text:
    return msgn("{name} is pinned for {n} round", "{name} is pinned for {n} rounds", a.get("n", 1), name=a["name"])


def sustained(**a: Any) -> Text:
    """A sustained action's tally: "sustained: 5 successes, 1 failure (goal 10)", then "— done, succeeds"."""
    done = a.get("done")
    counts = {
        "successes": msgn("{n} success", "{n} successes", a["successes"]),
        "failures": msgn("{n} failure", "{n} failures", a["failures"]),
        "goal": a["goal"],
    }
    if done is None:
        return msg("sustained: {successes}, {failures} (goal {goal})", **counts)
    return msg(
        N_("sustained: {successes}, {failures} (goal {goal}) — done, succeeds")
        if done
        else N_("sustained: {successes}, {failures} (goal {goal}) — done, fails"),
        **counts,
    )


def falls(**a: Any) -> Text:
    if a.get("breakfall"):
        return msgn(
            "falls {n} foot ({surface}), Breakfall −{breakfall}",
            "falls {n} feet ({surface}), Breakfall −{breakfall}",
            a["feet"],
            surface=a["surface"],
            breakfall=a["breakfall"],
        )
    return msgn("falls {n} foot ({surface})", "falls {n} feet ({surface})", a["feet"], surface=a["surface"])


def beyond_range(band: int, bands: int) -> str:
    """A refusal, in the reader's language now."""
    return ngettext(
        "Band {band} is beyond the range ({n} band).", "Band {band} is beyond the range ({n} bands).", bands
    ).format(band=band, n=bands)


def out_of_reach(name: str, weapon: str, bands: int) -> str:
    return ngettext(
        "{name} is out of reach of {weapon} ({d} band away).",
        "{name} is out of reach of {weapon} ({d} bands away).",
        bands,
    ).format(name=name, weapon=weapon, d=bands)


# Entries logged before the counts had plural forms, or with the text's abbreviations.
retire("may move up to 1 band with the action, or {free} as a free action", lambda a: may_move(**a))
retire("may move up to {n} bands with the action, or {free} as a free action", lambda a: may_move(**a))
retire("the text's encounter range for the highest roll: {n} bands", lambda a: encounter_range(**a))
retire("pushes {name} back {n} feet", lambda a: pushes_back(**a))
retire("{name} pushes {me} back {n} feet", lambda a: pushed_back(**a))
retire("{name} is pinned for 1 round", lambda a: pinned(**a))
retire("{name} is pinned for {n} rounds", lambda a: pinned(**a))
retire(
    "{head} ({extras}) vs {against}: {dice} → {result}, {label}",
    _with_words("{head} ({extras}) against {against}: {dice} → {result} ({label})"),
)
retire(
    "rolls for {name}: {trait_name} {level} = trait {trait} vs {difficulty}: {rolled} → {result}, {label}",
    _with_words(
        "rolls for {name}: {trait_name} {level} = trait {trait} against {difficulty}: {rolled} → {result} ({label})"
    ),
)
retire("; kicker {kicker} fires {fired}", lambda a: msg("; a kicker of {kicker} fires {fired}", **a))
retire(
    "kicker {k} would fire {perk}, but it needs {needs}",
    lambda a: msg("a kicker of {k} would fire {perk}, but it needs {needs}", **a),
)
retire(
    "kicker {k}: {name} chooses one of {perks}", lambda a: msg("a kicker of {k}: {name} chooses one of {perks}", **a)
)
# The same msgids, their label now in words.
for _message in (
    "{head}: the last step — the action ends with {label}",
    "{title} now ends with {label}",
    "improves #{seq} to {level} with {cost} Fame ({label})",
):
    retire(_message, _with_words(_message))
retire("sustained: {successes}s/{failures}f of {goal}", lambda a: sustained(**a))
retire("sustained: {successes}s/{failures}f of {goal} — done, succeeds", lambda a: sustained(**a, done=True))
retire("sustained: {successes}s/{failures}f of {goal} — done, fails", lambda a: sustained(**a, done=False))
retire("falls {feet} feet ({surface}), Breakfall −{breakfall}", lambda a: falls(**a))
retire("falls {feet} feet ({surface})", lambda a: falls(**a))
