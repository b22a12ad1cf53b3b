"""Long logs stay flat (issue 16, target 4): a campaign with 100,000 entries against one with 100. Campaign
page, sheet page, log page N (an "earlier" page from the middle), the log search from there (reported: its
work is bounded by a window, not by the log's length), stream replay from an old Last-Event-ID
(the last 100 entries), then the streamed export and /verify, with the server's peak memory while they run.

Pages (and the replay) must be within 20 % of the small campaign's; export and /verify must be linear (time
per entry within 2x of the small one's) with bounded memory (the server's RSS grows by less than 64 MiB).
The entries are written straight into the database with the chain's own functions (a valid chain, which
/verify checks), which takes seconds instead of the minutes 100,000 actions would. Loopback only, bounded.

    .venv/bin/python bench/longlog.py
    .venv/bin/python bench/longlog.py --entries 20000
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2  # noqa: E402
from common import (  # noqa: E402
    ROOT,
    cleanup,
    latency_summary_ms,
    launch,
    rss_kb,
    seed_tables,
    server_arguments,
    signed_in_cookie,
    stop_server,
    summary_line,
    verdict,
)

TARGET_PAGE_RATIO = 1.2
TARGET_LINEAR_RATIO = 2.0
TARGET_RSS_GROWTH_KIB = 64 * 1024


def fill_log(database_url: str, campaign_id: int, entries: int) -> None:
    """`entries` chained dice rolls by the campaign's members for their characters, as write_entry makes them."""
    sys.path.insert(0, str(ROOT))
    from sqlalchemy import insert, select, update

    from app.accounts.models import User
    from app.campaigns.models import Campaign, Membership
    from app.characters.models import Character
    from app.db import make_engine
    from app.rolls import chain
    from app.rolls.models import LogEntry
    from app.types import utcnow

    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            members = conn.execute(
                select(User.id, User.username)
                .join(Membership, Membership.user_id == User.id)
                .where(Membership.campaign_id == campaign_id)
            ).all()
            chars = conn.execute(
                select(Character.id, Character.name, Character.owner_id).where(Character.campaign_id == campaign_id)
            ).all()
            prev, rows = chain.GENESIS_HASH, []
            for seq in range(1, entries + 1):
                user_id, username = members[seq % len(members)]
                char = chars[seq % len(chars)] if chars and seq % 2 else None
                faces = [(seq * 7) % 6 + 1, (seq * 11) % 6 + 1]
                now = utcnow()
                body = {
                    "kind": "action",
                    "system": "dice",
                    "action": "roll",
                    "seq": seq,
                    "created_at": now.isoformat(),
                    "actor": username,
                    "actor_id": user_id,
                    "character_id": char.id if char else None,
                    "character": char.name if char else None,
                    "session": None,
                    "target_seq": None,
                    "request": {"expression": "2d6+1"},
                    "dice": [{"sides": 6, "face": f} for f in faces],
                    "outcome": {"total": sum(faces) + 1},
                    "summary": f"2d6+1 = {sum(faces) + 1}",
                    "note": None,
                }
                entry = LogEntry(
                    campaign_id=campaign_id,
                    seq=seq,
                    created_at=now,
                    actor_id=user_id,
                    actor_name=username,
                    character_id=body["character_id"],
                    game_session_id=None,
                    kind="action",
                    system="dice",
                    action="roll",
                    visibility="public",
                    target_seq=None,
                    subject_id=None,
                    body=body,
                    salt=chain.new_salt(),
                    idempotency_key=None,
                    request_hash=None,
                )
                entry.body_hash = chain.body_hash(entry.salt, body)
                entry.prev_hash = prev
                entry.hash = prev = chain.entry_hash(prev, entry.header(), entry.body_hash)
                rows.append({c.key: getattr(entry, c.key) for c in LogEntry.__table__.columns if c.key != "id"})
                if len(rows) == 5000 or seq == entries:
                    conn.execute(insert(LogEntry), rows)
                    rows = []
            conn.execute(update(Campaign).where(Campaign.id == campaign_id).values(last_seq=entries, head_hash=prev))
    finally:
        engine.dispose()


class PeakRSS:
    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_kb(self.pid))
            time.sleep(0.02)

    def __enter__(self) -> PeakRSS:
        self.base = rss_kb(self.pid)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


async def timed(client: httpx2.AsyncClient, n: int, path: str, headers: dict[str, str]) -> dict[str, Any]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = await client.get(path, headers=headers)
        assert r.status_code == 200, (path, r.status_code, r.text[:200])
        times.append(time.perf_counter() - t0)
    return latency_summary_ms(times)


async def replay(client: httpx2.AsyncClient, path: str, headers: dict[str, str], last_id: int, want: int) -> float:
    t0 = time.perf_counter()
    got = 0
    async with client.stream("GET", path, headers={**headers, "Last-Event-ID": str(last_id)}) as r:
        async for line in r.aiter_lines():
            if line.startswith("id: "):
                got += 1
                if got >= want:
                    break
    return time.perf_counter() - t0


async def measure(server: Any, table: Any, char_id: int, last_seq: int, args: argparse.Namespace) -> dict[str, Any]:
    cid, bearer = table.campaign_id, {"Authorization": f"Bearer {table.tokens[0]}"}
    out: dict[str, Any] = {}
    async with httpx2.AsyncClient(base_url=server.url, timeout=300) as client:
        cookie = {"Cookie": await signed_in_cookie(client, table.usernames[0])}
        client.cookies.clear()
        out["campaign_page"] = await timed(client, args.repeat, f"/campaigns/{cid}", cookie)
        out["sheet_page"] = await timed(client, args.repeat, f"/campaigns/{cid}/characters/{char_id}", cookie)
        middle = max(2, last_seq // 2)
        out["log_page_n"] = await timed(client, args.repeat, f"/campaigns/{cid}/log?before={middle}", cookie)
        # The log search: a word on every entry (a page of matches at once), and one on none, which reads the
        # whole bounded window (app/rolls/log.py, SEARCH_WINDOW) before it answers "searched back to #N".
        out["log_search_hit"] = await timed(client, args.repeat, f"/campaigns/{cid}/log?before={middle}&q=2d6", cookie)
        out["log_search_window"] = await timed(
            client, args.repeat, f"/campaigns/{cid}/log?before={middle}&q=zzz", cookie
        )
        times = [
            await replay(client, f"/api/campaigns/{cid}/events", bearer, max(0, last_seq - 100), 100)
            for _ in range(max(3, args.repeat // 4))
        ]
        out["replay_last_100"] = latency_summary_ms(times)
        for name, path in (("export", f"/api/campaigns/{cid}/export"), ("verify", f"/api/campaigns/{cid}/verify")):
            with PeakRSS(server.pid) as rss:
                t0 = time.perf_counter()
                size = 0
                async with client.stream("GET", path, headers=bearer) as r:
                    assert r.status_code == 200, (path, r.status_code)
                    async for chunk in r.aiter_raw():
                        size += len(chunk)
                seconds = time.perf_counter() - t0
            out[name] = {
                "seconds": round(seconds, 3),
                "ms_per_1000_entries": round(1e6 * seconds / max(1, last_seq), 2),
                "bytes": size,
                "rss_growth_kib": max(0, rss.peak - rss.base),
            }
        verify = (await client.get(f"/api/campaigns/{cid}/verify", headers=bearer)).json()
        out["verify_ok"] = verify["ok"] and verify["count"] == last_seq
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20, help="requests per page measurement")
    server_arguments(parser)
    args = parser.parse_args()
    info, tmp, database_url, backend, server = launch(args, "fateboard-bench-longlog-")
    try:
        tables = seed_tables(database_url, 2, 4, cats_every=1, prefix="log")
        results = {}
        for table, n in zip(tables, (args.small, args.entries)):
            t0 = time.perf_counter()
            fill_log(database_url, table.campaign_id, n)
            print(
                f"campaign {table.campaign_id}: {n} entries written in {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
            )
        for table, n in zip(tables, (args.small, args.entries)):
            results[n] = asyncio.run(measure(server, table, table.cats[1], n, args))
    finally:
        stop_server(server)
    small, big = results[args.small], results[args.entries]
    print()
    print(f"backend {backend}: {args.small} vs {args.entries} entries, p50 ms ({args.repeat} requests each)")
    targets: dict[str, bool] = {}
    for name in ("campaign_page", "sheet_page", "log_page_n", "replay_last_100"):
        ratio = round(big[name]["p50"] / small[name]["p50"], 3)
        print(f"  {name:<16} {small[name]['p50']:>9} {big[name]['p50']:>9}  ratio {ratio}")
        targets[f"{name}_within_20%"] = verdict(f"{name} p50 ratio", ratio, TARGET_PAGE_RATIO, higher_is_better=False)
    for name in ("export", "verify"):
        per_small, per_big = small[name]["ms_per_1000_entries"], big[name]["ms_per_1000_entries"]
        print(
            f"  {name:<16} {small[name]['seconds']:>8}s {big[name]['seconds']:>8}s  ms/1000 entries {per_small} vs "
            f"{per_big}; server RSS growth {small[name]['rss_growth_kib']} vs {big[name]['rss_growth_kib']} KiB"
        )
        targets[f"{name}_linear"] = verdict(
            f"{name} ms per 1000 entries, big / small",
            round(per_big / per_small, 3),
            TARGET_LINEAR_RATIO,
            higher_is_better=False,
        )
        targets[f"{name}_bounded_memory"] = verdict(
            f"{name} server RSS growth KiB", big[name]["rss_growth_kib"], TARGET_RSS_GROWTH_KIB, higher_is_better=False
        )
    for name in ("log_search_hit", "log_search_window"):  # reported, not a target: bounded, not flat
        print(f"  {name:<16} {small[name]['p50']:>9} {big[name]['p50']:>9}  p50 ms")
    targets["verify_ok"] = verdict(
        "verify ok on both (1 = yes)", int(small["verify_ok"] and big["verify_ok"]), 1, higher_is_better=True
    )
    summary_line(
        {
            "bench": "longlog",
            "backend": backend,
            "machine": info,
            "entries": args.entries,
            "small": args.small,
            "results": {str(k): v for k, v in results.items()},
            "targets": {k: "MET" if v else "MISSED" for k, v in targets.items()},
        }
    )
    cleanup(tmp, keep=args.keep_workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
