"""Reading a Server-Sent Events stream in-process: the ASGI app called directly (no server), the catch-up from
the start replayed, then a disconnect. Run it on a TestClient's portal: `client.portal.call(read_stream, app, path,
headers, until_seq)`."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import FastAPI


async def read_stream(app: FastAPI, path: str, headers: dict[str, str], until_seq: int) -> str:
    """Replay an SSE stream from the start (?after=0) by calling the ASGI app; disconnect once the entry with
    id `until_seq` has arrived (the catch-up is done) or after a few seconds."""
    chunks: list[str] = []
    done = anyio.Event()
    asked = False
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "method": "GET", "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 50000),
        "root_path": "", "path": path, "raw_path": path.encode(), "query_string": b"after=0",
        "headers": [(b"host", b"testserver")] + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
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
