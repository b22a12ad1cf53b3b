"""Where handout pictures are kept: content-addressed blobs (the key is the SHA-256 of the stored bytes, plus the
copy's width), behind one small protocol with two implementations chosen by `FATEBOARD_MEDIA_STORE`.

- `LocalMediaStore` (default): files under the instance folder, written to a temporary name and renamed, so a
  reader never sees half a file and a crash leaves no partial picture under a real name.
- `S3MediaStore`: an S3-compatible object store (AWS, MinIO) through boto3, for several processes or hosts.

Blobs are immutable: the same bytes always get the same name, so a second upload of a picture writes nothing new.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from app.config import Settings

_KEY = re.compile(r"^[0-9a-f]{64}(?:-w[0-9]{1,4})?$")


def blob_key(sha256: str, width: int | None = None) -> str:
    key = sha256 if width is None else f"{sha256}-w{width}"
    if not _KEY.match(key):
        raise ValueError(f"not a media key: {key!r}")
    return key


class MediaStore(Protocol):
    def put(self, key: str, data: bytes, content_type: str) -> None: ...

    def get(self, key: str) -> bytes | None: ...

    def delete(self, key: str) -> None: ...


class LocalMediaStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        key = _checked(key)
        return self.root / key[:2] / key

    def put(self, key: str, data: bytes, content_type: str) -> None:
        path = self._path(key)
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)


class S3MediaStore:
    def __init__(self, client: Any, bucket: str) -> None:
        self.client = client
        self.bucket = bucket

    @classmethod
    def from_settings(cls, settings: Settings) -> S3MediaStore:
        import boto3
        from botocore.config import Config

        options: dict[str, Any] = {
            "region_name": settings.s3_region,
            "config": Config(retries={"max_attempts": 3, "mode": "standard"}, s3={"addressing_style": "path"}),
        }
        if settings.s3_endpoint_url:
            options["endpoint_url"] = settings.s3_endpoint_url
        if settings.s3_access_key:
            options["aws_access_key_id"] = settings.s3_access_key
            options["aws_secret_access_key"] = settings.s3_secret_key
        return cls(boto3.client("s3", **options), settings.s3_bucket)

    def ensure_bucket(self) -> None:
        from botocore.exceptions import ClientError

        try:
            self.client.head_bucket(Bucket=self.bucket)
        except ClientError:
            self.client.create_bucket(Bucket=self.bucket)

    def put(self, key: str, data: bytes, content_type: str) -> None:
        self.client.put_object(Bucket=self.bucket, Key=_checked(key), Body=data, ContentType=content_type)

    def get(self, key: str) -> bytes | None:
        from botocore.exceptions import ClientError

        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=_checked(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        data: bytes = answer["Body"].read()
        return data

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=_checked(key))


def _checked(key: str) -> str:
    """Only a content address (64 hex digits, maybe "-w<width>") names a blob: never a path."""
    if not _KEY.match(key):
        raise ValueError(f"not a media key: {key!r}")
    return key


def make_store(settings: Settings) -> MediaStore:
    if settings.media_store == "s3":
        store = S3MediaStore.from_settings(settings)
        store.ensure_bucket()
        return store
    return LocalMediaStore(settings.resolved_media_dir())
