"""The scanners that find where an uploaded picture ends do bounded work (issue 35, item 7d): crafted files — 18 MB
of 1-byte GIF sub-blocks, a JPEG scan of 0xFF00 stuffing, a JPEG of fill bytes — took 5–13 s of CPU. The work is
counted, not timed: the Python lines app/handouts/images.py runs while checking the file's end (a tracer that
gives up past LINES, so the old code fails fast instead of running for minutes)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from app.handouts import images
from app.handouts.images import ImageRefused

LINES = 3_000_000  # SCAN_STEPS (250,000) times the few lines of a step, with room
MB = 1_000_000


class TooMuchWork(Exception):
    pass


def lines_run(check: Callable[[], Any]) -> tuple[int, BaseException | None]:
    """How many lines of images.py `check` runs (raises TooMuchWork past LINES), and what it raised."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
            if count > LINES:
                raise TooMuchWork(count)
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == images.__file__ else None

    raised: BaseException | None = None
    sys.settrace(calls)
    try:
        check()
    except (ImageRefused, TooMuchWork) as exc:
        raised = exc
    finally:
        sys.settrace(None)
    return count, raised


def gif_of_tiny_sub_blocks(size: int = 18 * MB) -> bytes:
    screen = b"GIF89a" + (1).to_bytes(2, "little") * 2 + b"\x00\x00\x00"  # 1x1, no global colour table
    image = b"\x2c" + b"\x00\x00\x00\x00" + (1).to_bytes(2, "little") * 2 + b"\x00" + b"\x02"  # descriptor, LZW size
    return screen + image + b"\x01A" * (size // 2) + b"\x00" + b"\x3b"


def jpeg(body: bytes) -> bytes:
    return b"\xff\xd8" + body + b"\xff\xd9"


SOS = b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00"


def test_a_gif_of_tiny_sub_blocks_is_refused_after_bounded_work() -> None:
    count, raised = lines_run(lambda: images._check_ending("GIF", gif_of_tiny_sub_blocks()))
    assert isinstance(raised, ImageRefused) and raised.status == 422, raised
    assert count < LINES


def test_a_jpeg_scan_of_stuffing_is_read_in_one_search() -> None:
    count, raised = lines_run(lambda: images._check_ending("JPEG", jpeg(SOS + b"\xff\x00" * (9 * MB))))
    assert raised is None  # an honest (if odd) scan: the picture ends at its EOI, nothing after it
    assert count < 100


def test_a_jpeg_of_fill_bytes_is_refused_after_bounded_work() -> None:
    count, raised = lines_run(lambda: images._check_ending("JPEG", jpeg(b"\xff" * (18 * MB))))
    assert isinstance(raised, ImageRefused) and raised.status == 422, raised
    assert count < LINES


@pytest.mark.parametrize(
    "raw",
    [
        jpeg(SOS + b"\x12\xff\x00\x34\xff\xd0\x56\xff\xff"),  # stuffing, a restart, fill bytes before the EOI
        jpeg(SOS + b"\x12\x34" + SOS + b"\x56"),  # two scans (a progressive JPEG)
    ],
)
def test_scans_with_restarts_and_fill_bytes_end_at_their_eoi(raw: bytes) -> None:
    assert images._end_of("JPEG", raw) == len(raw)


def test_an_honest_gif_ends_at_its_trailer() -> None:
    import io

    from PIL import Image

    frames = [Image.new("P", (64, 64), i) for i in range(20)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], comment=b"x" * 300)
    raw = out.getvalue()
    assert images._end_of("GIF", raw) == len(raw)
