"""Every answer body the sender reads is bounded (issue 35, item 7b): a receiver on 127.0.0.1 answers a 429 with a
body of 300 MB; the push path (pywebpush reads the answer's text) and the Discord path (a 429's JSON) read at most
MAX_ANSWER_BYTES of it and drop the connection — the receiver gets to send only what the socket buffers hold."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from app.notify.deliver import MAX_ANSWER_BYTES, _NoRedirects, answer_json

HUGE = 300_000_000
CHUNK = b"x" * 65536


async def _huge_answer(read: Callable[[aiohttp.ClientSession, str], Awaitable[Any]]) -> tuple[Any, int]:
    """Serve one request with a 429 announcing HUGE bytes and streaming them; return what `read` returned and how
    many body bytes the server managed to write before the client let go."""
    written = 0
    done = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal written
        await reader.readuntil(b"\r\n\r\n")
        writer.write(
            b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {HUGE}\r\n\r\n".encode()
        )
        try:
            while written < HUGE:
                writer.write(CHUNK)
                await writer.drain()
                written += len(CHUNK)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
            done.set()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with aiohttp.ClientSession() as http:
            result = await asyncio.wait_for(read(http, f"http://127.0.0.1:{port}/"), 30)
        await asyncio.wait_for(done.wait(), 30)
    finally:
        server.close()
    return result, written


def test_the_push_path_reads_a_bounded_answer() -> None:
    async def read(http: aiohttp.ClientSession, url: str) -> Any:
        answer = await _NoRedirects(http).post(url, data=b"{}")
        return answer.status, await answer.text()

    (status, text), written = asyncio.run(_huge_answer(read))
    assert status == 429 and len(text) == MAX_ANSWER_BYTES
    assert written < 32_000_000  # what the socket buffers took, not the 300 MB


def test_the_discord_path_reads_a_bounded_429_body() -> None:
    async def read(http: aiohttp.ClientSession, url: str) -> Any:
        async with http.post(url, json={}) as response:
            return response.status, await answer_json(response)

    (status, body), written = asyncio.run(_huge_answer(read))
    assert status == 429 and body is None  # not JSON within the bound: the default Retry-After applies
    assert written < 32_000_000


@pytest.mark.parametrize("payload", [b'{"retry_after": 2.5}', b"[]"])
def test_a_small_answer_is_read_whole(payload: bytes) -> None:
    async def run() -> Any:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 429 X\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with aiohttp.ClientSession() as http, http.post(f"http://127.0.0.1:{port}/") as response:
                return await answer_json(response)
        finally:
            server.close()

    import json

    assert asyncio.run(run()) == json.loads(payload)
