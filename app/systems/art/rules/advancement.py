"""Advancement: inspiration on doubles, raising attributes and skills, Glory, experience.

art-engine.md, ch. 1 "Glory"; ch. 2 "Glory"; ch. 6 "Inspiration Points", "Creating Skills",
"Increasing Attributes", "Improving Skills", "Experience Points".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.rules.text import N_

from .levels import ArtRuleError
from .rolls import MAX_SKILLS, is_doubles, kicker

MAX_SKILL_RATING = 8  # ch. 6, "Improving Skills": skills cannot exceed +8
CAPPED_SKILL_POINTS = 4  # ch. 6, "Improving Skills": four points cap a skill
NEW_SKILL_RATING = 1  # ch. 6, "Creating Skills": newly created skills start at +1
GLORY_PER_FAME = 10  # ch. 2, "Glory": Glory of ten times Fame raises Fame by one
XP_PER_SESSION = 1  # ch. 6, "Experience Points"

# ch. 6, "Increasing Attributes": where a 00's inspiration point goes for rolls that are not a
# plain attribute. Defense -> Agility; attacks -> Dexterity (melee), Alertness (ranged), Strength (unarmed).
INSPIRED_ATTRIBUTE: dict[str, str] = {
    "defense": "AGI",
    "melee_attack": "DEX",
    "ranged_attack": "ALE",
    "unarmed_attack": "STR",
}


@dataclass(frozen=True)
class SkillUse:
    """A skill added to a roll: its rating and the inspiration points already next to it."""

    name: str
    rating: int
    inspiration: int = 0

    @property
    def capped(self) -> bool:
        return self.inspiration >= CAPPED_SKILL_POINTS


@dataclass(frozen=True)
class InspirationOptions:
    """What a player may do on doubles; they choose one (ch. 6, "Inspiration Points").

    `attribute` is the attribute that may take a point (00 only), `skills` the used skills that may.
    """

    create_skill: bool
    attribute: str | None
    skills: tuple[str, ...]

    @property
    def any(self) -> bool:
        return self.create_skill or self.attribute is not None or bool(self.skills)


def inspiration_options(
    roll: int | None, attribute: str, skills_used: Sequence[SkillUse] = (), *, roll_kind: str = "trait"
) -> InspirationOptions:
    """The choices doubles give (ch. 6, "Inspiration Points", "Creating Skills", "Improving Skills").

    Create a skill if fewer than two skills were used; on 00 only, a point next to the attribute
    (Agility for Defense, and per INSPIRED_ATTRIBUTE for attacks); a point next to a used skill whose
    rating is below the kicker, that is not capped and not yet +8. `roll` None (taking 25) gives none.
    """
    if roll_kind != "trait" and roll_kind not in INSPIRED_ATTRIBUTE:
        raise ArtRuleError(
            "roll_kind",
            N_("{roll_kind!r} is not trait, {inspired_attribute}"),
            roll_kind=roll_kind,
            inspired_attribute=", ".join(INSPIRED_ATTRIBUTE),
        )
    if len(skills_used) > MAX_SKILLS:
        raise ArtRuleError(
            "skills_used", N_("a roll uses up to two skills, not {skills_used}"), skills_used=len(skills_used)
        )
    if roll is None or not is_doubles(roll):
        return InspirationOptions(create_skill=False, attribute=None, skills=())
    return InspirationOptions(
        create_skill=len(skills_used) < MAX_SKILLS,
        attribute=INSPIRED_ATTRIBUTE.get(roll_kind, attribute) if roll == 100 else None,
        skills=tuple(skill.name for skill in skills_used if _can_inspire(skill, kicker(roll))),
    )


def _can_inspire(skill: SkillUse, kicker_die: int) -> bool:
    return kicker_die > skill.rating and not skill.capped and skill.rating < MAX_SKILL_RATING


def inspire_skill(skill: SkillUse, roll: int) -> SkillUse:
    """The skill with one more inspiration point from a doubles roll (ch. 6, "Improving Skills")."""
    if not is_doubles(roll) or not _can_inspire(skill, kicker(roll)):
        raise ArtRuleError(
            "skill", N_("{name} cannot take an inspiration point from a roll of {roll}"), name=skill.name, roll=roll
        )
    return replace(skill, inspiration=skill.inspiration + 1)


def end_of_session_skill(skill: SkillUse) -> SkillUse:
    """A capped skill goes up by 1 and loses its points at the end of the session (ch. 6)."""
    if not skill.capped:
        return skill
    return replace(skill, rating=min(skill.rating + 1, MAX_SKILL_RATING), inspiration=0)


def raise_attribute(score: int, points: int) -> tuple[int, int]:
    """Spend inspiration points next to an attribute between sessions: each +1 costs the current
    score (ch. 6, "Increasing Attributes"). Returns (new score, points left); raises while it can."""
    if score < 1 or points < 0:
        raise ArtRuleError(
            "points", N_("cannot spend {points} points on an attribute of {score}"), points=points, score=score
        )
    while points >= score:
        points -= score
        score += 1
    return score, points


def gain_glory(glory: int, fame: int, gained: int) -> tuple[int, int]:
    """Add (or, if negative, lose) Glory. Once Glory reaches ten times Fame it is erased and Fame
    goes up by one (ch. 2, "Glory"). Returns (glory, fame); Glory never goes below 0."""
    glory = max(0, glory + gained)
    if gained > 0 and glory >= GLORY_PER_FAME * fame:
        return 0, fame + 1
    return glory, fame
