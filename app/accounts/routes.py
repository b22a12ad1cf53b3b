"""Sign up, sign in, sign out, the account page (API tokens, language)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from app import i18n
from app.i18n import _
from app.accounts import service
from app.deps import DB, CurrentUser, MaybeUser
from app.errors import BadRequest, TooManyRequests
from app.inputs import Id
from app.security import new_session_data, set_session
from app.web import redirect, render

router = APIRouter(include_in_schema=False)  # pages and forms; the JSON API is app/api.py


def _safe_next(url: str | None) -> str:
    return url if url and url.startswith("/") and not url.startswith("//") else "/"


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.get("/signin")
def signin_page(request: Request, user: MaybeUser, next: str = "/") -> Response:
    if user is not None:
        return redirect(request, _safe_next(next))
    return render(request, "accounts/signin.html", {"next": _safe_next(next), "errors": {}, "form": {}})


@router.post("/signin")
def signin(request: Request, db: DB, user: MaybeUser, username: Annotated[str, Form()] = "",
           password: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/") -> Response:
    settings = request.app.state.settings
    try:
        account = service.authenticate(db, username, password, client=_client(request),
                                       max_failures=settings.signin_max_failures, window=settings.signin_window_seconds)
    except (BadRequest, TooManyRequests) as exc:
        db.commit()  # keep the failure count
        status = exc.status_code
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooManyRequests) else None
        return render(request, "accounts/signin.html", {"next": _safe_next(next), "form": {"username": username},
                      "errors": {exc.field or "form": exc.message}}, block="form" if request.headers.get("hx-request") else None,
                      status_code=status, headers=headers)
    old = request.scope["fb_session"].get("sid")
    if old:
        service.end_login_session(db, old)
    sid = service.start_login_session(db, account)
    db.commit()
    set_session(request.scope, new_session_data(sid, account.locale))
    return redirect(request, _safe_next(next))


@router.get("/signup")
def signup_page(request: Request, user: MaybeUser, next: str = "/") -> Response:
    return render(request, "accounts/signup.html", {"next": _safe_next(next), "errors": {}, "form": {}})


@router.post("/signup")
def signup(request: Request, db: DB, user: MaybeUser, username: Annotated[str, Form()] = "",
           password: Annotated[str, Form()] = "", password2: Annotated[str, Form()] = "",
           next: Annotated[str, Form()] = "/") -> Response:
    try:
        if password != password2:
            raise BadRequest(_("The two passwords differ."), field="password2")
        account = service.create_user(db, username, password)
    except BadRequest as exc:
        db.rollback()
        return render(request, "accounts/signup.html", {"next": _safe_next(next), "form": {"username": username},
                      "errors": {exc.field or "form": exc.message}},
                      block="form" if request.headers.get("hx-request") else None, status_code=422)
    sid = service.start_login_session(db, account)
    db.commit()
    set_session(request.scope, new_session_data(sid))
    return redirect(request, _safe_next(next))


@router.post("/signout")
def signout(request: Request, db: DB) -> Response:
    sid = request.scope["fb_session"].get("sid")
    if sid:
        service.end_login_session(db, sid)
        db.commit()
    set_session(request.scope, new_session_data())
    return redirect(request, "/signin")


def _account_page(request: Request, db: DB, user: CurrentUser, **extra: object) -> Response:
    ctx = {"tokens": service.list_tokens(db, user), "new_token": None, "errors": {}, "languages": i18n.SUPPORTED}
    ctx.update(extra)
    return render(request, "accounts/account.html", ctx, block="tokens" if request.headers.get("hx-request") else None,
                  status_code=422 if ctx["errors"] else 200)


@router.get("/account")
def account_page(request: Request, db: DB, user: CurrentUser) -> Response:
    return _account_page(request, db, user)


@router.post("/account/tokens")
def create_token(request: Request, db: DB, user: CurrentUser, name: Annotated[str, Form()] = "") -> Response:
    try:
        _row, token = service.create_token(db, user, name)
    except BadRequest as exc:
        db.rollback()
        return _account_page(request, db, user, errors={exc.field or "form": exc.message})
    db.commit()
    return _account_page(request, db, user, new_token=token)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(request: Request, db: DB, user: CurrentUser, token_id: Id) -> Response:
    service.revoke_token(db, user, token_id)
    db.commit()
    return _account_page(request, db, user)


@router.post("/account/language")
def set_language(request: Request, db: DB, user: CurrentUser, locale: Annotated[str, Form()] = "") -> Response:
    user.locale = locale if locale in i18n.SUPPORTED else None
    db.commit()
    session = request.scope["fb_session"]
    set_session(request.scope, {**session, "locale": user.locale})
    return redirect(request, "/account")
