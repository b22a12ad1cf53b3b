"""Cat over HTTP: the secret name on the page, the API and the sheet HTML; the creation form's errors next to
their fields; roll prompts with locked values; odds; the Cat campaign page; fight pages; who may do what."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.cat import NEW_CAT
from utils.dice import scripted
from utils.tables import Table
from utils.web import csrf_of

SECRET = "Ashwhisker"


class Cats:
    def __init__(self, client: TestClient, new_client: Any) -> None:
        self.t = Table(client, systems=("cat",))
        self.client = client
        self.id = self.t.id
        self.smoke = self._cat(self.t.player, "Smoke")
        self.tom = self._cat(self.t.other, "Tom", secret_name="Nightpaw")
        self.browsers = {}
        for role, name in (("player", "pia"), ("other", "otto"), ("narrator", "nora")):
            b = new_client()
            token = csrf_of(b, "/signin")
            r = b.post(
                "/signin",
                data={"username": name, "password": "correct horse", "csrf_token": token},
                follow_redirects=False,
            )
            assert r.status_code == 303
            self.browsers[role] = b

    def _cat(self, who: dict[str, str], name: str, **changes: Any) -> int:
        return self.t.character(who, name, "cat", {**NEW_CAT, **changes})

    def post(self, role: str, path: str, data: dict[str, Any] | None = None, htmx: bool = True):
        b = self.browsers[role]
        headers = {"X-CSRF-Token": csrf_of(b, "/account")}
        if htmx:
            headers["HX-Request"] = "true"
        return b.post(path, data=data or {}, headers=headers, follow_redirects=False)

    def act(self, role: str, cat: int, action: str, **data: Any):
        return self.post(role, f"/campaigns/{self.id}/characters/{cat}/act/{action}", data)

    def page(self, role: str, cat: int) -> str:
        r = self.browsers[role].get(f"/campaigns/{self.id}/characters/{cat}")
        assert r.status_code == 200, r.text
        return r.text

    def api(self, method: str, who: str, path: str, **kw: Any):
        headers = {"player": self.t.player, "other": self.t.other, "narrator": self.t.narrator}[who]
        return self.client.request(method, f"/api/campaigns/{self.id}{path}", headers=headers, **kw)


@pytest.fixture
def cats(client: TestClient, new_client: Any) -> Cats:
    return Cats(client, new_client)


def _sheet_of(campaign: dict[str, Any], character_id: int) -> dict[str, Any]:
    return next(c["sheet"] for c in campaign["characters"] if c["id"] == character_id)


def test_the_secret_name_is_for_the_cats_player_and_the_narrators_only(cats: Cats) -> None:
    for who, sees in (("player", True), ("narrator", True), ("other", False)):
        campaign = cats.api("GET", who, "").json()
        sheet = _sheet_of(campaign, cats.smoke)
        assert ("secret_name" in sheet) is sees, who
        assert (SECRET in str(campaign)) is sees, who
        assert sheet["cat_name"] == "Smoke"  # the other names are public
        html = cats.page(who, cats.smoke)
        assert (SECRET in html) is sees, who
        assert "Smoke" in html
    # Otto sees his own cat's secret name, not Pia's.
    assert "Nightpaw" in cats.page("other", cats.tom) and "Nightpaw" not in cats.page("player", cats.tom)


def test_the_secret_name_does_not_leak_through_a_failed_action_or_the_odds(cats: Cats) -> None:
    r = cats.act("other", cats.smoke, "test_fate", trait="legs", difficulty="easy")
    assert r.status_code == 403 and "your own characters" in r.text and SECRET not in r.text
    assert (
        cats.browsers["other"]
        .get(f"/campaigns/{cats.id}/characters/{cats.smoke}/odds/test_fate?trait=legs&difficulty=easy")
        .status_code
        == 404
    )
    r = cats.api(
        "POST",
        "other",
        "/actions",
        json={
            "system": "cat",
            "action": "test_fate",
            "character_id": cats.smoke,
            "params": {"trait": "legs", "difficulty": "easy"},
        },
    )
    assert r.status_code == 403


def test_the_sheet_shows_traits_lives_and_the_roll_dialog_with_odds(cats: Cats) -> None:
    html = cats.page("player", cats.smoke)
    assert 'id="sheet"' in html and "Test fate" in html and "Best mouser" in html
    assert re.search(r"Lives</dt><dd>9</dd>", html)
    assert f'hx-get="/campaigns/{cats.id}/characters/{cats.smoke}/odds/test_fate"' in html
    odds = (
        cats.browsers["player"]
        .get(
            f"/campaigns/{cats.id}/characters/{cats.smoke}/odds/test_fate"
            "?trait=legs&difficulty=moderate&advantage=0&style_points=0"
        )
        .text
    )
    assert "Chance of success:" in odds and "68.8% (exactly 11/16)" in odds
    odds = (
        cats.browsers["player"]
        .get(f"/campaigns/{cats.id}/characters/{cats.smoke}/odds/test_fate?trait=legs&difficulty=moderate&advantage=3")
        .text
    )
    assert "This cat has 0 Advantage Dice" in odds
    # Another player's view: the sheet without the roll dialog.
    other = cats.page("other", cats.smoke)
    assert "Test fate</h2>" not in other and "Best mouser" in other


def test_a_roll_through_the_sheet_form_shows_its_dice_and_scars_to_place(cats: Cats) -> None:
    # A bad value is explained next to its field and writes nothing.
    before = len(cats.t.log(cats.t.player))
    r = cats.act("player", cats.smoke, "test_fate", trait="legs", difficulty="easy", advantage="2")
    assert r.status_code == 422 and 'id="err-advantage"' in r.text
    assert len(cats.t.log(cats.t.player)) == before
    with scripted([1, 3, 5, 2]):  # one even of the three a hard Risk needs: failed, and dangerous: 1 scar
        r = cats.act(
            "player", cats.smoke, "test_fate", trait="legs", difficulty="hard", dangerous="true", idempotency_key="k1"
        )
    assert r.status_code == 200, r.text
    assert 'class="cat-faces"' in r.text and "tests fate" in r.text
    entry = cats.t.log(cats.t.player)[-1]
    assert entry["action"] == "test_fate" and len(entry["dice"]) == 4
    assert entry["outcome"]["success"] is False and entry["outcome"]["scars"] == 1
    assert "to place" in r.text and 'name="reason"' in r.text


def test_a_roll_prompt_locks_trait_difficulty_and_danger(cats: Cats) -> None:
    r = cats.post(
        "narrator",
        f"/campaigns/{cats.id}/prompts",
        {
            "character_id": cats.smoke,
            "system": "cat",
            "action": "test_fate",
            "locked.trait": "face",
            "locked.difficulty": "hard",
            "locked.dangerous": "false",
            "note": "Spot the rat",
        },
    )
    assert r.status_code == 200, r.text
    html = cats.page("player", cats.smoke)
    pid = re.search(r'id="prompt-(\d+)"', html).group(1)
    assert "Spot the rat" in html and '<input type="hidden" name="trait" value="face">' in html
    assert "Waiting for the player." in cats.page("narrator", cats.smoke)
    r = cats.act("player", cats.smoke, "test_fate", prompt_id=pid, trait="legs", difficulty="easy", dangerous="true")
    assert r.status_code == 200, r.text
    entry = cats.t.log(cats.t.player)[-1]
    assert entry["request"]["trait"] == "face" and entry["request"]["difficulty"] == "hard"
    assert entry["request"]["dangerous"] is False and entry["request"]["prompt_id"] == int(pid)
    assert f'id="prompt-{pid}"' not in cats.page("player", cats.smoke)


def test_the_narrator_approves_a_proposed_reputation_with_one_tap(cats: Cats) -> None:
    cats.act("player", cats.smoke, "propose_reputation", reputation="Best mouser")
    html = cats.page("narrator", cats.smoke)
    assert "The player proposes “Best mouser”." in html
    r = cats.act("narrator", cats.smoke, "approve_reputation", reputation="Best mouser")
    assert r.status_code == 200 and "approved for the scene" in r.text
    r = cats.act("player", cats.smoke, "test_fate", trait="legs", difficulty="easy", reputation="Best mouser")
    assert r.status_code == 200 and cats.t.log(cats.t.player)[-1]["outcome"]["pool"] == 7


def test_another_player_cannot_use_the_narrators_tools(cats: Cats) -> None:
    for action, data in (
        ("grant_advantage", {"dice": "2"}),
        ("approve_reputation", {"reputation": "Best mouser"}),
        ("move_scar", {"from_trait": "legs", "to_trait": "coat", "reason": "x"}),
    ):
        assert cats.act("player", cats.smoke, action, **data).status_code == 403, action
    assert "Grant Advantage Dice" not in cats.page("player", cats.smoke)
    assert "Grant Advantage Dice" in cats.page("narrator", cats.smoke)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"rank_claws": "best", "rank_face": "best"}, "rank_face", "one Best, three Strong and two Good"),
        ({"rank_tail": ""}, "rank_tail", "Choose a rank for Tail"),
        ({"rank_tail": "hurt"}, "rank_tail", "Best, Strong or Good"),
        ({"cat_name": ""}, "cat_name", "Every cat has a cat name"),
        ({"secret_name": ""}, "secret_name", "secret name"),
        ({"rep_rank_3": "3"}, "reputations", "Spend exactly 7 points on Reputations (spent 8)"),
        ({"rep_name_1": ""}, "rep_name_1", "Name this Reputation"),
        ({"rep_rank_1": "4", "rep_rank_2": "1"}, "rep_rank_1", "ranked 1 to 3"),
    ],
)
def test_the_creation_form_explains_each_mistake_next_to_its_field(
    cats: Cats, changes: dict[str, str], field: str, words: str
) -> None:
    data = {"name": "Newcat", **NEW_CAT, **changes}
    r = cats.post("player", f"/campaigns/{cats.id}/characters/new/cat", data)
    assert r.status_code == 422, r.text
    match = re.search(rf'id="err-{field}">([^<]*)<', r.text)
    assert match and words in match.group(1).replace("&#34;", '"'), r.text[:3000]
    assert 'id="create-form"' in r.text and "Newcat" in r.text  # the form comes back filled in
    names = [c["name"] for c in cats.api("GET", "player", "").json()["characters"]]
    assert "Newcat" not in names


def test_the_creation_form_makes_a_cat(cats: Cats) -> None:
    assert (
        "one Best, three Strong, two Good"
        in cats.browsers["player"].get(f"/campaigns/{cats.id}/characters/new/cat").text
    )
    r = cats.post("player", f"/campaigns/{cats.id}/characters/new/cat", {"name": "Newcat", **NEW_CAT}, htmx=False)
    assert r.status_code == 303
    html = cats.browsers["player"].get(r.headers["location"]).text
    assert "Newcat" in html and SECRET in html


def test_dead_and_endangered_cats_are_shown_as_such(cats: Cats, app) -> None:
    from app.characters.models import Character

    with app.state.sessionmaker() as db:
        ch = db.get(Character, cats.smoke)
        ch.sheet = {**ch.sheet, "scars": {"claws": 9, "coat": 6, "face": 0, "fangs": 9, "legs": 0, "tail": 0}}
        db.commit()
    html = cats.page("player", cats.smoke)
    assert "Three Traits are Crippled" in html and "Test fate</h2>" in html
    with app.state.sessionmaker() as db:
        ch = db.get(Character, cats.smoke)
        ch.sheet = {**ch.sheet, "lives": 0}
        db.commit()
    html = cats.page("player", cats.smoke)
    assert "Dead." in html and "Test fate</h2>" not in html
    r = cats.act("player", cats.smoke, "test_fate", trait="legs", difficulty="easy")
    assert r.status_code == 422 and "dead" in r.text


def test_the_cat_page_gives_the_narrator_game_time_foes_and_settings(cats: Cats) -> None:
    page = f"/campaigns/{cats.id}/systems/cat"
    player = cats.browsers["player"].get(page).text
    assert 'id="system"' in player and "Smoke" in player and "Advance game time" not in player
    narrator = cats.browsers["narrator"].get(page).text
    assert "Advance game time" in narrator and "Ship dog" in narrator and "not canon" in narrator
    r = cats.post("narrator", f"{page}/act/advance_time", {"weeks": "2", "cat_ids": [str(cats.smoke), str(cats.tom)]})
    assert r.status_code == 200 and "week 2" in r.text
    assert cats.post("player", f"{page}/act/advance_time", {"weeks": "1"}).status_code == 403
    r = cats.post("narrator", f"{page}/act/advance_time", {"weeks": "99"})
    assert r.status_code == 422 and 'id="err-weeks"' in r.text
    r = cats.post(
        "narrator",
        f"/campaigns/{cats.id}/characters/new/cat",
        {"name": "Bilge rat", "kind": "npc", "foe_template": "rat", "dice_fangs": "4"},
        htmx=False,
    )
    assert r.status_code == 303
    rat = int(r.headers["location"].rsplit("/", 1)[1])
    assert "Attack a cat" in cats.page("narrator", rat)
    foe_for_player = cats.page("player", rat)
    assert "only the narrators see its sheet" in foe_for_player and "Fangs" not in foe_for_player
    r = cats.post("narrator", f"{page}/act/settings", {"magic": "true"})
    assert r.status_code == 200 and "Magic points" in cats.page("player", cats.smoke)


def test_a_fight_between_cats_is_answered_on_the_other_players_screen(cats: Cats) -> None:
    r = cats.act("player", cats.smoke, "challenge", opponent_id=str(cats.tom), weapon="claws")
    assert r.status_code == 200, r.text
    link = re.search(r'href="(/campaigns/\d+/encounters/(\d+))"', r.text)
    assert link, "the challenger gets a link to the fight"
    path = link.group(1)
    defender = cats.browsers["other"].get(path).text
    assert "Tom answers" in defender and 'name="weapon" value="legs"' in defender
    assert "claws" not in defender.split('id="encounter"')[1].split("Tom answers")[0].lower()  # the choice is hidden
    challenger = cats.browsers["player"].get(path).text
    assert "Waiting for Tom's player" in challenger
    with scripted([2, 4, 6, 1, 2, 1, 3, 5]):  # Smoke's Claws 3 evens, Tom's Fangs 1: Smoke wins
        r = cats.post(
            "other",
            f"{path}/act/answer",
            {"character_id": str(cats.tom), "opponent_id": str(cats.smoke), "version": "1", "weapon": "fangs"},
        )
    assert r.status_code == 200, r.text
    assert "Scars taken" in r.text and "Smoke wins" in r.text and "Nobody dominates" not in r.text


def test_the_roll_form_defaults_to_a_trait_the_cat_can_roll(client: TestClient, new_client: Any) -> None:
    """Issue 14: a cat whose Legs are crippled opens its roll dialog on a usable Trait, not on an error."""
    from utils.web import signed_in

    t = Table(client, systems=("cat",))
    r = client.post(
        f"/api/campaigns/{t.id}/characters", headers=t.player, json={"name": "Limp", "system": "cat", "sheet": NEW_CAT}
    )
    assert r.status_code == 201, r.text
    cat = r.json()["id"]
    sheet = r.json()["sheet"]
    scars = {**sheet["scars"], "legs": 9}  # three ranks down: Good → Crippled
    r = client.post(
        f"/api/campaigns/{t.id}/characters/{cat}/adjust",
        headers=t.narrator,
        json={"changes": {"scars": scars}, "reason": "a bad fall"},
    )
    assert r.status_code == 201, r.text
    page = signed_in(new_client, "pia").get(f"/campaigns/{t.id}/characters/{cat}").text
    form = page[page.index('id="free-trait"') :]
    selected = re.search(r'<option value="(\w+)" selected>', form[: form.index("</select>")])
    assert "0 dice (crippled)" in form[: form.index("</select>")]  # Legs cannot be rolled
    assert selected and selected.group(1) != "legs"
