"""Live panels (issue 22): what a new log entry costs the pages that are open, as a browser refreshes them.

Per table a narrator's campaign page and four players' sheet pages (one Cat each) are opened the way a browser
opens them: the page's HTML (with a session cookie), then its live stream. The narrator rolls from the campaign
page's dice box (a form post, as htmx sends it), every other roll "as" one of the four cats. Every page's stream
gets the events; for each event the client does exactly the fetches static/js/app.js would do for this page's
markup (each live panel's URL once: the panels that follow the event — `<event>`, or `<event>:<id>` where an
entry's id is its character — read from the page's `data-live` / `data-live-url` attributes, the page itself
where a panel names no URL, and the htmx `hx-trigger="…-changed from:body"` panels). Per entry it reports the
bytes, the SQL statements (counted in the server process: bench/panels_server.py) and the server's CPU spent on
those refreshes, and the same for the roller's own answer (the dice box). `--server-root` runs another tree's
app (e.g. the code before a change) under the same client.

Targets: every fragment refreshed for an entry is at most 3 KB and runs at most one query besides the access
check every request pays (the session and membership: measured on /odds, which reads nothing else); the roll's
answer runs no query to draw anything but the dice box (at most the roll's own statements).

    .venv/bin/python bench/panels.py
    .venv/bin/python bench/panels.py --tables 3 --entries 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2  # noqa: E402
from common import (  # noqa: E402
    cleanup,
    machine,
    prepare_database,
    seed_tables,
    server_arguments,
    signed_in_cookie,
    start_server,
    stop_server,
    summary_line,
    verdict,
    warn_if_busy,
    workdir,
)

TARGET_FRAGMENT_BYTES = 3000
TARGET_FRAGMENT_QUERIES = 1  # besides the access check
SETTLE = 0.25  # after the entry reached every page: events that follow it (app.js gathers them for 120 ms)
CHANGED = re.compile(r"([\w:-]+)-changed from:body")
TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(pid: int) -> float:
    """The server process's CPU seconds so far (user + system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


@dataclass
class Panel:
    id: str
    events: set[str]
    url: str


class LivePanels(HTMLParser):
    """The live panels of a page as app.js finds them, its stream and the dice box's hidden fields."""

    def __init__(self, page_url: str) -> None:
        super().__init__()
        self.page_url = page_url
        self.panels: list[Panel] = []
        self.stream = ""
        self.last_seq = "0"
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "data-stream" in a:
            self.stream, self.last_seq = a["data-stream"], a.get("data-last-seq", "0") or "0"
        if "data-live" in a and a.get("id"):
            url = a.get("data-live-url") or self.page_url
            self.panels.append(Panel(a["id"], set(a["data-live"].split()), url))
        trigger = a.get("hx-trigger", "")
        if "hx-get" in a and CHANGED.search(trigger):
            events = {m.group(1) for m in CHANGED.finditer(trigger)}
            self.panels.append(Panel(a.get("hx-target", a.get("id", "")), events, a["hx-get"]))
        if tag == "input" and a.get("type") == "hidden" and a.get("name") in ("csrf_token", "idempotency_key"):
            self.hidden.setdefault(a["name"], a.get("value", ""))


@dataclass
class Page:
    name: str
    path: str
    cookie: str
    panels: list[Panel] = field(default_factory=list)
    stream: str = ""
    last_seq: str = "0"
    hidden: dict[str, str] = field(default_factory=dict)
    events: asyncio.Queue[tuple[str, str]] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None

    def fetches(self, events: list[tuple[str, str]]) -> list[str]:
        """The URLs app.js fetches for these events: each panel that follows one, each URL once."""
        urls: list[str] = []
        for kind, data in events:
            names = {kind, f"{kind}:{data}"} if data else {kind}
            for panel in self.panels:
                follows = panel.events & names or (data == "*" and any(e.startswith(f"{kind}:") for e in panel.events))
                if follows and panel.url not in urls:
                    urls.append(panel.url)
            # A page without a prompts panel asks for the campaign's prompts (the toast) on these two.
            if kind in ("prompts", "encounter") and not any(p.id == "prompts-panel" for p in self.panels):
                url = self.stream.replace("/stream", "/prompts")
                if url not in urls:
                    urls.append(url)
        return urls


async def open_page(client: httpx2.AsyncClient, page: Page) -> None:
    r = await client.get(page.path, headers={"Cookie": page.cookie})
    assert r.status_code == 200, (page.path, r.status_code)
    found = LivePanels(page.path)
    found.feed(r.text)
    page.panels, page.stream, page.last_seq, page.hidden = found.panels, found.stream, found.last_seq, found.hidden
    assert page.stream, f"{page.path} has no live stream"
    page.task = asyncio.create_task(listen(client, page))


async def listen(client: httpx2.AsyncClient, page: Page) -> None:
    """The page's EventSource: every event (name, data) goes to the page's queue."""
    headers = {"Cookie": page.cookie, "Accept": "text/event-stream"}
    async with client.stream("GET", f"{page.stream}?after={page.last_seq}", headers=headers, timeout=None) as r:
        assert r.status_code == 200, r.status_code
        kind, lines = "message", list[str]()
        async for line in r.aiter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                lines.append(line[5:].strip())
            elif line == "":
                data = "\n".join(lines)
                if kind == "entry":  # app.js names an entry by its character (a correction reaches them all)
                    who = re.search(r'data-character="(\d*)"', data)
                    data = "*" if "data-voids=" in data else (who.group(1) if who else "")
                if kind != "message":
                    await page.events.put((kind, data))
                kind, lines = "message", []


@dataclass
class Cost:
    fetches: int = 0
    bytes: int = 0
    queries: int = 0
    max_bytes: int = 0
    max_queries: int = 0


async def fetch(client: httpx2.AsyncClient, page: Page, url: str, cost: Cost) -> None:
    r = await client.get(url, headers={"Cookie": page.cookie})
    assert r.status_code == 200, (url, r.status_code)
    queries = int(r.headers.get("x-bench-queries", "0"))
    cost.fetches += 1
    cost.bytes += len(r.content)
    cost.queries += queries
    cost.max_bytes = max(cost.max_bytes, len(r.content))
    cost.max_queries = max(cost.max_queries, queries)


async def drain(page: Page, deadline: float) -> list[tuple[str, str]]:
    """Wait (bounded) for the entry on this page's stream, then gather what follows it for SETTLE seconds."""
    got: list[tuple[str, str]] = []
    while not any(k == "entry" for k, _ in got):
        got.append(await asyncio.wait_for(page.events.get(), max(0.1, deadline - time.monotonic())))
    await asyncio.sleep(SETTLE)
    while not page.events.empty():
        got.append(page.events.get_nowait())
    return got


async def run_table(client: httpx2.AsyncClient, server: Any, seeded: Any, args: argparse.Namespace) -> dict[str, Any]:
    cid = seeded.campaign_id
    cookies = []
    for name in seeded.usernames:
        client.cookies.clear()
        cookies.append(await signed_in_cookie(client, name))
    client.cookies.clear()
    table = Page("campaign", f"/campaigns/{cid}", cookies[0])
    sheets = [Page(f"sheet{i}", f"/campaigns/{cid}/characters/{seeded.cats[i]}", cookies[i]) for i in range(1, 5)]
    pages = [table, *sheets]
    for page in pages:
        await open_page(client, page)
    await asyncio.sleep(0.3)  # every stream subscribed
    access = await client.get(f"/campaigns/{cid}/odds?expression=d6", headers={"Cookie": cookies[0]})
    access_queries = int(access.headers.get("x-bench-queries", "0"))
    rows = []
    for n in range(args.entries):
        form = {
            "csrf_token": table.hidden.get("csrf_token", ""),
            "idempotency_key": f"{table.hidden.get('idempotency_key', 'bench')}-{n}",
            "expression": "2d6+1",
            "visibility": "public",
            "note": "",
            # Every other roll as one of the players' cats (the narrator may act for any character).
            "character_id": str(seeded.cats[1 + (n // 2) % 4]) if n % 2 else "",
        }
        cpu0 = server_cpu(server.pid)
        r = await client.post(
            f"/campaigns/{cid}/roll", data=form, headers={"Cookie": table.cookie, "HX-Request": "true"}
        )
        assert r.status_code == 200, (r.status_code, r.text[:300])
        answer = {"bytes": len(r.content), "queries": int(r.headers.get("x-bench-queries", "0"))}
        deadline = time.monotonic() + 10
        received = await asyncio.gather(*(drain(page, deadline) for page in pages))
        cpu1 = server_cpu(server.pid)
        cost = Cost()
        per_page = {}
        for page, events in zip(pages, received, strict=True):
            page_cost = Cost()
            for url in page.fetches(events):
                await fetch(client, page, url, page_cost)
            per_page[page.name] = {
                "events": sorted({k for k, _ in events}),
                "fetches": page_cost.fetches,
                "bytes": page_cost.bytes,
                "queries": page_cost.queries,
            }
            cost.fetches += page_cost.fetches
            cost.bytes += page_cost.bytes
            cost.queries += page_cost.queries
            cost.max_bytes = max(cost.max_bytes, page_cost.max_bytes)
            cost.max_queries = max(cost.max_queries, page_cost.max_queries)
        cpu2 = server_cpu(server.pid)
        rows.append(
            {
                "as_cat": n % 2 == 1,
                "answer": answer,
                "answer_and_fanout_cpu_ms": (cpu1 - cpu0) * 1000,
                "refresh": cost,
                "refresh_cpu_ms": (cpu2 - cpu1) * 1000,
                "pages": per_page,
            }
        )
    for page in pages:
        if page.task:
            page.task.cancel()
    await asyncio.gather(*(p.task for p in pages if p.task), return_exceptions=True)
    return {"access_queries": access_queries, "rows": rows}


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


async def run(server: Any, seeded: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    limits = httpx2.Limits(max_connections=100, max_keepalive_connections=20)
    async with httpx2.AsyncClient(base_url=server.url, timeout=30, limits=limits) as client:
        tables = [await run_table(client, server, s, args) for s in seeded]
    rows = [row for t in tables for row in t["rows"]]
    access = max(t["access_queries"] for t in tables)
    n = len(rows)
    mean = lambda values: round(sum(values) / n, 2)  # noqa: E731
    example = rows[-1]["pages"]
    return {
        "entries": n,
        "access_check_queries": access,
        "per_entry": {
            "refresh_fetches": mean([r["refresh"].fetches for r in rows]),
            "refresh_bytes": mean([r["refresh"].bytes for r in rows]),
            "refresh_queries": mean([r["refresh"].queries for r in rows]),
            "refresh_server_cpu_ms": mean([r["refresh_cpu_ms"] for r in rows]),
            "answer_bytes": mean([r["answer"]["bytes"] for r in rows]),
            "answer_queries": mean([r["answer"]["queries"] for r in rows]),
            "answer_and_fanout_server_cpu_ms": mean([r["answer_and_fanout_cpu_ms"] for r in rows]),
        },
        "by_roll": {
            label: {
                "refresh_fetches": _mean([r["refresh"].fetches for r in rows if r["as_cat"] == cat]),
                "refresh_bytes": _mean([r["refresh"].bytes for r in rows if r["as_cat"] == cat]),
                "refresh_queries": _mean([r["refresh"].queries for r in rows if r["as_cat"] == cat]),
            }
            for label, cat in (("plain", False), ("as_a_cat", True))
        },
        "max_fragment_bytes": max(r["refresh"].max_bytes for r in rows),
        "max_fragment_queries": max(r["refresh"].max_queries for r in rows),
        "pages_last_entry": example,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--entries", type=int, default=10, help="rolls per table")
    server_arguments(parser)
    args = parser.parse_args()
    if args.workers != 1:
        raise SystemExit("bench/panels.py counts queries in one server process: --workers 1")
    info = machine()
    warn_if_busy(info)
    tmp = workdir("fateboard-bench-panels-")
    database_url = prepare_database(args.database_url, tmp)
    backend = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    server = start_server(
        database_url,
        tmp,
        wrapper=args.server_wrapper,
        root=args.server_root or None,
        extra_env=dict(kv.split("=", 1) for kv in args.server_env),
        asgi_app="panels_server:app",
        app_dir="bench",
    )
    print(f"server pid {server.pid} on {server.url} ({backend}); work dir {tmp}", file=sys.stderr)
    try:
        seeded = seed_tables(database_url, args.tables, 5, cats_every=1, prefix="panel")
        result = asyncio.run(run(server, seeded, args))
    finally:
        stop_server(server)
    per = result["per_entry"]
    print()
    print(f"{result['entries']} entries, {args.tables} tables (a campaign page and four sheet pages each)")
    print(
        f"  refresh per entry, all five pages: {per['refresh_fetches']} fetches, {per['refresh_bytes']} B, "
        f"{per['refresh_queries']} queries, {per['refresh_server_cpu_ms']} ms server CPU"
    )
    print(
        f"  the roller's answer: {per['answer_bytes']} B, {per['answer_queries']} queries "
        f"(with the fan-out: {per['answer_and_fanout_server_cpu_ms']} ms server CPU)"
    )
    for label, split in result["by_roll"].items():
        print(f"  rolls {label}: {split}")
    for name, page in result["pages_last_entry"].items():
        print(f"  {name:<9} {page}")
    extra = result["max_fragment_queries"] - result["access_check_queries"]
    targets = {
        "fragment_bytes<=3000": verdict(
            "largest fragment refreshed for an entry (bytes)",
            result["max_fragment_bytes"],
            TARGET_FRAGMENT_BYTES,
            higher_is_better=False,
        ),
        "fragment_queries<=1": verdict(
            "queries of a fragment besides the access check", extra, TARGET_FRAGMENT_QUERIES, higher_is_better=False
        ),
    }
    summary_line(
        {
            "bench": "panels",
            "backend": backend,
            "machine": info,
            "tables": args.tables,
            **result,
            "targets": {k: "MET" if v else "MISSED" for k, v in targets.items()},
        }
    )
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
