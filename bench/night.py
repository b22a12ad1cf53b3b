"""A busy night on one box (issue 27 §2): 1,000 campaigns x 6 members, every member a browser with its page and
its live stream open (6,000 page streams, session cookies, HTML entries), each table making one action every ~5 s
(a dice roll — some of them blind —, a Cat test of fate, or a line of talk — some of them whispers), and every open
page re-fetching what app.js re-fetches when its stream says something changed.

The browsers. Each member opens one page: the narrator the narrator screen (`--narrator-page`), in a campaign that
plays the Cat `--sheet-viewers` players their cat's sheet, the others the campaign page. The page's HTML is read
as app.js reads it: every element with `data-live="<events>"` and an id is a panel, fetched again from its
`data-live-url` (default: the page's own URL) when the stream announces one of its events (`entry`, `sheet:<id>`,
`prompts`, …), gathered for 120 ms and fetched once per URL, as `flush()` does; a page without a prompts panel
asks `/campaigns/{id}/prompts` on `prompts` and `encounter`. So whatever main serves is what is measured: when the
panels name fragment URLs, the benchmark fetches fragments (`--refetch none` leaves re-fetching out, to see the
streams and the actions alone). Page fetches share a pool of keep-alive connections (`--page-connections`).

The server: what is recommended for hosting — PostgreSQL, the Redis broker, `python -m app.serve --workers N`
(`--workers 2` by default; one worker runs uvicorn directly). `--server-cpus 0` pins it with `taskset`.

Targets: action p99 <= 100 ms, entry-to-every-stream p99 <= 250 ms (from sending the POST to the entry's arrival on
every stream of its campaign), <= 30 KiB of server memory per idle stream (RSS of every server process, before
and after the streams open), 0 errors, and every stream exact: it got every seq of its campaign once, in order,
and a whisper's words on exactly the streams of its readers. Bounded: `--duration` s of load, `--drain-timeout`
s for the streams to catch up; the file-descriptor limit is raised to its hard limit. Loopback only.

    .venv/bin/python bench/night.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/fb_night_bench
    .venv/bin/python bench/night.py --campaigns 50 --duration 20 --database-url …     # a quick, smaller run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import resource
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    HOST,
    NEW_CAT,
    PASSWORD,
    RawHTTP,
    cleanup,
    latency_summary_ms,
    machine,
    prepare_database,
    start_server,
    stop_server,
    summary_line,
    verdict,
    warn_if_busy,
    workdir,
)
from multiproc import reachable  # noqa: E402

TARGET_ACTION_P99_MS = 100.0
TARGET_ARRIVAL_P99_MS = 250.0
TARGET_KIB_PER_STREAM = 30.0
PG_BENCH = "postgresql+psycopg://postgres@127.0.0.1:5432/fb_night_bench"
SECRET = "bench-secret"  # start_server's FATEBOARD_SECRET_KEY: the benchmark signs its browsers' cookies with it
DEBOUNCE = 0.12  # app.js gathers live events for 120 ms before it re-fetches
WHISPER_MARK = re.compile(r"nightsecret[0-9a-f]{12}")
PANEL = re.compile(r"<[a-z]+\b[^>]*\bdata-live=\"([^\"]*)\"[^>]*>")


# ------------------------------------------------------------------------------------------------ seeding


@dataclass
class Member:
    user_id: int
    token: str
    cookie: str
    cat: int | None = None  # their cat (a player in a campaign that plays the Cat)


@dataclass
class Campaign:
    campaign_id: int
    members: list[Member]  # narrator first
    cat: bool


def seed(database_url: str, campaigns: int, members: int, *, processes: int = 1) -> list[Campaign]:
    """`seed_slice` over `processes` processes (PostgreSQL takes them in parallel; SQLite gets one)."""
    if processes <= 1 or not database_url.startswith("postgresql"):
        return seed_slice(database_url, range(campaigns), members)
    from concurrent.futures import ProcessPoolExecutor

    slices = [range(i, campaigns, processes) for i in range(processes)]
    with ProcessPoolExecutor(processes) as pool:
        parts = list(pool.map(seed_slice, [database_url] * processes, slices, [members] * processes))
    return sorted((c for part in parts for c in part), key=lambda c: c.campaign_id)


def seed_slice(database_url: str, numbers: range, members: int, *, cats_every: int = 2) -> list[Campaign]:
    """Accounts, campaigns, memberships, cats, API tokens and signed-in browser sessions, straight through the
    services (argon2 at test cost; thousands of sign-ins through the form would spend minutes hashing). Each
    browser's cookie is signed as SessionCookieMiddleware signs it, with the server's (bench) secret."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from itsdangerous import URLSafeTimedSerializer
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher
    from utils.tables import seat_table  # tests/utils, on the path since common is imported

    from app.accounts import service as accounts
    from app.campaigns import service as campaign_service
    from app.characters.service import create_character
    from app.db import make_engine, make_sessionmaker
    from app.security import COOKIE, new_session_data

    signer = URLSafeTimedSerializer(SECRET, salt="fateboard.session")
    accounts.password_hasher = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    engine = make_engine(database_url)
    factory = make_sessionmaker(engine)
    out: list[Campaign] = []
    try:
        for c in numbers:
            with factory() as db:
                cat = c % cats_every == 0
                names = tuple(f"n{c}m{i}" for i in range(members))
                systems = ("dice", "cat") if cat else ("dice",)
                campaign, seated = seat_table(db, names, systems=systems, name=f"Night {c}", password=PASSWORD)
                users = list(seated.values())
                people = []
                for i, user in enumerate(users):
                    token = accounts.create_token(db, user, "bench")[1]
                    sid = accounts.start_login_session(db, user)
                    cookie = f"{COOKIE}={signer.dumps(new_session_data(sid))}"
                    cat_id = None
                    if cat and i > 0:
                        acc = campaign_service.access(db, user, campaign.id)
                        cat_id = create_character(db, acc, name=f"Smoke {i}", system="cat", sheet=NEW_CAT).id
                    people.append(Member(user.id, token, cookie, cat_id))
                db.commit()
                out.append(Campaign(campaign.id, people, cat))
    finally:
        engine.dispose()
    return out


# ------------------------------------------------------------------------------------------------ the server


def tree(pid: int) -> list[int]:
    """The process and its descendants (app.serve's workers), from /proc."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(x) for x in (task / "children").read_text().split())
    return out


def tree_rss_kib(pid: int) -> int:
    total = 0
    for p in tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def tree_cpu_seconds(pid: int) -> float:
    total = 0.0
    for p in tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK")
    return total


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raise_fd_limit(want: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, want)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))  # inherited by the server it starts
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ------------------------------------------------------------------------------------------------ the browsers


@dataclass
class Stats:
    action_lat: list[float] = field(default_factory=list)
    page_lat: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # (campaign, seq) -> when the POST went out
    whispers: dict[tuple[int, int], tuple[str, frozenset[int]]] = field(default_factory=dict)  # -> (mark, readers)
    kinds: dict[str, int] = field(default_factory=dict)
    pages_by_kind: dict[str, int] = field(default_factory=dict)

    def error(self, text: str) -> None:
        self.errors.append(text[:160])


class PagePool:
    """Keep-alive connections shared by every browser's page fetches (a real browser has its own; 6,000 more
    idle sockets would only measure the kernel). A connection the server closed is opened again once."""

    def __init__(self, port: int, size: int, stats: Stats) -> None:
        self.port, self.stats = port, stats
        self.free: asyncio.Queue[RawHTTP] = asyncio.Queue()
        for _ in range(size):
            self.free.put_nowait(RawHTTP(HOST, port))

    async def get(self, path: str, cookie: str, kind: str, *, measure: bool = True) -> str | None:
        conn = await self.free.get()
        raw = conn.build("GET", path, {"Cookie": cookie, "X-Fateboard-Live": "1"})
        try:
            for attempt in (0, 1):
                t0 = time.perf_counter()
                try:
                    status, body = await asyncio.wait_for(conn.send(raw), 30)
                except (OSError, asyncio.IncompleteReadError, ConnectionError) as exc:
                    await conn.close()
                    if attempt:
                        self.stats.error(f"page {path}: {type(exc).__name__}")
                        return None
                    continue
                except TimeoutError:
                    await conn.close()
                    self.stats.error(f"page {path}: timeout")
                    return None
                if status != 200:
                    self.stats.error(f"page {path}: HTTP {status}")
                    return None
                if measure:
                    self.stats.page_lat.append(time.perf_counter() - t0)
                    self.stats.pages_by_kind[kind] = self.stats.pages_by_kind.get(kind, 0) + 1
                return body.decode()
            return None
        finally:
            self.free.put_nowait(conn)


@dataclass
class Panel:
    events: list[str]
    url: str


def panels_of(html: str, page_url: str) -> list[Panel]:
    """What app.js would re-fetch: every element with data-live and an id, from its data-live-url or the page."""
    out = []
    for match in PANEL.finditer(html):
        tag = match.group(0)
        if not re.search(r"\bid=\"[^\"]+\"", tag):
            continue  # flush() skips panels without an id
        url = re.search(r"\bdata-live-url=\"([^\"]*)\"", tag)
        out.append(Panel(match.group(1).split(), (url.group(1) if url else page_url).replace("&amp;", "&")))
    return out


@dataclass(eq=False)
class Browser:
    campaign_id: int
    member: Member
    page_kind: str
    page_url: str
    panels: list[Panel] = field(default_factory=list)
    prompts_url: str | None = None  # remotePrompts(): a page without a prompts panel asks the campaign's
    arrivals: list[tuple[int, float]] = field(default_factory=list)
    marks: dict[int, set[str]] = field(default_factory=dict)  # seq -> whisper marks seen in its HTML
    pending: set[str] = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    error: str | None = None
    events: int = 0

    def learn(self, html: str) -> None:
        self.panels = panels_of(html, self.page_url)
        has_prompts = 'id="prompts-panel"' in html or any("prompts" in p.events for p in self.panels)
        self.prompts_url = None if has_prompts else f"/campaigns/{self.campaign_id}/prompts"


def announce(browser: Browser, kind: str, ident: str, pool: PagePool | None) -> None:
    """app.js's announce(): the panels that want this event are queued; flush after 120 ms, once per URL."""
    if pool is None:
        return
    names = {kind, f"{kind}:{ident}"} if ident else {kind}
    for panel in browser.panels:
        if names.intersection(panel.events):
            browser.pending.add(panel.url)
    if kind in ("prompts", "encounter") and browser.prompts_url:
        browser.pending.add(browser.prompts_url)
    if browser.pending and browser.timer is None:
        loop = asyncio.get_running_loop()
        browser.timer = loop.call_later(DEBOUNCE, lambda: loop.create_task(flush(browser, pool)))


async def flush(browser: Browser, pool: PagePool) -> None:
    browser.timer = None
    urls, browser.pending = browser.pending, set()
    await asyncio.gather(*(refetch(browser, pool, url) for url in urls))


async def refetch(browser: Browser, pool: PagePool, url: str) -> None:
    html = await pool.get(url, browser.member.cookie, f"refetch {browser.page_kind}")
    if html is not None and url == browser.page_url:
        browser.learn(html)  # a whole page again: its panels may have changed


async def page_stream(port: int, browser: Browser, pool: PagePool | None, stop: asyncio.Event) -> None:
    """The page's EventSource on a bare connection (chunked decoding by hand: little client CPU)."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        path = f"/campaigns/{browser.campaign_id}/stream?after=0"
        head = [f"GET {path} HTTP/1.1", f"Host: {HOST}:{port}", "Accept: text/event-stream"]
        head.append(f"Cookie: {browser.member.cookie}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        status_head = await reader.readuntil(b"\r\n\r\n")
        status = int(status_head.split(b" ", 2)[1])
        if status != 200:
            browser.error = f"HTTP {status}"
            return
        chunked = b"transfer-encoding: chunked" in status_head.lower()
        buf = ""
        state: dict[str, Any] = {}
        while not stop.is_set():
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    break
                chunk = (await reader.readexactly(size + 2))[:-2]
            else:
                chunk = await reader.read(65536)
                if not chunk:
                    break
            browser.ready.set()
            buf += chunk.decode()
            *lines, buf = buf.split("\n")
            for line in lines:
                if line.startswith("id: "):
                    state["id"], state["t"] = int(line[4:]), time.perf_counter()
                elif line.startswith("event: "):
                    state["event"] = line[7:]
                elif line.startswith("data: "):
                    state.setdefault("data", []).append(line[6:])
                elif line == "":
                    event = state.get("event")
                    if event == "entry" and state.get("id") is not None:
                        seq = state["id"]
                        browser.arrivals.append((seq, state["t"]))
                        found = WHISPER_MARK.findall("\n".join(state.get("data", [])))
                        if found:
                            browser.marks[seq] = set(found)
                        browser.events += 1
                        announce(browser, "entry", str(seq), pool)
                    elif event:
                        browser.events += 1
                        announce(browser, event, "\n".join(state.get("data", [])), pool)
                    state = {}
        if not stop.is_set():
            browser.error = "the stream ended"
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported per stream
        browser.error = f"{type(exc).__name__}: {exc}"[:160]
    finally:
        browser.ready.set()
        if writer is not None:
            writer.close()


# ------------------------------------------------------------------------------------------------ the tables


def action_bodies(table: Campaign, actor: int, rng: random.Random) -> tuple[str, str, dict[str, Any], Any]:
    """(kind, path, body, whisper readers or None): a roll (one in five blind), a Cat test of fate (a player's
    cat), or talk (one line in three a whisper to another member, carrying a mark only its readers may read)."""
    member = table.members[actor]
    choices = ["roll", "talk"] + (["cat"] if member.cat is not None else [])
    kind = rng.choice(choices)
    base = f"/api/campaigns/{table.campaign_id}"
    if kind == "roll":
        visibility = "blind" if rng.random() < 0.2 else "public"
        body = {"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}, "visibility": visibility}
        return ("roll blind" if visibility == "blind" else "roll"), f"{base}/actions", body, None
    if kind == "cat":
        body = {
            "system": "cat",
            "action": "test_fate",
            "character_id": member.cat,
            "visibility": "public",
            "params": {"trait": "claws", "difficulty": "moderate"},
        }
        return "cat test", f"{base}/actions", body, None
    if rng.random() < 1 / 3:
        other = rng.choice([m for i, m in enumerate(table.members) if i != actor])
        mark = f"nightsecret{secrets.token_hex(6)}"
        body = {"text": f"psst {mark}", "visibility": "whisper", "to": [other.user_id]}
        return "whisper", f"{base}/messages", body, (mark, frozenset({member.user_id, other.user_id}))
    return "talk", f"{base}/messages", {"text": "The *moon* is up. Who keeps watch?"}, None


async def table_loop(
    port: int, table: Campaign, think: float, stop_at: float, stats: Stats, rng: random.Random
) -> None:
    conn = RawHTTP(HOST, port)
    idle_since = time.perf_counter()
    await asyncio.sleep(rng.uniform(0, think))  # tables do not start in step
    try:
        while time.perf_counter() < stop_at:
            actor = rng.randrange(len(table.members))
            kind, path, body, whisper = action_bodies(table, actor, rng)
            raw = conn.build(
                "POST", path, {"Authorization": f"Bearer {table.members[actor].token}"}, json.dumps(body).encode()
            )
            if time.perf_counter() - idle_since > 4.0:
                await conn.close()  # uvicorn closes keep-alive connections idle for 5 s: come back on a new one
            t0 = time.perf_counter()
            try:
                status, answer = await asyncio.wait_for(conn.send(raw), 30)
            except Exception as exc:  # noqa: BLE001 - counted, not fatal
                stats.error(f"action {kind}: {type(exc).__name__}: {exc}")
                await conn.close()
                idle_since = time.perf_counter()
                await asyncio.sleep(rng.uniform(think * 0.5, think * 1.5))
                continue
            if status == 201:
                stats.action_lat.append(time.perf_counter() - t0)
                seq = json.loads(answer)["seq"]
                stats.sent[(table.campaign_id, seq)] = t0
                stats.kinds[kind] = stats.kinds.get(kind, 0) + 1
                if whisper is not None:
                    stats.whispers[(table.campaign_id, seq)] = whisper
            else:
                stats.error(f"action {kind}: HTTP {status}: {answer[:100]!r}")
            idle_since = time.perf_counter()
            await asyncio.sleep(rng.uniform(think * 0.5, think * 1.5))
    finally:
        await conn.close()


def browsers_for(tables: list[Campaign], narrator_page: str, sheet_viewers: int) -> list[Browser]:
    out = []
    for t in tables:
        for i, m in enumerate(t.members):
            base = f"/campaigns/{t.campaign_id}"
            if i == 0:
                kind, url = ("narrator screen", f"{base}/narrator") if narrator_page == "narrator" else ("table", base)
            elif m.cat is not None and i <= sheet_viewers:
                kind, url = "sheet", f"{base}/characters/{m.cat}"
            else:
                kind, url = "table", base
            out.append(Browser(t.campaign_id, m, kind, url))
    return out


async def heads(pool: PagePool, tables: list[Campaign]) -> dict[int, int]:
    async def head(t: Campaign) -> tuple[int, int]:
        conn = await pool.free.get()
        try:
            raw = conn.build(
                "GET", f"/api/campaigns/{t.campaign_id}", {"Authorization": f"Bearer {t.members[0].token}"}
            )
            for attempt in (0, 1):
                try:
                    status, body = await asyncio.wait_for(conn.send(raw), 60)
                    return t.campaign_id, json.loads(body)["last_seq"] if status == 200 else -1
                except (OSError, asyncio.IncompleteReadError, ConnectionError):
                    await conn.close()
                    if attempt:
                        raise
            return t.campaign_id, -1
        finally:
            pool.free.put_nowait(conn)

    return dict(await asyncio.gather(*(head(t) for t in tables)))


async def run(server: Any, tables: list[Campaign], args: argparse.Namespace) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(args.seed)
    pool = PagePool(server.port, args.page_connections, stats)
    browsers = browsers_for(tables, args.narrator_page, args.sheet_viewers)

    # Every browser loads its page first (what it will re-fetch is read from it).
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(args.page_connections)

    async def first_load(b: Browser) -> None:
        async with sem:
            html = await pool.get(b.page_url, b.member.cookie, f"load {b.page_kind}", measure=False)
        if html is not None:
            b.learn(html)

    await asyncio.gather(*(first_load(b) for b in browsers))
    load_errors = len(stats.errors)
    load_seconds = time.perf_counter() - t0
    kinds = sorted({b.page_kind for b in browsers})
    panels = {
        k: next(([p.url.split("?")[0] for p in b.panels] for b in browsers if b.page_kind == k), []) for k in kinds
    }
    print(
        f"{len(browsers)} pages loaded in {load_seconds:.1f} s ({load_errors} errors); panels {panels}", file=sys.stderr
    )

    # Let the start-up's garbage settle, then open every stream and measure what they hold while idle.
    await asyncio.sleep(2.0)
    rss_before = tree_rss_kib(server.pid)
    cpu_open = tree_cpu_seconds(server.pid)
    stop = asyncio.Event()
    refetch_pool = pool if args.refetch == "page" else None
    opened = time.perf_counter()
    tasks = []
    for n, b in enumerate(browsers):
        tasks.append(asyncio.create_task(page_stream(server.port, b, refetch_pool, stop)))
        if n % 200 == 199:
            await asyncio.sleep(0.05)  # not 6,000 connections in one burst
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(b.ready.wait() for b in browsers)), args.open_timeout)
    open_seconds = time.perf_counter() - opened
    cpu_open = tree_cpu_seconds(server.pid) - cpu_open
    await asyncio.sleep(args.idle)
    rss_streams = tree_rss_kib(server.pid)
    open_ok = sum(1 for b in browsers if b.ready.is_set() and b.error is None)
    print(
        f"{open_ok}/{len(browsers)} streams open in {open_seconds:.1f} s; server RSS {rss_before} -> {rss_streams} KiB",
        file=sys.stderr,
    )

    # The night: every table acts every ~think s, every page re-fetches what it re-fetches.
    gc.collect()
    gc.freeze()
    stop_at = time.perf_counter() + args.duration
    started = time.perf_counter()
    cpu_server, cpu_client = tree_cpu_seconds(server.pid), own_cpu_seconds()
    load_before = os.getloadavg()[0]
    await asyncio.gather(*(table_loop(server.port, t, args.think, stop_at, stats, rng) for t in tables))
    elapsed = time.perf_counter() - started
    cpu_server = tree_cpu_seconds(server.pid) - cpu_server
    cpu_client = own_cpu_seconds() - cpu_client
    load_during = os.getloadavg()[0]

    # Every campaign's head as the server has it (an action whose client gave up may still have been committed).
    last = await heads(pool, tables)
    deadline = time.monotonic() + args.drain_timeout
    while time.monotonic() < deadline:
        if all(len(b.arrivals) >= last.get(b.campaign_id, 0) or b.error for b in browsers):
            break
        await asyncio.sleep(0.25)
    await asyncio.sleep(DEBOUNCE * 3)  # the last re-fetches
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    arrivals = [
        t - stats.sent[(b.campaign_id, seq)]
        for b in browsers
        for seq, t in b.arrivals
        if (b.campaign_id, seq) in stats.sent
    ]
    exact, leaks, withheld = 0, 0, 0
    for b in browsers:
        seqs = [seq for seq, _ in b.arrivals]
        ok = b.error is None and seqs == list(range(1, last.get(b.campaign_id, 0) + 1))
        for (cid, seq), (mark, readers) in stats.whispers.items():
            if cid != b.campaign_id:
                continue
            shown = mark in b.marks.get(seq, set())
            if shown and b.member.user_id not in readers:
                leaks += 1
                ok = False
            elif not shown and b.member.user_id in readers:
                withheld += 1
                ok = False
        exact += ok
    return {
        "streams": len(browsers),
        "streams_open": open_ok,
        "streams_exact": exact,
        "whisper_leaks": leaks,
        "whispers_withheld": withheld,
        "stream_errors": [b.error for b in browsers if b.error][:3],
        "open_seconds": round(open_seconds, 1),
        "first_load_seconds": round(load_seconds, 1),
        "rss_kib_before_streams": rss_before,
        "rss_kib_with_streams": rss_streams,
        "kib_per_idle_stream": round((rss_streams - rss_before) / max(1, len(browsers)), 1),
        "server_cpu_ms_per_stream_opened": round(1000 * cpu_open / max(1, len(browsers)), 3),
        "actions": len(stats.action_lat),
        "actions_per_s": round(len(stats.action_lat) / elapsed, 1),
        "action_kinds": stats.kinds,
        "action_ms": latency_summary_ms(stats.action_lat),
        "arrivals": len(arrivals),
        "arrival_ms": latency_summary_ms(arrivals),
        "page_loads": len(stats.page_lat),
        "page_loads_per_s": round(len(stats.page_lat) / elapsed, 1),
        "page_loads_by_kind": stats.pages_by_kind,
        "page_ms": latency_summary_ms(stats.page_lat),
        "server_cpu_s": round(cpu_server, 1),
        "server_cores_busy": round(cpu_server / elapsed, 2),
        "server_cpu_ms_per_action": round(1000 * cpu_server / max(1, len(stats.action_lat)), 2),
        "client_cpu_s": round(cpu_client, 1),
        "loadavg_1m_during": round(load_during, 2),
        "loadavg_1m_at_load_start": round(load_before, 2),
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "entries": sum(last.values()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--members", type=int, default=6, help="narrator + players per campaign (default 6)")
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds between a table's actions")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    parser.add_argument("--drain-timeout", type=float, default=30.0)
    parser.add_argument("--open-timeout", type=float, default=180.0)
    parser.add_argument("--idle", type=float, default=5.0, help="seconds with every stream idle before measuring RSS")
    parser.add_argument("--narrator-page", choices=("narrator", "table"), default="narrator")
    parser.add_argument("--sheet-viewers", type=int, default=1, help="players per Cat campaign on their sheet page")
    parser.add_argument("--refetch", choices=("page", "none"), default="page", help="re-fetch panels on events")
    parser.add_argument("--page-connections", type=int, default=32)
    parser.add_argument("--database-url", default=PG_BENCH, help="a THROWAWAY PostgreSQL database on 127.0.0.1")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--server-cpus", default="", help="pin the server with taskset -c (e.g. 0, or 0-1)")
    parser.add_argument("--server-wrapper", default="")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--seed-processes", type=int, default=4, help="processes that create the tables (PostgreSQL)")
    parser.add_argument("--keep-workdir", action="store_true")
    args = parser.parse_args()
    if not args.redis_url.startswith(("redis://127.0.0.1", "redis://localhost")):
        parser.error("Redis must be on this machine")
    fds = raise_fd_limit(2 * args.campaigns * args.members + 2000)
    info = machine()
    warn_if_busy(info)
    tmp = workdir("fateboard-bench-night-")
    problem = reachable(args.database_url, args.redis_url) if args.database_url.startswith("postgresql") else None
    if problem:
        print(f"TARGET busy night: SKIPPED ({problem})")
        summary_line({"bench": "night", "machine": info, "skipped": problem})
        cleanup(tmp, keep=False)
        return 0
    database_url = prepare_database(args.database_url, tmp)
    backend = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    env = dict(kv.split("=", 1) for kv in args.server_env)
    if backend == "postgresql":
        env.update({"FATEBOARD_BROKER": "redis", "FATEBOARD_REDIS_URL": args.redis_url})
    wrapper = " ".join(
        filter(None, [f"taskset -c {args.server_cpus}" if args.server_cpus else "", args.server_wrapper])
    )
    server = start_server(database_url, tmp, workers=args.workers, extra_env=env, wrapper=wrapper, keepalive=15.0)
    print(
        f"server pid {server.pid} on {server.url} ({backend}, {args.workers} workers); fd limit {fds}", file=sys.stderr
    )
    try:
        t0 = time.perf_counter()
        tables = seed(database_url, args.campaigns, args.members, processes=args.seed_processes)
        print(
            f"seeded {args.campaigns} campaigns x {args.members} in {time.perf_counter() - t0:.1f} s", file=sys.stderr
        )
        try:
            import uvloop

            runner: Callable[..., Any] = uvloop.run
        except ImportError:
            runner = asyncio.run
        result = runner(run(server, tables, args))
    finally:
        stop_server(server)
    print()
    print(
        f"busy night: {backend}, {args.workers} worker(s){' on CPUs ' + args.server_cpus if args.server_cpus else ''}, "
        f"{args.campaigns} campaigns x {args.members} members, one action per table every ~{args.think:g} s, "
        f"{args.duration:g} s, {info['nproc']} cores, load {info['loadavg_1m_before']} before / "
        f"{result['loadavg_1m_during']} at the end"
    )
    print(f"actions {result['actions']} ({result['actions_per_s']}/s, {result['action_kinds']}): {result['action_ms']}")
    print(f"entry to every stream ({result['arrivals']} arrivals): {result['arrival_ms']}")
    print(
        f"page loads {result['page_loads']} ({result['page_loads_per_s']}/s, {result['page_loads_by_kind']}): "
        f"{result['page_ms']}"
    )
    print(
        f"server CPU {result['server_cpu_s']} s = {result['server_cores_busy']} cores busy, "
        f"{result['server_cpu_ms_per_action']} ms per action with its deliveries and re-fetches; client CPU "
        f"{result['client_cpu_s']} s"
    )
    print(
        f"streams {result['streams_exact']}/{result['streams']} exact ({result['streams_open']} open, whisper leaks "
        f"{result['whisper_leaks']}, withheld {result['whispers_withheld']}); {result['kib_per_idle_stream']} KiB per "
        f"idle stream; errors {result['errors']} {result['error_samples'][:2]}"
    )
    targets = {
        "action_p99_ms<=100": verdict(
            "action p99 ms", result["action_ms"]["p99"], TARGET_ACTION_P99_MS, higher_is_better=False
        ),
        "arrival_p99_ms<=250": verdict(
            "entry-to-every-stream p99 ms", result["arrival_ms"]["p99"], TARGET_ARRIVAL_P99_MS, higher_is_better=False
        ),
        "kib_per_idle_stream<=30": verdict(
            "KiB per idle stream", result["kib_per_idle_stream"], TARGET_KIB_PER_STREAM, higher_is_better=False
        ),
        "errors==0": verdict("errors", result["errors"], 0, higher_is_better=False),
        "streams_exact": verdict(
            "streams not exact (a missing, repeated or out-of-order entry, a whisper shown or withheld wrongly)",
            result["streams"] - result["streams_exact"],
            0,
            higher_is_better=False,
        ),
    }
    summary_line(
        {
            "bench": "night",
            "backend": backend,
            "machine": info,
            "workers": args.workers,
            "server_cpus": args.server_cpus or "all",
            "campaigns": args.campaigns,
            "members": args.members,
            "think": args.think,
            "duration": args.duration,
            "narrator_page": args.narrator_page,
            "sheet_viewers": args.sheet_viewers,
            "refetch": args.refetch,
            **result,
            "targets": {k: "MET" if v else "MISSED" for k, v in targets.items()},
        }
    )
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
