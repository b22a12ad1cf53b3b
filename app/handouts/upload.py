"""Receiving a picture: the multipart body streamed into a spooled temporary file (1 MiB in memory, the rest on
disk), counted as it arrives and cut off past the limit; then checked and stored off the event loop.

Only `file` and `title` are read; the whole body is never in memory (InputGuard lets these paths through
unread: app/inputs.py, STREAMED_UPLOADS)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

from app.errors import BadRequest, FateboardError
from app.handouts.images import MAX_BYTES, ImageRefused
from app.i18n import _, rule_message
from app.inputs import media_type

# The file plus the form around it (boundaries, headers, the title): the body-cap middleware allows 21 MiB here.
MAX_BODY = MAX_BYTES + 64 * 1024


class TooLarge(FateboardError):
    status_code = 413


class _Cut(Exception):
    pass


def refusal(exc: ImageRefused) -> FateboardError:
    """An image refusal as the error the pages and the API answer, next to the `file` field."""
    error = TooLarge if exc.status == 413 else BadRequest
    return error(rule_message(exc), field="file")


def _too_large() -> TooLarge:
    return TooLarge(_("The file is larger than 20 MB."), field="file")


async def _counted(stream: AsyncIterator[bytes]) -> AsyncGenerator[bytes, None]:
    total = 0
    async for chunk in stream:
        total += len(chunk)
        if total > MAX_BODY:
            raise _Cut
        yield chunk


@dataclass
class Upload:
    file: UploadFile
    title: str

    async def close(self) -> None:
        await self.file.close()


async def receive(request: Request) -> Upload:
    """The form's `file` and `title`, or a 413/422 that names the problem (nothing is kept: the temporary file
    goes away when closed)."""
    if media_type(request.scope) != "multipart/form-data":
        raise BadRequest(
            _("Send the picture as a form (multipart/form-data) with the fields file and title."), field="file"
        )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise _too_large()
    parser = MultiPartParser(
        request.headers, _counted(request.stream()), max_files=1, max_fields=4, max_part_size=64 * 1024
    )
    try:
        form = await parser.parse()
    except _Cut:
        raise _too_large() from None
    except ClientDisconnect:  # the browser went away mid-upload: nothing kept (no one is left to read the answer)
        raise BadRequest(_("The upload was interrupted. Try again."), field="file") from None
    except MultiPartException:
        raise BadRequest(_("The form could not be read: send one file and a title."), field="file") from None
    file, title = form.get("file"), form.get("title")
    if not isinstance(file, UploadFile):
        await form.close()
        raise BadRequest(_("Choose a picture to upload."), field="file")
    if not isinstance(title, str):
        await form.close()
        raise BadRequest(_("Give the handout a title."), field="title")
    return Upload(file=file, title=title)
