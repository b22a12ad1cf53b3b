"""Settings, read from the environment (prefix FATEBOARD_) or a .env file. SQLite is the default."""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app import i18n


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FATEBOARD_", env_file=".env", extra="ignore")

    database_url: str = "sqlite:///./fateboard.db"
    # Empty: read (or create once) instance/secret_key, so sessions survive restarts on a dev machine.
    secret_key: str = ""
    secret_key_file: Path = Path("instance/secret_key")
    # The session cookie's `Secure` flag and the Strict-Transport-Security header. Unset: both follow from an
    # https `base_url`, or from the request's own scheme (https when uvicorn holds the TLS, or when a proxy in
    # `trusted_proxies` says X-Forwarded-Proto: https). true/false: forced either way (docs/LIMITS.md).
    cookie_secure: bool | None = None
    # HSTS max-age in seconds, sent with every response of a site served over https; 0: never sent.
    hsts_seconds: int = Field(default=365 * 24 * 60 * 60, ge=0)
    session_max_age: int = 60 * 60 * 24 * 30
    broker: str = Field(default="memory", pattern="^(memory|redis)$")
    redis_url: str = "redis://127.0.0.1:6379/0"
    base_url: str = ""
    # Request bodies (docs/LIMITS.md, app/security/bodies.py BODY_LIMITS for the routes that take more): larger ones
    # are refused with 413 before they are read; a body must keep arriving (no pause longer than the
    # timeout, and at least `body_min_rate` bytes per second on average after the first `body_timeout`
    # seconds), else 408.
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    body_timeout_seconds: float = Field(default=10.0, gt=0)
    body_min_rate: int = Field(default=8 * 1024, ge=1)
    # The sign-in throttle (docs/LIMITS.md): failures per account from one address inside the window
    # before HTTP 429; an address may fail 4x that over all accounts, an account 20x that from all addresses.
    signin_max_failures: int = Field(default=5, ge=1)
    signin_window_seconds: int = Field(default=15 * 60, ge=1)
    # New accounts per client address per hour.
    signup_max_per_hour: int = Field(default=10, ge=1)
    # Comma-separated IPs or networks of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are
    # believed. Empty: the socket's peer is the client (run uvicorn with --no-proxy-headers).
    trusted_proxies: str = ""
    # argon2 needs 64 MiB per hash: at most this many at once, and a bounded queue in front of them.
    argon2_concurrency: int = Field(default=2, ge=1)
    argon2_max_waiting: int = Field(default=16, ge=0)
    argon2_max_wait_seconds: float = Field(default=5.0, gt=0)
    # Log entries per page: the campaign page shows the newest page, "earlier" loads the one before.
    log_page_size: int = Field(default=50, ge=1, le=500)
    # Table talk: accepted posts (messages and /r rolls) per member per campaign in 10 seconds (TABLE-API.md: 30).
    talk_rate_limit: int = Field(default=30, ge=1)
    sse_keepalive_seconds: float = 15.0
    # A live stream's access is re-decided on every access event (app/live/access.py); this is the backstop for a
    # change made outside the application (raw SQL): every feed's answers are re-read once they are this old.
    live_access_max_age_seconds: float = Field(default=60.0, gt=0)
    # Push and webhooks (docs/NOTIFY.md): the origins the server may contact (contract section 5; empty: the
    # public browser push services and Discord, https only), the VAPID key (PEM; empty: read or create
    # instance/vapid_private.pem at first start) and the contact the push services see in the VAPID claims.
    outbound_origins: str = ""
    vapid_private_key: str = ""
    vapid_key_file: Path | None = None  # default: vapid_private.pem beside the secret key file
    push_contact: str = "mailto:admin@fateboard.invalid"
    # Run the outbox sender in this process (push and Discord deliveries). Several processes may all run it.
    outbox_sender: bool = True
    # How long a sender holds a claimed delivery before another may send it again (a crash mid-send).
    outbox_lease_seconds: float = Field(default=60.0, gt=0)
    # E-mail (password resets, address confirmations): smtp://user:password@host:587 (STARTTLS when offered),
    # smtps://…:465 (TLS), or empty — then the instance works without e-mail and says so on the account page.
    smtp_url: str = ""
    mail_from: str = "Fateboard <fateboard@localhost>"
    # Where handout pictures live (app/handouts/store.py): "local" (a folder; by default `media` beside the secret
    # key, in the instance folder) or "s3" (an S3-compatible object store, for several processes or hosts).
    media_store: str = Field(default="local", pattern="^(local|s3)$")
    media_dir: Path | None = None
    s3_endpoint_url: str = ""  # empty: AWS itself; MinIO: http://minio:9000
    s3_bucket: str = "fateboard-media"
    s3_region: str = "us-east-1"
    s3_access_key: str = ""  # empty: boto3's own chain (environment, instance role)
    s3_secret_key: str = ""
    # The language of a page when neither the user's setting nor Accept-Language names one we have.
    default_locale: str = "en"

    @field_validator("cookie_secure", mode="before")
    @classmethod
    def _unset_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("default_locale")
    @classmethod
    def _known_locale(cls, value: str) -> str:
        if value not in i18n.SUPPORTED:
            raise ValueError(f"choose one of {', '.join(i18n.SUPPORTED)}")
        return value

    def resolved_vapid_file(self) -> Path:
        return self.vapid_key_file or self.secret_key_file.parent / "vapid_private.pem"

    def resolved_media_dir(self) -> Path:
        return self.media_dir if self.media_dir is not None else self.secret_key_file.parent / "media"

    def resolved_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        path = self.secret_key_file
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.write_text(key)
        path.chmod(0o600)
        return key
