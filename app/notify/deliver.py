"""Sending one outbox row: a Web Push message (pywebpush: RFC 8291 aes128gcm encryption and RFC 8292 VAPID, none
of it written here) or a Discord webhook post. Every URL passes the outbound allow-list right before it is
contacted (a name may resolve elsewhere since it was registered); redirects are never followed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any
from urllib.parse import unquote, urlsplit

import aiohttp
import aiosmtplib
from pywebpush import WebPusher
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.campaigns.models import Campaign
from app.i18n import N_, log_line, render
from app.notify.mail import smtp_address
from app.notify.models import DiscordBridge, OutboxItem, PushSubscription
from app.notify.outbox import DELIVERED, Handler, Outcome
from app.outbound import OutboundPolicy, OutboundRefused, origin_of
from app.rolls.faces import entry_faces
from app.rolls.models import LogEntry

# Why a bridge turned itself off, stored in English and shown translated (`_()` on the page and in the API).
GONE = N_(
    "Discord says this webhook no longer exists (or its token is wrong), so posting stopped. Paste a new "
    "webhook URL to turn it back on."
)
REDIRECTED = N_(
    "The webhook answered with a redirect, which is never followed, so posting stopped. Paste the "
    "webhook URL Discord gives you."
)
NOT_ALLOWED = N_("The webhook's address is no longer on this server's outbound allow-list, so posting stopped.")

TIMEOUT = aiohttp.ClientTimeout(total=None, connect=3.05, sock_read=5.0)  # a dead receiver: one task, this long


# The most of a receiver's answer body ever read (a 429's JSON, pywebpush's log of the answer): a receiver cannot
# make the sender hold more than this (issue 35: a 280 MB answer to a push cost 750 MB).
MAX_ANSWER_BYTES = 64 * 1024


async def read_bounded(response: aiohttp.ClientResponse, limit: int = MAX_ANSWER_BYTES) -> bytes:
    """At most `limit` bytes of the answer's body; the rest is never read (the connection is closed, not reused)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = await response.content.read(limit - size)
        if not chunk:
            response.release()  # read to the end: the connection may be reused
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    response.close()
    return b"".join(chunks)


class _BoundedAnswer:
    """The answer pywebpush gets: its status and headers, and a `text()` that reads at most MAX_ANSWER_BYTES."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response, self.status, self.headers = response, response.status, response.headers

    async def text(self) -> str:
        return (await read_bounded(self.response)).decode("utf-8", "replace")


class _NoRedirects:
    """What pywebpush's send_async calls (`.post`), on our aiohttp session, never following a redirect; the answer's
    body is read bounded."""

    def __init__(self, http: aiohttp.ClientSession) -> None:
        self.http = http

    async def post(self, url: str, **kwargs: Any) -> _BoundedAnswer:
        return _BoundedAnswer(await self.http.post(url, allow_redirects=False, **kwargs))


async def answer_json(response: aiohttp.ClientResponse) -> Any:
    """The answer's body as JSON, read bounded; None when it is not JSON (or longer than any honest one)."""
    try:
        return json.loads(await read_bounded(response))
    except ValueError:
        return None


def _retry_after(headers: Mapping[str, str], body: Any = None, default: float = 5.0) -> float:
    for value in (headers.get("retry-after"), body.get("retry_after") if isinstance(body, dict) else None):
        try:
            return min(3600.0, max(0.0, float(str(value))))
        except ValueError:  # None, an HTTP date or nonsense: the next source, else the default
            continue
    return default


def push_handler(policy: OutboundPolicy, vapid: Any, contact: str) -> Handler:
    def load(item: OutboxItem, factory: sessionmaker[Session]) -> tuple[int, str, dict[str, Any]] | None:
        with factory() as db:
            sub = db.get(PushSubscription, item.subscription_id) if item.subscription_id else None
            if sub is None:
                return None
            return sub.id, sub.endpoint, {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}

    def forget(factory: sessionmaker[Session], sub_id: int) -> None:
        with factory() as db:
            db.execute(delete(PushSubscription).where(PushSubscription.id == sub_id))
            db.commit()

    async def send(item: OutboxItem, factory: sessionmaker[Session], http: aiohttp.ClientSession) -> Outcome:
        found = await asyncio.to_thread(load, item, factory)
        if found is None:
            return Outcome("drop", error="the subscription is gone")
        sub_id, endpoint, info = found
        try:
            await asyncio.to_thread(policy.check, endpoint)
        except OutboundRefused as exc:
            return Outcome("drop", error=exc.reason)
        scheme, host, port = origin_of(endpoint)
        audience = f"{scheme}://{host}" + ("" if port in (80, 443) else f":{port}")
        headers = dict(vapid.sign({"sub": contact, "aud": audience, "exp": int(time.time()) + 12 * 3600}))
        headers["Urgency"] = "high"
        data = json.dumps(item.payload, ensure_ascii=False, separators=(",", ":"))
        try:
            response = await WebPusher(info, aiohttp_session=_NoRedirects(http)).send_async(
                data, headers, ttl=24 * 3600, content_encoding="aes128gcm", timeout=TIMEOUT
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            return Outcome("retry", error=f"{type(exc).__name__}"[:300])
        status = response.status
        if status in (200, 201, 202, 204):
            return DELIVERED
        if status in (404, 410):  # the push service says the subscription has ended: forget the device
            await asyncio.to_thread(forget, factory, sub_id)
            return Outcome("drop", error=f"push service answered {status}: subscription removed")
        if status == 429:
            return Outcome("retry", retry_after=_retry_after(response.headers), error="429")
        if status in (400, 403, 413):
            return Outcome("drop", error=f"push service refused the message: {status}")
        return Outcome("retry", error=f"push service answered {status}")

    return send


def discord_message(entry: LogEntry, language: str) -> dict[str, Any]:
    """What Discord shows of a public entry: who, the log line in the campaign's language, the dice faces."""
    body = entry.body
    line = log_line(body, language) or ""
    who = entry.shown_actor + (f" · {body['character']}" if body.get("character") else "")
    faces = entry_faces(body, entry.system)
    # Discord's own markup: a dropped die struck through, a critical in bold.
    dice = " ".join(
        (
            f"~~{f['face']}~~"
            if "dropped" in f["marks"]
            else f"**{f['face']}**"
            if "critical" in f["marks"] or "success" in f["marks"]
            else str(f["face"])
        )
        for f in faces
    )
    note = render(body.get("note"), language) if body.get("note") else ""
    parts = [f"**#{entry.seq}** {_escape(who)}: {_escape(line)}"]
    if dice:
        parts.append(f"🎲 {dice}")
    if note:
        parts.append(f"> {_escape(note)}")
    return {"content": "\n".join(parts)[:2000], "allowed_mentions": {"parse": []}}


def _escape(text: str) -> str:
    for char in "\\*_~`|>":
        text = text.replace(char, "\\" + char)
    return text.replace("@", "@\u200b")


def discord_handler(policy: OutboundPolicy) -> Handler:
    def load(item: OutboxItem, factory: sessionmaker[Session]) -> tuple[str, dict[str, Any]] | None:
        assert item.campaign_id is not None
        with factory() as db:
            bridge = db.get(DiscordBridge, item.campaign_id)
            if bridge is None or not bridge.active:
                return None
            entry = db.scalar(
                select(LogEntry).where(
                    LogEntry.campaign_id == item.campaign_id, LogEntry.seq == int(item.payload["seq"])
                )
            )
            campaign = db.get(Campaign, item.campaign_id)
            # Only what every member may read is ever posted (the writer queued only public entries; a second look).
            if entry is None or campaign is None or entry.visibility != "public":
                return None
            return bridge.webhook_url, discord_message(entry, campaign.language or "en")

    async def send(item: OutboxItem, factory: sessionmaker[Session], http: aiohttp.ClientSession) -> Outcome:
        assert item.campaign_id is not None
        found = await asyncio.to_thread(load, item, factory)
        if found is None:
            return Outcome("drop", error="the bridge is off or the entry is not public")
        url, message = found
        try:
            await asyncio.to_thread(policy.check, url)
        except OutboundRefused as exc:
            await asyncio.to_thread(_turn_off, factory, item.campaign_id, NOT_ALLOWED)
            return Outcome("drop", error=exc.reason)
        try:
            async with http.post(url, json=message, allow_redirects=False, timeout=TIMEOUT) as response:
                status, headers = response.status, response.headers
                body = await answer_json(response) if status == 429 else None
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            return Outcome("retry", error=f"{type(exc).__name__}"[:300])
        if 200 <= status < 300:
            return DELIVERED
        if status == 429:
            return Outcome("retry", retry_after=_retry_after(headers, body), error="429")
        if status in (401, 403, 404):
            await asyncio.to_thread(_turn_off, factory, item.campaign_id, GONE)
            return Outcome("drop", error=f"webhook answered {status}: bridge turned off")
        if 300 <= status < 400:
            await asyncio.to_thread(_turn_off, factory, item.campaign_id, REDIRECTED)
            return Outcome("drop", error="redirect")
        return Outcome("retry", error=f"webhook answered {status}")

    return send


def _turn_off(factory: sessionmaker[Session], campaign_id: int, problem: str) -> None:
    with factory() as db:
        db.execute(
            update(DiscordBridge)
            .where(DiscordBridge.campaign_id == campaign_id)
            .values(active=False, problem=problem[:300])
        )
        db.execute(delete(OutboxItem).where(OutboxItem.channel == "discord", OutboxItem.campaign_id == campaign_id))
        db.commit()


def mail_handler(smtp_url: str, sender: str) -> Handler:
    """E-mail through the operator's SMTP server (aiosmtplib): smtp:// with STARTTLS when the server offers it,
    smtps:// with TLS from the start."""
    parts = urlsplit(smtp_url)
    tls = parts.scheme == "smtps"
    options: dict[str, Any] = {
        "hostname": parts.hostname or "127.0.0.1",
        "port": parts.port or (465 if tls else 587),
        "use_tls": tls,
        "start_tls": None if not tls else False,
        "timeout": 10,
    }
    if parts.username:
        options.update(username=unquote(parts.username), password=unquote(parts.password or ""))

    async def send(item: OutboxItem, factory: sessionmaker[Session], http: aiohttp.ClientSession) -> Outcome:
        try:
            to = smtp_address(str(item.payload["to"]))
        except ValueError as exc:
            return Outcome("drop", error=f"address: {exc}"[:300])
        message = EmailMessage()
        message["From"], message["To"] = sender, to
        message["Subject"] = item.payload["subject"]
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain="fateboard")
        message.set_content(item.payload["body"])
        try:
            # A non-ASCII local part needs SMTPUTF8: aiosmtplib asks for it when the server offers it and raises
            # SMTPNotSupported when not — that address can never be sent to through this server.
            await aiosmtplib.send(message, **options)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            permanent = all(e.code >= 500 for e in exc.recipients)
            return Outcome("drop" if permanent else "retry", error=f"refused: {exc}"[:300])
        except aiosmtplib.SMTPNotSupported as exc:
            return Outcome("drop", error=f"the server cannot take this address: {exc}"[:300])
        except (aiosmtplib.SMTPDataError, aiosmtplib.SMTPRecipientRefused) as exc:
            # 5xx about this message or recipient: the same answer every time. (A refused sender or login is the
            # server's setup, not this mail: retried, so mail flows again once the operator fixes it.)
            return Outcome("drop" if exc.code >= 500 else "retry", error=f"{type(exc).__name__}: {exc}"[:300])
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            return Outcome("retry", error=f"{type(exc).__name__}"[:300])
        return DELIVERED

    return send


def handlers(
    policy: OutboundPolicy, vapid: Any, contact: str, smtp_url: str = "", mail_from: str = ""
) -> Mapping[str, Handler]:
    chosen = {"push": push_handler(policy, vapid, contact), "discord": discord_handler(policy)}
    if smtp_url:
        chosen["email"] = mail_handler(smtp_url, mail_from)
    return chosen
