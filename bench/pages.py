"""Page weight and page time (issue 16, target 5): a Cat sheet page as a phone loads it the first time (the
HTML and every stylesheet, script and image it references, with `Accept-Encoding: gzip, br`), the bytes on
the wire against 60 KB, no request to another host, then the page's server time at 8 concurrent viewers
(p99 of the response time on loopback, an upper bound of the server's time) against 20 ms.

    .venv/bin/python bench/pages.py
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2  # noqa: E402
from common import (  # noqa: E402
    cleanup,
    latency_summary_ms,
    launch,
    seed_tables,
    server_arguments,
    signed_in_cookie,
    stop_server,
    summary_line,
    verdict,
)

TARGET_KB = 60.0
TARGET_P99_MS = 20.0
PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
)
ASSET_RE = re.compile(r'(?:src|href)="([^"#]+)"')


async def weigh(client: httpx2.AsyncClient, path: str, headers: dict[str, str]) -> dict[str, Any]:
    """Bytes on the wire (compressed bodies as sent, plus headers) for the page and what it loads."""
    wire, items, foreign = 0, [], []
    page = await client.get(path, headers=headers)
    assert page.status_code == 200, page.status_code
    todo = []
    for ref in ASSET_RE.findall(page.text):
        if ref.startswith("data:"):  # inline (the empty favicon): no request at all
            continue
        url = urljoin(str(page.url), ref)
        if urlsplit(url).netloc != urlsplit(str(page.url)).netloc:
            foreign.append(url)
        elif ref.startswith("/static/") and url not in todo:
            todo.append(url)
    for response in [page] + [await client.get(u, headers=headers) for u in todo]:
        raw = response.num_bytes_downloaded  # as received: compressed when the server compressed it
        head = sum(len(k) + len(v) + 4 for k, v in response.headers.raw) + 20
        wire += raw + head
        items.append(
            {
                "path": urlsplit(str(response.url)).path,
                "status": response.status_code,
                "bytes": raw,
                "encoding": response.headers.get("content-encoding", "identity"),
            }
        )
    return {"kb": round(wire / 1000, 1), "items": items, "foreign": foreign}


async def viewers(url: str, path: str, cookie: str, n: int, seconds: float) -> tuple[list[float], int]:
    times: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def one() -> None:
        nonlocal errors
        async with httpx2.AsyncClient(
            base_url=url, timeout=30, headers={"Cookie": cookie, "User-Agent": PHONE_UA}
        ) as c:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                r = await c.get(path)
                if r.status_code == 200:
                    times.append(time.perf_counter() - t0)
                else:
                    errors += 1

    await asyncio.gather(*(one() for _ in range(n)))
    return times, errors


async def run(server: Any, table: Any, args: argparse.Namespace) -> dict[str, Any]:
    path = f"/campaigns/{table.campaign_id}/characters/{table.cats[1]}"
    async with httpx2.AsyncClient(base_url=server.url, timeout=30) as client:
        cookie = await signed_in_cookie(client, table.usernames[1])
        client.cookies.clear()
        headers = {"Cookie": cookie, "User-Agent": PHONE_UA, "Accept-Encoding": "gzip, br"}
        for _ in range(3):  # a few entries on the sheet, as in play
            await client.post(
                f"/api/campaigns/{table.campaign_id}/actions",
                headers={"Authorization": f"Bearer {table.tokens[1]}"},
                json={
                    "system": "cat",
                    "action": "test_fate",
                    "character_id": table.cats[1],
                    "params": {"trait": "claws", "difficulty": "moderate"},
                },
            )
        weight = await weigh(client, path, headers)
    await viewers(server.url, path, cookie, args.viewers, 1.0)  # warm-up
    times, errors = await viewers(server.url, path, cookie, args.viewers, args.duration)
    return {**weight, "requests": len(times), "errors": errors, "latency_ms": latency_summary_ms(times)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", type=int, default=8)
    parser.add_argument("--duration", type=float, default=10.0)
    server_arguments(parser)
    args = parser.parse_args()
    info, tmp, database_url, backend, server = launch(args, "fateboard-bench-pages-")
    try:
        table = seed_tables(database_url, 1, 4, cats_every=1, prefix="page")[0]
        result = asyncio.run(run(server, table, args))
    finally:
        stop_server(server)
    print()
    for item in result["items"]:
        print(f"  {item['path']:<40} {item['bytes']:>8} B  {item['encoding']}")
    print(f"sheet page at {args.viewers} viewers: {result['requests']} requests, {result['latency_ms']}")
    targets = {
        "kb<=60": verdict(
            "KB transferred for a first load of the sheet page", result["kb"], TARGET_KB, higher_is_better=False
        ),
        "no_third_party": verdict("requests to other hosts", len(result["foreign"]), 0, higher_is_better=False),
        "p99_ms<=20": verdict(
            f"sheet page p99 ms at {args.viewers} viewers",
            result["latency_ms"]["p99"],
            TARGET_P99_MS,
            higher_is_better=False,
        ),
        "errors==0": verdict("errors", result["errors"], 0, higher_is_better=False),
    }
    summary_line(
        {
            "bench": "pages",
            "backend": backend,
            "machine": info,
            "viewers": args.viewers,
            **result,
            "targets": {k: "MET" if v else "MISSED" for k, v in targets.items()},
        }
    )
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
