"""create_app(settings): the only place that wires things together."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp

from app import api, docs_page
from app.accounts import routes as account_routes
from app.accounts.passwords import Argon2Gate
from app.accounts.throttle import Throttle
from app.between import api as between_api
from app.between import routes as between_routes
from app.between.reminders import ReminderSweeper
from app.between.safety import install_quiet_access_log
from app.between.schedule import Mail
from app.campaigns import routes as campaign_routes
from app.characters import routes as character_routes
from app.config import Settings
from app.db import make_engine, make_sessionmaker
from app.encounters import routes as encounter_routes
from app.errors import FateboardError, NotSignedIn, error_message
from app.handouts import api as handout_api
from app.handouts import routes as handout_routes
from app.handouts.store import make_store
from app.i18n import _
from app.inputs import InputGuard
from app.live import access as access_events
from app.live import routes as live_routes
from app.live.broker import Broker, InProcessBroker
from app.live.hub import LiveHub
from app.notify import deliver
from app.notify import effects as notify_effects
from app.notify import routes as notify_routes
from app.notify.outbox import OutboxSender
from app.notify.vapid import load_vapid
from app.outbound import OutboundPolicy
from app.panels import live_panel
from app.panels import routes as panel_routes
from app.rolls import effects
from app.rolls import routes as roll_routes
from app.rolls.writer import GroupWriter
from app.security import (
    BodyLimitMiddleware,
    CompressMiddleware,
    CSRFMiddleware,
    ProxyHeadersMiddleware,
    SecurityHeadersMiddleware,
    SessionCookieMiddleware,
    Transport,
    parse_networks,
)
from app.systems import FOLDERS
from app.talk import routes as talk_routes
from app.web import ENV, HTMX, STATIC, redirect, render


def make_broker(settings: Settings) -> Broker:
    if settings.broker == "redis":
        from app.live.redis_broker import RedisBroker

        return RedisBroker(settings.redis_url)
    return InProcessBroker()


class FateboardApp(FastAPI):
    def build_middleware_stack(self) -> ASGIApp:
        # The live streams are opened in front of the stack (app/live/routes.py): for hours each, they would
        # otherwise hold a frame and a `send` wrapper in every middleware layer.
        return live_routes.StreamDispatcher(super().build_middleware_stack(), self.state)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    engine = make_engine(settings.database_url)
    factory = make_sessionmaker(engine)
    broker = make_broker(settings)
    hub = LiveHub(factory, access_max_age=settings.live_access_max_age_seconds)
    policy = OutboundPolicy.parse(settings.outbound_origins)
    vapid = load_vapid(settings.vapid_private_key, settings.resolved_vapid_file())
    outbox = OutboxSender(
        factory,
        deliver.handlers(policy, vapid, settings.push_contact, settings.smtp_url, settings.mail_from),
        lease_seconds=settings.outbox_lease_seconds,
    )
    # Session reminders (app/between/reminders.py): queued into the same outbox, where the sender sends them.
    reminders = ReminderSweeper(
        factory, Mail(on=bool(settings.smtp_url), base_url=settings.base_url.rstrip("/")), after=outbox.wake
    )
    install_quiet_access_log()  # the server's access log never shows who played a safety tool

    def heard(campaign_id: int, event: str, seq: int | None) -> None:
        """Every message the broker delivers (from any process): this process's caches first, then the streams."""
        access_events.heard(engine, campaign_id, event, seq)
        hub.dispatch(campaign_id, event, seq)

    def resync() -> None:
        access_events.heard(engine, access_events.EVERY_CAMPAIGN, access_events.CHANGED, None)
        hub.resync()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Everything built at start-up lives forever: keep it out of the collector's way (GC pauses of
        # ~100 ms otherwise show up in the live stream's tail latency, docs/PERFORMANCE.md).
        gc.collect()
        gc.freeze()
        await broker.start(heard, resync)
        if settings.outbox_sender:
            outbox.start()
            reminders.start()
        yield
        reminders.stop()
        outbox.stop()
        await broker.stop()
        engine.dispose()

    app = FateboardApp(
        title="Fateboard",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="A tabletop with a server-side rules service and a hash-chained live roll log.",
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = factory
    app.state.broker = broker
    app.state.hub = hub
    app.state.outbound = policy
    app.state.vapid = vapid
    app.state.outbox = outbox
    app.state.reminders = reminders
    # The write path declares its effects (app/rolls/effects.py): the outbox queues them in the cause's
    # transaction, and a commit that queued one wakes the sender at once instead of at its poll (only then: a
    # wake costs the sender a claim query). The wake stays in this process (off the wire, away from the streams).
    notify_effects.subscribe_effects()
    broker.keep_local(effects.OUTBOX_QUEUED)
    broker.on_publish(lambda _campaign, event, _seq: outbox.wake() if event == effects.OUTBOX_QUEUED else None)
    effects.on_delivery(engine, outbox.wake)
    # What takes access away (a removal, a revoked token, a sign-out…) reaches every process's hub after its
    # commit (app/live/access.py), so the streams re-decide only then.
    access_events.watch(engine, broker.publish)
    # This process's caches of what an action reads (a token's access, the campaign) forget at once what a change
    # written here touches, before and after its commit; other processes' changes arrive through `heard`.
    access_events.listen(engine, hub.forget_tokens)
    # The broker as it is then; what a batch wrote goes to the hub first (its streams need not read it back).
    app.state.writer = GroupWriter(engine, lambda *event: broker.publish(*event), committed=hub.keep)
    app.state.media = make_store(settings)  # handout pictures (app/handouts/store.py)
    app.state.throttle = Throttle(
        factory,
        max_failures=settings.signin_max_failures,
        window_seconds=settings.signin_window_seconds,
        signups_per_hour=settings.signup_max_per_hour,
    )
    app.state.argon2_gate = Argon2Gate(
        settings.argon2_concurrency, max_waiting=settings.argon2_max_waiting, max_wait=settings.argon2_max_wait_seconds
    )

    trusted = (settings.base_url.rstrip("/"),) if settings.base_url else ()
    transport = Transport.of(settings.base_url, settings.cookie_secure, settings.hsts_seconds)
    app.add_middleware(InputGuard)  # it sees the body the CSRF check may have read already
    app.add_middleware(CSRFMiddleware, trusted_origins=trusted)
    app.add_middleware(
        SessionCookieMiddleware,
        secret_key=settings.resolved_secret_key(),
        max_age=settings.session_max_age,
        transport=transport,
        default_locale=settings.default_locale,
    )
    app.add_middleware(SecurityHeadersMiddleware, transport=transport)
    app.add_middleware(CompressMiddleware)
    # Everything inside sees the client's real address and scheme.
    app.add_middleware(ProxyHeadersMiddleware, trusted=parse_networks(settings.trusted_proxies))
    # Outermost (inside only Starlette's error layer; the streams' dispatcher in front serves GETs only, which
    # carry no body anything reads): an oversized or trickling body is refused before any layer reads or holds it.
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=settings.max_body_bytes,
        timeout=settings.body_timeout_seconds,
        min_rate=settings.body_min_rate,
        default_locale=settings.default_locale,
    )

    # Each registered system's static/ (its stylesheet), before /static itself, which would otherwise match first.
    for system_id, folder in FOLDERS.items():
        if (folder / "static").is_dir():
            app.mount(f"/static/systems/{system_id}", StaticFiles(directory=folder / "static"))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    ENV.globals["live_panel"] = live_panel  # a template names its live panels (app/panels: web.py may not import it)
    # The hot route first, as a plain Starlette route read from its one declaration in app/api/action.py (ActionRoute).
    app.router.routes.insert(0, api.ACTION_ROUTE.plain)
    # The JSON API first: Starlette matches routes in order, and the API's paths (all under /api/) are the hot
    # ones (an action, a ping); the pages' routers come after (no page route is under /api/).
    app.include_router(handout_api.api)
    app.include_router(between_api.router)
    for module in (
        api,
        notify_routes,
        account_routes,
        campaign_routes,
        character_routes,
        encounter_routes,
        handout_routes,
        roll_routes,
        talk_routes,
        panel_routes,
        between_routes,
        docs_page,
    ):
        app.include_router(module.router)
    # The live routes answer with Server-Sent Events (text/event-stream), and their errors as the API's.
    app.include_router(live_routes.router, default_response_class=Response, responses=api.event_stream_responses())
    install_error_handlers(app)
    return app


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path == "/openapi.json"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(FateboardError)
    async def domain_error(request: Request, exc: FateboardError) -> Response:
        if _wants_json(request):
            return api.error_response(exc)
        headers = {"Retry-After": str(exc.retry_after)} if hasattr(exc, "retry_after") else None
        if isinstance(exc, NotSignedIn):
            return redirect(request, "/signin?next=" + quote(request.url.path, safe="/"))
        return render(
            request,
            "error.html",
            {"message": exc.message, "status": exc.status_code},
            block="message" if HTMX.of(request).request else None,
            status_code=exc.status_code,
            headers=headers,
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        problems, fields = [], []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header"))
            problems.append(error_message(err))  # in the reader's language (Accept-Language for the API)
            fields.append(where)
        message = "; ".join(problems) or _("The request is not valid.")
        if _wants_json(request):
            # The same body as every other API error (api.ErrorBody), so the OpenAPI document tells the truth.
            body: dict[str, Any] = {"detail": message, "errors": problems}
            if fields and fields[0]:
                body["field"] = fields[0]
            return JSONResponse(body, status_code=422)
        return render(
            request,
            "error.html",
            {"message": message, "status": 422},
            block="message" if HTMX.of(request).request else None,
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # 400: FastAPI could not read the body (not UTF-8, not JSON) — invalid input, a 422 like the rest.
        status = 422 if exc.status_code == 400 else exc.status_code
        message = {
            400: _("The request body could not be read: send UTF-8 JSON."),
            404: _("There is nothing here."),
            405: _("That method is not allowed here."),
        }.get(exc.status_code, str(exc.detail))
        if _wants_json(request):
            return JSONResponse({"detail": message}, status_code=status)
        return render(request, "error.html", {"message": message, "status": status}, status_code=status)
