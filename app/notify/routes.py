"""Push and Discord: the JSON API (contract TABLE-API.md sections 3–4), the pages' panels (a device on the account
page, a campaign's choice and its Discord bridge), and what makes the app installable (manifest, service worker,
offline page)."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from app import i18n
from app.accounts.models import User
from app.accounts.service import user_for_session
from app.api import errors
from app.campaigns.service import Access
from app.deps import DB, ApiAccess, CurrentUser, MemberAccess, api_user
from app.errors import BadRequest, FateboardError, Forbidden, NotFound, NotSignedIn
from app.i18n import _
from app.inputs import Id
from app.notify import service
from app.notify.vapid import public_key
from app.outbound import OutboundPolicy
from app.security import CSRF_HEADER
from app.systems import FOLDERS
from app.web import STATIC, render, render_failure

router = APIRouter()


def _policy(request: Request) -> OutboundPolicy:
    policy: OutboundPolicy = request.app.state.outbound
    return policy


# --- the JSON API --------------------------------------------------------------------------------------------


def session_or_token_user(request: Request, db: DB) -> User:
    """A Bearer token, else the page's session — which, like every form, needs the CSRF token and a same-origin
    Origin (the /api/ paths are outside the CSRF middleware, so it is checked here)."""
    if request.headers.get("authorization"):
        return api_user(request, db)
    user = user_for_session(db, request.scope["fb_session"].get("sid"))
    if user is None:
        raise NotSignedIn(_("Sign in, or send a valid API token: 'Authorization: Bearer <token>'."))
    if request.method not in ("GET", "HEAD"):
        token = request.headers.get(CSRF_HEADER, "")
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if (
            not token
            or not hmac.compare_digest(token, request.scope["fb_session"]["csrf"])
            or (origin is not None and origin != own)
        ):
            raise Forbidden(_("This form has expired. Reload the page and try again."))
    request.state.user = user
    return user


SignedIn = Annotated[User, Depends(session_or_token_user)]


class Keys(BaseModel):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)


class SubscriptionIn(BaseModel):
    endpoint: str = Field(min_length=1, max_length=2048)
    keys: Keys
    device: str = Field(default="", max_length=120)


@router.get("/api/push/key", tags=["push"], responses=errors(422))
def push_key(request: Request) -> dict[str, str]:
    """The VAPID public key a browser subscribes with (no authentication needed)."""
    return {"public_key": public_key(request.app.state.vapid)}


@router.post("/api/push/subscriptions", status_code=201, tags=["push"], responses=errors(401, 403, 422))
def add_subscription(request: Request, db: DB, user: SignedIn, body: SubscriptionIn) -> dict[str, Any]:
    """Push to this device when the game waits for you. The endpoint's origin must be on the outbound allow-list."""
    known = {s.endpoint: s for s in service.subscriptions_of(db, user)}
    before = known.get(body.endpoint)
    replay = (
        request.headers.get("idempotency-key")
        and before is not None
        and (before.p256dh, before.auth) == (body.keys.p256dh, body.keys.auth)
    )
    sub = service.subscribe(
        db,
        user,
        _policy(request),
        endpoint=body.endpoint,
        p256dh=body.keys.p256dh,
        auth=body.keys.auth,
        device=body.device or _device_of(request),
    )
    return {"id": sub.id, **({"replayed": True} if replay else {})}


@router.delete(
    "/api/push/subscriptions/{subscription_id}", status_code=204, tags=["push"], responses=errors(401, 403, 404, 422)
)
def remove_subscription(db: DB, user: SignedIn, subscription_id: Id) -> Response:
    service.unsubscribe(db, user, subscription_id)
    return Response(status_code=204)


class DiscordIn(BaseModel):
    webhook_url: str = Field(min_length=1, max_length=2048)
    post: list[str] = Field(default_factory=lambda: list(service.POSTS), max_length=3)


@router.put("/api/campaigns/{campaign_id}/discord", tags=["discord"], responses=errors(401, 403, 404, 422))
def put_discord(request: Request, db: DB, acc: ApiAccess, body: DiscordIn) -> dict[str, Any]:
    """Post this campaign's public entries to a Discord webhook (narrators)."""
    bridge = service.set_bridge(db, acc, _policy(request), webhook_url=body.webhook_url, post=body.post)
    shown = service.bridge_json(bridge)
    return {"webhook": shown["webhook"], "post": shown["post"]}


@router.get("/api/campaigns/{campaign_id}/discord", tags=["discord"], responses=errors(401, 403, 404, 422))
def get_discord(db: DB, acc: ApiAccess) -> dict[str, Any]:
    if not acc.is_narrator:
        raise Forbidden(_("Only a narrator can do that."))
    bridge = service.bridge_of(db, acc.campaign.id)
    if bridge is None:
        raise NotFound(_("This campaign has no Discord bridge."))
    shown = service.bridge_json(bridge)
    return {**shown, "problem": _(shown["problem"]) if shown["problem"] else None}


@router.delete(
    "/api/campaigns/{campaign_id}/discord", status_code=204, tags=["discord"], responses=errors(401, 403, 404, 422)
)
def delete_discord(db: DB, acc: ApiAccess) -> Response:
    service.remove_bridge(db, acc)
    return Response(status_code=204)


def _device_of(request: Request) -> str:
    agent = request.headers.get("user-agent", "")
    for name in ("iPhone", "iPad", "Android", "Windows", "Macintosh", "Linux"):
        if name in agent:
            browser = next((b for b in ("Firefox", "Edg", "Chrome", "Safari") if b in agent), "")
            return f"{name} {browser.replace('Edg', 'Edge')}".strip()
    return ""


# --- the pages' panels ---------------------------------------------------------------------------------------


def _campaign_panel(
    request: Request,
    db: DB,
    acc: Access,
    errors: dict[str, str] | None = None,
    form: dict[str, Any] | None = None,
    status_code: int = 200,
) -> Response:
    bridge = service.bridge_of(db, acc.campaign.id) if acc.is_narrator else None
    return render(
        request,
        "notify/campaign.html",
        {
            "campaign": acc.campaign,
            "acc": acc,
            "wants_push": service.wants_push(db, acc.user.id, acc.campaign.id),
            "devices": len(service.subscriptions_of(db, acc.user)),
            "bridge": bridge,
            "bridge_shown": service.bridge_json(bridge) if bridge else None,
            "posts": service.POSTS,
            "errors": errors or {},
            "form": form or {},
        },
        block="panel",
        status_code=status_code,
    )


@router.get("/campaigns/{campaign_id}/notify", include_in_schema=False)
def campaign_panel(request: Request, db: DB, acc: MemberAccess) -> Response:
    return _campaign_panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/notify", include_in_schema=False)
def campaign_choice(request: Request, db: DB, acc: MemberAccess, push: Annotated[str, Form()] = "all") -> Response:
    if push not in ("all", "none"):
        return _campaign_panel(request, db, acc, errors={"push": _("Choose everything or nothing.")}, status_code=422)
    service.set_choice(db, acc, push == "all")
    return _campaign_panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/discord", include_in_schema=False)
def campaign_discord(
    request: Request,
    db: DB,
    acc: MemberAccess,
    webhook_url: Annotated[str, Form()] = "",
    post: Annotated[list[str] | None, Form()] = None,
) -> Response:
    chosen = post or []
    try:
        if not webhook_url.strip():
            raise BadRequest(
                _("Paste the webhook URL from Discord (Channel settings → Integrations → Webhooks)."),
                field="webhook_url",
            )
        if not chosen:
            raise BadRequest(_("Choose what to post."), field="post")
        service.set_bridge(db, acc, _policy(request), webhook_url=webhook_url, post=chosen)
    except FateboardError as exc:
        return render_failure(
            request,
            db,
            exc,
            "notify/campaign.html",
            lambda errs: {
                "campaign": acc.campaign,
                "acc": acc,
                "wants_push": service.wants_push(db, acc.user.id, acc.campaign.id),
                "devices": len(service.subscriptions_of(db, acc.user)),
                "bridge": service.bridge_of(db, acc.campaign.id),
                "bridge_shown": None,
                "posts": service.POSTS,
                "errors": errs,
                "form": {"webhook_url": webhook_url, "post": chosen},
            },
            key="webhook_url",
            block="panel",
        )
    return _campaign_panel(request, db, acc)


@router.post("/campaigns/{campaign_id}/discord/remove", include_in_schema=False)
def campaign_discord_remove(request: Request, db: DB, acc: MemberAccess) -> Response:
    service.remove_bridge(db, acc)
    return _campaign_panel(request, db, acc)


def _devices_panel(request: Request, db: DB, user: User) -> Response:
    return render(request, "notify/devices.html", {"devices": service.subscriptions_of(db, user)}, block="panel")


@router.get("/account/devices", include_in_schema=False)
def devices_panel(request: Request, db: DB, user: CurrentUser) -> Response:
    return _devices_panel(request, db, user)


@router.post("/account/devices/{subscription_id}/remove", include_in_schema=False)
def remove_device(request: Request, db: DB, user: CurrentUser, subscription_id: Id) -> Response:
    service.unsubscribe(db, user, subscription_id)
    return _devices_panel(request, db, user)


# --- installable: manifest, service worker, offline page -----------------------------------------------------


@router.get("/manifest.webmanifest", include_in_schema=False)
def manifest() -> Response:
    icons = [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    ]
    body = {
        "name": "Fateboard",
        "short_name": "Fateboard",
        "id": "/",
        "start_url": "/campaigns",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f6f3ee",
        "theme_color": "#6d3fc0",
        "description": _("A tabletop in the browser: one live log of every roll, whispered and shown."),
        "icons": icons,
    }
    return Response(
        json.dumps(body, ensure_ascii=False),
        media_type="application/manifest+json",
        headers={"Cache-Control": "public, max-age=3600"},
    )


def _shell_version() -> str:
    """Changes whenever a file of the app shell does, so a new service worker replaces the old cache."""
    digest = hashlib.sha256()
    systems_css = [css for folder in FOLDERS.values() for css in sorted((folder / "static").glob("*.css"))]
    for path in sorted((STATIC / "css").glob("*.css")) + sorted((STATIC / "js").glob("*.js")) + systems_css:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_SHELL_VERSION: list[str] = []


@router.get("/sw.js", include_in_schema=False)
def service_worker(request: Request) -> Response:
    if not _SHELL_VERSION:
        _SHELL_VERSION.append(_shell_version())
    html = render(request, "notify/sw.js", {"version": _SHELL_VERSION[0], "languages": list(i18n.SUPPORTED)})
    return Response(
        html.body, media_type="text/javascript", headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"}
    )


@router.get("/offline", include_in_schema=False)
def offline(request: Request, lang: str = "") -> Response:
    """What the service worker shows when the network is gone: no user, no campaign — it sits in a cache, one
    copy per language (`lang`), and the worker shows the one of the language the last page came in (the
    account's, once signed in: the browser's language alone would be wrong)."""
    if lang in i18n.SUPPORTED:
        i18n.set_locale(lang)
    return render(request, "notify/offline.html", {}, headers={"Cache-Control": "no-cache"})
