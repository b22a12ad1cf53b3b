"""Sign up, sign in, sign out, the account page (API tokens, language)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response, StreamingResponse

from app import i18n
from app.accounts import display, passwords, recovery, service
from app.accounts.models import User
from app.config import Settings
from app.deps import DB, AppSettings, CurrentUser, Gate, Htmx, MaybeUser, Throttle
from app.errors import BadRequest, RetryLater
from app.i18n import _
from app.inputs import Id
from app.security import client_address, new_session_data, set_session
from app.web import redirect, render, render_failure, same_origin_path

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api/


def _form_error(
    request: Request, db: DB, hx: Htmx, template: str, exc: BadRequest | RetryLater, next: str, username: str
) -> Response:
    return render_failure(
        request,
        db,
        exc,
        template,
        lambda errors: {
            "next": same_origin_path(next),
            "form": {"username": username},
            "errors": errors,
            "min_password": passwords.MIN_PASSWORD,
        },
        block="form" if hx.request else None,
    )


@router.get("/signin")
def signin_page(request: Request, user: MaybeUser, next: str = "/") -> Response:
    if user is not None:
        return redirect(request, next)
    return render(request, "accounts/signin.html", {"next": same_origin_path(next), "errors": {}, "form": {}})


@router.post("/signin")
def signin(
    request: Request,
    db: DB,
    user: MaybeUser,
    hx: Htmx,
    throttle: Throttle,
    gate: Gate,
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    try:
        account = service.authenticate(db, throttle, gate, username, password, address=client_address(request))
    except (BadRequest, RetryLater) as exc:
        return _form_error(request, db, hx, "accounts/signin.html", exc, next, username)
    old = request.scope["fb_session"].get("sid")
    if old:
        service.end_login_session(db, old)
    sid = service.start_login_session(db, account)
    db.commit()
    set_session(request.scope, new_session_data(sid, account.locale))
    return redirect(request, next)


@router.get("/signup")
def signup_page(request: Request, user: MaybeUser, next: str = "/") -> Response:
    return render(
        request,
        "accounts/signup.html",
        {"next": same_origin_path(next), "errors": {}, "form": {}, "min_password": passwords.MIN_PASSWORD},
    )


@router.post("/signup")
def signup(
    request: Request,
    db: DB,
    user: MaybeUser,
    hx: Htmx,
    throttle: Throttle,
    gate: Gate,
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    password2: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    try:
        if password != password2:
            raise BadRequest(_("The two passwords differ."), field="password2")
        account = service.register(db, throttle, gate, username, password, address=client_address(request))
    except (BadRequest, RetryLater) as exc:
        return _form_error(request, db, hx, "accounts/signup.html", exc, next, username)
    sid = service.start_login_session(db, account)
    db.commit()
    set_session(request.scope, new_session_data(sid))
    return redirect(request, next)


@router.post("/signout")
def signout(request: Request, db: DB) -> Response:
    sid = request.scope["fb_session"].get("sid")
    if sid:
        service.end_login_session(db, sid)
        db.commit()
    set_session(request.scope, new_session_data())
    return redirect(request, "/signin")


def _account_context(db: DB, user: User, **extra: Any) -> dict[str, Any]:
    ctx: dict[str, Any] = {
        "tokens": service.list_tokens(db, user),
        "new_token": None,
        "errors": {},
        "languages": i18n.LANGUAGES,
        "mail_on": False,
        "email_sent": None,
        "email_form": None,
        "sole_narrated": recovery.sole_narrated(db, user),
        # (value, label in the reader's language) for the display form's radio groups.
        "motions": [(k, _(v)) for k, v in display.MOTION.items()],
        "themes": [(k, _(v)) for k, v in display.THEMES.items()],
        "text_sizes": [(n, f"{n} %") for n in display.TEXT_SIZES],
    }
    settings = extra.pop("settings", None)
    if settings is not None:
        ctx["mail_on"] = bool(settings.smtp_url)
    ctx.update(extra)
    return ctx


def _account_page(request: Request, db: DB, user: User, hx: Htmx, **extra: Any) -> Response:
    extra.setdefault("settings", request.app.state.settings)
    return render(
        request, "accounts/account.html", _account_context(db, user, **extra), block="tokens" if hx.request else None
    )


@router.get("/account")
def account_page(request: Request, db: DB, user: CurrentUser, hx: Htmx, settings: AppSettings) -> Response:
    return _account_page(request, db, user, hx, settings=settings)


@router.post("/account/tokens")
def create_token(request: Request, db: DB, user: CurrentUser, hx: Htmx, name: Annotated[str, Form()] = "") -> Response:
    try:
        _row, token = service.create_token(db, user, name)
    except BadRequest as exc:
        return render_failure(
            request,
            db,
            exc,
            "accounts/account.html",
            lambda errors: _account_context(db, user, errors=errors, settings=request.app.state.settings),
            block="tokens" if hx.request else None,
        )
    db.commit()
    return _account_page(request, db, user, hx, new_token=token)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(request: Request, db: DB, user: CurrentUser, hx: Htmx, token_id: Id) -> Response:
    service.revoke_token(db, user, token_id)
    db.commit()
    return _account_page(request, db, user, hx)


@router.post("/account/language")
def set_language(request: Request, db: DB, user: CurrentUser, locale: Annotated[str, Form()] = "") -> Response:
    user.locale = locale if locale in i18n.SUPPORTED else None
    db.commit()
    session = request.scope["fb_session"]
    set_session(request.scope, {**session, "locale": user.locale})
    return redirect(request, "/account")


@router.post("/account/display")
def set_display(
    request: Request,
    db: DB,
    user: CurrentUser,
    settings: AppSettings,
    motion: Annotated[str, Form()] = "",
    theme: Annotated[str, Form()] = "",
    text_size: Annotated[str, Form()] = "",
    sound: Annotated[str, Form()] = "",
    vibration: Annotated[str, Form()] = "",
) -> Response:
    """Motion, theme, text size, sound and vibration (app/accounts/display.py), saved on the account."""
    try:
        display.save(user, display.parse(motion, theme, text_size, sound, vibration))
    except BadRequest as exc:
        return render_failure(
            request,
            db,
            exc,
            "accounts/account.html",
            lambda errors: _account_context(db, user, errors=errors, settings=settings),
            key="display",
        )
    db.commit()
    return redirect(request, "/account?display=saved#display")


# --- getting back in (docs/TRUST.md, "Accounts") ---------------------------------------------------------------


def _base(request: Request, settings: Settings) -> str:
    return (settings.base_url or str(request.base_url)).rstrip("/")


@router.get("/forgot")
def forgot_page(request: Request, settings: AppSettings) -> Response:
    return render(
        request, "accounts/forgot.html", {"mail_on": bool(settings.smtp_url), "sent": False, "errors": {}, "form": {}}
    )


@router.post("/forgot")
def forgot(
    request: Request, db: DB, hx: Htmx, throttle: Throttle, settings: AppSettings, who: Annotated[str, Form()] = ""
) -> Response:
    if not settings.smtp_url:
        return forgot_page(request, settings)
    try:
        if not who.strip() or len(who) > 254:
            raise BadRequest(_("Enter your username or e-mail address."), field="who")
        recovery.request_reset(db, throttle, who, address=client_address(request), base_url=_base(request, settings))
    except (BadRequest, RetryLater) as exc:
        return render_failure(
            request,
            db,
            exc,
            "accounts/forgot.html",
            lambda errors: {"mail_on": True, "sent": False, "errors": errors, "form": {"who": who}},
            key="who",
            block="form" if hx.request else None,
        )
    # The same answer whether or not such an account (or its address) exists.
    return render(
        request,
        "accounts/forgot.html",
        {"mail_on": True, "sent": True, "errors": {}, "form": {}},
        block="form" if hx.request else None,
    )


@router.get("/reset/{token}")
def reset_page(request: Request, db: DB, token: str) -> Response:
    try:
        user = recovery.check_reset(db, token[:100])
    except BadRequest as exc:
        return render(
            request, "accounts/reset.html", {"token": "", "expired": exc.message, "errors": {}}, status_code=404
        )
    return render(
        request, "accounts/reset.html", {"token": token, "username": user.username, "expired": None, "errors": {}}
    )


@router.post("/reset/{token}")
def reset(
    request: Request,
    db: DB,
    hx: Htmx,
    gate: Gate,
    token: str,
    password: Annotated[str, Form()] = "",
    password2: Annotated[str, Form()] = "",
) -> Response:
    try:
        user = recovery.reset_password(
            db, token[:100], password, password2, _GatedHasher(gate, service.password_hasher)
        )
    except BadRequest as exc:
        if exc.field == "token":
            return render(
                request, "accounts/reset.html", {"token": "", "expired": exc.message, "errors": {}}, status_code=404
            )
        return render_failure(
            request,
            db,
            exc,
            "accounts/reset.html",
            lambda errors: {"token": token, "expired": None, "errors": errors},
            key="password",
            block="form" if hx.request else None,
        )
    sid = service.start_login_session(db, user)  # every other session was signed out; this browser is in
    db.commit()
    set_session(request.scope, new_session_data(sid, user.locale))
    return redirect(request, "/campaigns")


class _GatedHasher:
    """The password hasher through the argon2 gate (64 MiB a hash: a bounded number at once)."""

    def __init__(self, gate: Any, hasher: Any) -> None:
        self.gate, self.hasher = gate, hasher

    def hash(self, password: str) -> str:
        digest: str = self.gate.run(lambda: self.hasher.hash(password))
        return digest


@router.post("/account/email")
def change_email(
    request: Request,
    db: DB,
    user: CurrentUser,
    hx: Htmx,
    settings: AppSettings,
    throttle: Throttle,
    email: Annotated[str, Form()] = "",
) -> Response:
    try:
        if not settings.smtp_url:
            raise BadRequest(_("This server sends no e-mail."), field="email")
        recovery.request_email_change(db, throttle, user, email, _base(request, settings))
    except (BadRequest, RetryLater) as exc:
        return render_failure(
            request,
            db,
            exc,
            "accounts/account.html",
            lambda errors: _account_context(db, user, errors=errors, settings=settings, email_form=email),
            key="email",
        )
    return render(
        request, "accounts/account.html", _account_context(db, user, settings=settings, email_sent=email.strip())
    )


@router.get("/account/email/{token}")
def confirm_email(request: Request, db: DB, token: str) -> Response:
    try:
        recovery.confirm_email(db, token[:100])
    except BadRequest as exc:
        return render(request, "error.html", {"message": exc.message, "status": 404}, status_code=404)
    return redirect(request, "/account?email=confirmed")


@router.get("/account/export.json")
def export_me(db: DB, user: CurrentUser) -> Response:
    name = f"fateboard-{user.username}.json"
    return StreamingResponse(
        recovery.export_chunks(db, user),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


@router.post("/account/delete")
def delete_me(
    request: Request,
    db: DB,
    user: CurrentUser,
    gate: Gate,
    settings: AppSettings,
    password: Annotated[str, Form()] = "",
) -> Response:
    try:
        if not password or not gate.run(lambda: service.password_hasher.verify(password, user.password_hash)):
            raise BadRequest(_("Wrong password."), field="delete_password")
        locale = user.locale  # the goodbye is in the account's language, not only the browser's
        recovery.delete_account(db, user)
    except BadRequest as exc:
        return render_failure(
            request,
            db,
            exc,
            "accounts/account.html",
            lambda errors: _account_context(db, user, errors=errors, settings=settings),
            key="delete_password",
            by_field=False,
        )
    set_session(request.scope, new_session_data(locale=locale))
    return redirect(request, "/?account=deleted")
