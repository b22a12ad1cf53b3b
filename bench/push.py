"""Push latency: from the action that makes a user's turn (a narrator's roll call for their character) to the
decrypted push arriving at a push service on 127.0.0.1 (tests/utils/push_service.py: a real HTTP server that
decrypts RFC 8291 payloads), for N waiting users; then the sender's throughput on a burst; then the same paced
run with some endpoints dead (they hang past the sender's read timeout) — they must not slow the others.

    .venv/bin/python bench/push.py                    # 200 users, SQLite, one worker

A measurement, not a test: prints MET / MISSED per target and a JSON summary as its last line.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import httpx2  # noqa: E402
from common import cleanup, latency_summary_ms, launch, make_table, stop_server, summary_line, verdict  # noqa: E402
from utils.push_service import Receiver  # noqa: E402


def arrivals(receiver: Receiver, tags: set[str], timeout: float) -> dict[str, float]:
    """tag -> first arrival time (monotonic), for the tags asked for, waiting at most `timeout`."""
    deadline = time.monotonic() + timeout
    seen: dict[str, float] = {}
    while time.monotonic() < deadline:
        for r in list(receiver.received):
            if r.path in receiver.browsers:
                tag = receiver.browsers[r.path].decrypt(r.body)["tag"]
                if tag in tags:
                    seen.setdefault(tag, r.at)
        if len(seen) >= len(tags):
            break
        time.sleep(0.05)
    return seen


def call_rolls(
    client: httpx2.Client, cid: int, narrator: dict[str, str], characters: list[int], pace: float
) -> dict[str, float]:
    """One roll call per character, `pace` seconds apart: tag -> when its request was sent (the action that
    makes the player's turn starts then; the push's latency includes the action itself)."""
    sent: dict[str, float] = {}
    for character in characters:
        started = time.monotonic()
        r = client.post(
            f"/api/campaigns/{cid}/prompts", json={"character_id": character, "note": "bench"}, headers=narrator
        )
        assert r.status_code == 201, r.text
        sent[f"prompt-{r.json()['id']}"] = started
        rest = pace - (time.monotonic() - started)
        if rest > 0:
            time.sleep(rest)
    return sent


def burst(base: str, cid: int, narrator: dict[str, str], characters: list[int], clients: int = 8) -> dict[str, float]:
    """Every roll call at once from `clients` concurrent clients (the sender's throughput, not one client's)."""
    shares = [characters[i::clients] for i in range(clients)]

    def run(share: list[int]) -> dict[str, float]:
        with httpx2.Client(base_url=base, timeout=30) as own:
            return call_rolls(own, cid, narrator, share, 0)

    with ThreadPoolExecutor(clients) as pool:
        return {tag: at for part in pool.map(run, shares) for tag, at in part.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--dead", type=int, default=20, help="endpoints that hang in the third run")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between roll calls in paced runs")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--keep-workdir", action="store_true")
    args = parser.parse_args()
    args.workers, args.server_wrapper, args.server_root = 1, "", ""
    receiver = Receiver()
    args.server_env = [f"FATEBOARD_OUTBOUND_ORIGINS={receiver.origin}"]
    info, tmp, _url, backend, server = launch(args, "fateboard-push-")
    try:
        table = make_table(server.url, args.users, name="Push Night")
        characters: list[int] = []
        with httpx2.Client(base_url=server.url, timeout=30) as client:
            for i, who in enumerate(table.players):
                r = client.post(
                    f"/api/campaigns/{table.campaign_id}/characters",
                    headers=who,
                    json={"name": f"Hero {i + 1}", "system": "dice"},
                )
                assert r.status_code == 201, r.text
                characters.append(r.json()["id"])
                browser = receiver.browser(f"u{i}")
                assert (
                    client.post("/api/push/subscriptions", json=browser.subscription(), headers=who).status_code == 201
                )
            print(f"{args.users} users subscribed", file=sys.stderr)

            acked = call_rolls(client, table.campaign_id, table.narrator, characters, args.pace)
            seen = arrivals(receiver, set(acked), 30)
            paced = latency_summary_ms([seen[t] - acked[t] for t in acked if t in seen])
            lost_paced = len(acked) - len(seen)

            receiver.received.clear()
            start = time.monotonic()
            acked_burst = burst(server.url, table.campaign_id, table.narrator, characters)
            seen_burst = arrivals(receiver, set(acked_burst), 60)
            burst_seconds = max(seen_burst.values()) - start if seen_burst else float("nan")
            throughput = round(len(seen_burst) / burst_seconds, 1) if seen_burst else 0.0

            receiver.received.clear()
            for i in range(args.dead):
                receiver.delay[f"/push/u{i}"] = 6.0  # past the sender's 5 s read timeout
            acked_dead = call_rolls(client, table.campaign_id, table.narrator, characters, args.pace)
            # Roll calls go out in the characters' order: the first `dead` are for the hanging endpoints.
            live = dict(list(acked_dead.items())[args.dead :])
            seen_live = arrivals(receiver, set(live), 30)
            alive = latency_summary_ms([seen_live[t] - live[t] for t in live if t in seen_live])
    finally:
        stop_server(server)
        receiver.close()
        cleanup(tmp, keep=args.keep_workdir)

    ok = [
        verdict("push p99 at 200 waiting users (ms)", paced["p99"], 1000, higher_is_better=False),
        verdict("pushes lost", lost_paced, 0, higher_is_better=False),
        verdict("push p99 with dead endpoints beside (ms)", alive["p99"], 1000, higher_is_better=False),
    ]
    summary_line(
        {
            "benchmark": "push",
            "backend": backend,
            "machine": info,
            "users": args.users,
            "paced_pace_s": args.pace,
            "paced_ms": paced,
            "lost": lost_paced,
            "burst_deliveries_per_s": throughput,
            "burst_delivered": len(seen_burst),
            "dead_endpoints": args.dead,
            "with_dead_ms": alive,
            "met": all(ok),
        }
    )


if __name__ == "__main__":
    main()
