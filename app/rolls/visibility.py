"""Who may see what of a log entry. One function decides, for every route: page, fragment, stream, API, export."""

from __future__ import annotations

from enum import StrEnum

from app.i18n import N_, _


class Visibility(StrEnum):
    PUBLIC = "public"  # everyone in the campaign
    NARRATOR = "narrator"  # the roller and the narrators
    BLIND = "blind"  # only the narrators see the result; the roller sees that a roll happened
    SELF = "self"  # only the roller


# English msgids: every form shows them with `_(label)`.
VISIBILITY_LABELS = {
    Visibility.PUBLIC: N_("Everyone"),
    Visibility.NARRATOR: N_("Me and the narrators"),
    Visibility.BLIND: N_("Blind (narrators only)"),
    Visibility.SELF: N_("Only me"),
}


def kept_to_oneself_refusal() -> str:
    """Why an action that may change a sheet cannot be `self` (decided before the dice: app/rolls/service.py)."""
    return _(
        "This roll changes the sheet, so a narrator must be able to see it: choose "
        "“Me and the narrators”, “Blind” or “Everyone”."
    )


# Not a choice a roll offers (so not in Visibility): a handout shown to chosen members (app/handouts) is read by
# those members (`readers`: the entry's `outcome.to`) and the narrators.
RECIPIENTS = "recipients"
# Table talk's two audiences with a list of readers (app/talk): never a roll's visibility (Visibility above).
WHISPER = "whisper"  # the author and the members named in `to`; nobody else, narrators included
TEAM = "team"  # the members of one team of a Rabbits conflict (a narrator only on a narrator-run team)
READER_LISTS = frozenset({WHISPER, TEAM})

# English msgids: the badge a log entry that is not public wears (templates/rolls/entry.html, `| gettext`).
AUDIENCE_BADGES = {
    Visibility.NARRATOR: N_("with narrators"),
    Visibility.BLIND: N_("blind"),
    Visibility.SELF: N_("private"),
    RECIPIENTS: N_("for chosen players"),
    WHISPER: N_("whisper"),
    TEAM: N_("team talk"),
}


class View(StrEnum):
    FULL = "full"  # everything
    ROLLER_BLIND = "blind"  # the roller of a blind roll: what was asked, not what came up
    HIDDEN = "hidden"  # that an entry exists, and its hashes


def view_of(
    visibility: str,
    actor_id: int | None,
    viewer_id: int,
    is_narrator: bool,
    subject_id: int | None = None,
    readers: frozenset[int] | None = None,
) -> View:
    """`subject_id`: whom a correction is about (the voided entry's roller), who sees it as its actor would.
    `readers`: for a whisper or team talk, the user ids fixed (in the hashed, salted body) when it was written —
    exactly they read it; being the actor or a narrator counts for nothing there. For a RECIPIENTS entry (a
    handout shown to chosen members), those members besides the narrators."""
    if visibility in READER_LISTS:
        return View.FULL if readers is not None and viewer_id in readers else View.HIDDEN
    is_actor = viewer_id in {actor_id, subject_id} - {None}
    if visibility == Visibility.PUBLIC:
        return View.FULL
    if visibility == Visibility.NARRATOR:
        return View.FULL if is_actor or is_narrator else View.HIDDEN
    if visibility == Visibility.BLIND:
        if is_narrator:
            return View.FULL
        return View.ROLLER_BLIND if is_actor else View.HIDDEN
    if visibility == Visibility.SELF:
        return View.FULL if is_actor else View.HIDDEN
    if visibility == RECIPIENTS:
        return View.FULL if is_narrator or (readers is not None and viewer_id in readers) else View.HIDDEN
    return View.HIDDEN


def readers_of(body: object) -> frozenset[int] | None:
    """The reader list an entry's body carries (`request.readers`: whispers, team talk, their edits and
    withdrawals), or None."""
    request = body.get("request") if isinstance(body, dict) else None
    readers = request.get("readers") if isinstance(request, dict) else None
    if not isinstance(readers, list):
        return None
    return frozenset(r for r in readers if isinstance(r, int) and not isinstance(r, bool))
