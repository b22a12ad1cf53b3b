"""Push and Discord against real receivers on 127.0.0.1 (tests/utils/push_service.py): what arrives is decrypted
(RFC 8291) as a browser would, for exactly the user the game waits for, in their language, never for the actor;
Discord gets exactly the public entries, in order; 404/410/429/redirects/dead endpoints behave as the contract says
(TABLE-API.md sections 3–6)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient
from utils.art import FOE, Play
from utils.art_fight import Fight
from utils.catfight import MIMI, TECKA
from utils.push_service import Receiver
from utils.rabbits_conflict import warren
from utils.settings import app_settings
from utils.tables import Table, seat_table
from utils.web import api_token

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.characters.service import create_character
from app.config import Settings
from app.notify import service
from app.notify.models import DiscordBridge, OutboxItem, PushSubscription
from app.rolls import prompts
from app.rolls import service as rolls
from app.rules.dice import ScriptedDice

pytestmark = pytest.mark.engines  # docs/DEVELOPING.md: what runs on PostgreSQL too


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def settings(database_url: str, tmp_path: Path, receiver: Receiver) -> Settings:
    # A send may take half the lease (OutboxSender.send_seconds): 5 s here, more than the 4 s a hanging receiver
    # below takes to answer.
    return app_settings(database_url, tmp_path, outbound_origins=receiver.origin, outbox_lease_seconds=10)


@pytest.fixture
def sender(app: Any) -> Iterator[Any]:
    """The app's outbox sender, running (service-level tests have no lifespan to start it)."""
    app.state.outbox.start()
    yield app.state.outbox
    app.state.outbox.stop()


def subscribe(app: Any, user_id: int, receiver: Receiver, name: str, locale: str | None = None) -> None:
    browser = receiver.browser(name)
    with app.state.sessionmaker() as db:
        user = db.get(User, user_id)
        if locale:
            user.locale = locale
        service.subscribe(db, user, app.state.outbound, **browser.keys(), endpoint=browser.endpoint)


def settle(app: Any, timeout: float = 10.0) -> None:
    """Until the outbox is empty (everything delivered or given up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with app.state.sessionmaker() as db:
            if db.scalar(select(OutboxItem.id).limit(1)) is None:
                return
        time.sleep(0.05)
    raise AssertionError("the outbox did not empty")


# --- a roll prompt -------------------------------------------------------------------------------------------


def test_a_roll_prompt_reaches_exactly_the_players_device_decrypted_in_their_language(
    app: Any, receiver: Receiver, sender: Any
) -> None:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, systems=("dice",), name="Night Watch")
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}
        hero = create_character(db, campaigns.access(db, users["pia"], cid), name="Wren", system="dice").id
        db.commit()
    subscribe(app, ids["pia"], receiver, "pia", locale="de")
    subscribe(app, ids["otto"], receiver, "otto")
    subscribe(app, ids["nora"], receiver, "nora")
    with app.state.sessionmaker() as db:
        acc = campaigns.access(db, db.get(User, ids["nora"]), cid)
        prompt = prompts.create_prompt(
            db, acc, character_id=hero, system="dice", action="roll", locked={"expression": "1d20"}, note="Wahrnehmung"
        )
    settle(app)
    assert [r.path for r in receiver.received] == ["/push/pia"]
    assert receiver.pushes("pia") == [
        {
            "title": "Ein Wurf für Wren",
            "body": "Wahrnehmung",
            "url": f"/campaigns/{cid}/characters/{hero}",
            "tag": f"prompt-{prompt.id}",
        }
    ]
    sent = receiver.received[0]
    assert sent.headers["content-encoding"] == "aes128gcm" and sent.headers["authorization"].startswith("vapid t=")
    assert int(sent.headers["ttl"]) > 0


def test_a_player_who_chose_nothing_for_a_campaign_is_not_notified(app: Any, receiver: Receiver, sender: Any) -> None:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, systems=("dice",))
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}
        hero = create_character(db, campaigns.access(db, users["pia"], cid), name="Wren", system="dice").id
        service.set_choice(db, campaigns.access(db, users["pia"], cid), False)
    subscribe(app, ids["pia"], receiver, "pia")
    with app.state.sessionmaker() as db:
        prompts.create_prompt(
            db,
            campaigns.access(db, db.get(User, ids["nora"]), cid),
            character_id=hero,
            system="dice",
            action="roll",
            locked={},
        )
        assert db.scalar(select(OutboxItem.id)) is None


# --- encounters: a duel, an ART turn, a conflict -------------------------------------------------------------


def test_each_move_in_a_duel_notifies_the_cat_whose_move_it_becomes_never_the_mover(
    app: Any, receiver: Receiver, sender: Any
) -> None:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, systems=("catfight",), name="The Wall")
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}
        tecka = create_character(
            db, campaigns.access(db, users["pia"], cid), name="Tecka", system="catfight", sheet=TECKA
        ).id
        mimi = create_character(
            db, campaigns.access(db, users["otto"], cid), name="Mimi", system="catfight", sheet=MIMI
        ).id
        db.commit()
    for name in ("pia", "otto", "nora"):
        subscribe(app, ids[name], receiver, name)

    encounter: dict[str, int] = {}

    def act(who: str, cat: int, action: str, faces: list[int], **params: Any) -> None:
        with app.state.sessionmaker() as db:
            if encounter:
                from app.encounters.models import Encounter

                params = {
                    "encounter_id": encounter["id"],
                    "version": db.get(Encounter, encounter["id"]).version,
                    **params,
                }
            req = rolls.ActionRequest(system="catfight", action=action, character_id=cat, params=params)
            result = rolls.perform_action(
                db, campaigns.access(db, db.get(User, ids[who]), cid), req, dice=ScriptedDice(faces)
            )
            encounter.setdefault("id", result.encounter_id or 0)

    act("pia", tecka, "challenge", [], opponent_id=mimi)  # Tecka (the challenger) begins: Pia acted, no push
    act("pia", tecka, "move", [3, 3, 5, 2], move="begin")  # Tecka starts: still Pia's move
    act("pia", tecka, "move", [1, 2], move="sneak")  # Mimi notices and attacks: Otto's move
    settle(app)
    assert [r.path for r in receiver.received] == ["/push/otto"]
    act("otto", mimi, "move", [6, 6], move="attack")  # a critical hit: Mimi attacks again (Otto acted)
    act("otto", mimi, "move", [4], move="attack")  # Tecka must defend or jump: Pia's move
    settle(app)
    assert [r.path for r in receiver.received] == ["/push/otto", "/push/pia"]
    push = receiver.pushes("pia")[0]
    assert push["url"] == f"/campaigns/{cid}/encounters/{encounter['id']}" and "Tecka" in push["title"]


def test_an_art_combat_notifies_whoever_has_the_turn(app: Any, receiver: Receiver, sender: Any) -> None:
    play = Play(app)
    for index, name in enumerate(("nora", "pia", "otto")):
        subscribe(app, play.user_ids[index], receiver, name)
    fight = Fight(play)
    fight.setup(adventurer_band=2, foe_band=2)
    fight.step(1, "combat_initiative", play.hero, [90])
    fight.step(2, "combat_initiative", play.friend, [10])
    settle(app)
    turn = fight.turn()
    owner = {play.hero: "pia", play.friend: "otto", play.foe: "nora"}[turn]
    got = [r.path for r in receiver.received]
    # Whoever has the first turn hears of it — unless they made the last step themselves (Otto rolled last).
    assert got == ([] if owner == "otto" else [f"/push/{owner}"])
    assert FOE  # the table's foe is in the fight


def test_a_conflict_notifies_each_captain_to_roll_disposition(app: Any, receiver: Receiver, sender: Any) -> None:
    table = warren(app)
    for name in ("nora", "pia", "otto"):
        subscribe(app, table.users[name], receiver, name, locale="da" if name == "otto" else None)
    table.setup()
    settle(app)
    assert sorted(r.path for r in receiver.received) == ["/push/otto", "/push/pia"]
    assert receiver.pushes("otto")[0]["title"].startswith("Dit træk")
    # Pia's captain rolls: nothing new waits for anyone else (Otto's disposition was already due).
    table.act("pia", "conflict_disposition", "Clover", [5, 5, 4], base="health")
    settle(app)
    assert len(receiver.received) == 2
    # Otto's roll ends the disposition: both teams now script — Pia hears of it; Otto acted, so he does not.
    table.act("otto", "conflict_disposition", "Hazel", [5, 4], base="health")
    settle(app)
    assert [r.path for r in receiver.received[2:]] == ["/push/pia"]
    script = receiver.pushes("pia")[1]
    assert script["url"].endswith(f"/encounters/{table.encounter().id}") and script["tag"].endswith("-script-1")
    # Pia locks her team's script: Otto's team still scripts (no new wait); nobody is told again.
    table.script("pia", "Clover", ["attack", "feint", "defend"], ["Clover", "Clover", "Clover"])
    settle(app)
    assert len(receiver.received) == 3


# --- refusals, dead endpoints, redirects, 410 ----------------------------------------------------------------


def test_the_api_subscribes_only_endpoints_on_the_allow_list(client: TestClient, receiver: Receiver) -> None:
    token = api_token(client, "pia")
    assert client.get("/api/push/key").json()["public_key"].startswith("B")
    good = receiver.browser("pia").subscription()
    r = client.post("/api/push/subscriptions", json=good, headers=token)
    assert r.status_code == 201 and isinstance(r.json()["id"], int)
    again = client.post("/api/push/subscriptions", json=good, headers={**token, "Idempotency-Key": "k1"})
    assert again.status_code == 201 and again.json() == {"id": r.json()["id"], "replayed": True}
    port = receiver.origin.rsplit(":", 1)[1]
    for endpoint in (
        f"http://localhost:{port}/push/x",
        f"https://127.0.0.1:{port}/push/x",
        f"http://127.0.0.1:{int(port) + 1}/push/x",
        f"http://user:pw@127.0.0.1:{port}/push/x",
        "https://evil.example/push",
        "javascript:alert(1)",
        "ftp://127.0.0.1/x",
    ):
        bad = client.post("/api/push/subscriptions", json={**good, "endpoint": endpoint}, headers=token)
        assert bad.status_code == 422 and bad.json()["field"] == "endpoint", endpoint
    other = api_token(client, "otto")
    assert client.delete(f"/api/push/subscriptions/{r.json()['id']}", headers=other).status_code == 404
    assert client.delete(f"/api/push/subscriptions/{r.json()['id']}", headers=token).status_code == 204
    assert client.post("/api/push/subscriptions", json=good).status_code == 401


def test_a_410_removes_the_subscription_and_a_dead_endpoint_does_not_hold_up_the_others(
    app: Any, receiver: Receiver, sender: Any
) -> None:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, ("nora", "pia", "otto", "ida"), systems=("dice",))
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}
        chars = {
            n: create_character(db, campaigns.access(db, users[n], cid), name=n.title(), system="dice").id
            for n in ("pia", "otto", "ida")
        }
        db.commit()
    for name in ("pia", "otto", "ida"):
        subscribe(app, ids[name], receiver, name)
    receiver.answers["/push/pia"] = [(410, {})]
    receiver.delay["/push/otto"] = 4.0  # a receiver that hangs (the sender's read timeout is 5 s)
    started = time.monotonic()
    with app.state.sessionmaker() as db:
        prompts.create_prompts(
            db,
            campaigns.access(db, db.get(User, ids["nora"]), cid),
            character_ids=list(chars.values()),
            system="dice",
            action="roll",
            locked={},
        )
    arrived = receiver.wait(1, "/push/ida", timeout=5)
    assert arrived and arrived[0].at - started < 1.5  # Ida is not kept waiting behind Otto's dead endpoint
    settle(app)
    with app.state.sessionmaker() as db:
        left = {s.user_id for s in db.scalars(select(PushSubscription))}
    assert left == {ids["otto"], ids["ida"]}


def test_redirects_are_never_followed(app: Any, receiver: Receiver, sender: Any) -> None:
    with app.state.sessionmaker() as db:
        campaign, users = seat_table(db, systems=("dice",))
        db.commit()
        cid, ids = campaign.id, {n: u.id for n, u in users.items()}
        hero = create_character(db, campaigns.access(db, users["pia"], cid), name="Wren", system="dice").id
        db.commit()
    subscribe(app, ids["pia"], receiver, "pia")
    receiver.answers["/push/pia"] = [(307, {"Location": f"{receiver.origin}/push/elsewhere"}), (201, {})]
    with app.state.sessionmaker() as db:
        prompts.create_prompt(
            db,
            campaigns.access(db, db.get(User, ids["nora"]), cid),
            character_id=hero,
            system="dice",
            action="roll",
            locked={},
        )
    receiver.wait(2, "/push/pia", timeout=10)  # retried after its backoff, never sent to the redirect's target
    assert not [r for r in receiver.received if r.path == "/push/elsewhere"]


# --- Discord -------------------------------------------------------------------------------------------------


def test_discord_gets_exactly_the_public_entries_in_order_in_the_campaigns_language(
    client: TestClient, app: Any, receiver: Receiver
) -> None:
    table = Table(client)
    hook = f"{receiver.origin}/api/webhooks/123/secret-token"
    receiver.answers["/api/webhooks/123/secret-token"] = [(429, {"Retry-After": "1"}), (204, {})]
    r = client.put(
        f"/api/campaigns/{table.id}/discord",
        json={"webhook_url": hook, "post": ["rolls", "sessions"]},
        headers=table.narrator,
    )
    assert r.status_code == 200, r.text
    assert r.json() == {"webhook": f"{receiver.origin}/api/webhooks/123/secr…", "post": ["rolls", "sessions"]}
    assert (
        client.put(f"/api/campaigns/{table.id}/discord", json={"webhook_url": hook}, headers=table.player).status_code
        == 403
    )
    seqs = []
    for visibility in ("public", "blind", "public", "self", "narrator", "public"):
        answer = table.roll(table.player, "2d6", visibility)
        assert answer.status_code == 201, answer.text
        if visibility == "public":
            seqs.append(answer.json()["seq"])
    posted = receiver.wait(4, "/api/webhooks/", timeout=15)  # one 429 first, then the three entries
    assert len(posted) == 4
    bodies = receiver.posts("/api/webhooks/123/secret-token")
    assert [b["content"].split("**")[1] for b in bodies[1:]] == [f"#{s}" for s in seqs]
    assert bodies[0] == bodies[1]  # the 429'd post was sent again, after its Retry-After
    assert posted[1].at - posted[0].at >= 0.9
    assert all(b["allowed_mentions"] == {"parse": []} for b in bodies)
    log = {e["seq"]: e for e in table.log(table.player)}
    for body, seq in zip(bodies[1:], seqs, strict=True):  # the dice faces as rolled, under the line
        faces = " ".join(str(d["face"]) for d in log[seq]["dice"])
        assert body["content"].endswith(f"🎲 {faces}"), body["content"]
    status = client.get(f"/api/campaigns/{table.id}/discord", headers=table.narrator).json()
    assert status["active"] is True and status["problem"] is None
    assert client.get(f"/api/campaigns/{table.id}/discord", headers=table.player).status_code == 403
    assert client.get(f"/api/campaigns/{table.id}/discord", headers=table.outsider).status_code == 404
    assert client.delete(f"/api/campaigns/{table.id}/discord", headers=table.player).status_code == 403


def test_a_deleted_webhook_turns_the_bridge_off_and_says_so(client: TestClient, app: Any, receiver: Receiver) -> None:
    table = Table(client)
    receiver.answers["/gone"] = [(404, {})]
    client.put(
        f"/api/campaigns/{table.id}/discord", json={"webhook_url": f"{receiver.origin}/gone"}, headers=table.narrator
    )
    table.roll(table.player)
    receiver.wait(1, "/gone")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        status = client.get(f"/api/campaigns/{table.id}/discord", headers=table.narrator).json()
        if not status["active"]:
            break
        time.sleep(0.05)
    assert status["active"] is False and "no longer exists" in status["problem"]
    table.roll(table.player)  # posting stays off: nothing is queued for a bridge that is off
    with app.state.sessionmaker() as db:
        assert db.scalar(select(OutboxItem.id).where(OutboxItem.channel == "discord")) is None
        assert db.get(DiscordBridge, table.id).active is False
    assert client.delete(f"/api/campaigns/{table.id}/discord", headers=table.narrator).status_code == 204
    assert client.get(f"/api/campaigns/{table.id}/discord", headers=table.narrator).status_code == 404


def test_a_webhook_outside_the_allow_list_is_refused(client: TestClient, receiver: Receiver) -> None:
    table = Table(client)
    for url in ("https://discord.com/api/webhooks/1/x", "http://127.0.0.1:1/hook", "http://localhost/hook"):
        r = client.put(f"/api/campaigns/{table.id}/discord", json={"webhook_url": url}, headers=table.narrator)
        assert r.status_code == 422 and r.json()["field"] == "webhook_url", url


def test_a_whisper_and_a_mention_notify_exactly_their_readers_and_say_who_not_what(
    client: TestClient, app: Any, receiver: Receiver, sender: Any
) -> None:
    table = Table(client)
    members = {
        m["username"]: m["id"]
        for m in client.get(f"/api/campaigns/{table.id}", headers=table.narrator).json()["members"]
    }
    for name, token in (("nora", table.narrator), ("pia", table.player), ("otto", table.other)):
        assert (
            client.post(
                "/api/push/subscriptions", json=receiver.browser(name).subscription(), headers=token
            ).status_code
            == 201
        )
    url = f"/api/campaigns/{table.id}/messages"
    # A whisper to Otto that names @nora: the narrator may not read a players' whisper, so only Otto hears of it.
    r = client.post(
        url,
        json={"text": "Psst @nora, the key is under the mat", "visibility": "whisper", "to": [members["otto"]]},
        headers=table.player,
    )
    assert r.status_code == 201, r.text
    settle(app)
    assert [x.path for x in receiver.received] == ["/push/otto"]
    push = receiver.pushes("otto")[0]
    assert push["title"] == "pia whispers to you" and "key" not in push["body"] and "mat" not in push["body"]
    assert push["url"] == f"/campaigns/{table.id}" and push["tag"] == f"whisper-{table.id}-{r.json()['seq']}"
    # A public line that mentions @nora: she hears of it; the author does not.
    r = client.post(url, json={"text": "@nora shall we roll? @otto too"}, headers=table.other)
    settle(app)
    assert sorted(x.path for x in receiver.received[1:]) == ["/push/nora"]
    assert receiver.pushes("nora")[0]["title"] == "otto mentions you"


def test_a_device_is_removed_only_by_its_owner_and_a_bridge_only_by_a_narrator(
    client: TestClient, new_client: Any, receiver: Receiver
) -> None:
    from utils.web import signed_in

    table = Table(client)
    sub = client.post(
        "/api/push/subscriptions", json=receiver.browser("pia").subscription(), headers=table.player
    ).json()["id"]
    otto, pia = signed_in(new_client, "otto"), signed_in(new_client, "pia")
    assert otto.post(f"/account/devices/{sub}/remove").status_code == 404
    assert "<strong>A browser</strong>" in pia.get("/account/devices").text  # the API sent no device name
    assert pia.post(f"/account/devices/{sub}/remove").status_code == 200
    assert "No device gets notifications yet." in pia.get("/account/devices").text
    assert (
        client.put(
            f"/api/campaigns/{table.id}/discord",
            json={"webhook_url": f"{receiver.origin}/hook"},
            headers=table.narrator,
        ).status_code
        == 200
    )
    assert pia.post(f"/campaigns/{table.id}/discord/remove").status_code == 403
    nora = signed_in(new_client, "nora")
    assert nora.post(f"/campaigns/{table.id}/discord/remove").status_code == 200
    assert client.get(f"/api/campaigns/{table.id}/discord", headers=table.narrator).status_code == 404
