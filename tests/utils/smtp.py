"""A real SMTP server on 127.0.0.1 for the tests (aiosmtpd): it keeps every message it is given."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from email.message import EmailMessage
from typing import Any

from utils.server import _free_port


class MailBox:
    """`smtputf8`: whether the server offers SMTPUTF8 (aiosmtpd's default: no). `refuse`: addresses answered
    with `550 No such user` at RCPT TO. `envelopes`: each message's envelope recipients as the server got them."""

    def __init__(self, *, smtputf8: bool = False, refuse: tuple[str, ...] = ()) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[EmailMessage] = []
        self.envelopes: list[list[str]] = []
        self.arrived = threading.Condition()
        box = self

        class Handler:
            async def handle_RCPT(  # noqa: N802 (aiosmtpd)
                self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
            ) -> str:
                if address in refuse:
                    return "550 No such user here"
                envelope.rcpt_tos.append(address)
                return "250 OK"

            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd)
                message = email.message_from_bytes(envelope.content, policy=email.policy.default)
                with box.arrived:
                    box.messages.append(message)
                    box.envelopes.append(list(envelope.rcpt_tos))
                    box.arrived.notify_all()
                return "250 OK"

        self.port = _free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port, enable_SMTPUTF8=smtputf8)
        self.controller.start()
        self.url = f"smtp://127.0.0.1:{self.port}"

    def wait(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.messages) < count and time.monotonic() < deadline:
                self.arrived.wait(max(0.01, deadline - time.monotonic()))
            return list(self.messages)

    @staticmethod
    def link(message: EmailMessage) -> str:
        body = message.get_body(("plain",))
        assert body is not None
        found = re.search(r"https?://\S+", body.get_content())
        assert found, body.get_content()
        return found.group(0)

    def close(self) -> None:
        self.controller.stop()
