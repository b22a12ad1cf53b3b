"""Request bodies are bounded (issue 21, docs/LIMITS.md "Request bodies"): a body larger than its route takes is
refused with 413 before anything reads it — from its Content-Length before a byte of it is read, or as soon as
the bytes streamed pass the limit — a body that trickles in is cut off with 408, and bodies within the limit
work as before. Against a real uvicorn over raw sockets (so we see when the answer comes, and how much of the
body had been sent by then), then in-process for the middleware's contract."""

from __future__ import annotations

import asyncio
import json
import re
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient
from utils.server import LiveServer, start_server, stop_server
from utils.web import api_token

from app.security import BODY_LIMITS, BodyLimitMiddleware, MiB

BIG = 100 * MiB  # what the attack of issue 21 sent, four at a time
PIECE = 64 * 1024
TIMEOUT = 1.0  # the live server's FATEBOARD_BODY_TIMEOUT_SECONDS, so a trickle is cut off within seconds
MIN_RATE = 8 * 1024


# --------------------------------------------------------------------------------------------- a raw client


def _host_port(server: LiveServer) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def _head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"


class Answer:
    def __init__(self, raw: bytes, sent: int, seconds: float) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        self.status = int(status_line.split(" ", 2)[1])
        self.headers = {name.strip().lower(): value.strip() for name, _, value in (ln.partition(":") for ln in lines)}
        self.sent = sent  # body bytes the client had sent when the answer's first byte arrived
        self.seconds = seconds

    def json(self) -> Any:
        return json.loads(self.body)


def send_until_answered(server: LiveServer, head: bytes, pieces: Iterator[bytes], *, wait: float = 15.0) -> Answer:
    """Send `head`, then `pieces` one by one as long as the server has not answered; then read the answer (a
    server that answers early closes the connection: a reset after the answer is expected). A small send buffer,
    as a real network has, so `sent` is what left the client, not what loopback's big buffers swallowed."""
    sock = socket.create_connection(_host_port(server), timeout=wait)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        started = time.monotonic()
        sock.sendall(head)
        sent = 0
        for piece in pieces:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(piece)
            except OSError:  # refused and closed while we were still sending
                break
            sent += len(piece)
        else:
            select.select([sock], [], [], wait)
        answered = time.monotonic() - started
        raw = b""
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                raw += data
                head_end = raw.find(b"\r\n\r\n")
                if head_end >= 0:
                    length = re.search(rb"(?im)^content-length:\s*(\d+)", raw[:head_end])
                    if length and len(raw) >= head_end + 4 + int(length.group(1)):
                        break
        except (ConnectionResetError, TimeoutError):
            pass
        assert raw, "no answer"
        return Answer(raw, sent, answered)
    finally:
        sock.close()


def plain_pieces(total: int, piece: bytes = b" " * PIECE) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        part = piece[: total - sent]
        sent += len(part)
        yield part


def chunked_pieces(total: int) -> Iterator[bytes]:
    for part in plain_pieces(total):
        yield _chunk(part)
    yield b"0\r\n\r\n"


def trickle(data: bytes, every: float) -> Iterator[bytes]:
    for i in range(len(data)):
        time.sleep(every)
        yield data[i : i + 1]


# --------------------------------------------------------------------------------------------- the live server


class Site:
    def __init__(self, server: LiveServer, token: dict[str, str], cookie: str, csrf: str) -> None:
        self.server, self.token, self.cookie, self.csrf = server, token, cookie, csrf

    def auth(self, kind: str) -> dict[str, str]:
        """Headers of an anonymous visitor, an API client with a token, or a signed-in browser."""
        if kind == "token":
            return dict(self.token)
        if kind == "cookie":
            return {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}
        return {}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("bodies")
    server = start_server(
        f"sqlite:///{tmp / 'bodies.db'}",
        tmp,
        extra_env={"FATEBOARD_BODY_TIMEOUT_SECONDS": str(TIMEOUT), "FATEBOARD_BODY_MIN_RATE": str(MIN_RATE)},
    )
    try:
        with httpx2.Client(base_url=server.url, timeout=30) as c:
            token = api_token(c, "bodies")  # type: ignore[arg-type]  # the same calls as a TestClient's
            page = c.get("/signin").text
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
            assert csrf
            r = c.post(
                "/signin",
                data={"username": "bodies", "password": "correct horse", "csrf_token": csrf.group(1)},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text
            cookie = "; ".join(f"{k}={v}" for k, v in c.cookies.items())
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', c.get("/account").text)
            assert csrf
        yield Site(server, token, cookie, csrf.group(1))
    finally:
        stop_server(server)


# (path, who sends it, content type): JSON for the API (anonymous and with a token), forms for the pages
# (anonymous sign-in, a signed-in browser's new campaign).
ROUTES = [
    ("/api/campaigns", "anonymous", "application/json"),
    ("/api/campaigns", "token", "application/json"),
    ("/signin", "anonymous", "application/x-www-form-urlencoded"),
    ("/campaigns", "cookie", "application/x-www-form-urlencoded"),
]


def _check_refusal(answer: Answer, path: str, status: int = 413) -> None:
    assert answer.status == status, answer.body[:500]
    assert answer.headers["connection"] == "close"
    assert answer.headers["x-content-type-options"] == "nosniff"
    if path.startswith("/api/"):
        body = answer.json()
        assert set(body) == {"detail", "field"} and body["field"] is None
        words = body["detail"]
    else:
        assert answer.headers["content-type"].startswith("text/html")
        words = answer.body.decode()
    if status == 413:
        assert "too large" in words and "1 MB" in words
    else:
        assert "too slowly" in words


@pytest.mark.server
@pytest.mark.parametrize(("path", "who", "content_type"), ROUTES)
def test_a_declared_oversized_body_is_refused_before_it_is_sent(
    site: Site, path: str, who: str, content_type: str
) -> None:
    """The head and one piece of the body, then the client waits: the answer comes though 99.9 % of the body
    never will (the server decided from the Content-Length)."""
    head = _head("POST", path, {"Content-Type": content_type, "Content-Length": str(BIG), **site.auth(who)})
    answer = send_until_answered(site.server, head, iter([b" " * PIECE]))
    _check_refusal(answer, path)
    assert answer.sent <= PIECE  # often 0: the answer was there before the first piece went


@pytest.mark.server
@pytest.mark.parametrize(("path", "who", "content_type"), ROUTES)
def test_a_chunked_oversized_body_is_refused_once_it_passes_the_limit(
    site: Site, path: str, who: str, content_type: str
) -> None:
    head = _head("POST", path, {"Content-Type": content_type, "Transfer-Encoding": "chunked", **site.auth(who)})
    answer = send_until_answered(site.server, head, chunked_pieces(BIG))
    _check_refusal(answer, path)
    # The limit (1 MiB) plus what the kernel's buffers hold on the way: most of the 100 MB was never sent.
    assert MiB < answer.sent < 16 * MiB, answer.sent


@pytest.mark.server
def test_expect_100_continue_gets_the_413_instead_of_the_go_ahead(site: Site) -> None:
    head = _head(
        "POST",
        "/api/campaigns",
        {
            "Content-Type": "application/json",
            "Content-Length": str(BIG),
            "Expect": "100-continue",
            **site.auth("token"),
        },
    )
    answer = send_until_answered(site.server, head, iter(()))
    _check_refusal(answer, "/api/campaigns")
    assert answer.sent == 0


@pytest.mark.server
@pytest.mark.parametrize("framing", ["plain", "chunked"])
def test_bodies_within_the_limit_still_work(site: Site, framing: str) -> None:
    """A campaign from a JSON body just under 1 MiB (padded with whitespace, which JSON allows), through the API
    and through the page's form, in both framings: the body reaches the route whole."""
    name = f"Under the limit {framing}"
    doc = json.dumps({"name": name, "systems": ["dice"]}).encode()
    body = doc[:-1] + b" " * (MiB - len(doc)) + b"}"
    assert len(body) == MiB
    form = f"name={name.replace(' ', '+')}+form&systems=dice&pad=".encode()
    form += b"x" * (MiB - len(form))
    for path, content_type, data, who, expected in (
        ("/api/campaigns", "application/json", body, "token", 201),
        ("/campaigns", "application/x-www-form-urlencoded", form, "cookie", 303),
    ):
        framing_headers = {"Content-Length": str(len(data))} if framing == "plain" else {"Transfer-Encoding": "chunked"}
        head = _head("POST", path, {"Content-Type": content_type, **framing_headers, **site.auth(who)})
        step = 64 * 1024
        pieces = [data[i : i + step] for i in range(0, len(data), step)]
        answer = send_until_answered(
            site.server, head, iter(pieces if framing == "plain" else [*map(_chunk, pieces), b"0\r\n\r\n"])
        )
        assert answer.status == expected, answer.body[:300]
    with httpx2.Client(base_url=site.server.url, timeout=30) as c:
        names = {campaign["name"] for campaign in c.get("/api/campaigns", headers=site.token).json()["campaigns"]}
    assert {name, f"{name} form"} <= names


@pytest.mark.server
def test_one_byte_over_the_limit_is_refused_and_exactly_the_limit_is_not(site: Site) -> None:
    for size, refused in ((MiB + 1, True), (MiB, False)):
        head = _head(
            "POST",
            "/api/campaigns",
            {"Content-Type": "application/json", "Content-Length": str(size), **site.auth("token")},
        )
        answer = send_until_answered(site.server, head, plain_pieces(size))
        assert (answer.status == 413) is refused, (size, answer.status)


@pytest.mark.server
@pytest.mark.parametrize(
    ("path", "who", "framing"), [("/api/campaigns", "token", "plain"), ("/signin", "anonymous", "chunked")]
)
def test_a_trickled_body_is_cut_off(site: Site, path: str, who: str, framing: str) -> None:
    """One byte every 0.2 s is 5 bytes/s: after the head start (1 s here) the average is far under the minimum
    rate, so the server answers 408 and closes, though the body is small and its end far away."""
    data = b'{"name": "slow", "systems": ["dice"]}' + b" " * 200
    content_type = "application/json" if path.startswith("/api/") else "application/x-www-form-urlencoded"
    framing_headers = {"Content-Length": str(len(data))} if framing == "plain" else {"Transfer-Encoding": "chunked"}
    head = _head("POST", path, {"Content-Type": content_type, **framing_headers, **site.auth(who)})
    pieces = trickle(data, 0.2) if framing == "plain" else (_chunk(b) for b in trickle(data, 0.2))
    answer = send_until_answered(site.server, head, pieces)
    _check_refusal(answer, path, status=408)
    assert answer.sent < len(data) // 4
    assert answer.seconds < TIMEOUT + 5  # cut off at the head start, not at the end of the body


@pytest.mark.server
def test_a_body_that_stops_arriving_is_cut_off(site: Site) -> None:
    data = json.dumps({"name": "stalled", "systems": ["dice"]}).encode()
    head = _head(
        "POST",
        "/api/campaigns",
        {"Content-Type": "application/json", "Content-Length": str(len(data)), **site.auth("token")},
    )
    answer = send_until_answered(site.server, head, iter([data[:10]]))  # then nothing more
    _check_refusal(answer, "/api/campaigns", status=408)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.server
@pytest.mark.slow
def test_the_server_memory_stays_bounded_under_four_100_mb_bodies_at_once(site: Site) -> None:
    """Issue 21's attack (4 × 100 MB at once, plain and chunked, anonymous): the server took 1.3 GiB for it
    before. bench/bodies.py measures the same with the ping's latency (docs/LIMITS.md)."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to read the server's memory")
    pid = site.server.process.pid
    idle = _rss_mib(pid)
    peak = idle
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _rss_mib(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    answers: list[Answer] = []

    def attack(framing: str) -> None:
        headers = {"Content-Length": str(BIG)} if framing == "plain" else {"Transfer-Encoding": "chunked"}
        head = _head("POST", "/api/campaigns", {"Content-Type": "application/json", **headers})
        answers.append(
            send_until_answered(site.server, head, plain_pieces(BIG) if framing == "plain" else chunked_pieces(BIG))
        )

    try:
        for framing in ("plain", "chunked"):
            threads = [threading.Thread(target=attack, args=(framing,)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=60)
    finally:
        stop.set()
        sampler.join()
    assert [a.status for a in answers] == [413] * 8
    assert peak - idle <= 64, f"RSS grew from {idle:.0f} to {peak:.0f} MiB"
    with httpx2.Client(timeout=10) as c:
        assert c.get(site.server.url + "/api/ping").status_code == 200


# --------------------------------------------------------------------------------------------- in-process


def test_the_limit_of_a_route_comes_from_the_one_table() -> None:
    guard = BodyLimitMiddleware(lambda *a: None, max_bytes=MiB)  # type: ignore[arg-type]
    assert guard.limit("POST", "/api/campaigns") == MiB
    assert guard.limit("POST", "/api/campaigns/12/handouts") == 21 * MiB
    assert guard.limit("POST", "/campaigns/12/handouts") == 21 * MiB
    assert guard.limit("PUT", "/campaigns/12/handouts") == MiB  # the method is part of the row
    assert guard.limit("POST", "/campaigns/12/handouts/3") == MiB  # anchored
    assert guard.limit("POST", "/campaigns/12/handouts\n") == MiB  # the whole path, not "$ before a newline"
    assert guard.limit("POST", "/campaigns/١٢/handouts") == MiB  # \d is ASCII only
    assert all(row.why for row in BODY_LIMITS)


def test_the_handout_routes_take_21_mib_and_no_more(client: TestClient) -> None:
    """Whatever the routes answer once they exist, it is not a 413 under 21 MiB (the declared length decides)."""
    # Under the limit the body passes the guard and the route's own checks answer: no token (401), no CSRF token (403).
    for path, status in (("/api/campaigns/1/handouts", 401), ("/campaigns/1/handouts", 403)):
        under = client.post(path, content=b"x" * (2 * MiB), headers={"Content-Type": "application/octet-stream"})
        assert under.status_code == status, (path, under.text[:300])
        over = client.post(path, content=b"x" * (21 * MiB + 1), headers={"Content-Type": "application/octet-stream"})
        assert over.status_code == 413, path


def test_a_refusal_speaks_the_readers_language(client: TestClient) -> None:
    big = b"x" * (MiB + 1)
    r = client.post(
        "/api/campaigns", content=big, headers={"Content-Type": "application/json", "Accept-Language": "de"}
    )
    assert r.status_code == 413
    assert r.json() == {"detail": "Das ist zu groß zum Senden: hier gehen höchstens 1 MB auf einmal.", "field": None}
    page = client.post(
        "/signin", content=big, headers={"Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "da"}
    )
    assert page.status_code == 413 and page.headers["content-type"].startswith("text/html")
    assert '<html lang="da">' in page.text and "413 · Fateboard" in page.text
    assert "Det er for stort at sende" in page.text
    fragment = client.post(
        "/signin", content=big, headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}
    )
    assert fragment.status_code == 413
    assert fragment.text.startswith('<p class="error" role="alert">This is too large to send')


def test_a_streamed_oversized_form_writes_nothing(client: TestClient) -> None:
    """A chunked page form over the limit is refused whole: the route never sees a cut-off body."""
    from utils.web import signup

    signup(client, "streamer")
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/account").text)
    assert token

    def body() -> Iterator[bytes]:
        yield b"name=Cut+off&systems=dice&pad="
        for _ in range(20):
            yield b"x" * PIECE

    r = client.post(
        "/campaigns",
        content=body(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": token.group(1)},
        follow_redirects=False,
    )
    assert r.status_code == 413
    assert "Cut off" not in client.get("/campaigns").text


# The middleware's contract, with a stand-in app that records what it got.


def _run(
    guard: BodyLimitMiddleware, scope: dict[str, Any], messages: list[dict[str, Any]], *, delay: float = 0.0
) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        if delay:
            await asyncio.sleep(delay)
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(guard(scope, receive, send))
    return sent


def _scope(method: str = "POST", headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": "/api/campaigns",
        "headers": headers or [(b"transfer-encoding", b"chunked")],
    }


class Recorder:
    """An app that reads the whole body, then answers 200; notes what it read and how it ended."""

    def __init__(self) -> None:
        self.body = b""
        self.finished = False
        self.raised: BaseException | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            while True:
                message = await receive()
                self.body += message.get("body", b"")
                if not message.get("more_body"):
                    break
        except Exception as exc:
            self.raised = exc
            await send({"type": "http.response.start", "status": 500, "headers": []})  # what an error layer does
            await send({"type": "http.response.body", "body": b"oops"})
            raise
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        self.finished = True


def test_get_passes_with_the_servers_own_receive_and_send() -> None:
    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.extend([receive, send])

    async def receive() -> dict[str, Any]:
        return {}

    async def send(message: Any) -> None:
        pass

    guard = BodyLimitMiddleware(app, max_bytes=1024)
    asyncio.run(guard(_scope("GET", [(b"content-length", b"99999999")]), receive, send))
    assert seen == [receive, send]  # not a wrapper: nothing more per GET, and the streams untouched


def test_a_streamed_overflow_stops_the_app_and_only_the_413_goes_out() -> None:
    app = Recorder()
    guard = BodyLimitMiddleware(app, max_bytes=1024)
    sent = _run(guard, _scope(), [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]
    assert not app.finished and app.raised is not None and len(app.body) == 600  # never the 1,200th byte


def test_a_client_gone_mid_body_never_hands_the_app_a_cut_off_body() -> None:
    app = Recorder()
    guard = BodyLimitMiddleware(app, max_bytes=MiB)
    sent = _run(
        guard,
        _scope(),
        [{"type": "http.request", "body": b"name=half", "more_body": True}, {"type": "http.disconnect"}],
    )
    assert sent == [] and not app.finished and app.raised is not None


def test_a_whole_body_within_the_limit_reaches_the_app() -> None:
    app = Recorder()
    guard = BodyLimitMiddleware(app, max_bytes=1024)
    sent = _run(
        guard,
        _scope(),
        [
            {"type": "http.request", "body": b"x" * 600, "more_body": True},
            {"type": "http.request", "body": b"y" * 424, "more_body": False},
        ],
    )
    assert app.finished and app.body == b"x" * 600 + b"y" * 424
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [200]


def test_a_pause_longer_than_the_timeout_is_408() -> None:
    app = Recorder()
    guard = BodyLimitMiddleware(app, max_bytes=MiB, timeout=0.05)
    sent = _run(guard, _scope(), [{"type": "http.request", "body": b"x", "more_body": True}] * 2, delay=0.2)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [408]
    assert not app.finished


def test_a_body_under_the_minimum_rate_is_408_after_the_head_start() -> None:
    """Pieces arrive every 0.03 s (each within the 0.1 s timeout) but carry 10 bytes: 330 bytes/s, under the
    1,000 bytes/s minimum, so once the head start is over the server stops waiting."""
    app = Recorder()
    guard = BodyLimitMiddleware(app, max_bytes=MiB, timeout=0.1, min_rate=1000)
    started = time.monotonic()
    sent = _run(guard, _scope(), [{"type": "http.request", "body": b"x" * 10, "more_body": True}] * 100, delay=0.03)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [408]
    assert time.monotonic() - started < 1.0  # long before the 100 pieces (3 s) were through
    assert 0 < len(app.body) < 1000
