"""A leak test that cannot be fooled by a new screen (issue 9, item 4).

Every hidden action (blind, narrator, self) of every system is made through the web form, with scripted dice, in
two fresh worlds that differ only in the dice (success and failure). Then each role fetches EVERYTHING it can
reach: every GET route registered in the app (walked from `app.routes`, with the scenario's ids), both live
streams replayed from the start, the JSON API and the fragment the action returned. For the viewers who may not
see the result, the two worlds' renderings (ids, times, hashes and tokens normalised away) must be identical —
whatever a new page shows, it cannot tell success from failure — and the recognisable values (faces, totals,
summaries) must not appear. After the reveal the values do appear to the others and the held sheet changes are
applied. A GET route that is neither walked nor listed in SKIPPED fails test_every_get_route_is_classified.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markupsafe
import pytest
from fastapi import FastAPI
from sqlalchemy import select
from starlette.routing import Route
from starlette.testclient import TestClient
from utils.dice import scripted
from utils.leak import Case, leak_of
from utils.routes import registered_routes
from utils.said import said
from utils.server import reset_postgres
from utils.streams import read_stream
from utils.tables import seat_table
from utils.web import csrf_of

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.views import NARRATOR_PANELS, TABLE_PANELS
from app.characters.models import Character
from app.characters.service import create_character
from app.characters.views import SHEET_PANELS
from app.config import Settings
from app.errors import BadRequest
from app.handouts.views import HANDOUT_PANELS
from app.main import create_app
from app.models import Base
from app.rolls import chain, corrections, patch, prompts
from app.rolls import service as rolls
from app.rolls.models import LogEntry
from app.rules.dice import ScriptedDice
from app.systems import ROLLER, SYSTEMS

ROLES = ("nora", "pia", "otto")  # the narrator, the player who rolls, another player
HIDDEN = ("blind", "narrator", "self")

# --- the route walk -----------------------------------------------------------------------------------------

# GET routes that show campaign data, walked for every viewer with every id of the scenario.
WALKED = {
    "/",
    "/campaigns",
    "/campaigns/{campaign_id}",
    "/campaigns/{campaign_id}/log",
    "/campaigns/{campaign_id}/prompts",
    "/campaigns/{campaign_id}/characters/{character_id}",
    "/campaigns/{campaign_id}/narrator",
    "/campaigns/{campaign_id}/characters/{character_id}/odds/{action_id}",
    "/campaigns/{campaign_id}/systems/{system_id}",
    "/campaigns/{campaign_id}/encounters/{encounter_id}",
    "/campaigns/{campaign_id}/encounters/{encounter_id}/view",
    "/api/campaigns",
    "/api/campaigns/{campaign_id}",
    "/api/campaigns/{campaign_id}/log",
    "/api/campaigns/{campaign_id}/export",
    "/api/campaigns/{campaign_id}/verify",
    "/campaigns/{campaign_id}/export.json",
    "/campaigns/{campaign_id}/verify",
    "/campaigns/{campaign_id}/notify",
    "/api/campaigns/{campaign_id}/discord",
    "/account/export.json",
    # handouts and the scene (app/handouts): the panels, the pictures (also by guessed ids), the API
    "/campaigns/{campaign_id}/handouts",
    "/campaigns/{campaign_id}/scene",
    "/campaigns/{campaign_id}/handouts/{handout_id}/image",
    "/api/campaigns/{campaign_id}/handouts",
    "/api/campaigns/{campaign_id}/handouts/{handout_id}/image",
    "/api/campaigns/{campaign_id}/scene",
    # Table talk (app/talk): the composer, a message's line (every seq of the scenario), a conflict's team talk.
    "/campaigns/{campaign_id}/talk/composer",
    "/campaigns/{campaign_id}/talk/{seq}",
    "/campaigns/{campaign_id}/encounters/{encounter_id}/talk",
    # The live panels' fragments (issue 22): every panel name of every page, walked on every route.
    "/campaigns/{campaign_id}/panels/{name}",
    "/campaigns/{campaign_id}/narrator/panels/{name}",
    "/campaigns/{campaign_id}/characters/{character_id}/panels/{name}",
    "/campaigns/{campaign_id}/systems/{system_id}/panels/system",
    "/campaigns/{campaign_id}/handouts/panels/{name}",
}
PANEL_NAMES = sorted({*TABLE_PANELS, *NARRATOR_PANELS, *SHEET_PANELS, *HANDOUT_PANELS})
# The endless streams, replayed from the start by reading the ASGI app until the newest entry has come.
STREAMS = {"/campaigns/{campaign_id}/stream", "/api/campaigns/{campaign_id}/events"}
# GET routes that cannot show an entry or a sheet: why, one by one. A new GET route must be added somewhere.
SKIPPED = {
    "/signin": "the sign-in form",
    "/signup": "the sign-up form",
    "/account": "the user's own tokens and language",
    "/join/{code}": "an invite's landing page: the campaign's name",
    "/help": "the rulings of the systems (static)",
    "/help/notation": "the dice notation reference (static, docs/NOTATION*.md)",
    "/docs": "OpenAPI UI (static)",
    "/openapi.json": "the API schema (static)",
    "/api/ping": "liveness",
    "/campaigns/{campaign_id}/odds": "the odds of a dice expression (a function of the query alone)",
    "/campaigns/{campaign_id}/characters/new/{system_id}": "an empty creation form",
    "/account/devices": "the user's own push devices",
    "/api/push/key": "the server's public VAPID key, the same for everyone",
    "/manifest.webmanifest": "the web app manifest (static)",
    "/sw.js": "the service worker (static but for the shell's version)",
    "/offline": "the offline page: no user, no campaign",
    "/forgot": "the forgotten-password form",
    "/reset/{token}": "a password reset form (a single-use link)",
    "/account/email/{token}": "confirms an e-mail address (a single-use link), then redirects",
}
# Query strings some walked routes need.
QUERY: dict[str, Callable[[World], dict[str, Any]]] = {
    "/campaigns/{campaign_id}/log": lambda w: {"before": w.last_seq() + 1},
    "/api/campaigns/{campaign_id}/log": lambda w: {"limit": 500},
    "/campaigns/{campaign_id}/characters/{character_id}/odds/{action_id}": lambda w: w.case.odds_query(w),
}


def get_routes(app: FastAPI) -> set[str]:
    return {r.path for r in registered_routes(app) if isinstance(r, Route) and "GET" in (r.methods or ())}


# --- normalising renderings ---------------------------------------------------------------------------------

NORMALISE = [
    (re.compile(r'name="csrf_token" value="[^"]*"'), 'name="csrf_token" value="CSRF"'),
    (re.compile(r'"X-CSRF-Token": ?"[^"]*"'), '"X-CSRF-Token": "CSRF"'),
    (re.compile(r'(<meta name="csrf-token" content=")[^"]*'), r"\1CSRF"),
    (re.compile(r'(name="idempotency_key" value=")[^"]*'), r"\1KEY"),
    (re.compile(r"/join/[\w-]+"), "/join/CODE"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(\+00:00|Z)?"), "TIME"),
    # Dates in the reader's format (Babel, English here): "Nov 23, 2026 8:33\u202fAM UTC", "8:33\u202fAM".
    (re.compile(r"[A-Z][a-z]{2} \d{1,2}, \d{4},? \d{1,2}:\d{2}\s?[AP]M UTC"), "TIME"),
    (re.compile(r"\b[0-9a-f]{16,}\b"), "HEX"),
    (re.compile(r'(<time datetime="TIME"[^>]*>)[^<]*(</time>)'), r"\1T\2"),
    (re.compile(r'"(salt|token|hash|body_hash|prev_hash)": ?"[^"]*"'), r'"\1": "X"'),
]


def normalise(text: str) -> str:
    for pattern, repl in NORMALISE:
        text = pattern.sub(repl, text)
    return text


# --- the scenarios ------------------------------------------------------------------------------------------

# Each registered system's cases, set-up and lists, from tests/systems/<id>/leak_cases.py (tests/utils/leak.py).
LEAKS = {system_id: leak_of(system_id) for system_id in SYSTEMS}
CASES = [case for leak in LEAKS.values() for case in leak.cases]
# Actions that cannot be hidden: the service refuses them with any visibility but public
# (test_what_is_not_played_cannot_be_hidden holds that). Settings changes must be public.
NOT_PLAYED = {(sid, action) for sid, leak in LEAKS.items() for action in leak.not_played}
# Hideable actions not played above, and why: follow-ups on a roll already in the log (the rolls they follow
# are played), bookkeeping without dice, and the narrator's tools (hidden only from players who see the
# sheets they change after the reveal). A new action fails test_every_hideable_action_is_played_or_listed
# until it is played or listed.
FOLLOW_UPS_AND_TOOLS = {(sid, action) for sid, leak in LEAKS.items() for action in leak.follow_ups}
# What each NOT_PLAYED action is asked with, in this order (valid params: the refusal must be for the visibility,
# not the form).
NOT_PLAYED_PARAMS: dict[tuple[str, str], dict[str, Any]] = {
    (sid, action): params for sid, leak in LEAKS.items() for action, params in leak.not_played.items()
}


def case_named(case_id: str) -> Case:
    return next(case for case in CASES if case.id == case_id)


class World:
    """A fresh database and app: nora narrates, pia and otto play; each signed in with their own browser and
    API token. `characters`: mine (pia's), theirs (otto's), and per system a foe or a hurt cat."""

    def __init__(self, database_url: str, tmp_path: Path, name: str, case: Case) -> None:
        self.case = case
        if database_url.startswith("postgresql"):
            reset_postgres(database_url)
        else:
            database_url = f"sqlite:///{tmp_path / (name + '.db')}"
        settings = Settings(
            database_url=database_url,
            secret_key="test-secret",
            secret_key_file=tmp_path / "key",
            sse_keepalive_seconds=0.5,
        )
        self.app = create_app(settings)
        Base.metadata.create_all(self.app.state.engine)
        self.factory = self.app.state.sessionmaker
        self.clients: list[TestClient] = []
        self.api = self._client()
        self.browsers = {role: self._client() for role in ROLES}
        self.ids: dict[str, int] = {}
        self.encounters: list[int] = []
        with self.factory() as db:
            campaign, users = seat_table(db, ROLES, systems=(case.system,), name="Leaky Roof")
            db.commit()
            self.campaign_id = campaign.id
            self.user_ids = {n: u.id for n, u in users.items()}
            campaigns.start_session(db, self.acc(db, "nora"))
            db.commit()
            self._characters(db)
        for role, browser in self.browsers.items():
            token = csrf_of(browser, "/signin")
            r = browser.post(
                "/signin",
                data={"username": role, "password": "correct horse", "csrf_token": token},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text
        self.tokens = {}
        for role in ROLES:
            r = self.api.post("/api/tokens", json={"username": role, "password": "correct horse"})
            assert r.status_code == 201, r.text
            self.tokens[role] = {"Authorization": f"Bearer {r.json()['token']}"}
        prepare = LEAKS[case.system].prepare
        if case.setup and prepare is not None:
            prepare(self, case.setup)

    def _client(self) -> TestClient:
        c = TestClient(self.app, base_url="http://testserver")
        c.__enter__()
        self.clients.append(c)
        return c

    def close(self) -> None:
        while self.clients:
            self.clients.pop().__exit__(None, None, None)
        self.app.state.engine.dispose()

    def acc(self, db: Any, who: str) -> campaigns.Access:
        return campaigns.access(db, db.get(User, self.user_ids[who]), self.campaign_id)

    def make(self, db: Any, who: str, name: str, sheet: dict[str, Any], kind: str = "pc", system: str = "") -> int:
        ch = create_character(
            db, self.acc(db, who), name=name, system=system or self.case.system, sheet=sheet, kind=kind
        )
        db.commit()
        return ch.id

    def _characters(self, db: Any) -> None:
        LEAKS[self.case.system].characters(self, db)

    def act_public(self, who: str, action: str, params: dict[str, Any], faces: list[int] | None = None) -> None:
        with self.factory() as db:
            req = rolls.ActionRequest(
                system=self.case.system, action=action, character_id=self.ids["mine"], params=params
            )
            rolls.perform_action(db, self.acc(db, who), req, dice=ScriptedDice(faces or []))

    # -- reading --

    def last_seq(self) -> int:
        with self.factory() as db:
            return db.get(campaigns.Campaign, self.campaign_id).last_seq

    def entry(self, seq: int) -> LogEntry:
        with self.factory() as db:
            return db.scalar(select(LogEntry).where(LogEntry.campaign_id == self.campaign_id, LogEntry.seq == seq))

    def sheet(self, key: str) -> dict[str, Any]:
        with self.factory() as db:
            return dict(db.get(Character, self.ids[key]).sheet)

    def encounter_state(self) -> dict[str, Any]:
        from app.encounters.models import Encounter

        with self.factory() as db:
            return dict(db.get(Encounter, self.encounters[-1]).state)

    def post_form(self, who: str, path: str, data: dict[str, str], status: int = 200) -> str:
        browser = self.browsers[who]
        headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
        r = browser.post(path, data=data, headers=headers, follow_redirects=False)
        assert r.status_code == status, (
            path,
            r.status_code,
            re.findall(r"role=\"alert\"[^>]*>([^<]*)", r.text),
            r.text[:2000],
        )
        return r.text

    def snapshot(self, viewer: str, full: bool = True) -> dict[str, str]:
        """Everything `viewer` can fetch, normalised: key -> "status\\nbody". Not `full`: the campaign page,
        the API's log and export, and the streams (enough to show that a viewer who may see a result does)."""
        out: dict[str, str] = {}
        values = {
            "campaign_id": [self.campaign_id],
            "character_id": sorted(self.ids.values()),
            "action_id": [self.case.action],
            "system_id": sorted({self.case.system, ROLLER}),
            "encounter_id": self.encounters,
            "handout_id": [1, 2, 3],
            "seq": list(range(1, self.last_seq() + 1)),
            "name": PANEL_NAMES,
        }
        walked = (
            WALKED
            if full
            else {"/campaigns/{campaign_id}", "/api/campaigns/{campaign_id}/log", "/api/campaigns/{campaign_id}/export"}
        )
        for path in sorted(get_routes(self.app) & walked):
            for url in expand(path, values):
                query = QUERY.get(path, lambda w: {})(self)
                if path.startswith("/api/"):
                    r = self.api.get(url, params=query, headers=self.tokens[viewer])
                else:
                    r = self.browsers[viewer].get(url, params=query, follow_redirects=False)
                # A picture is compared by its bytes' hash (the two worlds' pictures differ).
                shown = (
                    hashlib.sha256(r.content).hexdigest()
                    if r.headers.get("content-type", "").startswith("image/")
                    else normalise(r.text)
                )
                out[f"GET {url}"] = f"{r.status_code}\n{shown}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.browsers[viewer].cookies.items())
        until = self.last_seq()
        for path, headers in (
            ("/campaigns/{campaign_id}/stream", {"cookie": cookie}),
            ("/api/campaigns/{campaign_id}/events", self.tokens[viewer]),
        ):
            url = path.format(campaign_id=self.campaign_id)
            text = self.api.portal.call(read_stream, self.app, url, headers, until)
            out[f"STREAM {url}"] = normalise(text)
        return out


def expand(path: str, values: dict[str, list[int | str]]) -> list[str]:
    urls = [path]
    for name, options in values.items():
        if "{" + name + "}" not in path:
            continue
        urls = [u.replace("{" + name + "}", str(v)) for u in urls for v in options]
    return urls


def may_see(visibility: str, viewer: str, roller: str) -> bool:
    """The rule (docs/ARCHITECTURE.md, Visibility), written out here rather than asked of the app."""
    if visibility == "public":
        return True
    if viewer == "nora" and visibility in ("blind", "narrator"):
        return True
    if viewer == roller:
        return visibility in ("narrator", "self")  # the roller of a blind roll sees only what they asked
    return False


# --- running a case -----------------------------------------------------------------------------------------


@dataclass
class Played:
    world: World
    seq: int
    summary: str
    fragment: str
    before: dict[str, dict[str, Any]]
    snapshots: dict[str, dict[str, str]]


Do = Callable[["World", str], tuple[str, str, str]]  # (world, visibility) -> (who acted, form path, fragment)


def by_sheet_form(world: World, visibility: str) -> tuple[str, str, str]:
    """The case's action through the sheet's form (…/characters/{cid}/act/{action})."""
    case = world.case
    path = f"/campaigns/{world.campaign_id}/characters/{world.ids[case.character]}/act/{case.action}"
    return case.roller, path, world.post_form(case.roller, path, {**case.fields(world), "visibility": visibility})


def play(
    world: World,
    visibility: str,
    faces: list[int],
    do: Do = by_sheet_form,
    *,
    kind: str = "action",
    sheets_held: bool = True,
    walk: tuple[str, ...] = ROLES,
) -> Played:
    """Act, then take every role's snapshot: the whole walk for the roles in `walk`, the main channels for
    the others."""
    before = {key: world.sheet(key) for key in world.ids}
    with scripted(faces):
        who, path, fragment = do(world, visibility)
    seq = world.last_seq()
    entry = world.entry(seq)
    assert (entry.kind, entry.visibility) == (kind, visibility), fragment[:2000]
    if sheets_held:
        for key in world.ids:  # a hidden action changes no sheet before the reveal
            assert world.sheet(key) == before[key], f"{key}'s sheet changed before the reveal"
    snapshots = {viewer: world.snapshot(viewer, viewer in walk) for viewer in ROLES}
    snapshots[who][f"POST {path}"] = normalise(fragment)
    return Played(world, seq, said(entry.body), fragment, before, snapshots)


def forms_of(text: str) -> set[str]:
    """How a string looks in HTML, in JSON and in an SSE data line."""
    return {
        text,
        html.escape(text),
        str(markupsafe.escape(text)),
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
    }


def shows(text: str, secret: str) -> bool:
    return any(form in text for form in forms_of(secret))


def secrets_of(played: Played, outcome: str) -> list[str]:
    return sorted({played.summary, *played.world.case.secrets.get(outcome, [])})


def assert_not_shown(played: Played, viewer: str, secrets: list[str], what: str) -> None:
    for key, text in played.snapshots[viewer].items():
        for secret in secrets:
            assert not shows(text, secret), f"{what}: {viewer} sees {secret!r} in {key}"


def assert_same(a: dict[str, str], b: dict[str, str], viewer: str, what: str) -> None:
    assert sorted(a) == sorted(b), f"{what}: {viewer} reaches other routes in the two worlds"
    for key in a:
        if a[key] != b[key]:
            diff = first_difference(a[key], b[key])
            pytest.fail(f"{what}: {viewer} can tell success from failure in {key}:\n{diff}")


def first_difference(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"success: …{a[max(0, i - 300) : i + 200]}…\nfailure: …{b[max(0, i - 300) : i + 200]}…"
    return f"lengths differ: {len(a)} vs {len(b)}"


def reveal(played: Played, visibility: str) -> None:
    world = played.world
    who = played.world.case.roller if visibility == "self" else "nora"
    with world.factory() as db:
        corrections.reveal_entry(db, world.acc(db, who), played.seq)
    entry = world.entry(played.seq)
    for cid, ops in (entry.body.get("held") or {}).items():  # the held changes are applied at the reveal
        key = next(k for k, v in world.ids.items() if v == int(cid))
        assert world.sheet(key) == patch.apply(played.before[key], ops) != played.before[key], key


@pytest.fixture(autouse=True)
def _close_worlds() -> Iterator[list[World]]:
    worlds: list[World] = []
    yield worlds
    for w in worlds:
        w.close()


# app/live/hub.py reads with Result.tuples(), deprecated in SQLAlchemy 2.1; the streams run in-process here.


@pytest.mark.parametrize("visibility", HIDDEN)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_hidden_result_reaches_no_one_who_may_not_see_it(
    case: Case, visibility: str, database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    blind_to = [v for v in ROLES if not may_see(visibility, v, case.roller)]
    assert blind_to, "someone may not see a hidden result"
    if visibility == "self" and case.changes_sheet:
        # Its changes would wait for a reveal only the roller could make (roll until you like it): refused.
        world = World(database_url, tmp_path, f"{case.id}-self-refused", case)
        _close_worlds.append(world)
        before, seq = {key: world.sheet(key) for key in world.ids}, world.last_seq()
        path = f"/campaigns/{world.campaign_id}/characters/{world.ids[case.character]}/act/{case.action}"
        with scripted(case.success):
            page = world.post_form(case.roller, path, {**case.fields(world), "visibility": "self"}, status=422)
        assert "a narrator must be able to see it" in html.unescape(page)
        assert world.last_seq() == seq and all(world.sheet(key) == before[key] for key in world.ids)
        return
    results: dict[str, Played] = {}
    # One world at a time (on PostgreSQL they share the database): play, check, reveal, check, close.
    worlds = (("success", case.success), ("failure", case.failure)) if case.compare else (("success", case.success),)
    for outcome, faces in worlds:
        world = World(database_url, tmp_path, f"{case.id}-{visibility}-{outcome}", case)
        _close_worlds.append(world)
        played = results[outcome] = play(world, visibility, faces, walk=tuple(blind_to))
        for viewer in ROLES:
            if viewer in blind_to:
                assert_not_shown(played, viewer, secrets_of(played, outcome), f"{case.id} {visibility} {outcome}")
            else:  # whoever may see it does (so the walk reaches the result at all)
                assert_reaches(played, viewer, played.summary)
        check_reveal(played, visibility, outcome, blind_to)
        world.close()
    if case.compare:
        success, failure = results["success"], results["failure"]
        assert success.summary != failure.summary, "the two worlds must differ in their result"
        for viewer in blind_to:
            assert_same(success.snapshots[viewer], failure.snapshots[viewer], viewer, f"{case.id} {visibility}")


def check_reveal(played: Played, visibility: str, outcome: str, blind_to: list[str]) -> None:
    """The reveal: now everyone sees it, the held sheet changes are applied, and still no player reads them
    in an entry's body (they are whole sheet values: the narrators' alone)."""
    world = played.world
    reveal(played, visibility)
    for viewer in blind_to:
        log = world.api.get(f"/api/campaigns/{world.campaign_id}/log", headers=world.tokens[viewer]).text
        page = world.browsers[viewer].get(f"/campaigns/{world.campaign_id}").text
        for secret in secrets_of(played, outcome):
            assert shows(log, secret) and shows(page, secret), (viewer, outcome, secret)
    for viewer in ("pia", "otto"):
        export = world.api.get(f"/api/campaigns/{world.campaign_id}/export", headers=world.tokens[viewer]).json()
        for item in export["entries"]:
            body = item.get("body") or {}
            for shown in (body, (body.get("revealed") or {}).get("body") or {}):
                assert shown.get("held") in (None, "withheld"), (viewer, outcome, item["seq"])
        checked = chain.verify_entries(export["entries"], head=export["head"])  # and the export still checks
        assert checked.ok, (viewer, checked.problems)


def test_every_hideable_action_is_played_or_listed() -> None:
    from app.systems import SYSTEMS

    hideable = {(s.id, a.id) for s in SYSTEMS.values() for a in s.actions.values() if a.encounter is None}
    played = {(c.system, c.action) for c in CASES}
    listed = NOT_PLAYED | FOLLOW_UPS_AND_TOOLS
    assert not played & listed and not NOT_PLAYED & FOLLOW_UPS_AND_TOOLS
    assert not hideable - played - listed, f"hideable actions neither played nor listed: {hideable - played - listed}"
    assert not (played | listed) - hideable, "the lists name actions that are gone"


@pytest.mark.parametrize("visibility", HIDDEN)
def test_what_is_not_played_cannot_be_hidden(app: FastAPI, visibility: str) -> None:
    """Each NOT_PLAYED action is refused with any visibility but public (nothing written), and the same request
    made public goes through — so the refusal is for the visibility, not for the form."""
    assert set(NOT_PLAYED_PARAMS) == NOT_PLAYED
    factory = app.state.sessionmaker
    with factory() as db:
        campaign, users = seat_table(db, ROLES, systems=tuple(SYSTEMS), name="Open Table")
        db.commit()
        cid, nora = campaign.id, users["nora"].id
    for (system, action), params in NOT_PLAYED_PARAMS.items():
        with factory() as db:
            acc = campaigns.access(db, db.get(User, nora), cid)
            seq = db.get(campaigns.Campaign, cid).last_seq
            req = rolls.ActionRequest(system=system, action=action, params=dict(params), visibility=visibility)
            with pytest.raises(BadRequest) as refused:
                rolls.perform_action(db, acc, req)
            assert refused.value.field == "visibility", (system, action, refused.value.message)
            db.rollback()
        with factory() as db:
            assert db.get(campaigns.Campaign, cid).last_seq == seq, (system, action)
            acc = campaigns.access(db, db.get(User, nora), cid)
            rolls.perform_action(db, acc, rolls.ActionRequest(system=system, action=action, params=dict(params)))
            db.expire_all()
            assert db.get(campaigns.Campaign, cid).last_seq == seq + 1, (system, action)


def test_every_get_route_is_classified(app: FastAPI) -> None:
    routes = get_routes(app)
    assert len(routes) > 20, routes
    unknown = sorted(routes - WALKED - STREAMS - set(SKIPPED))
    assert not unknown, f"GET routes neither walked by the leak test nor listed in SKIPPED with a reason: {unknown}"
    assert not (WALKED | STREAMS | set(SKIPPED)) - routes, "the lists name routes that are gone"


CHANNELS = (
    "GET /campaigns/{cid}",
    "GET /api/campaigns/{cid}/log",
    "GET /api/campaigns/{cid}/export",
    "STREAM /campaigns/{cid}/stream",
    "STREAM /api/campaigns/{cid}/events",
)


def assert_reaches(played: Played, viewer: str, secret: str, channels: tuple[str, ...] = CHANNELS) -> None:
    """Whoever may see the result finds it in every channel (so the walk is not blind itself)."""
    cid = played.world.campaign_id
    for key in (c.format(cid=cid) for c in channels):
        assert shows(played.snapshots[viewer][key], secret), (viewer, key, secret)


def test_a_blind_prompt_answered_through_the_form_tells_the_player_nothing(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    case = case_named("dice-roll")  # the dice world

    def answer(world: World, visibility: str) -> tuple[str, str, str]:
        with world.factory() as db:
            prompt = prompts.create_prompt(
                db,
                world.acc(db, "nora"),
                character_id=world.ids["mine"],
                system="dice",
                action="roll",
                locked={"expression": "3d1000"},
                visibility=visibility,
            )
            pid = prompt.id
        path = f"/campaigns/{world.campaign_id}/prompts/{pid}/complete"
        return "pia", path, world.post_form("pia", path, {"expression": "1d2"})  # the locked expression wins

    results = {}
    for outcome, faces in (("success", case.success), ("failure", case.failure)):
        world = World(database_url, tmp_path, f"prompt-{outcome}", case)
        _close_worlds.append(world)
        played = results[outcome] = play(world, "blind", faces, answer, walk=("pia", "otto"))
        for viewer in ("pia", "otto"):
            assert_not_shown(played, viewer, secrets_of(played, outcome), f"prompt {outcome}")
        assert_reaches(played, "nora", played.summary)
        assert "result hidden" in played.fragment
        check_reveal(played, "blind", outcome, ["pia", "otto"])
        world.close()
    success, failure = results["success"], results["failure"]
    assert "1441" in success.summary and "3d1000" in success.summary
    for viewer in ("pia", "otto"):
        assert_same(success.snapshots[viewer], failure.snapshots[viewer], viewer, "blind prompt")


def test_an_adjusted_secret_name_reaches_only_the_narrators_and_the_owner(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    case = case_named("cat-test_fate")  # the cat world
    names = {"success": "Moonwhisker", "failure": "Starpelt"}  # two worlds, two new secret names
    results = {}
    for outcome, name in names.items():

        def adjust(world: World, visibility: str, name: str = name) -> tuple[str, str, str]:
            path = f"/campaigns/{world.campaign_id}/characters/{world.ids['mine']}/adjust"
            return "nora", path, world.post_form("nora", path, {"reason": "a new name", "sheet.secret_name": name})

        world = World(database_url, tmp_path, f"adjust-{outcome}", case)
        _close_worlds.append(world)
        played = results[outcome] = play(
            world, "narrator", [], adjust, kind="adjust", sheets_held=False, walk=("otto",)
        )
        assert world.sheet("mine")["secret_name"] == name
        world.close()
        assert_not_shown(played, "otto", [names[outcome], "Ashwhisker"], f"adjust {outcome}")
        for viewer in ("nora", "pia"):
            # the entry's JSON shows what changed (the page's log line says only that the sheet was adjusted)
            assert_reaches(played, viewer, names[outcome], CHANNELS[1:3])
    assert_same(results["success"].snapshots["otto"], results["failure"].snapshots["otto"], "otto", "secret name")


@pytest.mark.parametrize("visibility", ("public", *(v for v in HIDDEN if v != "self")))  # self: refused, above
def test_a_foes_level_never_reaches_the_players(
    visibility: str, database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    """ART: the same roll against a foe whose Alertness is Inferior in one world and Poor in the other (both
    below the result, so success either way): the players' renderings are identical, before and after the
    reveal; the narrator's are not."""
    case = case_named("art-trait_roll-foe")
    results: dict[str, Played] = {}
    revealed: dict[str, dict[str, dict[str, str]]] = {}
    for level in ("IN", "PR"):
        world = World(database_url, tmp_path, f"foe-{visibility}-{level}", case)
        _close_worlds.append(world)
        with world.factory() as db:
            foe = db.get(Character, world.ids["foe"])
            foe.sheet = {**foe.sheet, "levels": {**foe.sheet["levels"], "ALE": level}}
            db.commit()
        played = results[level] = play(world, visibility, case.success, sheets_held=visibility != "public")
        assert world.entry(played.seq).body["outcome"]["concealed"]
        revealed[level] = played.snapshots
        if visibility != "public":
            reveal(played, visibility)
            revealed[level] = {viewer: world.snapshot(viewer) for viewer in ROLES}
        world.close()
    low, _high = results["IN"], results["PR"]
    mine = f"GET /campaigns/{low.world.campaign_id}/characters/{low.world.ids['mine']}"
    for when, shots in (
        ("before the reveal", {k: p.snapshots for k, p in results.items()}),
        ("after the reveal", revealed),
    ):
        for viewer in ("pia", "otto"):
            assert_same(shots["IN"][viewer], shots["PR"][viewer], viewer, f"foe level, {visibility}, {when}")
    assert revealed["IN"]["nora"][mine] != revealed["PR"]["nora"][mine], "the narrator sees the level"


# --- an ART combat's Fate rolls: a foe's Fate rating is the narrator's --------------------------------------

COMBAT_CASE = Case("art-combat", "art", "combat_aoe", {"band": "2", "weapon": "-1"}, [], [], setup="sword")


class CombatWorld(World):
    """The ART world's combat (initiative rolled) played on through the encounter's forms."""

    def step(self, who: str, action: str, key: str | None, faces: list[int], **data: Any) -> str:
        eid = self.encounters[0]
        with self.factory() as db:
            from app.encounters.models import Encounter

            version = db.get(Encounter, eid).version
        fields = {
            "version": str(version),
            **({"character_id": str(self.ids[key])} if key else {}),
            **{k: str(v) for k, v in data.items()},
        }
        with scripted(faces):
            return self.post_form(who, f"/campaigns/{self.campaign_id}/encounters/{eid}/act/{action}", fields)

    def row(self, key: str, code: str) -> int:
        from app.systems.art import rules as art
        from app.systems.art.sheet import load, weapon_stats

        sheet = load(self.sheet(key))
        if code == "ATTACK":
            return int(weapon_stats(sheet, sheet.gear[0])["attack"])
        return art.effective_row(art.trait_total(sheet.attributes[code] or 1, [], 0))

    def to_turn(self, key: str) -> None:
        """End turns until `key`'s character is on turn."""
        for _n in range(8):
            order = self.encounter_state()["order"]
            if order[0] == self.ids[key]:
                return
            who = next(k for k, v in self.ids.items() if v == order[0])
            self.step({"mine": "pia", "theirs": "otto", "foe": "nora"}[who], "combat_end_turn", who, [])
        pytest.fail(f"{key} never came on turn")


def test_a_foes_fate_rating_never_reaches_the_players_in_a_combat(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    """Two worlds that differ only in the Goblin's Fate rating (Poor, Good; both above the adventurers' lowest
    roll, so the same characters are hit): an AOE lands on everyone in a band and Tom attacks into Maren's
    grapple with the Goblin -- the Fate rolls decide who is hit. Every route renders identically for the
    players; the log names who is hit, never the Goblin's rating."""
    from utils.art_fight import face

    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for level in ("PR", "GD"):
        world = CombatWorld(database_url, tmp_path, f"combat-fate-{level}", COMBAT_CASE)
        _close_worlds.append(world)
        with world.factory() as db:
            foe = db.get(Character, world.ids["foe"])
            foe.sheet = {**foe.sheet, "levels": {**foe.sheet["levels"], "FAT": level}}
            tom = db.get(Character, world.ids["theirs"])
            tom.sheet = {**tom.sheet, "gear": world.sheet("mine")["gear"]}  # Tom has a sword too
            db.commit()
        world.step("nora", "combat_place", None, [], target=world.ids["foe"], band=2)
        # the AOE: Maren's grenade into her own band; Maren's Fate is Catastrophic, Tom's Awesome: Maren is hit
        world.to_turn("mine")
        world.step(
            "pia",
            "combat_aoe",
            "mine",
            [face(world.row("mine", "DEX"), "GD")],
            band=2,
            weapon=-1,
            damage="CT",
            targets=1,
        )
        world.step("pia", "combat_aoe_hit", "mine", [face(world.row("mine", "FAT"), "CT"), 100])
        text = said(world.entry(world.last_seq()).body)
        assert "Maren Catastrophic" in text and "Goblin (rating)" in text and "Goblin Poor" not in text, text
        assert world.entry(world.last_seq()).body["outcome"]["hit"] == [world.ids["mine"]]
        world.step("pia", "combat_end_turn", "mine", [])
        # the grapple, then Tom's attack into it: Maren's Fate is Catastrophic again, she is hit
        world.to_turn("mine")
        world.step(
            "pia",
            "combat_maneuver",
            "mine",
            [face(world.row("mine", "AGI"), "GD")],
            target=world.ids["foe"],
            maneuver="grapple",
        )
        world.step("pia", "combat_end_turn", "mine", [])
        world.to_turn("theirs")
        world.step(
            "otto",
            "combat_attack",
            "theirs",
            [face(world.row("mine", "FAT"), "CT"), face(world.row("theirs", "ATTACK"), "PS")],
            target=world.ids["foe"],
            weapon=0,
        )
        text = said(world.entry(world.last_seq()).body)
        assert "→ Maren is hit" in text and "Goblin (rating)" in text, text
        snapshots[level] = {viewer: world.snapshot(viewer) for viewer in ("pia", "otto")}
        world.close()
    for viewer in ("pia", "otto"):
        assert_same(snapshots["PR"][viewer], snapshots["GD"][viewer], viewer, "a foe's Fate rating in a combat")


# --- rabbit conflicts: a team's script before the reveal (ruling 9) -----------------------------------------

CONFLICT_CASE = Case("rabbits-conflict", "rabbits", "conflict_roll", {}, [], [], changes_sheet=False)


class ConflictWorld(World):
    """A conflict through the web forms: nora sets it up, pia's Clover is team A, otto's Hazel team B."""

    def encounter_post(self, who: str, action: str, data: dict[str, str], status: int = 200) -> str:
        eid = self.encounters[0]
        with self.factory() as db:
            from app.encounters.models import Encounter

            version = db.get(Encounter, eid).version
        return self.post_form(
            who,
            f"/campaigns/{self.campaign_id}/encounters/{eid}/act/{action}",
            {"version": str(version), **data},
            status,
        )

    def start(self) -> None:
        before = self.last_seq()
        self.post_form(
            "nora",
            f"/campaigns/{self.campaign_id}/systems/rabbits/act/conflict_setup",
            {
                "conflict": "fight",
                "a_name": "Warren",
                "a_goal": "Keep the burrow",
                "a_members": str(self.ids["mine"]),
                "b_name": "Raiders",
                "b_goal": "Take the field",
                "b_members": str(self.ids["theirs"]),
            },
        )
        assert self.last_seq() == before + 1
        self.encounters.append(int(self.entry(self.last_seq()).body["request"]["encounter_id"]))
        with scripted([5, 5]):
            self.encounter_post(
                "pia", "conflict_disposition", {"character_id": str(self.ids["mine"]), "base": "health"}
            )
        with scripted([5, 5]):
            self.encounter_post(
                "otto", "conflict_disposition", {"character_id": str(self.ids["theirs"]), "base": "health"}
            )

    def script(self, who: str, key: str, actions: tuple[str, ...], lock: bool) -> str:
        data = {"character_id": str(self.ids[key]), "lock": "true" if lock else "false"}
        for n, action in enumerate(actions, start=1):
            data[f"action_{n}"] = action
            data[f"member_{n}"] = str(self.ids[key])
        return self.encounter_post(who, "conflict_script", data)


SCRIPTS = {
    "A1": ("attack", "defend", "feint"),
    "A2": ("maneuver", "maneuver", "defend"),
    "B1": ("defend", "defend", "attack"),
    "B2": ("feint", "attack", "maneuver"),
}


def test_a_teams_script_reaches_no_one_outside_it_before_every_team_has_locked(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    """Three worlds: team A (pia) locked its script and team B (otto) saved one without locking. Worlds 1 and 2
    differ only in A's script: nora (the narrator) and otto must not tell them apart on any route; worlds 1
    and 3 differ only in B's: nora and pia must not. Then B locks, and the first actions are there for all."""
    plays = {"1": ("A1", "B1"), "2": ("A2", "B1"), "3": ("A1", "B2")}
    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for name, (a, b) in plays.items():
        world = ConflictWorld(database_url, tmp_path, f"conflict-{name}", CONFLICT_CASE)
        _close_worlds.append(world)
        world.start()
        fragments = {"pia": world.script("pia", "mine", SCRIPTS[a], lock=False)}
        fragments["pia"] += world.script("pia", "mine", SCRIPTS[a], lock=True)
        fragments["otto"] = world.script("otto", "theirs", SCRIPTS[b], lock=False)
        snapshots[name] = {viewer: world.snapshot(viewer) for viewer in ROLES}
        for viewer, text in fragments.items():  # the scripting fragment shows the team its own script
            snapshots[name][viewer]["POST script"] = normalise(text)
        state = world.encounter_state()
        assert [s["action"] for s in state["teams"]["a"]["script"]] == list(SCRIPTS[a])
        for seq in range(1, world.last_seq() + 1):  # no log body holds a choice before the reveal
            body = json.dumps(world.entry(seq).body)
            assert not any(f'"{word}"' in body for word in ("attack", "defend", "feint", "maneuver")), seq
        if name == "1":
            with scripted([]):
                world.script("otto", "theirs", SCRIPTS[b], lock=True)
            page = world.browsers["nora"].get(f"/campaigns/{world.campaign_id}/encounters/{world.encounters[0]}")
            assert "Attack</strong> — Clover" in page.text and "Defend</strong> — Hazel" in page.text
            export = world.api.get(f"/api/campaigns/{world.campaign_id}/export", headers=world.tokens["otto"]).json()
            checked = chain.verify_entries(export["entries"], head=export["head"])
            assert checked.ok and checked.commitments_checked == 2, checked.problems
        world.close()
    for viewer in ("nora", "otto"):
        assert_same(snapshots["1"][viewer], snapshots["2"][viewer], viewer, "team A's script")
    for viewer in ("nora", "pia"):
        assert_same(snapshots["1"][viewer], snapshots["3"][viewer], viewer, "team B's script")
    # The comparison can fail: the team itself sees its own script, which differs between the worlds.
    assert snapshots["1"]["pia"] != snapshots["2"]["pia"] and snapshots["1"]["otto"] != snapshots["3"]["otto"]


# --- handouts and the scene (issue 25): a picture shown to one player, hidden pins ---------------------------

HANDOUT_WORLDS = {  # two worlds that differ only in the secret: the picture and its title, a hidden pin's label
    "success": {"title": "Map of the drowned mill", "colour": (200, 30, 30), "pin": ("Secret cave", 0.2, 0.3)},
    "failure": {"title": "Letter from the duke", "colour": (30, 30, 200), "pin": ("Hidden crypt", 0.7, 0.8)},
}


def _picture(colour: tuple[int, int, int]) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (1200, 800), colour).save(out, "PNG")
    return out.getvalue()


def test_a_handout_shown_to_one_player_and_hidden_pins_reach_no_one_else(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    """The narrator uploads a picture, shows it to pia only, sets another picture as the scene and places a
    hidden pin on it. otto's renderings of every route (the pictures by id, guessed ones too) are identical in
    both worlds and name neither title nor pin; pia's name her picture, not the pin; after the pin is revealed
    both players read it."""
    case = case_named("dice-roll")
    played: dict[str, dict[str, dict[str, str]]] = {}
    for outcome, secret in HANDOUT_WORLDS.items():
        world = World(database_url, tmp_path, f"handout-{outcome}", case)
        _close_worlds.append(world)
        cid, nora = world.campaign_id, world.tokens["nora"]
        shown = world.api.post(
            f"/api/campaigns/{cid}/handouts",
            headers=nora,
            data={"title": secret["title"]},
            files={"file": ("a.png", _picture(secret["colour"]), "image/png")},
        )
        assert shown.status_code == 201, shown.text
        scene = world.api.post(
            f"/api/campaigns/{cid}/handouts",
            headers=nora,
            data={"title": "The valley"},
            files={"file": ("s.png", _picture((20, 120, 20)), "image/png")},
        )
        assert scene.status_code == 201, scene.text
        r = world.api.post(
            f"/api/campaigns/{cid}/handouts/{shown.json()['id']}/show",
            headers=nora,
            json={"to": [world.user_ids["pia"]]},
        )
        assert (r.status_code, r.json()["visibility"]) == (201, "recipients"), r.text
        assert (
            world.api.put(
                f"/api/campaigns/{cid}/scene", headers=nora, json={"handout_id": scene.json()["id"]}
            ).status_code
            == 201
        )
        label, x, y = secret["pin"]
        pin = world.api.post(
            f"/api/campaigns/{cid}/scene/pins", headers=nora, json={"x": x, "y": y, "label": label, "visible": False}
        )
        assert pin.status_code == 201, pin.text
        played[outcome] = {viewer: world.snapshot(viewer) for viewer in ROLES}
        sha = shown.json()["sha256"]
        for key, text in played[outcome]["otto"].items():
            for hidden in (secret["title"], label, sha):
                assert not shows(text, hidden), f"otto sees {hidden!r} in {key}"
        for key, text in played[outcome]["pia"].items():
            assert not shows(text, label), f"pia sees the hidden pin in {key}"
        pia_page = played[outcome]["pia"][f"GET /campaigns/{cid}"]
        assert shows(pia_page, secret["title"]) and shows(played[outcome]["nora"][f"GET /campaigns/{cid}"], label)
        image = f"/api/campaigns/{cid}/handouts/{shown.json()['id']}/image"
        assert world.api.get(image, headers=world.tokens["pia"]).status_code == 200
        assert world.api.get(image, headers=world.tokens["otto"]).status_code == 404
        # Revealed, the pin reaches both players (its entry is public and names it).
        r = world.api.patch(f"/api/campaigns/{cid}/scene/pins/{pin.json()['id']}", headers=nora, json={"visible": True})
        assert r.status_code == 200, r.text
        for viewer in ("pia", "otto"):
            assert label in world.browsers[viewer].get(f"/campaigns/{cid}").text
            assert label in world.api.get(f"/api/campaigns/{cid}/scene", headers=world.tokens[viewer]).text
        world.close()
    for viewer in ("otto",):
        assert_same(played["success"][viewer], played["failure"][viewer], viewer, "a handout shown to pia")


# --- table talk: whispers and team talk (issue 24) ----------------------------------------------------------

TALK_CASE = Case("talk", "rabbits", "conflict_roll", {}, [], [], changes_sheet=False)
TALK_ROLES = (*ROLES, "ida", "uma")  # two more players: a whisper's other recipient, and a bystander


class TalkWorld(ConflictWorld):
    """The conflict world (team A: pia's Clover, team B: otto's Hazel) with two more players, ida and uma."""

    def __init__(self, database_url: str, tmp_path: Path, name: str, case: Case) -> None:
        super().__init__(database_url, tmp_path, name, case)
        from app.accounts.service import create_user

        with self.factory() as db:
            for extra in ("ida", "uma"):
                user = create_user(db, extra, "correct horse")
                db.flush()
                campaigns.accept_invite(db, user, campaigns.create_invite(db, self.acc(db, "nora")).code)
                self.user_ids[extra] = user.id
            db.commit()
        for extra in ("ida", "uma"):
            browser = self.browsers[extra] = self._client()
            r = browser.post(
                "/signin",
                data={"username": extra, "password": "correct horse", "csrf_token": csrf_of(browser, "/signin")},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text
            r = self.api.post("/api/tokens", json={"username": extra, "password": "correct horse"})
            self.tokens[extra] = {"Authorization": f"Bearer {r.json()['token']}"}

    def say(self, who: str, data: dict[str, str | list[str]], panel: str = "") -> str:
        browser = self.browsers[who]
        headers = {"X-CSRF-Token": csrf_of(browser, "/account"), "HX-Request": "true"}
        r = browser.post(f"/campaigns/{self.campaign_id}/talk", data={**data, "panel": panel}, headers=headers)
        assert r.status_code == 200, r.text[:2000]
        return r.text


# World A and world B differ only in the words and the recipients of what pia says.
TALK = {
    "a": {
        "to": ("otto",),
        "whisper": "The key is under the mat @otto",
        "edit": "The key is in the well",
        "withdrawn": "Forget the lantern",
        "team": "We feint at the gate first",
    },
    "b": {
        "to": ("ida", "otto"),
        "whisper": "Meet me at the mill at dawn @ida",
        "edit": "Meet me at the ford",
        "withdrawn": "Bring rope and salt",
        "team": "Hold the burrow and wait",
    },
}


def play_talk(world: TalkWorld, words: dict[str, Any]) -> dict[str, str]:
    """pia whispers (and edits it), whispers again and withdraws it, and talks to her team in the conflict —
    each through the composer's form or the line's edit and withdraw forms."""
    fragments = {}
    to = [str(world.user_ids[n]) for n in words["to"]]
    fragments["whisper"] = world.say(
        "pia", {"text": words["whisper"], "audience": "whisper", "to": to, "as": str(world.ids["mine"])}
    )
    seq = world.last_seq()
    fragments["edit"] = world.post_form(
        "pia", f"/campaigns/{world.campaign_id}/talk/{seq}/edit", {"text": words["edit"]}
    )
    world.say("pia", {"text": words["withdrawn"], "audience": "whisper", "to": to})
    fragments["retract"] = world.post_form("pia", f"/campaigns/{world.campaign_id}/talk/{world.last_seq()}/retract", {})
    eid = world.encounters[0]
    fragments["team"] = world.say(
        "pia", {"text": words["team"], "audience": f"team:{eid}", "encounter": str(eid)}, panel="team"
    )
    return fragments


def test_whispers_and_team_talk_reach_no_one_else(
    database_url: str, tmp_path: Path, _close_worlds: list[World]
) -> None:
    """Two worlds that differ only in the words and the recipients: nora (the narrator, named in no whisper
    and on no players' team) and uma (a bystander) must not tell them apart on any route, stream, the API,
    the export or a search — nor find a word of it. otto reads the whispers (and not team A's talk)."""
    snapshots: dict[str, dict[str, dict[str, str]]] = {}
    for name, words in TALK.items():
        world = TalkWorld(database_url, tmp_path, f"talk-{name}", TALK_CASE)
        _close_worlds.append(world)
        world.start()
        fragments = play_talk(world, words)
        snapshots[name] = {viewer: world.snapshot(viewer, viewer in ("nora", "uma")) for viewer in TALK_ROLES}
        for viewer in ("nora", "uma", "otto"):  # the search finds words of talk only for its readers
            for word in ("mat", "mill", "well", "ford", "lantern", "rope", "feint", "burrow"):
                r = world.browsers[viewer].get(f"/campaigns/{world.campaign_id}", params={"q": word})
                snapshots[name][viewer][f"SEARCH {word}"] = normalise(r.text)
        kinds = [world.entry(seq).kind for seq in range(1, world.last_seq() + 1)][-5:]
        assert kinds == ["message", "edit", "message", "retract", "message"], kinds
        export = world.api.get(f"/api/campaigns/{world.campaign_id}/export", headers=world.tokens["uma"]).json()
        checked = chain.verify_entries(export["entries"], head=export["head"])
        assert checked.ok, checked.problems
        # Readers read it: otto the whispers (not the withdrawn words on a page), pia everything.
        otto = snapshots[name]["otto"]
        assert shows(otto[f"GET /campaigns/{world.campaign_id}"], words["edit"])
        assert not shows(otto[f"GET /campaigns/{world.campaign_id}"], words["withdrawn"])
        assert shows(otto[f"GET /api/campaigns/{world.campaign_id}/export"], words["whisper"])
        assert not shows(otto[f"GET /api/campaigns/{world.campaign_id}/export"], words["team"])
        assert shows(fragments["team"], words["team"])
        ida_log = snapshots[name]["ida"][f"GET /api/campaigns/{world.campaign_id}/log"]
        assert shows(ida_log, words["whisper"]) == (name == "b")  # ida is a recipient in world B only
        world.close()
    secrets = [w for words in TALK.values() for k, w in words.items() if k != "to"]
    for viewer in ("nora", "uma"):
        for name in TALK:
            for key, text in snapshots[name][viewer].items():
                for secret in secrets:
                    assert not shows(text, secret), f"{viewer} sees {secret!r} in {key} (world {name})"
        assert_same(snapshots["a"][viewer], snapshots["b"][viewer], viewer, "a whisper's words and readers")
    # The comparison can fail: the readers' renderings differ between the worlds.
    assert snapshots["a"]["otto"] != snapshots["b"]["otto"] and snapshots["a"]["pia"] != snapshots["b"]["pia"]
