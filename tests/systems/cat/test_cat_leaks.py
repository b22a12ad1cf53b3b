"""Cats' own leak test (tests/utils/leak_world.py): a cat's secret name, adjusted by the narrator, reaches only
the narrators and the owner."""

from __future__ import annotations

from pathlib import Path

from utils.leak_world import (
    CHANNELS,
    World,
    assert_not_shown,
    assert_reaches,
    assert_same,
    case_named,
    play,
)


def test_an_adjusted_secret_name_reaches_only_the_narrators_and_the_owner(
    database_url: str, tmp_path: Path, leak_worlds: list[World]
) -> None:
    case = case_named("cat-test_fate")  # the cat world
    names = {"success": "Moonwhisker", "failure": "Starpelt"}  # two worlds, two new secret names
    results = {}
    for outcome, name in names.items():

        def adjust(world: World, visibility: str, name: str = name) -> tuple[str, str, str]:
            path = f"/campaigns/{world.campaign_id}/characters/{world.ids['mine']}/adjust"
            return "nora", path, world.post_form("nora", path, {"reason": "a new name", "sheet.secret_name": name})

        world = World(database_url, tmp_path, f"adjust-{outcome}", case)
        leak_worlds.append(world)
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
