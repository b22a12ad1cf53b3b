"""The VAPID key pair (RFC 8292): generated at first start and kept under the instance folder, or given as a
setting. py_vapid (pywebpush's own dependency) makes and signs with it — no crypto written here."""

from __future__ import annotations

import base64
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid


def load_vapid(pem: str, key_file: Path) -> Vapid:
    if pem.strip():
        return Vapid.from_pem(pem.strip().encode())
    if key_file.exists():
        return Vapid.from_file(str(key_file))
    key = Vapid()
    key.generate_keys()
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key.save_key(str(key_file))
    key_file.chmod(0o600)
    return key


def public_key(key: Vapid) -> str:
    """The application server key a browser subscribes with: the uncompressed P-256 point, base64url."""
    raw = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
