"""A push service and a webhook receiver on 127.0.0.1, for the tests: a real HTTP server in a thread that records
every POST, decrypts Web Push payloads (RFC 8291, aes128gcm) with the keys of the "browser" that subscribed, and
answers what a test tells it to (a status, a Retry-After, a redirect, a slow answer)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class Browser:
    """A device's push keys, as a browser makes them (a P-256 key pair and a 16-byte auth secret)."""

    endpoint: str
    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def keys(self) -> dict[str, str]:
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"p256dh": b64url(raw), "auth": b64url(self.auth)}

    def subscription(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": self.keys()}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(body, private_key=self.private, auth_secret=self.auth, version="aes128gcm")
        payload: dict[str, Any] = json.loads(plain)
        return payload


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Receiver:
    """`answers[path]`: a list of (status, headers) used one per request (the last one repeats); default 201."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answers: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self.delay: dict[str, float] = {}
        self.browsers: dict[str, Browser] = {}
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                path = self.path.split("?")[0]
                time.sleep(receiver.delay.get(path, 0))
                with receiver.arrived:
                    receiver.received.append(
                        Received(path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                    )
                    receiver.arrived.notify_all()
                queue = receiver.answers.get(path) or [(201, {})]
                status, headers = queue.pop(0) if len(queue) > 1 else queue[0]
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def browser(self, name: str) -> Browser:
        b = Browser(f"{self.origin}/push/{name}")
        self.browsers[f"/push/{name}"] = b
        return b

    def pushes(self, name: str | None = None) -> list[dict[str, Any]]:
        """Decrypted payloads that arrived (for one browser, or all), in arrival order."""
        return [
            self.browsers[r.path].decrypt(r.body)
            for r in list(self.received)
            if r.path in self.browsers and (name is None or r.path == f"/push/{name}")
        ]

    def posts(self, path: str = "/hook") -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in list(self.received) if r.path == path]

    def wait(self, count: int, path_prefix: str = "/", timeout: float = 10.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                got = [r for r in self.received if r.path.startswith(path_prefix)]
                if len(got) >= count or time.monotonic() > deadline:
                    return got
                self.arrived.wait(max(0.01, deadline - time.monotonic()))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
