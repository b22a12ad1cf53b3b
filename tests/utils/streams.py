"""Reading a Server-Sent Events stream in-process: the ASGI app called directly (no server), the catch-up from
the start replayed, then a disconnect. Run it on a TestClient's portal: `client.portal.call(read_stream, app, path,
headers, until_seq)`."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import FastAPI
from starlette.types import Message, Receive


def http_scope(method: str, path: str, query: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """An ASGI HTTP scope as a server would make it for this request (host testserver, client 127.0.0.1)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(b"host", b"testserver"), *headers],
    }


def one_request(done: anyio.Event) -> Receive:
    """An ASGI `receive`: the (empty) request body once, then the client hangs up when `done` is set."""
    asked = False

    async def receive() -> Message:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    return receive


async def read_stream(app: FastAPI, path: str, headers: dict[str, str], until_seq: int) -> str:
    """Replay an SSE stream from the start (?after=0) by calling the ASGI app; disconnect once the entry with
    id `until_seq` has arrived (the catch-up is done) or after a few seconds."""
    chunks: list[str] = []
    done = anyio.Event()
    scope = http_scope("GET", path, "after=0", [(k.lower().encode(), v.encode()) for k, v in headers.items()])
    receive = one_request(done)

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            chunks.append(f"{message['status']}\n")
            if message["status"] != 200:
                done.set()
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b"").decode())
            if f"id: {until_seq}\n" in "".join(chunks):
                done.set()

    with anyio.move_on_after(10):
        await app(scope, receive, send)
    assert done.is_set(), f"the stream {path} did not replay up to #{until_seq}: {''.join(chunks)[:500]}"
    return "".join(c for c in chunks if not c.startswith(": keepalive"))
