"""A picture a narrator uploads, made safe to show: decoded by Pillow (never trusted by its name or declared type),
checked, re-encoded without its metadata, and scaled into phone-sized copies.

Imports nothing of the web stack or the database: a file goes in, bytes (or a refusal with words) come out.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
import warnings
from dataclasses import dataclass, field
from typing import IO

from PIL import Image, ImageOps, UnidentifiedImageError

from app.rules.text import N_, RuleText

MAX_BYTES = 20_000_000  # 20 MB as people count them (the body cap allows 21 MiB with the form around it)
MAX_PIXELS = 40_000_000  # 40 megapixels
COPY_WIDTHS = (480, 960, 1600)  # a phone, a phone's retina screen, a laptop
MAX_SCALED_WIDTH = 4096  # ?w= 1..4096

# Pillow's own guard, at our limit: above it Pillow warns (we turn the warning into an error), above twice it raises.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

ACCEPTED = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
CONTENT_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}

# Decoding a 40-megapixel picture takes ~160 MB (RGBA): at most two at once per process, whatever arrives.
_DECODING = threading.BoundedSemaphore(2)

# What an archive or a page looks like, in bytes after a JPEG's end (a GIFAR, a PNG/JPEG + HTML polyglot).
_FOREIGN = (
    b"pk\x03\x04",
    b"pk\x05\x06",
    b"<html",
    b"<script",
    b"<svg",
    b"<!doctype",
    b"<?xml",
    b"<body",
    b"<iframe",
    b"<?php",
)


class ImageRefused(RuleText, ValueError):
    """The upload is not a picture we keep. `status`: 413 for too large, 422 otherwise."""

    def __init__(self, status: int, template: str, **values: object) -> None:
        self.status = status
        super().__init__(self._set_text(template, values))


@dataclass
class Prepared:
    data: bytes  # the stored picture, as served without ?w=
    fmt: str  # png | jpeg
    width: int
    height: int
    copies: dict[int, bytes] = field(default_factory=dict)  # width -> a WebP copy (only widths below the picture's)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def prepare(source: IO[bytes]) -> Prepared:
    """Check and re-encode an uploaded file (read from its start). Raises ImageRefused."""
    source.seek(0, io.SEEK_END)
    size = source.tell()
    if size > MAX_BYTES:
        raise ImageRefused(413, N_("The file is larger than 20 MB."))
    if size == 0:
        raise ImageRefused(422, N_("The file is empty."))
    source.seek(0)
    with _DECODING, warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            return _prepare(source, size)
        except ImageRefused:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageRefused(413, N_("The picture has more than 40 megapixels.")) from None
        except UnidentifiedImageError:
            raise ImageRefused(422, N_("Only PNG, JPEG, WebP and GIF pictures can be shown.")) from None
        except (
            SyntaxError,
            OSError,
            ValueError,
            EOFError,
            IndexError,
            KeyError,
            TypeError,
            ZeroDivisionError,
            MemoryError,
        ):
            # Pillow's decoders report a damaged file with any of these.
            raise ImageRefused(
                422, N_("The file is damaged or cut short: it could not be read as a picture.")
            ) from None


def _prepare(source: IO[bytes], size: int) -> Prepared:
    head = source.read(64)
    source.seek(0)
    with Image.open(source, formats=list(ACCEPTED)) as probe:
        fmt = probe.format or ""
        _check_pixels(probe.size)
        probe.verify()  # checksums (PNG CRCs) and structure, without decoding the pixels
    if fmt not in ACCEPTED or not _magic_matches(fmt, head):
        raise ImageRefused(422, N_("Only PNG, JPEG, WebP and GIF pictures can be shown."))
    source.seek(0)
    raw = source.read()  # at most 20 MB, once, to find where the picture ends
    _check_ending(fmt, raw)
    source.seek(0)
    with Image.open(source, formats=[fmt]) as img:
        _check_pixels(img.size)
        img.seek(0)  # the first frame of a GIF, an animated WebP or APNG
        lossless = fmt in ("PNG", "GIF") or (fmt == "WEBP" and getattr(img, "lossless", False)) or _webp_lossless(raw)
        img.load()
        ImageOps.exif_transpose(img, in_place=True)  # a phone's photo the right way up, before its EXIF goes
    picture = _plain(img)
    del raw
    keep_png = lossless or picture.mode == "RGBA"
    data = _encode(picture, "png" if keep_png else "jpeg")
    copies = {w: _encode(copy, "webp") for w, copy in _copies(picture).items()}
    return Prepared(
        data=data, fmt="png" if keep_png else "jpeg", width=picture.width, height=picture.height, copies=copies
    )


def _check_pixels(dims: tuple[int, int]) -> None:
    width, height = dims
    if width <= 0 or height <= 0:
        raise ImageRefused(422, N_("The file is damaged or cut short: it could not be read as a picture."))
    if width * height > MAX_PIXELS:
        raise ImageRefused(413, N_("The picture has more than 40 megapixels."))


def _magic_matches(fmt: str, head: bytes) -> bool:
    """The file begins as its format must (Pillow also reads a few formats from elsewhere in a file)."""
    if fmt == "PNG":
        return head.startswith(b"\x89PNG\r\n\x1a\n")
    if fmt == "JPEG":
        return head.startswith(b"\xff\xd8\xff")
    if fmt == "GIF":
        return head[:6] in (b"GIF87a", b"GIF89a")
    return head[:4] == b"RIFF" and head[8:12] == b"WEBP"


def _webp_lossless(raw: bytes) -> bool:
    return raw[:4] == b"RIFF" and raw[12:16] == b"VP8L"


def _check_ending(fmt: str, raw: bytes) -> None:
    """Nothing after the picture's end: a file that is a picture and an archive or a web page at once (a
    polyglot, a GIFAR) is refused, though re-encoding would drop the rest anyway. A phone's JPEG may carry a
    maker's trailer (a motion photo's video), so after a JPEG only archives and markup are refused."""
    end = _end_of(fmt, raw)
    if end is None:
        raise ImageRefused(422, N_("The file is damaged or cut short: it could not be read as a picture."))
    tail = raw[end:]
    if not tail:
        return
    if fmt == "JPEG":
        lowered = tail.lower()
        if not any(sign in lowered for sign in _FOREIGN):
            return
    elif not tail.strip(b"\x00"):
        return  # padding some encoders leave
    raise ImageRefused(
        422,
        N_(
            "The file holds something else after the picture (an archive or a web page?). "
            "Save the picture on its own and upload that."
        ),
    )


# The most blocks, sub-blocks and segments the walks below take in Python for one file. An honest 20 MB GIF has
# about 80,000 sub-blocks of 255 bytes, a JPEG a few dozen segments; a crafted one (18 MB of 1-byte GIF
# sub-blocks, a JPEG of fill bytes) would take millions of steps (5–13 s of CPU, issue 35) and is refused as
# damaged when it runs out. Inside a JPEG scan the next marker is found by one regex search (C), not byte by byte.
SCAN_STEPS = 250_000
# A real marker inside coded data: 0xFF followed by anything but stuffing (00), a restart (D0–D7) or a fill (FF).
_JPEG_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")


class _Steps:
    """The walk's budget: `take()` once per step; past SCAN_STEPS the file is refused."""

    def __init__(self, limit: int = SCAN_STEPS) -> None:
        self.left = limit

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise ImageRefused(422, N_("The file is damaged or cut short: it could not be read as a picture."))


def _end_of(fmt: str, raw: bytes, steps: _Steps | None = None) -> int | None:
    steps = steps or _Steps()
    if fmt == "PNG":
        at = raw.find(b"IEND")
        return at + 8 if at >= 0 and len(raw) >= at + 8 else None  # the chunk's type and its CRC
    if fmt == "GIF":
        return _gif_end(raw, steps)
    if fmt == "WEBP":
        riff = int.from_bytes(raw[4:8], "little") + 8
        return riff + (riff & 1) if riff <= len(raw) + 1 else None
    return _jpeg_end(raw, steps)


def _gif_end(raw: bytes, steps: _Steps) -> int | None:
    """After the trailer byte 0x3B: walk the blocks (the trailer byte also occurs inside image data)."""
    pos = 13
    flags = raw[10] if len(raw) > 10 else 0
    if flags & 0x80:
        pos += 3 * (2 << (flags & 7))
    while pos < len(raw):
        steps.take()
        block = raw[pos]
        if block == 0x3B:
            return pos + 1
        if block == 0x21:  # an extension: label, then sub-blocks
            pos = _skip_sub_blocks(raw, pos + 2, steps)
        elif block == 0x2C:  # an image: descriptor, local table, LZW size, sub-blocks
            if pos + 10 > len(raw):
                return None
            local = raw[pos + 9]
            pos += 10
            if local & 0x80:
                pos += 3 * (2 << (local & 7))
            pos = _skip_sub_blocks(raw, pos + 1, steps)
        else:
            return None
        if pos < 0:
            return None
    return None


def _skip_sub_blocks(raw: bytes, pos: int, steps: _Steps) -> int:
    while pos < len(raw):
        steps.take()
        length = raw[pos]
        pos += 1 + length
        if length == 0:
            return pos
    return -1


def _jpeg_end(raw: bytes, steps: _Steps) -> int | None:
    """After the EOI marker: walk the segments, and through each scan's entropy-coded data."""
    pos, n = 2, len(raw)
    while pos + 1 < n:
        steps.take()
        if raw[pos] != 0xFF:
            return None
        marker = raw[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker == 0xD9:
            return pos + 2
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            pos += 2
            continue
        if pos + 4 > n:
            return None
        length = int.from_bytes(raw[pos + 2 : pos + 4], "big")
        pos += 2 + length
        if marker == 0xDA:  # start of scan: skip the coded data (stuffed 0xFF00s, restarts) to the next real marker
            found = _JPEG_MARKER.search(raw, pos)
            if found is None:
                return None
            pos = found.start()
    return None


def _plain(img: Image.Image) -> Image.Image:
    """Pixels only: RGB, or RGBA where the picture has transparency, with no `info` (EXIF, ICC, comments, XMP,
    text chunks): the encoders write only what `save` is given, except a JPEG comment and a PNG's ICC profile,
    which they take from `info` — emptied here. No copy of the pixels when the mode is right already."""
    has_alpha = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
    target = "RGBA" if has_alpha else "RGB"
    plain = img if img.mode == target else img.convert(target)
    if target == "RGBA" and plain.getchannel("A").getextrema() == (255, 255):
        plain = plain.convert("RGB")  # an alpha channel that is opaque everywhere
    plain.info = {}
    return plain


def _copies(picture: Image.Image) -> dict[int, Image.Image]:
    """The phone-sized copies, each made from the next larger one (the widest from the picture): one resize of
    the full picture instead of three (a 12-megapixel photo: ~0.5 s less per copy)."""
    made: dict[int, Image.Image] = {}
    source = picture
    for width in sorted((w for w in COPY_WIDTHS if w < picture.width), reverse=True):
        source = made[width] = _scaled(source, width)
    return made


def _scaled(img: Image.Image, width: int) -> Image.Image:
    height = max(1, round(img.height * width / img.width))
    # reducing_gap 1.0: a box reduction by the whole factor first (fast), then Lanczos for the rest.
    return img.resize((width, height), Image.Resampling.LANCZOS, reducing_gap=1.0)


def _encode(img: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "png":
        img.save(out, "PNG", optimize=False, compress_level=6)
    elif fmt == "jpeg":
        # Neither `optimize` nor `progressive`: each costs another pass over a 12-megapixel photo (~0.4 s) to save
        # a few percent; phones download the WebP copies anyway.
        img.save(out, "JPEG", quality=88)
    else:
        # method 1: a fifth of method 3's time (a 1600-pixel copy: 0.12 s vs 0.63 s here) for ~10 % more bytes.
        img.save(out, "WEBP", quality=80, method=1)
    return out.getvalue()
