"""Table talk (issue 24): POST /api/campaigns/{id}/messages at 32 clients against a dice action
(POST …/actions) in the same run, with an API event stream open for every member of the campaign (each must
receive every entry of the run, gapless), then the campaign page of a campaign with 100,000 mixed entries
(rolls, public talk, whispers, edits) against one with 100.

Targets: messages/s >= dice actions/s (same server, same streams, interleaved phases: the mean of the rounds),
message p99 <= 50 ms at 32 clients, every stream complete, the chain intact; the campaign page within 20 % of
the small campaign's (median). The rate limit (30 posts per member per 10 s) is raised for the load through
FATEBOARD_TALK_RATE_LIMIT: the counter's upsert still runs on every post. Loopback only, bounded.

    .venv/bin/python bench/talk.py
    .venv/bin/python bench/talk.py --duration 5 --entries 20000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2  # noqa: E402
from actions import Phase, run_phase  # noqa: E402
from common import (  # noqa: E402
    HOST,
    ROLL,
    ROOT,
    RawHTTP,
    cleanup,
    latency_summary_ms,
    launch,
    make_table,
    server_arguments,
    signed_in_cookie,
    stop_server,
    summary_line,
    verdict,
    verify_log,
)
from fanout import Stream, raw_stream  # noqa: E402

TARGET_RATIO = 1.0
TARGET_P99_MS = 50.0
TARGET_PAGE_RATIO = 1.2
MESSAGE = {"text": "I check the **door** for traps, then wave the others in."}


class Senders:
    def __init__(self, port: int, campaign_id: int, people: list[dict[str, str]], concurrency: int) -> None:
        self.conns = [RawHTTP(HOST, port) for _ in range(concurrency)]
        actions, messages = f"/api/campaigns/{campaign_id}/actions", f"/api/campaigns/{campaign_id}/messages"
        self.action_req = [
            c.build("POST", actions, people[i % len(people)], json.dumps(ROLL).encode())
            for i, c in enumerate(self.conns)
        ]
        self.message_req = [
            c.build("POST", messages, people[i % len(people)], json.dumps(MESSAGE).encode())
            for i, c in enumerate(self.conns)
        ]

    async def _send(self, i: int, raw: bytes) -> int:
        try:
            status, _ = await self.conns[i].send(raw)
        except BaseException:
            await self.conns[i].close()
            raise
        return status

    async def action(self, i: int) -> int:
        return await self._send(i, self.action_req[i])

    async def message(self, i: int) -> int:
        return await self._send(i, self.message_req[i])

    async def close(self) -> None:
        for c in self.conns:
            await c.close()


async def throughput(server: Any, table: Any, args: argparse.Namespace) -> dict[str, Any]:
    people = table.everyone
    streams = [Stream(i, i) for i in range(len(people))]
    stop = asyncio.Event()
    path = f"/api/campaigns/{table.campaign_id}/events?after=0"
    tasks = [
        asyncio.create_task(raw_stream(server.port, path, people[i], s, 10**9, stop)) for i, s in enumerate(streams)
    ]
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in streams)), 30)
    senders = Senders(server.port, table.campaign_id, people, args.concurrency)
    common = {"concurrency": args.concurrency, "server_pid": server.pid, "hard_limit": 120.0, "max_requests": None}
    phases: dict[str, list[Phase]] = {"actions": [], "messages": []}
    try:
        await run_phase("warmup_actions", senders.action, duration=args.warmup, expect=201, **common)
        await run_phase("warmup_messages", senders.message, duration=args.warmup, expect=201, **common)
        for n in range(args.rounds):
            for name, send in (("actions", senders.action), ("messages", senders.message)):
                print(f"round {n + 1}: {name}, {args.concurrency} clients", file=sys.stderr)
                phases[name].append(await run_phase(name, send, duration=args.duration, expect=201, **common))
    finally:
        await senders.close()
    async with httpx2.AsyncClient(base_url=server.url, timeout=60) as client:
        last_seq = (await client.get(f"/api/campaigns/{table.campaign_id}", headers=table.narrator)).json()["last_seq"]
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline and any(
        (s.arrivals[-1][0] if s.arrivals else 0) < last_seq and not s.error for s in streams
    ):
        await asyncio.sleep(0.2)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    complete = [sorted({seq for seq, _t in s.arrivals}) == list(range(1, last_seq + 1)) for s in streams]
    result: dict[str, Any] = {
        "streams": len(streams),
        "streams_complete": sum(complete),
        "last_seq": last_seq,
        "stream_errors": [s.error for s in streams if s.error][:3],
    }
    for name, runs in phases.items():
        ok = sum(p.ok for p in runs)
        seconds = sum(p.elapsed for p in runs)
        lat = [x for p in runs for x in p.latencies]
        result[name] = {
            "rps": round(ok / seconds, 1),
            "requests_ok": ok,
            "errors": sum(p.errors for p in runs),
            "latency_ms": latency_summary_ms(lat),
            "rounds_rps": [p.report()["rps"] for p in runs],
            "server_cpu_pct": round(100 * sum(p.server_cpu for p in runs) / seconds, 1),
            "error_samples": [e for p in runs for e in p.error_samples][:3],
        }
    result["verify"] = verify_log(server.url, table, last_seq)
    return result


def fill_mixed(database_url: str, campaign_id: int, entries: int) -> None:
    """`entries` chained entries as the app writes them: rolls, public talk (in and out of character), whispers
    between two members and edits, in turn. Straight into the database with the chain's own functions."""
    sys.path.insert(0, str(ROOT))
    from sqlalchemy import insert, select, update

    from app.accounts.models import User
    from app.campaigns.models import Campaign, Membership
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
                .order_by(User.id)
            ).all()
            prev, rows, last_message = chain.GENESIS_HASH, [], None
            for seq in range(1, entries + 1):
                user_id, username = members[seq % len(members)]
                other = members[(seq + 1) % len(members)][0]
                now = utcnow()
                shape = seq % 4
                body: dict[str, Any] = {
                    "seq": seq,
                    "created_at": now.isoformat(),
                    "actor": username,
                    "actor_id": user_id,
                    "character_id": None,
                    "character": None,
                    "session": None,
                    "target_seq": None,
                    "dice": None,
                    "note": None,
                }
                visibility, kind, system, action, target = "public", "message", "talk", "ooc", None
                if shape == 0:
                    faces = [(seq * 7) % 6 + 1, (seq * 11) % 6 + 1]
                    kind, system, action = "action", "dice", "roll"
                    body.update(
                        request={"expression": "2d6+1"},
                        dice=[{"sides": 6, "face": f} for f in faces],
                        outcome={"total": sum(faces) + 1},
                        summary=f"2d6+1 = {sum(faces) + 1}",
                    )
                elif shape == 3 and last_message is not None:
                    kind, action, target = "edit", "edit", last_message
                    text = f"Edited line {seq}"
                    body.update(request={"mentions": []}, outcome={"text": text}, summary=text)
                else:
                    text = f"Line {seq}: *we go* through the **north gate** at dawn"
                    outcome: dict[str, Any] = {"text": text, "mode": "ooc", "as_character_id": None, "as": None}
                    request: dict[str, Any] = {"mode": "ooc", "mentions": []}
                    if shape == 2:
                        visibility = "whisper"
                        outcome["to"] = [other]
                        request.update(readers=sorted({user_id, other}), to_names=["x"])
                    body.update(request=request, outcome=outcome, summary=text)
                    last_message = seq
                body.update(kind=kind, system=system, action=action, target_seq=target)
                if kind == "edit":
                    visibility = "public"
                entry = LogEntry(
                    campaign_id=campaign_id,
                    seq=seq,
                    created_at=now,
                    actor_id=user_id,
                    actor_name=username,
                    character_id=None,
                    game_session_id=None,
                    kind=kind,
                    system=system,
                    action=action,
                    visibility=visibility,
                    target_seq=target,
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


def inproc(calls: int) -> dict[str, float]:
    """CPU per post without sockets or the event loop (steadier than throughput on a busy machine): the service
    calls of a message and of a dice roll, each in its own session and commit, alternating in rounds."""
    import tempfile

    sys.path.insert(0, str(ROOT))
    from app.accounts.service import create_user
    from app.campaigns import service as campaigns
    from app.config import Settings
    from app.main import create_app
    from app.models import Base
    from app.rolls import service as rolls
    from app.talk import service as talk

    tmp = Path(tempfile.mkdtemp(prefix="talk-inproc"))
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp / 'inproc.db'}", secret_key="bench", secret_key_file=tmp / "key")
    )
    Base.metadata.create_all(app.state.engine)
    factory = app.state.sessionmaker
    with factory() as db:
        user = create_user(db, "inproc", "correct horse")
        campaign = campaigns.create_campaign(db, user, name="In process", systems=["dice"])
        db.commit()
        user_id, campaign_id = user.id, campaign.id
    message = talk.MessageRequest(text=MESSAGE["text"])
    roll = rolls.ActionRequest(system="dice", action="roll", params={"expression": "2d6+1"})

    def one(kind: str) -> None:
        with factory() as db:
            from app.accounts.models import User

            acc = campaigns.access(db, db.get(User, user_id), campaign_id)
            if kind == "message":
                talk.post_message(db, acc, message, rate=10**9)
            else:
                rolls.perform_action(db, acc, roll)

    totals = {"message": 0.0, "action": 0.0}
    for kind in ("message", "action"):
        for _ in range(50):
            one(kind)
    for _ in range(4):
        for kind in ("action", "message"):
            t0 = time.process_time()
            for _ in range(calls // 4):
                one(kind)
            totals[kind] += time.process_time() - t0
    app.state.engine.dispose()
    cleanup(tmp, keep=False)
    return {f"{k}_ms": round(1000 * v / (calls // 4 * 4), 3) for k, v in totals.items()}


async def page_times(server: Any, small: Any, big: Any, n: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with httpx2.AsyncClient(base_url=server.url, timeout=60) as client:
        cookie = await signed_in_cookie(client, "bignarrator")  # a member of both campaigns (below)
        for name, table in (("small", small), ("big", big), ("small_again", small), ("big_again", big)):
            times = []
            for _ in range(n):
                t0 = time.perf_counter()
                r = await client.get(f"/campaigns/{table.campaign_id}", headers={"cookie": cookie})
                assert r.status_code == 200, r.text[:300]
                times.append(time.perf_counter() - t0)
            out[name] = latency_summary_ms(times)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per measured phase (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved action/message rounds (default 2)")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--players", type=int, default=7, help="players besides the narrator: streams = players+1")
    parser.add_argument("--entries", type=int, default=100_000, help="entries of the long campaign (default 100,000)")
    parser.add_argument("--page-requests", type=int, default=20)
    parser.add_argument("--inproc-calls", type=int, default=2000, help="service calls per kind in-process")
    server_arguments(parser)
    args = parser.parse_args()
    args.server_env = [*args.server_env, "FATEBOARD_TALK_RATE_LIMIT=100000000"]
    info, work, database_url, _sqlite, server = launch(args, "talk")
    try:
        table = make_table(server.url, args.players, name="Talk Night", prefix="talk")
        talk = asyncio.run(throughput(server, table, args))
        small = make_table(server.url, 1, name="Short story", prefix="big")
        with httpx2.Client(base_url=server.url, timeout=30) as client:  # the same narrator starts the long one
            r = client.post("/api/campaigns", json={"name": "Long story", "systems": ["dice"]}, headers=small.narrator)
            big_id = r.json()["id"]
            code = client.post(f"/api/campaigns/{big_id}/invites", json={}, headers=small.narrator).json()["code"]
            client.post(f"/api/invites/{code}/accept", headers=small.players[0])
        big = type(small)(big_id, small.narrator, small.players)
        print(f"filling: 100 and {args.entries:,} mixed entries", file=sys.stderr)
        fill_mixed(database_url, small.campaign_id, 100)
        fill_mixed(database_url, big.campaign_id, args.entries)
        pages = asyncio.run(page_times(server, small, big, args.page_requests))
    finally:
        stop_server(server)
        cleanup(work, keep=args.keep_workdir)
    cpu = inproc(args.inproc_calls)
    print(
        f"in-process CPU per post: message {cpu['message_ms']} ms, dice action {cpu['action_ms']} ms", file=sys.stderr
    )
    ratio = talk["messages"]["rps"] / max(talk["actions"]["rps"], 1e-9)
    small_p50 = min(pages["small"]["p50"], pages["small_again"]["p50"])
    big_p50 = min(pages["big"]["p50"], pages["big_again"]["p50"])
    page_ratio = big_p50 / max(small_p50, 1e-9)
    print(
        f"messages {talk['messages']['rps']}/s vs dice actions {talk['actions']['rps']}/s (ratio {ratio:.2f}); "
        f"message p99 {talk['messages']['latency_ms']['p99']} ms; streams complete "
        f"{talk['streams_complete']}/{talk['streams']}; page p50 {big_p50} ms ({args.entries:,}) vs {small_p50} ms "
        f"(100), ratio {page_ratio:.2f}",
        file=sys.stderr,
    )
    met = [
        verdict("messages/s vs dice actions/s", ratio, TARGET_RATIO, higher_is_better=True),
        verdict(
            "message p99 ms at 32 clients", talk["messages"]["latency_ms"]["p99"], TARGET_P99_MS, higher_is_better=False
        ),
        verdict("campaign page, long/short", page_ratio, TARGET_PAGE_RATIO, higher_is_better=False),
    ]
    ok = talk["streams_complete"] == talk["streams"] and talk["verify"].get("passed", False)
    print(("MET" if ok else "MISSED") + ": every stream got every entry, the chain checks", file=sys.stderr)
    verdict("in-process CPU, message/dice action", cpu["message_ms"] / cpu["action_ms"], 1.0, higher_is_better=False)
    summary_line(
        {
            "bench": "talk",
            "machine": info,
            "talk": talk,
            "pages": pages,
            "inproc": cpu,
            "ratio": round(ratio, 3),
            "page_ratio": round(page_ratio, 3),
            "met": all(met) and ok,
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
