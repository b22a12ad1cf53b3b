"""Sending one outbox row: a Web Push message (pywebpush: RFC 8291 aes128gcm encryption and RFC 8292 VAPID, none
of it written here) or a Discord webhook post. Every URL passes the outbound allow-list right before it is
contacted (a name may resolve elsewhere since it was registered); redirects are never followed."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import requests
from pywebpush import WebPusher
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.campaigns.models import Campaign
from app.i18n import N_, log_line, render
from app.notify.models import DiscordBridge, OutboxItem, PushSubscription
from app.notify.outbox import DELIVERED, Handler, Outcome
from app.outbound import OutboundPolicy, OutboundRefused, origin_of
from app.rolls.faces import entry_faces
from app.rolls.models import LogEntry

# Why a bridge turned itself off, stored in English and shown translated (`_()` on the page and in the API).
GONE = N_("Discord says this webhook no longer exists (or its token is wrong), so posting stopped. Paste a new "
          "webhook URL to turn it back on.")
REDIRECTED = N_("The webhook answered with a redirect, which is never followed, so posting stopped. Paste the "
                "webhook URL Discord gives you.")
NOT_ALLOWED = N_("The webhook's address is no longer on this server's outbound allow-list, so posting stopped.")

TIMEOUT = (3.05, 5.0)  # connect, read: a dead receiver holds one worker this long at most


class _NoRedirects(requests.Session):
    """A session that never follows a redirect and ignores proxy settings from the environment."""

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False
        self.max_redirects = 0

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        verb = method.decode() if isinstance(method, bytes) else method
        return super().request(verb, url, *args, **kwargs)


def _retry_after(response: requests.Response, default: float = 5.0) -> float:
    value = response.headers.get("retry-after", "")
    try:
        return min(3600.0, max(0.0, float(value)))
    except ValueError:
        pass
    try:  # Discord also says it in the body, in seconds
        return min(3600.0, max(0.0, float(response.json().get("retry_after"))))
    except (ValueError, TypeError, AttributeError):
        return default


def push_handler(policy: OutboundPolicy, vapid: Any, contact: str) -> Handler:
    http = _NoRedirects()

    def send(item: OutboxItem, factory: sessionmaker[Session]) -> Outcome:
        with factory() as db:
            sub = db.get(PushSubscription, item.subscription_id) if item.subscription_id else None
            if sub is None:
                return Outcome("drop", error="the subscription is gone")
            endpoint = sub.endpoint
            info = {"endpoint": endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
            sub_id = sub.id
        try:
            policy.check(endpoint)
        except OutboundRefused as exc:
            return Outcome("drop", error=exc.reason)
        scheme, host, port = origin_of(endpoint)
        audience = f"{scheme}://{host}" + ("" if port in (80, 443) else f":{port}")
        headers = dict(vapid.sign({"sub": contact, "aud": audience, "exp": int(time.time()) + 12 * 3600}))
        headers["Urgency"] = "high"
        data = json.dumps(item.payload, ensure_ascii=False, separators=(",", ":"))
        try:
            response = WebPusher(info, requests_session=http).send(
                data, headers, ttl=24 * 3600, content_encoding="aes128gcm", timeout=TIMEOUT)
        except requests.RequestException as exc:
            return Outcome("retry", error=f"{type(exc).__name__}"[:300])
        status = response.status_code
        if status in (200, 201, 202, 204):
            return DELIVERED
        if status in (404, 410):  # the push service says the subscription has ended: forget the device
            with factory() as db:
                db.execute(delete(PushSubscription).where(PushSubscription.id == sub_id))
                db.commit()
            return Outcome("drop", error=f"push service answered {status}: subscription removed")
        if status == 429:
            return Outcome("retry", retry_after=_retry_after(response), error="429")
        if status in (400, 403, 413):
            return Outcome("drop", error=f"push service refused the message: {status}")
        return Outcome("retry", error=f"push service answered {status}")

    return send


def discord_message(entry: LogEntry, language: str) -> dict[str, Any]:
    """What Discord shows of a public entry: who, the log line in the campaign's language, the dice faces."""
    body = entry.body
    line = log_line(body, language) or ""
    who = entry.actor_name + (f" · {body['character']}" if body.get("character") else "")
    faces = entry_faces(body, entry.system)
    dice = " ".join(f"[{f.get('value')}]" for f in faces if f.get("value") is not None)
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
    http = _NoRedirects()

    def send(item: OutboxItem, factory: sessionmaker[Session]) -> Outcome:
        assert item.campaign_id is not None
        with factory() as db:
            bridge = db.get(DiscordBridge, item.campaign_id)
            if bridge is None or not bridge.active:
                return Outcome("drop", error="the bridge is off")
            entry = db.scalar(select(LogEntry).where(LogEntry.campaign_id == item.campaign_id,
                                                     LogEntry.seq == int(item.payload["seq"])))
            campaign = db.get(Campaign, item.campaign_id)
            # Only what every member may read is ever posted (the writer queued only public entries; a second look).
            if entry is None or campaign is None or entry.visibility != "public":
                return Outcome("drop", error="not a public entry")
            message = discord_message(entry, campaign.language or "en")
            url = bridge.webhook_url
        try:
            policy.check(url)
        except OutboundRefused as exc:
            _turn_off(factory, item.campaign_id, NOT_ALLOWED)
            return Outcome("drop", error=exc.reason)
        try:
            response = http.post(url, json=message, timeout=TIMEOUT)
        except requests.RequestException as exc:
            return Outcome("retry", error=f"{type(exc).__name__}"[:300])
        status = response.status_code
        if 200 <= status < 300:
            return DELIVERED
        if status == 429:
            return Outcome("retry", retry_after=_retry_after(response), error="429")
        if status in (401, 403, 404):
            _turn_off(factory, item.campaign_id, GONE)
            return Outcome("drop", error=f"webhook answered {status}: bridge turned off")
        if 300 <= status < 400:
            _turn_off(factory, item.campaign_id, REDIRECTED)
            return Outcome("drop", error="redirect")
        return Outcome("retry", error=f"webhook answered {status}")

    return send


def _turn_off(factory: sessionmaker[Session], campaign_id: int, problem: str) -> None:
    with factory() as db:
        db.execute(update(DiscordBridge).where(DiscordBridge.campaign_id == campaign_id)
                   .values(active=False, problem=problem[:300]))
        db.execute(delete(OutboxItem).where(OutboxItem.channel == "discord", OutboxItem.campaign_id == campaign_id))
        db.commit()


def handlers(policy: OutboundPolicy, vapid: Any, contact: str) -> Mapping[str, Handler]:
    return {"push": push_handler(policy, vapid, contact), "discord": discord_handler(policy)}
