"""Rabbits log lines that carry a count ("1 success", "2 checks"), each read in the reader's plural form
(`msgn`), and the msgids they replaced, so entries logged before still read correctly (`retire`)."""

from __future__ import annotations

from typing import Any

from app.i18n import Text, msgn, retire


def changed(**a: Any) -> Text:
    return msgn(
        "{name}: {change} → {n} success", "{name}: {change} → {n} successes", a["n"], name=a["name"], change=a["change"]
    )


def fate_rerolls(**a: Any) -> Text:
    return msgn(
        "{name}: Fate rerolls the 6s {faces} → {n} success",
        "{name}: Fate rerolls the 6s {faces} → {n} successes",
        a["n"],
        name=a["name"],
        faces=a["faces"],
    )


def keeps(**a: Any) -> Text:
    """ "Hazel keeps the roll (1 success)"."""
    return msgn("{name} keeps the roll ({n} success)", "{name} keeps the roll ({n} successes)", a["n"], name=a["name"])


# Entries logged before the counts had plural forms.
retire("{name}: {change} → {n} successes", lambda a: changed(**a))
retire("{name}: Fate rerolls the 6s {faces} → {n} successes", lambda a: fate_rerolls(**a))
retire("{name} keeps the roll ({n} successes)", lambda a: keeps(**a))


def rolled(**a: Any) -> Text:
    return msgn(
        "{team}: {action} with {skill} ({pool}D) {faces} {n} success",
        "{team}: {action} with {skill} ({pool}D) {faces} {n} successes",
        a.get("n", 1),
        team=a["team"],
        action=a["action"],
        skill=a["skill"],
        pool=a["pool"],
        faces=a["faces"],
    )


def aided(**a: Any) -> Text:
    return msgn(
        "{team} gives {other} +2D with the trait {trait} (2 checks): {faces} → {n} success",
        "{team} gives {other} +2D with the trait {trait} (2 checks): {faces} → {n} successes",
        a["n"],
        team=a["team"],
        other=a["other"],
        trait=a["trait"],
        faces=a["faces"],
    )


# Entries logged before the counts had plural forms.
retire("{team}: {action} with {skill} ({pool}D) {faces} 1 success", lambda a: rolled(**a))
retire("{team}: {action} with {skill} ({pool}D) {faces} {n} successes", lambda a: rolled(**a))
retire("{team} gives {other} +2D with the trait {trait} (2 checks): {faces} → {n} successes", lambda a: aided(**a))


def gave_away(**a: Any) -> Text:
    return msgn(
        "gave the tie away ({trait}, +{n} check)", "gave the tie away ({trait}, +{n} checks)", a["n"], trait=a["trait"]
    )


def checks(**a: Any) -> Text:
    return msgn("{n} check", "{n} checks", a["n"])


# Entries logged before the counts had plural forms.
retire("gave the tie away ({trait}, +{n} checks)", lambda a: gave_away(**a))
retire("{n} checks", lambda a: checks(**a))
