"""Handouts (issue 25): three measurements against a real uvicorn on 127.0.0.1 (SQLite, pictures on the local
disk in the run's temp dir).

1. Upload-to-visible: the narrator uploads a ~5 MB phone photo (12 megapixels, JPEG) and shows it to everyone; the
   time until another member's client, told by its live stream (`handouts` event), has listed it and downloaded
   the phone-sized copy it would show. Target: <= 1 s (median of `--runs`).
2. Memory while 4 x 20 MB uploads arrive at once: the server's resident memory (VmRSS, sampled every 20 ms) above
   its idle level, for 4 PNGs of ~20 MB each (the byte limit) and 4 JPEGs of 40 megapixels (the pixel limit).
3. Bytes a phone downloads to view a handout: the copies a 390-pixel-wide phone picks (srcset: the panel's
   thumbnail at 2x and 3x, the full-screen viewer) against the original, and the 304 a second look costs.

Bounded in count and time; prints one JSON line last. Results: docs/PERFORMANCE.md and docs/LIMITS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    cleanup,
    machine,
    make_table,
    rss_kb,
    start_server,
    stop_server,
    summary_line,
    verdict,
    warn_if_busy,
    workdir,
)


def phone_photo(width: int = 4000, height: int = 3000, target: int = 5_000_000) -> bytes:
    """A 12-megapixel JPEG of about `target` bytes: a drawn scene with sensor-like noise (a real photo's
    entropy, so it neither compresses to nothing nor is pure noise)."""
    base = Image.new("RGB", (width // 8, height // 8), (120, 170, 220))
    draw = ImageDraw.Draw(base)
    draw.rectangle((0, height // 16, width // 8, height // 8), fill=(90, 140, 70))
    draw.ellipse((width // 40, height // 40, width // 20, height // 20), fill=(250, 220, 90))
    scene = base.resize((width, height), Image.Resampling.BICUBIC)
    noise = Image.effect_noise((width, height), 48).convert("RGB")
    for blend in (0.30, 0.38, 0.46, 0.55):
        out = io.BytesIO()
        Image.blend(scene, noise, blend).save(out, "JPEG", quality=93)
        if out.tell() >= target:
            break
    return out.getvalue()


def big_png(target: int = 19_500_000) -> bytes:
    """A PNG of just under 20 MB: random pixels do not compress, so ~6.5 megapixels of RGB."""
    side = int((target / 3) ** 0.5)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, "PNG", compress_level=1)
    return out.getvalue()


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time (from /proc): what an upload costs, whatever else the machine does."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def forty_megapixels() -> bytes:
    """A JPEG of 8,000 x 5,000 pixels (the pixel limit), a few MB."""
    out = io.BytesIO()
    Image.linear_gradient("L").resize((8000, 5000)).convert("RGB").save(out, "JPEG", quality=85)
    return out.getvalue()


class Listener(threading.Thread):
    """A second member's client: its live stream, and on each `handouts` event the list and the picture's copy."""

    def __init__(self, base: str, campaign_id: int, who: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.base, self.cid, self.who = base, campaign_id, who
        self.seen: dict[int, float] = {}  # handout id -> when its copy was downloaded
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        with (
            httpx2.Client(base_url=self.base, timeout=60) as client,
            client.stream("GET", f"/api/campaigns/{self.cid}/events", headers=self.who) as stream,
        ):
            self.ready.set()
            event = ""
            for line in stream.iter_lines():
                if self.stop:
                    return
                if line.startswith("event: "):
                    event = line[7:]
                elif line == "" and event == "handouts":
                    listed = client.get(f"/api/campaigns/{self.cid}/handouts", headers=self.who).json()["handouts"]
                    for h in listed:
                        if h["id"] not in self.seen:
                            r = client.get(h["url"], params={"w": 960}, headers=self.who)
                            assert r.status_code == 200, r.text
                            self.seen[h["id"]] = time.perf_counter()
                    event = ""


def upload_to_visible(base: str, pid: int, runs: int) -> dict[str, Any]:
    table = make_table(base, 1, "Handout bench")
    listener = Listener(base, table.campaign_id, table.players[0])
    listener.start()
    listener.ready.wait(30)
    photo = phone_photo()
    times, uploads, cpu = [], [], []
    with httpx2.Client(base_url=base, timeout=120) as client:
        for i in range(runs):
            cpu_before = cpu_seconds(pid)
            start = time.perf_counter()
            r = client.post(
                f"/api/campaigns/{table.campaign_id}/handouts",
                headers=table.narrator,
                data={"title": f"Photo {i}"},
                files={"file": ("photo.jpg", photo, "image/jpeg")},
            )
            assert r.status_code == 201, r.text
            uploaded = time.perf_counter()
            hid = r.json()["id"]
            r = client.post(
                f"/api/campaigns/{table.campaign_id}/handouts/{hid}/show", headers=table.narrator, json={"to": "all"}
            )
            assert r.status_code == 201, r.text
            deadline = time.perf_counter() + 30
            while hid not in listener.seen and time.perf_counter() < deadline:
                time.sleep(0.002)
            times.append(listener.seen.get(hid, float("nan")) - start)
            uploads.append(uploaded - start)
            cpu.append(cpu_seconds(pid) - cpu_before)
    listener.stop = True
    return {
        "photo_bytes": len(photo),
        "photo_pixels": "4000x3000",
        "runs": runs,
        "upload_to_visible_s": {
            "median": round(statistics.median(times), 3),
            "max": round(max(times), 3),
            "all": [round(t, 3) for t in times],
        },
        "upload_alone_s": {"median": round(statistics.median(uploads), 3)},
        "server_cpu_s_per_upload_and_view": {"median": round(statistics.median(cpu), 3)},
        "table": table,
    }


async def _post_many(base: str, table: Any, files: list[bytes]) -> list[int]:
    async with httpx2.AsyncClient(base_url=base, timeout=300) as client:

        async def one(i: int, data: bytes) -> int:
            r = await client.post(
                f"/api/campaigns/{table.campaign_id}/handouts",
                headers=table.narrator,
                data={"title": f"Big {i}"},
                files={"file": (f"big{i}", data, "image/png")},
            )
            return r.status_code

        return list(await asyncio.gather(*(one(i, d) for i, d in enumerate(files))))


def memory_under_uploads(base: str, pid: int, table: Any, files: list[bytes]) -> dict[str, Any]:
    idle = rss_kb(pid)
    peak = idle
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_kb(pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    statuses = asyncio.run(_post_many(base, table, files))
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    return {
        "files": len(files),
        "bytes_each": len(files[0]),
        "statuses": statuses,
        "seconds": round(elapsed, 2),
        "idle_rss_mib": round(idle / 1024, 1),
        "peak_rss_mib": round(peak / 1024, 1),
        "peak_above_idle_mib": round((peak - idle) / 1024, 1),
    }


def phone_bytes(base: str, table: Any) -> dict[str, Any]:
    with httpx2.Client(base_url=base, timeout=60) as client:
        h = client.get(f"/api/campaigns/{table.campaign_id}/handouts", headers=table.players[0]).json()["handouts"][0]
        sizes = {}
        for w in (480, 960, 1600, None):
            r = client.get(h["url"], params={"w": w} if w else None, headers=table.players[0])
            sizes["original" if w is None else f"w{w}"] = len(r.content)
            etag = r.headers["etag"]
        again = client.get(h["url"], headers={**table.players[0], "If-None-Match": etag})
    # A 390-pixel phone: the panel's thumbnail (sizes 45vw = 176 px) picks w480 at 2x and w960 at 3x; the
    # full-screen viewer (100vw = 390 px) picks w960 at 2x and w1600 at 3x.
    return {
        "bytes": sizes,
        "phone_2x_view_bytes": sizes["w480"] + sizes["w960"],
        "phone_3x_view_bytes": sizes["w960"] + sizes["w1600"],
        "second_look": again.status_code,
        "second_look_bytes": len(again.content),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep-workdir", action="store_true")
    args = parser.parse_args()
    info = machine()
    warn_if_busy(info)
    tmp = workdir("fb-handouts-")
    server = start_server(f"sqlite:///{tmp / 'bench.db'}", tmp)
    print(f"server pid {server.pid} on {server.url}; work dir {tmp}", file=sys.stderr)
    try:
        visible = upload_to_visible(server.url, server.pid, args.runs)
        table = visible.pop("table")
        phone = phone_bytes(server.url, table)
        pngs = memory_under_uploads(server.url, server.pid, table, [big_png()] * 4)
        forty = forty_megapixels()
        megapixels = memory_under_uploads(server.url, server.pid, table, [forty] * 4)
    finally:
        stop_server(server)
    print(
        f"upload-to-visible: median {visible['upload_to_visible_s']['median']} s, max "
        f"{visible['upload_to_visible_s']['max']} s ({visible['photo_bytes']:,} bytes, 12 MP); server CPU "
        f"{visible['server_cpu_s_per_upload_and_view']['median']} s each"
    )
    print(
        f"4 x {pngs['bytes_each']:,}-byte PNGs at once: peak RSS {pngs['peak_rss_mib']} MiB "
        f"(+{pngs['peak_above_idle_mib']} MiB), {pngs['statuses']}"
    )
    print(
        f"4 x 40-megapixel JPEGs at once: peak RSS {megapixels['peak_rss_mib']} MiB "
        f"(+{megapixels['peak_above_idle_mib']} MiB), {megapixels['statuses']}"
    )
    print(
        f"a phone's view: {phone['bytes']} -> 2x {phone['phone_2x_view_bytes']:,} B, 3x "
        f"{phone['phone_3x_view_bytes']:,} B; a second look: {phone['second_look']}"
    )
    verdict("upload-to-visible median (s)", visible["upload_to_visible_s"]["median"], 1.0, higher_is_better=False)
    verdict("peak RSS above idle, 4 x 20 MB (MiB)", pngs["peak_above_idle_mib"], 400, higher_is_better=False)
    verdict(
        "phone bytes (3x) / original",
        round(phone["phone_3x_view_bytes"] / phone["bytes"]["original"], 3),
        0.5,
        higher_is_better=False,
    )
    summary_line(
        {
            "bench": "handouts",
            "machine": info,
            "upload_to_visible": visible,
            "phone": phone,
            "memory_4x20MB_png": pngs,
            "memory_4x40MP_jpeg": megapixels,
        }
    )
    cleanup(tmp, keep=args.keep_workdir)


if __name__ == "__main__":
    main()
