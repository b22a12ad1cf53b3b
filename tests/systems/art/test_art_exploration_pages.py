"""The ART exploration scene's pages: the narrator starts it on the ART page, every member sees the phase track,
only the players whose tokens stand above the turn marker get the declaration forms (each with the odds before
the roll), refusals come back as the scene with the reason, and the narrator's tools."""

from __future__ import annotations

import re

from utils.art import Art

from app.systems.art.rules import Level, exact_chance


def _start(art: Art) -> tuple[int, int, int]:
    maren = art.hero(art.pia)
    tom = art.hero(art.otto, name="Tom")
    page = art.nora.get(f"{art.base}/systems/art")
    assert page.status_code == 200 and "Exploration scenes" in page.text and "Start the scene" in page.text
    r = art.nora.post(
        f"{art.base}/systems/art/act/explore_start",
        headers={"HX-Request": "true"},
        data={
            "idempotency_key": "k-start",
            "title": "The old library",
            "scale": "minutes",
            "participants": [str(maren), str(tom)],
        },
    )
    assert r.status_code == 200, r.text
    found = re.search(r'/encounters/(\d+)">Open the new scene', r.text)
    assert found, r.text
    return int(found.group(1)), maren, tom


def _declare(art: Art, who, scene: int, cid: int, version: int, **data: str):
    return who.post(
        f"{art.base}/encounters/{scene}/act/explore_declare",
        headers={"HX-Request": "true"},
        data={
            "idempotency_key": f"k-{cid}-{version}-{len(data)}",
            "character_id": str(cid),
            "encounter_id": str(scene),
            "version": str(version),
            **data,
        },
    )


def test_the_scene_page_gives_the_forms_to_the_acting_players_only(art: Art) -> None:
    scene, maren, tom = _start(art)
    url = f"{art.base}/encounters/{scene}"
    pia, otto, nora = (c.get(url).text for c in (art.pia, art.otto, art.nora))
    assert all('id="art-xp-track"' in p and "The old library" in p for p in (pia, otto, nora))
    assert "Your turn, Maren" in pia and "Your turn, Tom" not in pia
    assert f'name="character_id" value="{maren}"' in pia and f'name="character_id" value="{tom}"' not in pia
    assert "Your turn, Tom" in otto and f'name="character_id" value="{maren}"' not in otto
    # The odds macro on every roll form: the exact chance is fetched for this character's declaration.
    assert pia.count(f"/characters/{maren}/odds/explore_declare") == 4  # action, travel, shadow, track
    assert "Act for Maren" in nora and "Act for Tom" in nora and "Set the scale" in nora
    assert "Set the scale" not in pia and "End the scene" not in pia

    odds = art.pia.get(
        f"{art.base}/characters/{maren}/odds/explore_declare",
        params={"encounter_id": scene, "version": 1, "kind": "action", "attribute": "DEX", "difficulty": "PS"},
    )
    assert odds.status_code == 200
    assert f"{float(exact_chance(7, Level.PS)) * 100:.1f}%" in odds.text and "row 7 against Passable" in odds.text

    # Maren declares (taking 25 on row 7 reads Pathetic: 4 failures against Passable, 4 phases).
    r = _declare(
        art,
        art.pia,
        scene,
        maren,
        1,
        kind="action",
        task="Search the shelves",
        attribute="DEX",
        difficulty="PS",
        take25="true",
    )
    assert r.status_code == 200, r.text
    assert "Search the shelves — Dexterity (row 7) against Passable: takes 25 → Pathetic (4 failures)" in r.text
    assert "fails, 4 phases (20 minutes), until phase 4" in r.text and "Your turn, Maren" not in r.text
    assert "Waiting for Tom" in r.text
    otto = art.otto.get(url).text
    assert "Your turn, Tom" in otto and "Search the shelves" in otto

    # Refusals: another's character (403), a stale step (409), not her turn (422); the scene comes back.
    r = _declare(art, art.pia, scene, tom, 2, kind="wait")
    assert r.status_code == 403
    r = _declare(art, art.otto, scene, tom, 1, kind="wait")
    assert r.status_code == 409 and "Already resolved" in r.text and 'id="art-xp-track"' in r.text
    r = _declare(art, art.pia, scene, maren, 2, kind="wait")
    assert r.status_code == 422 and "It is not Maren&#39;s turn" in r.text
    r = _declare(art, art.otto, scene, tom, 2, kind="action", task="", attribute="STR", difficulty="PR")
    assert r.status_code == 422 and "Say what your character does" in r.text

    # Tom lets a phase go by: the marker moves to his square (phase 1), he acts alone.
    r = _declare(art, art.otto, scene, tom, 2, kind="wait")
    assert r.status_code == 200 and "the turn marker moves to square 2 (phase 1): Tom to act" in r.text
    log = art.t.log(art.t.narrator)
    assert [e["action"] for e in log if e["action"].startswith("explore")] == [
        "explore_start",
        "explore_declare",
        "explore_declare",
    ]


def test_the_narrator_sets_the_scale_and_ends_the_scene(art: Art) -> None:
    scene, maren, _tom = _start(art)
    url = f"{art.base}/encounters/{scene}/act"
    r = art.nora.post(
        f"{url}/explore_scale",
        headers={"HX-Request": "true"},
        data={"idempotency_key": "k-s", "version": "1", "scale": "hours"},
    )
    assert r.status_code == 200 and "the time scale is now hours" in r.text
    r = art.pia.post(
        f"{url}/explore_end", headers={"HX-Request": "true"}, data={"idempotency_key": "k-e", "version": "2"}
    )
    assert r.status_code == 403
    r = art.nora.post(
        f"{url}/explore_end", headers={"HX-Request": "true"}, data={"idempotency_key": "k-e", "version": "2"}
    )
    assert r.status_code == 200 and "The scene is over." in r.text
    assert "Your turn" not in art.pia.get(f"{art.base}/encounters/{scene}").text
    assert "No exploration scene is running." in art.pia.get(f"{art.base}/systems/art").text
