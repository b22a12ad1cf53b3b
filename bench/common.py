"""Shared helpers for the speed benchmarks: a real uvicorn on 127.0.0.1, a table of users made through the
JSON API, a tiny keep-alive HTTP/1.1 client, percentiles and a description of the machine.

Everything here talks to 127.0.0.1 only, and every wait is bounded in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx2

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
PG_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PASSWORD = "correct horse battery"
ROLL = {"system": "dice", "action": "roll", "params": {"expression": "2d6+1"}, "visibility": "public"}
# The tests' builders (tests/utils, imported as `utils` as pytest does): one definition of what both build.
sys.path.insert(0, str(ROOT / "tests"))
# A rule-system action that changes the sheet: the Cat's test of fate (it writes Style; not a dangerous one,
# whose scars would block the next test until placed), on the tests' new cat.
from utils.cat import NEW_CAT  # noqa: E402
from utils.tables import seat_table  # noqa: E402


def cat_test(character_id: int) -> dict[str, Any]:
    return {
        "system": "cat",
        "action": "test_fate",
        "character_id": character_id,
        "visibility": "public",
        "params": {"trait": "claws", "difficulty": "moderate"},
    }


# --------------------------------------------------------------------------------------------- the server


@dataclass
class Server:
    url: str
    port: int
    database_url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    workdir: Path

    @property
    def pid(self) -> int:
        return self.process.pid


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def reset_postgres(url: str) -> None:
    """Drop and recreate the public schema (the benchmark's database must be a throwaway one)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def prepare_database(database_url: str | None, workdir: Path) -> str:
    """SQLite in the temp dir by default; a PostgreSQL URL is wiped first. Returns the URL to use."""
    if not database_url:
        return f"sqlite:///{workdir / 'bench.db'}"
    if database_url.startswith("postgresql"):
        host = database_url.split("@", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            raise SystemExit(f"refusing a database that is not on this machine: {host}")
        reset_postgres(database_url)
    return database_url


def start_server(
    database_url: str,
    workdir: Path,
    *,
    workers: int = 1,
    keepalive: float = 15.0,
    serve: bool = False,  # one worker through app/serve.py (as `make run`) instead of uvicorn's command line
    granian: bool = False,  # the same ASGI app under granian (not a dependency: pip install it; PERFORMANCE.md)
    wrapper: str = "",
    extra_env: dict[str, str] | None = None,
    timeout: float = 120.0,
    root: Path | str | None = None,
    asgi_app: str = "app.asgi:app",
    app_dir: str = "",
) -> Server:
    """alembic upgrade head, then uvicorn app.asgi:app in its own process (one worker by default).

    `wrapper` is prepended to the uvicorn command line (e.g. a profiler: "py-spy record -o out.svg --").
    `root` runs the app from another source tree (e.g. an experimental copy); default: this checkout.
    `asgi_app` (found in `app_dir`, relative to this checkout) serves another ASGI app around Fateboard's (one
    worker only), e.g. bench/panels_server.py's query counter."""
    root = Path(root) if root else ROOT
    port = free_port()
    env = {
        **os.environ,
        "FATEBOARD_DATABASE_URL": database_url,
        "FATEBOARD_SECRET_KEY": "bench-secret",
        "FATEBOARD_SECRET_KEY_FILE": str(workdir / "secret_key"),
        "FATEBOARD_SSE_KEEPALIVE_SECONDS": str(keepalive),
        "FATEBOARD_SIGNUP_MAX_PER_HOUR": "100000",  # every bench user signs up from 127.0.0.1
        **(extra_env or {}),
    }
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    log_path = workdir / f"server-{port}.log"
    log = open(log_path, "w")  # noqa: SIM115 - lives as long as the process
    if granian:
        cmd = [
            *shlex.split(wrapper),
            str(Path(sys.executable).parent / "granian"),
            "--interface",
            "asgi",
            "--host",
            HOST,
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--loop",
            "uvloop",
            "--no-ws",
            "--log-level",
            "warning",
            "--no-access-log",
            "app.asgi:app",
        ]
    elif workers > 1 or serve:
        # Several processes (or `serve`): app/serve.py (one port, TCP_NODELAY on the shared socket, uvloop + httptools).
        cmd = [
            *shlex.split(wrapper),
            sys.executable,
            "-m",
            "app.serve",
            "--host",
            HOST,
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            "--no-access-log",
        ]
    else:
        cmd = [
            *shlex.split(wrapper),
            sys.executable,
            "-m",
            "uvicorn",
            asgi_app,
            *(["--app-dir", str(ROOT / app_dir)] if app_dir else []),
            "--host",
            HOST,
            "--port",
            str(port),
            "--no-proxy-headers",
            "--timeout-graceful-shutdown",
            "2",
            "--log-level",
            "warning",
            "--no-access-log",
        ]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx2.get(url + "/api/ping", timeout=1).status_code == 200:
                return Server(url, port, database_url, proc, log_path, workdir)
        except httpx2.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("uvicorn did not start:\n" + log_path.read_text())


def server_arguments(parser: Any) -> None:
    """The options every benchmark's server takes (read by `launch`)."""
    parser.add_argument("--database-url", default="")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--server-wrapper", default="")
    parser.add_argument("--server-root", default="")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--keep-workdir", action="store_true")


def launch(args: Any, prefix: str) -> tuple[dict[str, Any], Path, str, str, Server]:
    """The shared start of both benchmarks: machine facts, a work dir, the database, the server."""
    info = machine()
    warn_if_busy(info)
    tmp = workdir(prefix)
    database_url = prepare_database(args.database_url, tmp)
    backend = "postgresql" if database_url.startswith("postgresql") else "sqlite"
    server = start_server(
        database_url,
        tmp,
        wrapper=args.server_wrapper,
        root=args.server_root or None,
        workers=args.workers,
        extra_env=dict(kv.split("=", 1) for kv in args.server_env),
        granian=getattr(args, "granian", False),
    )
    print(f"server pid {server.pid} on {server.url} ({backend}); work dir {tmp}", file=sys.stderr)
    return info, tmp, database_url, backend, server


def stop_server(server: Server, *, sig: int = signal.SIGTERM, wait: float = 10.0) -> None:
    proc = server.process
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def workdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))


def cleanup(path: Path, *, keep: bool) -> None:
    """Remove the run's temp dir (database, server log) unless asked to keep it or the run went wrong."""
    if keep:
        print(f"kept {path} (database and server log)", file=sys.stderr)
    else:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------------------------- the table


@dataclass
class Table:
    campaign_id: int
    narrator: dict[str, str]
    players: list[dict[str, str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    cats: list[int] = field(default_factory=list)  # one Cat character per player (when the campaign uses it)

    @property
    def everyone(self) -> list[dict[str, str]]:
        return [self.narrator, *self.players]

    @staticmethod
    def token_of(headers: dict[str, str]) -> str:
        return headers["Authorization"].split(" ", 1)[1]


def _token(client: httpx2.Client, name: str) -> dict[str, str]:
    r = client.post("/api/users", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    r = client.post("/api/tokens", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def make_table(
    base_url: str, players: int, name: str = "Bench Night", *, cats: bool = False, prefix: str = ""
) -> Table:
    """A narrator and `players` players (joined by invite), all through the JSON API; with `cats`, the
    campaign also plays the Cat and every player has a cat."""
    with httpx2.Client(base_url=base_url, timeout=30) as client:
        narrator = _token(client, f"{prefix}narrator")
        r = client.post(
            "/api/campaigns", json={"name": name, "systems": ["dice", "cat"] if cats else ["dice"]}, headers=narrator
        )
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        table = Table(cid, narrator, names=["narrator"])
        for i in range(players):
            who = _token(client, f"{prefix}player{i + 1}")
            code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=narrator).json()["code"]
            r = client.post(f"/api/invites/{code}/accept", headers=who)
            assert r.status_code == 200, r.text
            table.players.append(who)
            table.names.append(f"{prefix}player{i + 1}")
            if cats:
                r = client.post(
                    f"/api/campaigns/{cid}/characters",
                    headers=who,
                    json={"name": f"Smoke {i + 1}", "system": "cat", "sheet": NEW_CAT},
                )
                assert r.status_code == 201, r.text
                table.cats.append(r.json()["id"])
    return table


def verify_log(base_url: str, table: Table, expected: int) -> dict[str, Any]:
    """The log after the run: /verify (chain intact, seq 1..n gapless), its count against the campaign's
    last_seq and against the number of successful actions the client saw. Waits (bounded) until last_seq
    stops moving, since a server may still be finishing requests whose clients gave up."""
    path = f"/api/campaigns/{table.campaign_id}"
    with httpx2.Client(base_url=base_url, timeout=120) as client:
        for _ in range(20):
            before = client.get(path, headers=table.narrator).json().get("last_seq")
            r = client.get(f"{path}/verify", headers=table.narrator)
            after = client.get(path, headers=table.narrator).json().get("last_seq")
            if before == after:
                break
            time.sleep(1)
    body = r.json()
    count = body.get("count")
    return {
        "status": r.status_code,
        "ok": bool(body.get("ok")),
        "count": count,
        "expected": expected,
        "last_seq": after,
        "problems": (body.get("problems") or [])[:5],
        "gapless_chain": r.status_code == 200 and bool(body.get("ok")) and count == after,
        "passed": r.status_code == 200 and bool(body.get("ok")) and count == expected and after == expected,
    }


# --------------------------------------------------------------------------------------------- raw client


def build_request(
    host: str, port: int, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None
) -> bytes:
    """One HTTP/1.1 keep-alive request as bytes (a JSON body when given), built once and sent many times."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: keep-alive"]
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    if body is not None:
        lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


class RawHTTP:
    """One keep-alive HTTP/1.1 connection on asyncio streams: far less client CPU per request than a full
    HTTP library, which matters when the load generator shares two cores with the server."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    def build(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None) -> bytes:
        return build_request(self.host, self.port, method, path, headers, body)

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        """Send a prebuilt request; returns (status, body). Reconnects once if the server closed."""
        if self.writer is None:
            await self.connect()
        assert self.reader is not None and self.writer is not None
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        length, chunked, close = None, False, False
        for line in header_lines:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            body = b"".join(p[:-2] for p in parts)
        else:
            body = await self.reader.readexactly(length or 0)
        if close:
            await self.close()
        return status, body


class LeanHTTP(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection as a bare asyncio.Protocol (what the peer's driver is): requests are
    prebuilt bytes, `send` writes one and returns a future of (status, body), and `data_received` parses only the
    status and Content-Length of a response (no StreamReader, no per-header decoding, no task per read). The
    load generator shares two cores with the server, so each microsecond here is one the server does not get
    (bench/README.md: client CPU per request, before and after). One request in flight per connection."""

    def __init__(self, host: str, port: int, *, timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.transport: asyncio.Transport | None = None
        self.buf = b""
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.status = 0
        self.head_len = 0
        self.need = -1  # length of the current response (head + body), -1 until its head is in
        self.closing = False

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: self, self.host, self.port)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a TCP connection's (uvloop's or asyncio's)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(ConnectionError(f"connection lost: {exc}"))

    def build(self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None) -> bytes:
        return build_request(self.host, self.port, method, path, headers, body)

    async def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
            self.transport = None

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        """Send a prebuilt request and wait for its response; (re)connects when the connection is gone."""
        if self.transport is None or self.transport.is_closing():
            await self.connect()
        assert self.transport is not None
        self.buf, self.need = b"", -1
        loop = asyncio.get_running_loop()
        self.waiter = waiter = loop.create_future()
        timer = loop.call_later(self.timeout, self._fail, TimeoutError(f"no answer in {self.timeout:g} s"))
        self.transport.write(raw)
        try:
            return await waiter
        finally:
            timer.cancel()

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data if self.buf else data
        if self.need < 0:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.buf = buf
                return
            head = buf[:end].lower()
            self.status = int(head[9:12])
            at = head.find(b"\r\ncontent-length:")
            if at < 0:  # every answer of the routes measured here has a length; anything else is an error
                self._fail(ValueError(f"no content-length in {head[:200]!r}"))
                return
            stop = head.find(b"\r\n", at + 17)
            self.head_len = end + 4
            self.need = self.head_len + int(head[at + 17 : stop if stop >= 0 else len(head)])
            self.closing = b"\r\nconnection: close" in head
        if len(buf) < self.need:
            self.buf = buf
            return
        body = buf[self.head_len : self.need]
        self.buf, self.need = b"", -1
        waiter, self.waiter = self.waiter, None
        if self.closing and self.transport is not None:  # answered, then closed by the server: reconnect next time
            self.transport.close()
            self.transport = None
        if waiter is not None and not waiter.done():
            waiter.set_result((self.status, body))

    def _fail(self, exc: Exception) -> None:
        """The response cannot be read (or did not come in time): drop the connection, fail the request."""
        waiter, self.waiter = self.waiter, None
        if self.transport is not None:
            self.transport.close()
            self.transport = None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)


# --------------------------------------------------------------------------------------------- reporting


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list (q in 0..100)."""
    if not sorted_values:
        return float("nan")
    rank = max(1, int(-(-q * len(sorted_values) // 100)))  # ceil
    return sorted_values[min(rank, len(sorted_values)) - 1]


def latency_summary_ms(seconds: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max/mean in milliseconds (None for an empty list, so the JSON stays strict)."""
    values = sorted(seconds)
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None, "mean": None}
    out: dict[str, float | None] = {f"p{q}": round(percentile(values, q) * 1000, 2) for q in (50, 95, 99)}
    out["max"] = round(values[-1] * 1000, 2)
    out["mean"] = round(sum(values) / len(values) * 1000, 2)
    return out


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine() -> dict[str, Any]:
    mem = _run(["free", "-h"]).splitlines()
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": _run(["nproc"]),
        "memory": " ".join(mem[1].split()[:2]) if len(mem) > 1 else "?",
        "python": platform.python_version(),
        "loadavg_1m_before": round(os.getloadavg()[0], 2),  # the machine may be shared: >0.5 means noise
        "commit": _run(["git", "rev-parse", "--short", "HEAD"]),
        "dirty": bool(_run(["git", "status", "--porcelain", "--untracked-files=no"])),
        "cpu": next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            "?",
        )
        if Path("/proc/cpuinfo").exists()
        else "?",
    }


def warn_if_busy(info: dict[str, Any]) -> None:
    load = info.get("loadavg_1m_before", 0.0)
    if load > 1.0:
        print(
            f"WARNING: 1-minute load average {load} before the run: other work on this machine will skew the numbers",
            file=sys.stderr,
        )


def verdict(name: str, value: float | None, limit: float, *, higher_is_better: bool) -> bool:
    met = value is not None and (value >= limit if higher_is_better else value <= limit)
    op = ">=" if higher_is_better else "<="
    print(
        f"TARGET {name}: {'n/a' if value is None else f'{value:g}'} (want {op} {limit:g}) -> "
        f"{'MET' if met else 'MISSED'}"
    )
    return met


def summary_line(data: dict[str, Any]) -> None:
    print(json.dumps(data, sort_keys=False, allow_nan=False), flush=True)


# --------------------------------------------------------------------------------------------- big tables


@dataclass
class Seeded:
    campaign_id: int
    tokens: list[str]  # narrator first
    usernames: list[str]
    cats: dict[int, int]  # member index -> their cat's id (campaigns that play the Cat)


def seed_tables(
    database_url: str, campaigns: int, members: int, *, cats_every: int = 2, prefix: str = "m"
) -> list[Seeded]:
    """Many campaigns straight through the services (argon2 at test cost: thousands of accounts through the
    API would spend minutes hashing). Every member gets an API token; every `cats_every`-th campaign also
    plays the Cat and its players have cats. Works against a running server's database (SQLite WAL or
    PostgreSQL)."""
    sys.path.insert(0, str(ROOT))
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    from app.accounts import service as accounts
    from app.campaigns import service as campaign_service
    from app.characters.service import create_character
    from app.db import make_engine, make_sessionmaker

    accounts.password_hasher = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    engine = make_engine(database_url)
    factory = make_sessionmaker(engine)
    out: list[Seeded] = []
    try:
        for c in range(campaigns):
            with factory() as db:
                names = [f"{prefix}{c}n"] + [f"{prefix}{c}p{i}" for i in range(1, members)]
                cat = c % cats_every == 0
                systems = ("dice", "cat") if cat else ("dice",)
                campaign, seated = seat_table(db, tuple(names), systems=systems, name=f"Table {c}", password=PASSWORD)
                users = list(seated.values())
                tokens = [accounts.create_token(db, user, "bench")[1] for user in users]
                cats = {}
                if cat:
                    for i, user in enumerate(users[1:], start=1):
                        acc = campaign_service.access(db, user, campaign.id)
                        cats[i] = create_character(db, acc, name=f"Smoke {i}", system="cat", sheet=NEW_CAT).id
                db.commit()
                out.append(Seeded(campaign.id, tokens, names, cats))
    finally:
        engine.dispose()
    return out


async def signed_in_cookie(client: Any, username: str) -> str:
    """Sign in through the form (as a browser does) and return the Cookie header value for pages."""
    import re

    page = await client.get("/signin")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token, "no CSRF token on /signin"
    r = await client.post(
        "/signin",
        data={"username": username, "password": PASSWORD, "csrf_token": token.group(1), "next": "/"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def rss_kb(pid: int) -> int:
    """Resident memory of a process in KiB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
