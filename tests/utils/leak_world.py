"""The leak test's worlds (tests/security/test_hidden_results.py and each system's leak tests in
tests/systems/<id>/): a fresh database and app per world, nora narrates, pia and otto play; the route walk that
fetches everything a viewer can reach (every GET route in WALKED, both live streams), normalised so two worlds
that differ only in a secret render identically; playing a case, revealing it, and the comparisons."""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markupsafe
import pytest
from fastapi import FastAPI
from sqlalchemy import select
from starlette.routing import Route
from starlette.testclient import TestClient

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.characters.models import Character
from app.characters.service import create_character
from app.config import Settings
from app.main import create_app
from app.models import Base
from app.panels import PANELS
from app.rolls import chain, corrections, patch
from app.rolls import service as rolls
from app.rolls.models import LogEntry
from app.rules.dice import ScriptedDice
from app.systems import ROLLER, SYSTEMS
from utils.dice import scripted
from utils.leak import Case, leak_of
from utils.routes import registered_routes
from utils.said import said
from utils.server import reset_postgres
from utils.streams import read_stream
from utils.tables import seat_table
from utils.web import csrf_of

ROLES = ("nora", "pia", "otto")  # the narrator, the player who rolls, another player
HIDDEN = ("blind", "narrator", "self")

# --- the route walk -----------------------------------------------------------------------------------------

# GET routes that show campaign data, walked for every viewer with every id of the scenario.
WALKED = {
    "/",
    "/campaigns",
    "/campaigns/{campaign_id}",
    "/campaigns/{campaign_id}/log",
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
    # handouts and the scene (app/handouts): the pictures (also by guessed ids), the API
    "/campaigns/{campaign_id}/handouts/{handout_id}/image",
    "/api/campaigns/{campaign_id}/handouts",
    "/api/campaigns/{campaign_id}/handouts/{handout_id}/image",
    "/api/campaigns/{campaign_id}/scene",
    # Table talk (app/talk): a message's line (every seq of the scenario).
    "/campaigns/{campaign_id}/talk/{seq}",
    # The live panels (app/panels): every panel, of every subject of the scenario (PANEL_PATH below); and the URL
    # the systems' own pages still write.
    "/campaigns/{campaign_id}/panels/{name}",
    "/campaigns/{campaign_id}/systems/{system_id}/panels/system",
    # Between sessions (app/between): unread counts, what waits, the schedule and calendars, lines and veils, and
    # the recaps of game session 1 (where every case is played) and 2 (none: a 404 in both worlds).
    "/api/campaigns/{campaign_id}/unread",
    "/api/me/waiting",
    "/api/campaigns/{campaign_id}/schedule",
    "/api/campaigns/{campaign_id}/calendar.ics",
    "/api/campaigns/{campaign_id}/safety",
    "/api/campaigns/{campaign_id}/sessions/{number}/recap",
    "/campaigns/{campaign_id}/between",
    "/campaigns/{campaign_id}/calendar.ics",
    "/campaigns/{campaign_id}/sessions/{number}/recap",
    "/campaigns/{campaign_id}/sessions/{number}/recap.md",
}
PANEL_PATH = "/campaigns/{campaign_id}/panels/{name}"
# The endless streams, replayed from the start by reading the ASGI app until the newest entry has come.
STREAMS = {"/campaigns/{campaign_id}/stream", "/api/campaigns/{campaign_id}/events"}
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

    case: Case

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
            campaign = db.get(Campaign, self.campaign_id)
            assert campaign is not None
            return int(campaign.last_seq)

    def entry(self, seq: int) -> LogEntry:
        with self.factory() as db:
            entry: LogEntry | None = db.scalar(
                select(LogEntry).where(LogEntry.campaign_id == self.campaign_id, LogEntry.seq == seq)
            )
            assert entry is not None, seq
            return entry

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
        values: dict[str, Sequence[int | str]] = {
            "campaign_id": [self.campaign_id],
            "character_id": sorted(self.ids.values()),
            "action_id": [self.case.action],
            "system_id": sorted({self.case.system, ROLLER}),
            "encounter_id": self.encounters,
            "handout_id": [1, 2, 3],
            "seq": list(range(1, self.last_seq() + 1)),
            "name": sorted(PANELS),
            "number": [1, 2],
        }
        walked = (
            WALKED
            if full
            else {"/campaigns/{campaign_id}", "/api/campaigns/{campaign_id}/log", "/api/campaigns/{campaign_id}/export"}
        )
        for path in sorted(get_routes(self.app) & walked):
            for url in expand(path, values):
                queries = [QUERY[path](self) if path in QUERY else {}]
                if path == PANEL_PATH:  # a panel of a subject: each one (the composer's is optional)
                    panel = PANELS[url.rpartition("/")[2]]
                    subjects = {"character": "character_id", "encounter": "encounter_id", "system": "system_id"}
                    ofs = values[subjects[panel.subject]] if panel.subject else []
                    queries = [*([{}] if not panel.subject or panel.optional else []), *({"of": of} for of in ofs)]
                for query in queries:
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
                    of = f"?of={query['of']}" if "of" in query else ""
                    out[f"GET {url}{of}"] = f"{r.status_code}\n{shown}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.browsers[viewer].cookies.items())
        until = self.last_seq()
        for path, headers in (
            ("/campaigns/{campaign_id}/stream", {"cookie": cookie}),
            ("/api/campaigns/{campaign_id}/events", self.tokens[viewer]),
        ):
            url = path.format(campaign_id=self.campaign_id)
            assert self.api.portal is not None  # the client is entered (World._client)
            text = self.api.portal.call(read_stream, self.app, url, headers, until)
            out[f"STREAM {url}"] = normalise(text)
        return out


def expand(path: str, values: Mapping[str, Sequence[int | str]]) -> list[str]:
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


def reveal(played: Played, visibility: str) -> int:
    """Reveal the entry and check that its held changes are applied now; how many sheets they changed."""
    world = played.world
    who = played.world.case.roller if visibility == "self" else "nora"
    with world.factory() as db:
        corrections.reveal_entry(db, world.acc(db, who), played.seq)
    entry = world.entry(played.seq)
    held = entry.body.get("held") or {}
    for cid, ops in held.items():  # the held changes are applied at the reveal
        key = next(k for k, v in world.ids.items() if v == int(cid))
        assert world.sheet(key) == patch.apply(played.before[key], ops) != played.before[key], key
    return len(held)


def check_reveal(played: Played, visibility: str, outcome: str, blind_to: list[str]) -> None:
    """The reveal: now everyone sees it, the held sheet changes are applied, and still no player reads them
    in an entry's body (they are whole sheet values: the narrators' alone)."""
    world = played.world
    held = reveal(played, visibility)
    # So that the reveal's check above checks something: a case that changes a sheet holds its success's changes (a
    # failure may change nothing, as a lost coin flip); a case that changes no sheet holds nothing.
    expected = world.case.changes_sheet if outcome == "success" else held > 0 and world.case.changes_sheet
    assert (held > 0) == expected, (world.case.id, outcome, held)
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
