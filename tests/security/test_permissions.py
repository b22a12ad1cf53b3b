"""Permissions as a matrix: every route × (anonymous, outsider, player, other player, narrator).

Each row names a route and a rule; the rule gives the expected outcome for each role. A route that is
missing from ROUTES fails test_every_route_is_in_the_matrix, so new routes cannot slip past.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from starlette.testclient import TestClient
from utils import pictures
from utils.flip_duel import FLIP_DUEL
from utils.routes import registered_routes
from utils.settings import app_settings
from utils.tables import Table
from utils.web import api_token, csrf_of

from app.config import Settings

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too

ROLES = ("anonymous", "outsider", "other", "player", "narrator")
LOOPBACK = "http://127.0.0.1:9"  # the outbound allow-list of this module's app (settings below)
OK = "ok"

# rule -> expected per role ("ok" = the route's success status, see _success; "signin" = redirected to sign in; a
# number = that status)
RULES = {
    "signed_in": {"anonymous": "signin", "outsider": OK, "other": OK, "player": OK, "narrator": OK},
    "member": {"anonymous": "signin", "outsider": 404, "other": OK, "player": OK, "narrator": OK},
    "narrator": {"anonymous": "signin", "outsider": 404, "other": 403, "player": 403, "narrator": OK},
    "own_character": {"anonymous": "signin", "outsider": 404, "other": 403, "player": OK, "narrator": OK},
    # like own_character, but another player is told nothing exists (odds reveal a sheet's numbers)
    "own_character_hidden": {"anonymous": "signin", "outsider": 404, "other": 404, "player": OK, "narrator": OK},
    # a message's author only (table talk: the player wrote message #4); not even a narrator edits it
    "author": {"anonymous": "signin", "outsider": 404, "other": 403, "player": OK, "narrator": 403},
}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    rule: str
    body: dict | None = None
    fresh_world_per_role: bool = False  # for one-shot actions that more than one role may take
    session_running: bool = True
    values: dict[str, str] = field(default_factory=dict)  # path parameters that need a particular value
    ok: int = 0  # the success status when it is not the route's declared one (API) or 200 (pages)

    @property
    def api(self) -> bool:
        return self.path.startswith("/api/")


ROUTES = [
    # pages
    Route("GET", "/campaigns", "signed_in"),
    Route("GET", "/account", "signed_in"),
    Route("POST", "/account/tokens", "signed_in", {"name": "bot"}),
    Route("POST", "/account/display", "signed_in", {"motion": "off", "theme": "dark", "text_size": "150"}, ok=204),
    Route("POST", "/campaigns", "signed_in", {"name": "Another"}, ok=204),  # HX-Redirect to the new campaign
    Route("GET", "/campaigns/{campaign_id}", "member"),
    Route("GET", "/campaigns/{campaign_id}/log?before=4", "member"),
    Route("GET", "/campaigns/{campaign_id}/export.json", "member"),
    Route("GET", "/campaigns/{campaign_id}/verify", "member"),
    Route("GET", "/campaigns/{campaign_id}/narrator", "narrator"),
    # The live panels (app/panels: one URL, the subject in ?of=)
    Route("GET", "/campaigns/{campaign_id}/panels/{name}", "member", values={"name": "members"}),
    Route("GET", "/campaigns/{campaign_id}/panels/prompts", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/screen_live", "narrator"),
    Route("GET", "/campaigns/{campaign_id}/panels/sheet?of={character_id}", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/system?of=cat", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/shown", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/scene", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/composer", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/encounter?of={encounter_id}", "member"),
    Route("GET", "/campaigns/{campaign_id}/panels/team_talk?of={encounter_id}", "member"),
    # the same panels at the URLs the systems' templates still write
    Route("GET", "/campaigns/{campaign_id}/systems/{system_id}/panels/system", "member", values={"system_id": "cat"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/prompts/group",
        "narrator",
        {"character_id": "{character_id}", "expression": "1d20"},
    ),
    Route("GET", "/campaigns/{campaign_id}/odds?expression=2d6", "member"),
    Route("POST", "/campaigns/{campaign_id}/roll", "member", {"expression": "1d6"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/roll",
        "own_character",
        {"expression": "1d6", "character_id": "{character_id}"},
    ),
    Route("POST", "/campaigns/{campaign_id}/characters", "member", {"name": "Newcomer", "system": "dice"}),
    Route(
        "POST", "/campaigns/{campaign_id}/prompts", "narrator", {"character_id": "{character_id}", "expression": "1d20"}
    ),
    Route(
        "POST",
        "/campaigns/{campaign_id}/prompts/{prompt_id}/complete",
        "own_character",
        {"expression": "1d6"},
        fresh_world_per_role=True,
    ),
    Route("POST", "/campaigns/{campaign_id}/prompts/{prompt_id}/cancel", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/entries/{seq}/void", "narrator", {"reason": "wrong die"}),
    Route("POST", "/campaigns/{campaign_id}/entries/{seq}/reveal", "narrator", values={"seq": "2"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/characters/{character_id}/adjust",
        "narrator",
        {"reason": "gift", "sheet.notes": "x"},
    ),
    Route("POST", "/campaigns/{campaign_id}/invites", "narrator", {}),
    Route("POST", "/campaigns/{campaign_id}/invites/{invite_id}/revoke", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/members/{user_id}/promote", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/members/{user_id}/remove", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/sessions/end", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/dice-animation", "narrator", {"animation": "off"}, ok=204),
    Route("POST", "/campaigns/{campaign_id}/sessions/start", "narrator", {"title": "Night two"}, session_running=False),
    Route("GET", "/campaigns/{campaign_id}/characters/{character_id}", "member"),
    Route("GET", "/campaigns/{campaign_id}/encounters/{encounter_id}", "member"),
    Route("GET", "/campaigns/{campaign_id}/encounters/{encounter_id}/view", "member"),
    Route(
        "POST",
        "/campaigns/{campaign_id}/encounters/{encounter_id}/act/{action_id}",
        "own_character",
        {"character_id": "{coin_char}", "version": "1"},
        values={"action_id": "flip"},
        fresh_world_per_role=True,
    ),
    Route(
        "POST",
        "/campaigns/{campaign_id}/characters/{character_id}/act/{action_id}",
        "own_character",
        {"expression": "1d6"},
        values={"action_id": "roll"},
    ),
    Route(
        "GET",
        "/campaigns/{campaign_id}/characters/{character_id}/odds/{action_id}?expression=2d6",
        "own_character_hidden",
        values={"action_id": "roll"},
    ),
    Route("GET", "/campaigns/{campaign_id}/characters/new/{system_id}", "member", values={"system_id": "dice"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/characters/new/{system_id}",
        "member",
        {"name": "Newcomer"},
        values={"system_id": "dice"},
        ok=204,  # HX-Redirect to the new sheet
    ),
    # A system's own campaign page (Cat's: game time, foes) and its narrator tools (Cat's advance_time).
    Route("GET", "/campaigns/{campaign_id}/systems/{system_id}", "member", values={"system_id": "cat"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/systems/{system_id}/act/{action_id}",
        "narrator",
        {"weeks": "1"},
        values={"system_id": "cat", "action_id": "advance_time"},
    ),
    # Table talk (app/talk): the player's public message is #4; retract: its author or a narrator
    Route("POST", "/campaigns/{campaign_id}/talk", "member", {"text": "hello"}),
    Route("GET", "/campaigns/{campaign_id}/talk/{seq}", "member", values={"seq": "4"}),
    Route("POST", "/campaigns/{campaign_id}/talk/{seq}/edit", "author", {"text": "hello again"}, values={"seq": "4"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/talk/{seq}/retract",
        "own_character",
        values={"seq": "4"},
        fresh_world_per_role=True,
    ),
    Route("POST", "/api/campaigns/{campaign_id}/messages", "member", {"text": "hello"}),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/messages/{seq}/edit",
        "author",
        {"text": "hello again"},
        values={"seq": "4"},
    ),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/messages/{seq}/retract",
        "own_character",
        values={"seq": "4"},
        fresh_world_per_role=True,
    ),
    # JSON API
    Route("GET", "/api/campaigns", "signed_in"),
    Route("POST", "/api/campaigns", "signed_in", {"name": "Via API"}),
    Route("GET", "/api/campaigns/{campaign_id}", "member"),
    Route("GET", "/api/campaigns/{campaign_id}/log", "member"),
    Route("GET", "/api/campaigns/{campaign_id}/export", "member"),
    Route("GET", "/api/campaigns/{campaign_id}/verify", "member"),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/actions",
        "member",
        {"system": "dice", "action": "roll", "params": {"expression": "1d6"}},
    ),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/actions",
        "own_character",
        {"system": "dice", "action": "roll", "params": {"expression": "1d6"}, "character_id": "{character_id}"},
    ),
    Route("POST", "/api/campaigns/{campaign_id}/characters", "member", {"name": "Newcomer"}),
    Route("POST", "/api/campaigns/{campaign_id}/invites", "narrator", {}),
    Route("POST", "/api/campaigns/{campaign_id}/prompts", "narrator", {"character_id": "{character_id}"}),
    Route("POST", "/api/campaigns/{campaign_id}/entries/{seq}/void", "narrator", {"reason": "wrong die"}),
    Route("POST", "/api/campaigns/{campaign_id}/entries/{seq}/reveal", "narrator", values={"seq": "2"}),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/characters/{character_id}/adjust",
        "narrator",
        {"changes": {"notes": "x"}, "reason": "gift"},
    ),
    Route("POST", "/api/invites/{code}/accept", "signed_in"),
    # handouts and the scene (the World's handout is shown to everyone and is the scene, with one pin). The
    # uploads (POST …/handouts, multipart) are held to the same rules in tests/handouts/.
    Route("GET", "/campaigns/{campaign_id}/handouts/{handout_id}/image", "member"),
    Route("POST", "/campaigns/{campaign_id}/handouts/{handout_id}/show", "narrator", {"to": "all"}),
    Route("POST", "/campaigns/{campaign_id}/handouts/{handout_id}/delete", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/scene/pins", "narrator", {"x": "0.5", "y": "0.5", "label": "Gate"}),
    Route("POST", "/campaigns/{campaign_id}/scene/pins/{pin_id}", "narrator", {"label": "Old gate"}),
    Route("POST", "/campaigns/{campaign_id}/scene/pins/{pin_id}/delete", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/scene", "narrator", {"handout_id": "{handout_id}"}),
    Route("GET", "/api/campaigns/{campaign_id}/handouts", "member"),
    Route("GET", "/api/campaigns/{campaign_id}/handouts/{handout_id}/image", "member"),
    Route("POST", "/api/campaigns/{campaign_id}/handouts/{handout_id}/show", "narrator", {"to": "all"}),
    Route("DELETE", "/api/campaigns/{campaign_id}/handouts/{handout_id}", "narrator"),
    Route("GET", "/api/campaigns/{campaign_id}/scene", "member"),
    Route("PUT", "/api/campaigns/{campaign_id}/scene", "narrator", {"handout_id": "{handout_id}"}),
    Route(
        "POST",
        "/api/campaigns/{campaign_id}/scene/pins",
        "narrator",
        {"x": 0.5, "y": 0.5, "label": "Gate", "visible": True},
    ),
    Route("PATCH", "/api/campaigns/{campaign_id}/scene/pins/{pin_id}", "narrator", {"label": "Old gate"}),
    Route("DELETE", "/api/campaigns/{campaign_id}/scene/pins/{pin_id}", "narrator"),
    # notifications (app/notify): a member's choice, the narrator's Discord bridge (to the loopback origin the
    # settings below list: registered, never contacted), a device's push subscription; account recovery's pages
    Route("GET", "/campaigns/{campaign_id}/notify", "member"),
    Route("POST", "/campaigns/{campaign_id}/notify", "member", {"push": "none"}),
    Route("POST", "/campaigns/{campaign_id}/discord", "narrator", {"webhook_url": LOOPBACK + "/hook", "post": "rolls"}),
    Route(
        "PUT",
        "/api/campaigns/{campaign_id}/discord",
        "narrator",
        {"webhook_url": LOOPBACK + "/hook", "post": ["rolls", "talk"]},
    ),
    Route(
        "POST",
        "/api/push/subscriptions",
        "signed_in",
        {"endpoint": LOOPBACK + "/push/device", "keys": {"p256dh": "B" + "A" * 86, "auth": "A" * 22}},
    ),
    Route("GET", "/account/devices", "signed_in"),
    Route("GET", "/account/export.json", "signed_in"),
    # between sessions (app/between): catch-up, the schedule and calendars, recaps, safety tools
    Route("GET", "/api/campaigns/{campaign_id}/unread", "member"),
    Route("POST", "/api/campaigns/{campaign_id}/read", "member", {"seq": 1}),
    Route("GET", "/api/me/waiting", "signed_in"),
    Route("POST", "/api/campaigns/{campaign_id}/schedule", "narrator", {"starts_at": "2031-01-01T19:00:00Z"}),
    Route("GET", "/api/campaigns/{campaign_id}/schedule", "member"),
    Route("PUT", "/api/campaigns/{campaign_id}/schedule/{session_id}/rsvp", "member", {"answer": "yes"}),
    Route("DELETE", "/api/campaigns/{campaign_id}/schedule/{session_id}", "narrator"),
    Route("GET", "/api/campaigns/{campaign_id}/calendar.ics", "member"),
    Route("POST", "/api/me/calendar-feed", "signed_in"),
    Route("DELETE", "/api/me/calendar-feed", "signed_in"),
    Route("GET", "/api/campaigns/{campaign_id}/sessions/{number}/recap", "member", values={"number": "1"}),
    Route("POST", "/api/campaigns/{campaign_id}/safety/x", "member", {}),
    Route("GET", "/api/campaigns/{campaign_id}/safety", "member"),
    Route("POST", "/api/campaigns/{campaign_id}/safety", "member", {"kind": "line", "text": "spiders"}),
    Route("DELETE", "/api/campaigns/{campaign_id}/safety/{item_id}", "narrator"),
    Route("GET", "/campaigns/{campaign_id}/between", "member"),
    Route(
        "POST", "/campaigns/{campaign_id}/between/read", "member", {"seq": "1"}, ok=204
    ),  # the page marks, no content
    Route("POST", "/campaigns/{campaign_id}/between/rsvp/{session_id}", "member", {"answer": "maybe"}),
    Route(
        "POST",
        "/campaigns/{campaign_id}/between/schedule",
        "narrator",
        {"starts_at": "2031-01-01T19:00", "zone": "UTC"},
    ),
    Route("POST", "/campaigns/{campaign_id}/between/schedule/{session_id}/cancel", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/between/x", "member"),
    Route("POST", "/campaigns/{campaign_id}/between/safety", "member", {"kind": "veil", "text": "rats"}),
    Route("POST", "/campaigns/{campaign_id}/between/safety/{item_id}/delete", "narrator"),
    Route("POST", "/campaigns/{campaign_id}/between/feed", "member"),
    Route("POST", "/campaigns/{campaign_id}/between/feed/revoke", "member"),
    Route("POST", "/campaigns/{campaign_id}/between/digest", "member", {"on": "1"}),
    Route("GET", "/campaigns/{campaign_id}/calendar.ics", "member"),
    Route("GET", "/campaigns/{campaign_id}/sessions/{number}/recap", "member", values={"number": "1"}),
    Route("GET", "/campaigns/{campaign_id}/sessions/{number}/recap.md", "member", values={"number": "1"}),
]

# Routes checked elsewhere: the endless streams (tests/live), sign-in/up/out and join (tests/accounts,
# tests/campaigns), static assets and docs (public).
ELSEWHERE = {
    "/campaigns/{campaign_id}/stream",
    "/api/campaigns/{campaign_id}/events",
    "/signin",
    "/signup",
    "/signout",
    "/join/{code}",
    "/",
    "/docs",
    "/help",
    "/help/notation",
    "/api/ping",
    "/api/users",
    "/api/tokens",
    "/account/language",
    "/account/tokens/{token_id}/revoke",
    "/openapi.json",
    # public: the VAPID key, the manifest, the service worker, the offline page (tests/notify,
    # tests/browser/test_notify_browser.py); one's own device or bridge, removed (tests/notify/test_push.py)
    "/api/push/key",
    "/manifest.webmanifest",
    "/sw.js",
    "/offline",
    "/api/push/subscriptions/{subscription_id}",
    "/account/devices/{subscription_id}/remove",
    "/api/campaigns/{campaign_id}/discord",
    "/campaigns/{campaign_id}/discord/remove",
    # the library's upload from the page (multipart): a player and an outsider refused before a byte is read
    # (tests/handouts/test_handouts_pages.py, test_handouts_api.py)
    "/campaigns/{campaign_id}/handouts",
    # a member's secret calendar feed: no sign-in by design, 404 once rotated or revoked (tests/between)
    "/api/calendar-feed/{secret}.ics",
    # account recovery: token links and forms for anyone; e-mail and deletion (tests/accounts/test_recovery.py)
    "/forgot",
    "/reset/{token}",
    "/account/email/{token}",
    "/account/email",
    "/account/delete",
}


class World:
    def __init__(self, client: TestClient, new_client, suffix: str = "", session_running: bool = True) -> None:
        self.table = Table(client, suffix, systems=("dice", "flipduel", "cat"))
        t = self.table
        # A coin duel between Pia's and Otto's coin characters (tests/utils/flip_duel.py), Pia to move.
        self.coin_char = t.character(t.player, "Pia's coin", "flipduel")
        otto_coin = t.character(t.other, "Otto's coin", "flipduel")
        r = client.post(
            f"/api/campaigns/{t.id}/actions",
            headers=t.player,
            json={
                "system": "flipduel",
                "action": "challenge",
                "character_id": self.coin_char,
                "params": {"opponent_id": otto_coin},
            },
        )
        assert r.status_code == 201, r.text
        self.encounter = r.json()["request"]["encounter_id"]
        self.tess = api_token(client, "tess" + suffix)
        code = client.post(f"/api/campaigns/{t.id}/invites", json={}, headers=t.narrator).json()["code"]
        client.post(f"/api/invites/{code}/accept", headers=self.tess)
        t.roll(t.player, "1d1000", visibility="blind")
        t.roll(t.player, "1d6")
        self.prompt = client.post(
            f"/api/campaigns/{t.id}/prompts", json={"character_id": t.pia_char}, headers=t.narrator
        ).json()["id"]
        invite = client.post(f"/api/campaigns/{t.id}/invites", json={}, headers=t.narrator).json()
        self.invite, self.code = invite["id"], invite["code"]
        r = client.post(f"/api/campaigns/{t.id}/messages", json={"text": "Evening, all."}, headers=t.player)
        assert r.status_code == 201 and r.json()["seq"] == 4, r.text  # the talk rows' message
        # A handout shown to everyone as the scene, with a visible pin.
        r = client.post(
            f"/api/campaigns/{t.id}/handouts",
            headers=t.narrator,
            data={"title": "Map"},
            files={"file": ("map.png", pictures.png(64, 48, "RGB"), "image/png")},
        )
        assert r.status_code == 201, r.text
        self.handout = r.json()["id"]
        assert (
            client.put(
                f"/api/campaigns/{t.id}/scene", headers=t.narrator, json={"handout_id": self.handout}
            ).status_code
            == 201
        )
        r = client.post(
            f"/api/campaigns/{t.id}/scene/pins",
            headers=t.narrator,
            json={"x": 0.2, "y": 0.2, "label": "Well", "visible": True},
        )
        assert r.status_code == 201, r.text
        self.pin = r.json()["id"]
        # A planned session and a veil (app/between).
        r = client.post(
            f"/api/campaigns/{t.id}/schedule", headers=t.narrator, json={"starts_at": "2031-01-02T19:00:00Z"}
        )
        assert r.status_code == 201, r.text
        self.planned = r.json()["id"]
        r = client.post(f"/api/campaigns/{t.id}/safety", headers=t.player, json={"kind": "veil", "text": "bats"})
        assert r.status_code == 201, r.text
        self.item = r.json()["id"]
        campaign = client.get(f"/api/campaigns/{t.id}", headers=t.narrator).json()
        self.ids = {
            m["username"].removesuffix(suffix) if suffix else m["username"]: m["id"] for m in campaign["members"]
        }
        self.headers = {
            "anonymous": {},
            "outsider": t.outsider,
            "other": t.other,
            "player": t.player,
            "narrator": t.narrator,
        }
        self.browsers: dict[str, TestClient] = {}
        for role, name in (
            ("anonymous", None),
            ("outsider", "olga" + suffix),
            ("other", "otto" + suffix),
            ("player", "pia" + suffix),
            ("narrator", "nora" + suffix),
        ):
            browser = new_client()
            if name:
                token = csrf_of(browser, "/signin")
                r = browser.post(
                    "/signin",
                    data={"username": name, "password": "correct horse", "csrf_token": token},
                    follow_redirects=False,
                )
                assert r.status_code == 303
            self.browsers[role] = browser
        if not session_running:
            return
        nb = self.browsers["narrator"]
        r = nb.post(
            f"/campaigns/{t.id}/sessions/start",
            data={"title": "Night one"},
            headers={"X-CSRF-Token": csrf_of(nb, "/account"), "HX-Request": "true"},
        )
        assert r.status_code == 200, r.text

    def fill(self, text: str, values: dict[str, str] | None = None) -> str:
        t = self.table
        known = {
            "campaign_id": t.id,
            "character_id": t.pia_char,
            "prompt_id": self.prompt,
            "invite_id": self.invite,
            "user_id": self.ids["tess"],
            "code": self.code,
            "seq": 3,
            "encounter_id": self.encounter,
            "coin_char": self.coin_char,
            "handout_id": self.handout,
            "pin_id": self.pin,
            "session_id": self.planned,
            "item_id": self.item,
            **(values or {}),
        }
        return text.format(**known)

    def call(self, route: Route, role: str):
        path = self.fill(route.path, route.values)
        body = {k: self.fill(v) if isinstance(v, str) else v for k, v in (route.body or {}).items()}
        if route.api:  # JSON bodies are strictly typed: an id is a number, not text
            body = {k: int(v) if isinstance(v, str) and v.isdigit() else v for k, v in body.items()}
            client = self.table.client
            return client.request(
                route.method,
                path,
                json=body if route.method in ("POST", "PUT", "PATCH") else None,
                headers=self.headers[role],
            )
        browser = self.browsers[role]
        if route.method == "GET":
            return browser.get(path, follow_redirects=False)
        token = csrf_of(browser, "/signin")
        return browser.post(
            path, data=body, headers={"X-CSRF-Token": token, "HX-Request": "true"}, follow_redirects=False
        )


def _success(app: Any, route: Route) -> int:
    """The one status a permitted call answers: `route.ok`, else an API route's declared status, else 200."""
    if route.ok:
        return route.ok
    if not route.api:
        return 200
    path = route.path.split("?")[0]
    [declared] = [
        r.status_code or 200
        for r in registered_routes(app)
        if isinstance(r, APIRoute) and r.path == path and route.method in r.methods
    ]
    return declared


def _assert_outcome(response, expected, route: Route, role: str, success: int) -> None:
    where = f"{route.method} {route.path} as {role}: {response.status_code} {response.text[:200]}"
    if expected == OK:
        assert response.status_code == success, where
    elif expected == "signin":
        if route.api:
            assert response.status_code == 401, where
            assert "Bearer" in response.json()["detail"], where
        elif response.status_code == 204:
            assert response.headers["HX-Redirect"].startswith("/signin"), where
        else:
            assert response.status_code == 303 and response.headers["location"].startswith("/signin"), where
    else:
        assert response.status_code == expected, where


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """The usual test settings, with a loopback origin on the outbound allow-list (registered, never sent to)."""
    return app_settings(database_url, tmp_path, outbound_origins=LOOPBACK, outbox_sender=False)


@pytest.fixture(autouse=True)
def coin(monkeypatch: pytest.MonkeyPatch) -> None:
    from app import systems

    monkeypatch.setitem(systems.SYSTEMS, "flipduel", FLIP_DUEL)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path} [{r.rule}]")
def test_route_permissions(route: Route, client: TestClient, new_client) -> None:
    world = World(client, new_client, session_running=route.session_running)
    for role in ROLES:  # the narrator goes last, so a success cannot change what the others meet
        if route.fresh_world_per_role and role != ROLES[0]:
            world = World(client, new_client, suffix=role)
        expected = RULES[route.rule][role]
        _assert_outcome(world.call(route, role), expected, route, role, _success(client.app, route))


def test_every_route_is_in_the_matrix(app) -> None:
    covered_norm = {r.path.split("?")[0] for r in ROUTES}
    routes = _page_paths(app)
    assert len(routes) > 40, routes  # the walk found the app's routes, so "nothing missing" means something
    missing = sorted(routes - covered_norm - ELSEWHERE)
    assert not missing, f"routes without a permission row: {missing}"


def _page_paths(app) -> set[str]:
    return {r.path for r in registered_routes(app) if isinstance(r, APIRoute)}


def test_blind_result_reaches_no_player_by_any_route(client: TestClient, new_client) -> None:
    world = World(client, new_client)
    t = world.table
    narrator_entry = next(e for e in t.log(t.narrator) if e["seq"] == 2)  # the blind roll
    secret = narrator_entry["text"]  # the summary in the reader's language (the body keeps it language-neutral)
    assert narrator_entry["outcome"]["total"] >= 1 and secret
    for role in ("player", "other"):
        browser = world.browsers[role]
        for path in (f"/campaigns/{t.id}", f"/campaigns/{t.id}/log?before=3"):
            html = browser.get(path).text
            assert "entry-2" in html and secret not in html, (role, path)
        for path in ("log", "export"):
            data = client.get(f"/api/campaigns/{t.id}/{path}", headers=world.headers[role]).json()
            entry = data["entries"][1]
            assert entry["outcome"] is None and entry["summary"] is None and entry["text"] is None
            assert entry.get("body") is None
            assert secret not in str(data)
    assert secret in world.browsers["narrator"].get(f"/campaigns/{t.id}").text
