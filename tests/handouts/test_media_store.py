"""Both MediaStores keep what they are given under its content address and give back exactly those bytes; the S3
one against a real S3-compatible server on 127.0.0.1 (moto's standalone server), skipped without moto. The app on
the S3 store: a handout uploaded, served and deleted through the API with nothing on the local disk."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from utils import pictures
from utils.tables import Table

from app.config import Settings
from app.handouts.store import LocalMediaStore, MediaStore, S3MediaStore, blob_key, make_store
from app.main import create_app
from app.models import Base


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    moto_server = pytest.importorskip("moto.server", reason="S3 run: install the dev extras (moto[server])")
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def s3_settings(endpoint: str, tmp_path: Path, bucket: str) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 's3.db'}",
        secret_key="test-secret",
        secret_key_file=tmp_path / "key",
        signup_max_per_hour=100_000,
        media_store="s3",
        s3_endpoint_url=endpoint,
        s3_bucket=bucket,
        s3_access_key="testing",
        s3_secret_key="testing",
    )


def roundtrip(store: MediaStore) -> None:
    data = b"\x89PNG not really, but bytes" * 100
    sha = hashlib.sha256(data).hexdigest()
    assert store.get(blob_key(sha)) is None
    store.put(blob_key(sha), data, "image/png")
    store.put(blob_key(sha), data, "image/png")  # the same bytes again: harmless
    store.put(blob_key(sha, 480), b"copy", "image/webp")
    assert store.get(blob_key(sha)) == data and store.get(blob_key(sha, 480)) == b"copy"
    store.delete(blob_key(sha))
    store.delete(blob_key(sha))  # gone already: harmless
    assert store.get(blob_key(sha)) is None and store.get(blob_key(sha, 480)) == b"copy"


def test_local_store(tmp_path: Path) -> None:
    store = LocalMediaStore(tmp_path / "media")
    roundtrip(store)
    assert not list((tmp_path / "media").rglob(".part-*"))  # no temporary file left behind


def test_keys_are_content_addresses_only() -> None:
    with pytest.raises(ValueError):
        blob_key("../" + "a" * 61)
    for bad in ("../etc/passwd", "A" * 64, "a" * 63, "a" * 64 + "-w", "a" * 64 + "-w12345", "a" * 64 + "/x"):
        with pytest.raises(ValueError):
            LocalMediaStore(Path("/nonexistent")).get(bad)


def test_s3_store(s3_endpoint: str, tmp_path: Path) -> None:
    store = make_store(s3_settings(s3_endpoint, tmp_path, "unit-bucket"))
    assert isinstance(store, S3MediaStore)
    roundtrip(store)


@pytest.fixture
def s3_app(s3_endpoint: str, tmp_path: Path) -> Iterator[FastAPI]:
    application = create_app(s3_settings(s3_endpoint, tmp_path, "app-bucket"))
    Base.metadata.create_all(application.state.engine)
    yield application
    application.state.engine.dispose()


def test_the_app_on_s3(s3_app: FastAPI, tmp_path: Path) -> None:
    with TestClient(s3_app) as client:
        t = Table(client)
        r = client.post(
            f"/api/campaigns/{t.id}/handouts",
            headers=t.narrator,
            data={"title": "Harbour"},
            files={"file": ("h.jpg", pictures.photo(1000, 700), "image/jpeg")},
        )
        assert r.status_code == 201, r.text
        h = r.json()
        served = client.get(h["url"], headers=t.narrator)
        assert served.status_code == 200 and hashlib.sha256(served.content).hexdigest() == h["sha256"]
        assert client.get(h["url"], params={"w": 480}, headers=t.narrator).status_code == 200
        keys = {o["Key"] for o in s3_app.state.media.client.list_objects_v2(Bucket="app-bucket")["Contents"]}
        assert keys == {h["sha256"], f"{h['sha256']}-w480", f"{h['sha256']}-w960"}
        assert not (tmp_path / "media").exists()
        assert client.delete(f"/api/campaigns/{t.id}/handouts/{h['id']}", headers=t.narrator).status_code == 204
        assert "Contents" not in s3_app.state.media.client.list_objects_v2(Bucket="app-bucket")
