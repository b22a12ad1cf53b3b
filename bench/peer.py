"""Fateboard against the peer pyvtt, side by side (issue 27, target 1): alternating pairs on this machine, the
median ratio of Fateboard's actions/s to pyvtt's rolls/s at 32 clients, p50 at one client, and the client and
server CPU per action of both.

    make bench-peer                              # sets pyvtt up in /tmp if it is missing, then runs this
    .venv/bin/python bench/peer.py --pairs 3 --clients 32 --seconds 10

Each pair runs both sides one after the other (the first pair pyvtt first, the next Fateboard first, …), each
with a fresh server and a fresh database on disk (pyvtt: Pony/SQLite in a temp dir under /tmp, by its driver
`shared/peers/pyvtt_peer.py`; Fateboard: SQLite in a temp dir under /tmp after `alembic upgrade head`, served by
`python -m app.serve --workers 1`, as `make run` does). Per side: `--warmup` s, then `--seconds` s at
`--clients` closed-loop clients, then `--seconds-one` s at one client.

What one unit is: pyvtt's roll is a websocket frame {"OPID": "ROLL", "sides": 20}; the server inserts a Roll row
(one SQLite commit) and broadcasts the result to every socket of the game, the roller's own copy being its
answer. Fateboard's action is `POST /api/campaigns/{id}/actions` (`2d6+1`, public, a bearer token of one of 32
members): the rules service rolls, the entry is chained and committed (group commit), and only then answered.
Like for like (issue 34), by default every Fateboard member holds its API event stream for the whole run, so
every entry is also delivered to all 32 (pyvtt broadcasts each roll to its 32 sockets), and each stream must get
every entry; at one client, that client holds its own stream (pyvtt's one-client run has its one socket).
`--no-streams` measures without streams (the earlier figure, as a second line).

CPU per action, the first figure of the verdict: utime + stime of the server process from /proc/<pid>/stat over
the measured window, and this process's CPU (the load generator) over the same window, each divided by the
actions (rolls) counted in it. pyvtt's figures come from its driver's JSON (the same /proc reading of its
server; its client CPU includes parsing all 32 broadcast copies of each roll). The 1-minute load average is
recorded before every run, and a run begun above 2 per core is marked `heavy`: the machine is shared, which is
why pairs alternate and only figures within a pair are compared (pyvtt's per-roll fsync stretches most under
load, so a heavy run flatters the throughput ratio; CPU per action carries over).

Targets (median of the pairs): throughput >= 2x pyvtt's, server CPU per fanned-out action <= pyvtt's per
broadcast roll, p50 at one client <= pyvtt's. `--only fateboard` runs our side alone (no verdict), and
`--profile FILE` records the server with py-spy during the one-client phase (a flame graph, SVG).

Only 127.0.0.1 is contacted; every run is bounded; prints TARGET lines (MET/MISSED) and one JSON line last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import uvloop  # noqa: E402
from actions import RawSenders, run_phase  # noqa: E402
from common import (  # noqa: E402
    HOST,
    ROOT,
    Server,
    Table,
    cleanup,
    machine,
    prepare_database,
    seed_tables,
    start_server,
    stop_server,
    summary_line,
    verdict,
    verify_log,
    workdir,
)

TARGET_RATIO = 2.0  # Fateboard actions/s >= 2x pyvtt rolls/s at 32 clients
TARGET_P50_RATIO = 1.0  # Fateboard's p50 at one client <= pyvtt's
TARGET_CPU_RATIO = 1.0  # Fateboard's server CPU per (fanned-out) action <= pyvtt's per (broadcast) roll
HEAVY_LOAD_PER_CORE = 2.0  # a run begun above this 1-minute load average per core is marked heavy
SETUP = """pyvtt is not set up. From the package index only (shared/peers/README.md):
    tar -xzf {peers}/pyvtt-src.tar.gz -C /tmp
    python3.11 -m venv /tmp/pyvtt/.venv
    /tmp/pyvtt/.venv/bin/pip install -r /tmp/pyvtt/requirements.txt
(`make bench-peer` does this when /tmp/pyvtt/.venv is missing.)"""


def peers_dir(given: str) -> Path:
    """The shared peers folder: --peers, else ../shared/peers beside the checkout (or beside its parent, for a
    worktree under /work/wt/<name>)."""
    candidates = [Path(given)] if given else [ROOT.parent / "shared" / "peers", ROOT.parent.parent / "shared" / "peers"]
    for path in candidates:
        if (path / "pyvtt_peer.py").is_file():
            return path
    raise SystemExit(f"pyvtt_peer.py not found in {', '.join(map(str, candidates))}: pass --peers DIR")


def loadavg() -> float:
    return round(os.getloadavg()[0], 2)


def heavy(load: float) -> bool:
    return load > HEAVY_LOAD_PER_CORE * (os.cpu_count() or 1)


# --------------------------------------------------------------------------------------------- pyvtt


def run_pyvtt(args: argparse.Namespace, peers: Path, clients: int, seconds: float) -> dict[str, Any]:
    """One run of the peer's own driver; its last line is the JSON result."""
    load = loadavg()
    cmd = [
        sys.executable,
        str(peers / "pyvtt_peer.py"),
        "--pyvtt-root",
        args.pyvtt_root,
        "--python",
        args.pyvtt_python,
        "--clients",
        str(clients),
        "--seconds",
        f"{seconds:g}",
        "--warmup",
        f"{args.warmup:g}",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + args.warmup + 120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"pyvtt driver gave no JSON (exit {done.returncode}):\n{done.stderr[-2000:]}")
    out = json.loads(lines[-1])
    rolls = out["rolls"] or 1
    out["loadavg_1m_before"] = load
    out["heavy_load"] = heavy(load)
    out["server_cpu_ms_per_action"] = round(10 * out["server_cpu_pct"] * seconds / rolls, 3)
    out["client_cpu_ms_per_action"] = round(10 * out["client_cpu_pct"] * seconds / rolls, 3)
    return out


# --------------------------------------------------------------------------------------------- Fateboard


class StreamCounter(asyncio.Protocol):
    """One member's API event stream, counting the entries (`id:` lines) it receives (for --streams)."""

    def __init__(self, request: bytes) -> None:
        self.request, self.ids, self.tail, self.status = request, 0, b"", 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if not self.status:
            self.status = int(data[9:12])
        data = self.tail + data
        self.ids += data.count(b"\nid: ")
        self.tail = data[-5:]

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def open_streams(server: Server, table: Table, count: int) -> list[StreamCounter]:
    """`count` members' API event streams (member i: the i-th token, as RawSenders' worker i)."""
    loop = asyncio.get_running_loop()
    path = f"/api/campaigns/{table.campaign_id}/events"
    streams: list[StreamCounter] = []
    for i in range(count):
        who = table.everyone[i % len(table.everyone)]
        head = f"GET {path} HTTP/1.1\r\nHost: {HOST}:{server.port}\r\nAccept: text/event-stream\r\n"
        request = (head + "".join(f"{k}: {v}\r\n" for k, v in who.items()) + "\r\n").encode()
        counter = StreamCounter(request)
        await loop.create_connection(lambda c=counter: c, HOST, server.port)  # type: ignore[misc]
        streams.append(counter)
    await asyncio.sleep(0.5)
    return streams


async def fateboard_phases(server: Server, table: Table, args: argparse.Namespace) -> dict[str, Any]:
    common = {"server_pid": server.pid, "hard_limit": 300.0, "expect": 201, "max_requests": None}
    streams = await open_streams(server, table, args.clients) if args.streams else []
    many = RawSenders(server, table, args.clients)
    try:
        warm = await run_phase("warmup", many.action, concurrency=args.clients, duration=args.warmup, **common)
        spying = start_profile(server, args, args.seconds) if args.profile and args.profile_phase == "main" else None
        main = await run_phase("actions", many.action, concurrency=args.clients, duration=args.seconds, **common)
        if spying is not None:
            spying.wait(timeout=args.seconds + 60)
    finally:
        await many.close()
    delivered = None
    if streams:
        await asyncio.sleep(1.0)  # the last entries reach the streams
        delivered = [s.ids for s in streams]
        for s in streams[1:]:  # at one client, that client keeps its own stream (pyvtt: its one socket)
            s.close()
        await asyncio.sleep(0.3)
    one_sender = RawSenders(server, table, 1)
    profiler = start_profile(server, args, args.seconds_one) if args.profile and args.profile_phase == "one" else None
    try:
        one = await run_phase("actions_1", one_sender.action, concurrency=1, duration=args.seconds_one, **common)
    finally:
        await one_sender.close()
        if profiler is not None:
            profiler.wait(timeout=args.seconds_one + 60)
    if streams:
        await asyncio.sleep(0.5)
        streams[0].close()
    return {
        "warm": warm,
        "main": main,
        "one": one,
        "delivered": delivered,
        "one_stream": streams[0].ids if streams else None,
    }


def start_profile(server: Server, args: argparse.Namespace, seconds: float) -> subprocess.Popen[bytes]:
    """py-spy (pip install py-spy) on the server for one phase: a flame graph (or --format) in args.profile."""
    spy = Path(sys.executable).parent / "py-spy"
    cmd = [str(spy), "record", "--pid", str(server.pid), "--duration", f"{max(1, int(seconds))}"]
    cmd += ["--format", args.profile_format]
    cmd += ["--rate", "400", "--threads", "--output", args.profile, "--nonblocking"]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_fateboard(args: argparse.Namespace) -> dict[str, Any]:
    load = loadavg()
    tmp = workdir("fateboard-bench-peer-")
    database_url = prepare_database("", tmp)  # SQLite in the temp dir: on disk, as pyvtt's
    server = start_server(database_url, tmp, serve=True, root=args.server_root or None)
    try:
        seeded = seed_tables(database_url, 1, args.clients, cats_every=10**9, prefix="peer")[0]
        bearer = [{"Authorization": f"Bearer {token}"} for token in seeded.tokens]
        table = Table(seeded.campaign_id, bearer[0], bearer[1:], seeded.usernames)
        phases = uvloop.run(fateboard_phases(server, table, args))
        # Every 201 the client saw (warm-up included) must be one entry of a gapless, intact chain.
        check = verify_log(server.url, table, sum(phases[k].ok for k in ("warm", "main", "one")))
    finally:
        stop_server(server)
    main, one = phases["main"], phases["one"]
    expected = check["last_seq"]
    out = {
        "loadavg_1m_before": load,
        "heavy_load": heavy(load),
        "actions_per_s": round(main.ok / main.elapsed, 1),
        "actions": main.ok,
        "p50_ms": main.report()["latency_ms"]["p50"],
        "p99_ms": main.report()["latency_ms"]["p99"],
        "p50_ms_1_client": one.report()["latency_ms"]["p50"],
        "actions_per_s_1_client": round(one.ok / one.elapsed, 1),
        "errors": main.errors + one.errors + phases["warm"].errors,
        "server_cpu_ms_per_action": round(1000 * main.server_cpu / max(main.ok, 1), 3),
        "client_cpu_ms_per_action": round(1000 * main.client_cpu / max(main.ok, 1), 3),
        "server_cpu_pct": round(100 * main.server_cpu / main.elapsed, 1),
        "client_cpu_pct": round(100 * main.client_cpu / main.elapsed, 1),
        "log_ok": bool(check["passed"]),
        "log_count": check["count"],
        # Every stream got every entry of the 32-client phases (warm-up and measured); the one client's own
        # stream, every entry of the whole run.
        "streams_complete": None
        if phases["delivered"] is None
        else sum(1 for n in phases["delivered"] if n == expected - one.ok),
        "one_stream_complete": None if phases["one_stream"] is None else phases["one_stream"] == expected,
    }
    cleanup(tmp, keep=not (out["errors"] == 0 and out["log_ok"]))
    return out


def fateboard_line(fb: dict[str, Any]) -> str:
    streams = "" if fb["streams_complete"] is None else f", streams exact {fb['streams_complete']}"
    return (
        f"server {fb['server_cpu_ms_per_action']} ms/action, {fb['actions_per_s']}/s, client "
        f"{fb['client_cpu_ms_per_action']} ms/action, p50 1 client {fb['p50_ms_1_client']} ms, errors {fb['errors']}"
        f"{streams} (load {fb['loadavg_1m_before']}{', HEAVY' if fb['heavy_load'] else ''})"
    )


# --------------------------------------------------------------------------------------------- the pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs (default 3, at least 3 for a median)")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds at --clients (default 10)")
    parser.add_argument("--seconds-one", type=float, default=5.0, help="measured seconds at one client (default 5)")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--streams",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="every Fateboard member holds its event stream (default; --no-streams: none, the earlier figure)",
    )
    parser.add_argument("--only", choices=("fateboard",), help="run Fateboard's side alone (no pyvtt, no verdict)")
    parser.add_argument("--profile", default="", help="py-spy record of the server (a file) during one phase")
    parser.add_argument("--profile-phase", choices=("one", "main"), default="one", help="one client, or all")
    parser.add_argument("--profile-format", choices=("flamegraph", "raw", "speedscope"), default="raw")
    parser.add_argument(
        "--server-root", default="", help="run Fateboard from another source tree (an experimental copy)"
    )
    parser.add_argument("--peers", default="", help="the folder with pyvtt_peer.py (default ../shared/peers)")
    parser.add_argument("--pyvtt-root", default="/tmp/pyvtt")
    parser.add_argument("--pyvtt-python", default="/tmp/pyvtt/.venv/bin/python")
    args = parser.parse_args()
    if args.pairs < 1 or args.clients < 1 or not 0 < args.seconds <= 120 or not 0 < args.seconds_one <= 120:
        parser.error("pairs and clients must be positive, seconds in (0, 120]")
    if args.only == "fateboard":
        for n in range(args.pairs):
            fb = run_fateboard(args)
            print(f"run {n + 1}: {fateboard_line(fb)}", flush=True)
            summary_line({"bench": "peer-fateboard", "streams": args.streams, "run": fb})
        return 0
    peers = peers_dir(args.peers)
    if not (Path(args.pyvtt_root) / "main.py").is_file() or not Path(args.pyvtt_python).exists():
        raise SystemExit(SETUP.format(peers=peers))

    info = machine()
    pairs: list[dict[str, Any]] = []
    for n in range(args.pairs):
        order = ("pyvtt", "fateboard") if n % 2 == 0 else ("fateboard", "pyvtt")
        pair: dict[str, Any] = {"order": list(order)}
        for side in order:
            if side == "pyvtt":
                pair["pyvtt"] = run_pyvtt(args, peers, args.clients, args.seconds)
                pair["pyvtt_1"] = run_pyvtt(args, peers, 1, args.seconds_one)
            else:
                pair["fateboard"] = run_fateboard(args)
        fb, pv, pv1 = pair["fateboard"], pair["pyvtt"], pair["pyvtt_1"]
        pair["ratio"] = round(fb["actions_per_s"] / pv["rolls_per_s"], 3) if pv["rolls_per_s"] else None
        pair["p50_ratio_1_client"] = (
            round(fb["p50_ms_1_client"] / pv1["p50_ms"], 3) if fb["p50_ms_1_client"] and pv1["p50_ms"] else None
        )
        pair["cpu_ratio"] = (
            round(fb["server_cpu_ms_per_action"] / pv["server_cpu_ms_per_action"], 3)
            if pv["server_cpu_ms_per_action"]
            else None
        )
        pairs.append(pair)
        print(
            f"pair {n + 1} ({' then '.join(order)}): server CPU per action {fb['server_cpu_ms_per_action']} ms vs "
            f"pyvtt {pv['server_cpu_ms_per_action']} ms per roll (ratio {pair['cpu_ratio']}); "
            f"throughput ratio {pair['ratio']}; p50 at one client ratio {pair['p50_ratio_1_client']}\n"
            f"  Fateboard: {fateboard_line(fb)}\n"
            f"  pyvtt:     {pv['rolls_per_s']}/s, server {pv['server_cpu_ms_per_action']} ms/roll, client "
            f"{pv['client_cpu_ms_per_action']} ms/roll, p50 1 client {pv1['p50_ms']} ms "
            f"(load {pv['loadavg_1m_before']}{', HEAVY' if pv['heavy_load'] else ''}; at one client "
            f"{pv1['loadavg_1m_before']}{', HEAVY' if pv1['heavy_load'] else ''})",
            flush=True,
        )

    def med(values: list[Any]) -> float | None:
        present = [v for v in values if v is not None]
        return round(statistics.median(present), 3) if present else None

    ratio = med([p["ratio"] for p in pairs])
    p50_ratio = med([p["p50_ratio_1_client"] for p in pairs])
    cpu_ratio = med([p["cpu_ratio"] for p in pairs])
    heavy_runs = sum(1 for p in pairs for side in ("fateboard", "pyvtt", "pyvtt_1") if p[side]["heavy_load"])
    errors = sum(p["fateboard"]["errors"] + p["pyvtt"]["errors"] + p["pyvtt_1"]["errors"] for p in pairs)
    logs_ok = all(p["fateboard"]["log_ok"] for p in pairs)
    print()
    print(
        f"{args.pairs} pairs, {args.clients} clients, {args.seconds:g} s (+{args.seconds_one:g} s at one client), "
        f"{info['nproc']} cores, python {info['python']}, commit {info['commit']}{' (dirty)' if info['dirty'] else ''}"
        f"{', every Fateboard member holds its stream' if args.streams else ', no Fateboard stream open'}; "
        f"{heavy_runs} of {3 * args.pairs} runs began under heavy load (> {HEAVY_LOAD_PER_CORE:g} per core)"
    )
    summary = {
        "fateboard_server_cpu_ms_per_action": med([p["fateboard"]["server_cpu_ms_per_action"] for p in pairs]),
        "pyvtt_server_cpu_ms_per_roll": med([p["pyvtt"]["server_cpu_ms_per_action"] for p in pairs]),
        "fateboard_actions_per_s": med([p["fateboard"]["actions_per_s"] for p in pairs]),
        "pyvtt_rolls_per_s": med([p["pyvtt"]["rolls_per_s"] for p in pairs]),
        "fateboard_p50_ms_1_client": med([p["fateboard"]["p50_ms_1_client"] for p in pairs]),
        "pyvtt_p50_ms_1_client": med([p["pyvtt_1"]["p50_ms"] for p in pairs]),
        "fateboard_client_cpu_ms_per_action": med([p["fateboard"]["client_cpu_ms_per_action"] for p in pairs]),
        "pyvtt_client_cpu_ms_per_roll": med([p["pyvtt"]["client_cpu_ms_per_action"] for p in pairs]),
    }
    for key, value in summary.items():
        print(f"median {key}: {value}")
    targets: dict[str, str] = {}

    def target(key: str, name: str, value: Any, limit: float, higher: bool) -> None:
        targets[key] = "MET" if verdict(name, value, limit, higher_is_better=higher) else "MISSED"

    target(
        "cpu_per_action<=pyvtt",
        "median Fateboard server CPU per action / pyvtt's per roll"
        + (" (fanned out to every stream)" if args.streams else ""),
        cpu_ratio,
        TARGET_CPU_RATIO,
        False,
    )
    target("ratio>=2.0", f"median Fateboard actions/s / pyvtt rolls/s at {args.clients} clients", ratio, 2.0, True)
    target("p50_1_client<=pyvtt", "median Fateboard p50 / pyvtt p50 at one client", p50_ratio, TARGET_P50_RATIO, False)
    target("errors==0", "errors (both sides, every run)", errors, 0, False)
    target("log_intact", "Fateboard's log verifies after every run (1 = yes)", int(logs_ok), 1, True)
    if args.streams:
        complete = all(
            p["fateboard"]["streams_complete"] == args.clients and p["fateboard"]["one_stream_complete"] for p in pairs
        )
        target("streams_exact", "every Fateboard stream got every entry (1 = yes)", int(complete), 1, True)
    summary_line(
        {
            "bench": "peer",
            "machine": info,
            "pairs": args.pairs,
            "clients": args.clients,
            "seconds": args.seconds,
            "streams": args.streams,
            "median_cpu_ratio": cpu_ratio,
            "median_ratio": ratio,
            "median_p50_ratio_1_client": p50_ratio,
            "heavy_runs": heavy_runs,
            **summary,
            "runs": pairs,
            "targets": targets,
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
