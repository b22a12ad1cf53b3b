"""Pictures for the handout tests, made with Pillow: honest ones (a photo with EXIF and GPS, a PNG with alpha, an
animated GIF) and hostile ones (polyglots, truncated files, a decompression bomb, liars)."""

from __future__ import annotations

import functools
import hashlib
import io

from PIL import Image


def photo(width: int = 1200, height: int = 900, *, exif: bool = True, quality: int = 90) -> bytes:
    """A JPEG like a phone's: noise (so it does not compress to nothing), EXIF with GPS and a comment."""
    img = Image.effect_noise((width, height), 40).convert("RGB")
    out = io.BytesIO()
    if exif:
        data = Image.Exif()
        data[0x010F] = "PhoneMaker"  # Make
        data[0x0131] = "SecretCamera 1.0"  # Software
        data[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 0.0)}  # GPS
        img.save(out, "JPEG", quality=quality, exif=data, comment=b"private comment")
    else:
        img.save(out, "JPEG", quality=quality)
    return out.getvalue()


def landscape(width: int = 1600, height: int = 1000) -> bytes:
    """A drawn valley (sky, hills, a river, a mill) as PNG: something a person can recognise in a screenshot."""
    from PIL import ImageDraw

    img = Image.new("RGB", (width, height), (135, 190, 235))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, height * 0.55, width, height), fill=(96, 150, 72))
    draw.ellipse((-width * 0.2, height * 0.35, width * 0.6, height * 1.1), fill=(80, 130, 60))
    draw.ellipse((width * 0.45, height * 0.4, width * 1.3, height * 1.2), fill=(70, 118, 52))
    draw.polygon(
        [(width * 0.55, height), (width * 0.62, height * 0.6), (width * 0.68, height * 0.6), (width * 0.8, height)],
        fill=(70, 120, 200),
    )
    draw.rectangle((width * 0.25, height * 0.45, width * 0.35, height * 0.62), fill=(150, 100, 60))
    draw.polygon(
        [(width * 0.23, height * 0.45), (width * 0.3, height * 0.36), (width * 0.37, height * 0.45)], fill=(120, 40, 30)
    )
    draw.ellipse((width * 0.8, height * 0.08, width * 0.9, height * 0.08 + width * 0.1), fill=(250, 220, 90))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def png(width: int = 800, height: int = 600, mode: str = "RGBA", *, text: str | None = None) -> bytes:
    from PIL import PngImagePlugin

    img = Image.new(mode, (width, height), (200, 30, 30, 128) if mode == "RGBA" else (200, 30, 30))
    info = PngImagePlugin.PngInfo()
    if text:
        info.add_text("Comment", text)
    out = io.BytesIO()
    img.save(out, "PNG", pnginfo=info)
    return out.getvalue()


def gif(frames: int = 3) -> bytes:
    images = [Image.new("P", (64, 48), i * 40) for i in range(frames)]
    out = io.BytesIO()
    images[0].save(out, "GIF", save_all=True, append_images=images[1:])
    return out.getvalue()


def webp(width: int = 640, height: int = 480) -> bytes:
    out = io.BytesIO()
    Image.effect_noise((width, height), 40).convert("RGB").save(out, "WEBP")
    return out.getvalue()


def bomb() -> bytes:
    """A tiny PNG that claims 20,000 × 20,000 pixels (400 megapixels): one bit each, compressed to kilobytes."""
    out = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(out, "PNG")
    return out.getvalue()


def megapixels_41() -> bytes:
    out = io.BytesIO()
    Image.new("1", (41_000, 1_000)).save(out, "PNG")
    return out.getvalue()


SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>'
HTML = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>"


@functools.cache
def hostile() -> dict[str, bytes]:
    """Each must be refused (and nothing stored). Made once per test run (the bomb takes a moment)."""
    small = png(32, 32, "RGB")
    jpeg = photo(64, 64, exif=False)
    return {
        "svg": SVG,
        "html": HTML,
        "png_html_tail": small + HTML,
        "png_zip_tail": small + b"PK\x03\x04\x14\x00\x00\x00evil.js" + b"\x00" * 30 + b"PK\x05\x06" + b"\x00" * 18,
        "jpeg_html_tail": jpeg + HTML,
        "gifar": gif(1) + b"PK\x03\x04\x14\x00\x00\x00META-INF/MANIFEST.MF" + b"PK\x05\x06" + b"\x00" * 18,
        "truncated_png": small[: len(small) // 2],
        "truncated_jpeg": jpeg[: len(jpeg) // 2],
        "text_as_png": b"this is plain text pretending to be a picture\n" * 10,
        "bomb": bomb(),
        "41_megapixels": megapixels_41(),
    }


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
