"""How the pages look and move for one account (issue 37, docs/ACCESSIBILITY.md): motion, theme, text size, sound
and vibration. Stored on the account (users.motion …); base.html hands them to app.css and app.js as data
attributes, so a choice follows the person to every device they sign in on."""

from __future__ import annotations

from dataclasses import dataclass

from app.accounts.models import User
from app.errors import BadRequest
from app.i18n import N_, _

# value -> label (msgid). "device" follows the device's own setting (prefers-reduced-motion, prefers-color-scheme).
MOTION = {"device": N_("Follow my device"), "on": N_("Show the dice move"), "off": N_("No animation")}
THEMES = {"device": N_("Follow my device"), "light": N_("Light"), "dark": N_("Dark")}
TEXT_SIZES = (100, 125, 150, 200)  # per cent of the browser's own text size


@dataclass(frozen=True)
class Display:
    motion: str = "device"
    theme: str = "device"
    text_size: int = 100
    sound: bool = False
    vibration: bool = False


def of(user: User | None) -> Display:
    """The account's choices; the quiet defaults for a signed-out visitor."""
    if user is None:
        return Display()
    return Display(user.motion, user.theme, user.text_size, user.sound, user.vibration)


def parse(motion: str, theme: str, text_size: str, sound: str, vibration: str) -> Display:
    """The account form's fields (checkboxes: present or absent); a value not offered is refused by its field."""
    if motion not in MOTION:
        raise BadRequest(_("Choose one of the motion settings offered."), field="motion")
    if theme not in THEMES:
        raise BadRequest(_("Choose one of the themes offered."), field="theme")
    size = int(text_size) if text_size.isdecimal() and len(text_size) <= 3 else 0
    if size not in TEXT_SIZES:
        raise BadRequest(_("Choose one of the text sizes offered."), field="text_size")
    return Display(motion, theme, size, bool(sound), bool(vibration))


def save(user: User, display: Display) -> None:
    user.motion, user.theme, user.text_size = display.motion, display.theme, display.text_size
    user.sound, user.vibration = display.sound, display.vibration
