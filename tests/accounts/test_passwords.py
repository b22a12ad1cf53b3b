"""The password rule (NIST SP 800-63B 5.1.1.2) and the argon2 gate (app/accounts/passwords.py)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient
from utils.web import csrf_of

from app.accounts import passwords
from app.accounts.passwords import Argon2Gate, check_new_password
from app.errors import BadRequest, ServiceBusy


@pytest.mark.parametrize(
    ("password", "username", "reason"),
    [
        ("short", "anna", "at least 8"),
        ("x" * 1025, "anna", "too long"),
        ("password", "anna", "common"),
        ("12345678", "anna", "common"),
        ("Password1!", "anna", "common"),
        ("monkey123!", "anna", "common"),
        ("QWERTYUIOP", "anna", "common"),
        ("iloveyou2024", "anna", "common"),
        ("correcthorsebatterystaple", "anna", "common"),
        ("p@ssw0rd", "anna", "common"),
        ("annabelle", "annabelle", "username"),
        ("Annabelle", "annabelle", "username"),
        ("my-Anna-2024-secret", "anna", "username"),
    ],
)
def test_weak_passwords_are_refused_with_a_reason(password: str, username: str, reason: str) -> None:
    with pytest.raises(BadRequest) as info:
        check_new_password(password, username)
    assert info.value.field == "password" and reason in info.value.message


@pytest.mark.parametrize(
    "password",
    [
        "fateboard-demo",
        "correct horse",
        "allowed lowercase only",
        "Tr0ub4dor&3x",
        "ünïcödé pässwörd",
        "x" * 1024,
        "12345678 ladders",
    ],
)
def test_no_composition_rules(password: str) -> None:
    check_new_password(password, "anna")


def test_the_common_list_ships_with_the_package() -> None:
    common = passwords.common_passwords()
    assert 500 <= len(common) <= 5000
    assert all(p == p.lower() and p.strip() == p for p in common)
    assert {"password", "12345678", "qwertyuiop", "iloveyou"} <= common
    assert "fateboard-demo" not in common and "correct horse" not in common


def test_the_api_names_the_password_field(client: TestClient) -> None:
    r = client.post("/api/users", json={"username": "anna", "password": "password"})
    assert r.status_code == 422 and r.json()["field"] == "password" and "common passwords" in r.json()["detail"]
    r = client.post("/api/users", json={"username": "anna", "password": "anna-rules-ok"})
    assert r.status_code == 422 and r.json()["detail"] == "Your password must not contain your username."
    r = client.post("/api/users", json={"username": "anna", "password": "x" * 1025})
    assert r.status_code == 422 and r.json()["field"] == "password"
    assert r.json()["detail"] == "Password can be at most 1024 characters long."  # the field's label, in words


def test_the_form_shows_the_reason_next_to_the_field(client: TestClient) -> None:
    token = csrf_of(client, "/signup")
    for password, message in (("12345678", "common passwords"), ("anna1234!", "must not contain your username")):
        r = client.post(
            "/signup",
            data={"username": "Anna", "password": password, "password2": password, "csrf_token": token},
            headers={"HX-Request": "true"},
        )
        assert r.status_code == 422 and message in r.text
        assert r.text.index('id="password"') < r.text.index(message) < r.text.index('id="password2"')
    with client.app.state.sessionmaker() as db:
        from app.accounts.service import count_users

        assert count_users(db) == 0


def test_the_demo_logins_still_work(settings) -> None:
    from app import demo
    from app.main import create_app
    from app.models import Base

    application = create_app(settings)
    Base.metadata.create_all(application.state.engine)
    demo.seed(settings)
    with TestClient(application) as c:
        r = c.post("/api/tokens", json={"username": "nora", "password": demo.PASSWORD})
        assert r.status_code == 201
    application.state.engine.dispose()


# The gate ---------------------------------------------------------------------------------------------------


def test_the_gate_bounds_how_many_run_at_once() -> None:
    gate = Argon2Gate(2, max_waiting=20, max_wait=10)
    running, most = 0, 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    with ThreadPoolExecutor(12) as pool:
        list(pool.map(lambda _: gate.run(work), range(24)))
    assert most == 2


def test_the_gate_refuses_when_the_queue_is_full_or_the_wait_too_long() -> None:
    release = threading.Event()
    gate = Argon2Gate(1, max_waiting=1, max_wait=0.2)
    with ThreadPoolExecutor(1) as pool:
        holder = pool.submit(gate.run, release.wait)
        time.sleep(0.05)
        started = time.monotonic()
        with pytest.raises(ServiceBusy) as info:  # waits its 0.2 s, then gives up
            gate.run(lambda: None)
        assert 0.15 < time.monotonic() - started < 2 and info.value.retry_after > 0
        no_queue = Argon2Gate(1, max_waiting=0, max_wait=5)
        busy = threading.Event()
        pool2 = ThreadPoolExecutor(1)
        pool2.submit(no_queue.run, lambda: (busy.set(), release.wait()))
        busy.wait(2)
        started = time.monotonic()
        with pytest.raises(ServiceBusy):  # no room to wait: refused at once
            no_queue.run(lambda: None)
        assert time.monotonic() - started < 0.1
        release.set()
        holder.result(2)
        pool2.shutdown()
    assert gate.run(lambda: 7) == 7


def test_a_busy_server_answers_503_and_counts_no_failure(client: TestClient) -> None:
    client.post("/api/users", json={"username": "anna", "password": "correct horse"})
    client.app.state.argon2_gate = Argon2Gate(1, max_waiting=0, max_wait=1)
    release, busy = threading.Event(), threading.Event()
    with ThreadPoolExecutor(1) as pool:
        pool.submit(client.app.state.argon2_gate.run, lambda: (busy.set(), release.wait()))
        busy.wait(2)
        for _ in range(8):
            r = client.post("/api/tokens", json={"username": "anna", "password": "wrong horse"})
            assert r.status_code == 503 and r.headers["retry-after"] == "2" and "busy" in r.json()["detail"]
        r = client.post("/api/users", json={"username": "bert", "password": "correct horse"})
        assert r.status_code == 503
        browser = TestClient(client.app)
        r = browser.post(
            "/signin",
            data={"username": "anna", "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")},
            headers={"HX-Request": "true"},
        )
        assert r.status_code == 503 and "busy checking passwords" in r.text and 'id="signin-form"' in r.text
        assert 'code": "503", "swap": true' in browser.get("/signin").text  # HTMX shows it (base.html)
        release.set()
    assert client.post("/api/tokens", json={"username": "anna", "password": "wrong horse"}).status_code == 422
    assert client.post("/api/tokens", json={"username": "anna", "password": "correct horse"}).status_code == 201
    assert client.post("/api/users", json={"username": "bert", "password": "correct horse"}).status_code == 201
