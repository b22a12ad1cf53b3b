"""Sign up, sign in, sign out, the account page (API tokens, language)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app import i18n
from app.accounts import passwords, service
from app.accounts.models import User
from app.deps import DB, CurrentUser, Gate, Htmx, MaybeUser, Throttle
from app.errors import BadRequest, RetryLater
from app.i18n import _
from app.inputs import Id
from app.security import client_address, new_session_data, set_session
from app.web import redirect, render, render_failure, same_origin_path

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api.py


def _form_error(request: Request, db: DB, hx: Htmx, template: str, exc: BadRequest | RetryLater, next: str,
                username: str) -> Response:
    return render_failure(request, db, exc, template, lambda errors: {
        "next": same_origin_path(next), "form": {"username": username}, "errors": errors,
        "min_password": passwords.MIN_PASSWORD}, block="form" if hx.request else None)


@router.get("/signin")
def signin_page(request: Request, user: MaybeUser, next: str = "/") -> Response:
    if user is not None:
        return redirect(request, next)
    return render(request, "accounts/signin.html", {"next": same_origin_path(next), "errors": {}, "form": {}})


@router.post("/signin")
def signin(request: Request, db: DB, user: MaybeUser, hx: Htmx, throttle: Throttle, gate: Gate,
           username: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "",
           next: Annotated[str, Form()] = "/") -> Response:
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
    return render(request, "accounts/signup.html", {"next": same_origin_path(next), "errors": {}, "form": {},
                                                    "min_password": passwords.MIN_PASSWORD})


@router.post("/signup")
def signup(request: Request, db: DB, user: MaybeUser, hx: Htmx, throttle: Throttle, gate: Gate,
           username: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "",
           password2: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/") -> Response:
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
    ctx: dict[str, Any] = {"tokens": service.list_tokens(db, user), "new_token": None, "errors": {}, "languages": i18n.LANGUAGES}
    ctx.update(extra)
    return ctx


def _account_page(request: Request, db: DB, user: User, hx: Htmx, **extra: Any) -> Response:
    return render(request, "accounts/account.html", _account_context(db, user, **extra),
                  block="tokens" if hx.request else None)


@router.get("/account")
def account_page(request: Request, db: DB, user: CurrentUser, hx: Htmx) -> Response:
    return _account_page(request, db, user, hx)


@router.post("/account/tokens")
def create_token(request: Request, db: DB, user: CurrentUser, hx: Htmx, name: Annotated[str, Form()] = "") -> Response:
    try:
        _row, token = service.create_token(db, user, name)
    except BadRequest as exc:
        return render_failure(request, db, exc, "accounts/account.html",
                              lambda errors: _account_context(db, user, errors=errors),
                              block="tokens" if hx.request else None)
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
