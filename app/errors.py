"""Domain errors, with fields. They become HTTP (JSON for /api, a page or fragment otherwise) only at the edge."""

from __future__ import annotations

from pydantic import ValidationError


class FateboardError(Exception):
    status_code = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class BadRequest(FateboardError):
    status_code = 422


class NotSignedIn(FateboardError):
    status_code = 401


class Forbidden(FateboardError):
    status_code = 403


class NotFound(FateboardError):
    status_code = 404


class Conflict(FateboardError):
    status_code = 409


class RetryLater(FateboardError):
    """Refused for now; the response carries Retry-After (seconds)."""

    def __init__(self, message: str, *, retry_after: int, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after


class TooManyRequests(RetryLater):
    status_code = 429


class ServiceBusy(RetryLater):
    status_code = 503


def validation_message(exc: ValidationError) -> tuple[str, str | None]:
    """The first problem of a pydantic error, in words, and the field it belongs to."""
    err = exc.errors()[0]
    field = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__") or None
    message = err.get("msg", "is not valid")
    return (f"{field}: {message}" if field else message), field
