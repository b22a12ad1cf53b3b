"""Issue 15, "Done when": a German player and a Danish player at one table, each reading the same log entries in
their own language.

One campaign with an English narrator (nora), Greta (account language de) and Dorte (account language da), played
through the pages' own forms with scripted dice: every registered system that brings a step
(tests/systems/<id>/two_languages.py, tests/utils/two_languages.py: a cat-fight duel, a Rabbits test with help,
Fate and a condition, Cat tests of fate, ART trait rolls…) plays its part, and Dorte rolls blind in the dice box.
Then every entry of the log is read by Greta and by Dorte — the campaign page, the log fragment, the page's
stream, the JSON API and its stream (Accept-Language) — and the same entry's summary differs between the two and
holds no English word (tests/utils/english.py: the browser pass's measure). So do the pages each of them opens at
the table (the campaign page, every sheet, the encounters, the systems' pages). Greta's odds show a decimal comma
("2,8 %").
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from starlette.testclient import TestClient
from utils.dice import scripted
from utils.english import english_words, words
from utils.streams import read_stream
from utils.two_languages import READERS, Played, TwoLanguages, steps

pytestmark = pytest.mark.slow


def _play(table: TwoLanguages) -> list[Played]:
    played = [step.play(table) for step in steps().values()]
    # Dorte rolls blind in the dice box (Greta sees that an entry exists, Dorte what she asked); the narrator
    # reveals it.
    t = table
    with scripted([3, 4]):
        r = t.post("dorte", f"{t.base}/roll", {"expression": "2d6", "visibility": "blind", "idempotency_key": "blind"})
    assert r.status_code == 200, r.text
    r = t.post("nora", f"{t.base}/entries/{t.last_seq()}/reveal", {})
    assert r.status_code == 200, r.text
    return [*played, Played(entries=2)]


# --- reading: one entry, each reader's language, every way a log line reaches a screen ---

ENTRY = re.compile(r'<li id="entry-(\d+)".*?</li>', re.S)
PART = re.compile(r'<p class="(summary[^"]*|details[^"]*)">(.*?)</p>|<span class="(badge vis)">(.*?)</span>', re.S)


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _lines(page: str) -> dict[int, str]:
    """Each log entry's line as shown: who may see it, its summary and its details (the dice marks), as plain
    text."""
    return {
        int(m.group(1)): " ".join(_plain(p.group(2) or p.group(4)) for p in PART.finditer(m.group(0)))
        for m in ENTRY.finditer(page)
    }


def _visible(page: str) -> str:
    """A page's text as a reader meets it: the text, option labels, placeholders, aria-labels and titles; not
    scripts, styles or <code> (notation, commands)."""
    page = re.sub(r"<(script|style|code)\b.*?</\1>", " ", page, flags=re.S)
    attributes = re.findall(r'(?:placeholder|aria-label|title)="([^"]*)"', page)
    return _plain(page) + " " + html.unescape(" ".join(attributes))


def _sse(text: str) -> dict[int, str]:
    """The `entry` events of a stream: seq -> data."""
    found: dict[int, str] = {}
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if "event: entry" in lines:
            seq = next(int(line[4:]) for line in lines if line.startswith("id: "))
            found[seq] = "\n".join(line[6:] for line in lines if line.startswith("data: "))
    return found


def _read(table: TwoLanguages, who: str) -> dict[str, dict[int, str]]:
    """`who`'s every view of the log: source -> seq -> the line's text."""
    t, lang = table, READERS[who]
    browser = t.browsers[who]
    last = t.last_seq()
    page = browser.get(t.base)
    assert page.status_code == 200 and f'<html lang="{lang}">' in page.text
    fragment = browser.get(f"{t.base}/log", params={"before": last + 1}, headers={"HX-Request": "true"})
    assert fragment.status_code == 200, fragment.text
    cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    page_stream = t.client.portal.call(read_stream, t.client.app, f"{t.base}/stream", {"cookie": cookie}, last)
    api_stream = t.client.portal.call(
        read_stream, t.client.app, f"/api/campaigns/{t.t.id}/events", {**t.tokens[who], "Accept-Language": lang}, last
    )
    return {
        "page": _lines(page.text),
        "fragment": _lines(fragment.text),
        "stream": {seq: " ".join(_lines(data).values()) for seq, data in _sse(page_stream).items()},
        "api": {e["seq"]: e["text"] or "" for e in t.log(who, lang)},  # (none where the result is not theirs to see)
        "api stream": {seq: json.loads(data)["text"] or "" for seq, data in _sse(api_stream).items()},
    }


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the plain suite's database; no server
def test_a_german_and_a_danish_player_read_the_same_table_each_in_their_language(
    client: TestClient, new_client: Any
) -> None:
    systems = tuple(steps())
    assert len(systems) >= 3, f"the table plays three systems at least: {systems}"
    table = TwoLanguages(client, new_client, systems)
    played = _play(table)
    entries = table.log()
    # the session, each system's entries, the blind roll and its reveal
    assert len(entries) == 1 + sum(p.entries for p in played)
    typed = {"nora", "greta", "dorte", "Night", "Watch", "Greta's", "Dorte's"}.union(*(p.typed for p in played))
    never = {lang: set().union(*(p.never.get(lang, set()) for p in played)) for lang in READERS.values()}
    odds = [o for p in played for o in p.odds]
    for entry in entries:
        typed |= words(str(entry.get("note") or ""))

    # Greta's odds (the chances the systems' pages show her): "72,2 %", never "72.2%".
    assert odds, "no percentage in Greta's odds"
    assert all("." not in p for p in odds), odds
    assert any("," in p for p in odds), odds

    read = {who: _read(table, who) for who in READERS}
    problems: list[str] = []
    for entry in entries:
        seq = entry["seq"]
        for who, lang in READERS.items():
            api_text = read[who]["api"][seq]
            for source, lines in read[who].items():
                line = lines.get(seq)
                if source in ("page",) and line is None:
                    continue  # the page shows the latest entries; the fragment has them all
                if line is None:
                    problems.append(f"#{seq} {who}: missing from the {source}")
                elif api_text not in line:
                    problems.append(f"#{seq} {who}: the {source} says {line!r}, the API {api_text!r}")
                left = english_words(line or "", lang, typed)
                if never[lang]:
                    left = sorted(set(left) | (words(line or "") & never[lang]))
                if left:
                    problems.append(
                        f"#{seq} {entry['system']}/{entry['action']} {who} ({lang}, {source}): "
                        f"English {left} in {line!r}"
                    )
        if read["greta"]["fragment"].get(seq) == read["dorte"]["fragment"].get(seq):
            problems.append(
                f"#{seq} {entry['system']}/{entry['action']}: the same text in de and da: "
                f"{read['greta']['fragment'].get(seq)!r}"
            )
    # The pages each of them opens at this table: the campaign page, every sheet, the duel, the systems' pages.
    campaign = client.get(f"/api/campaigns/{table.t.id}", headers=table.t.narrator).json()
    pages = [table.base] + [f"{table.base}/characters/{c['id']}" for c in campaign["characters"]]
    pages += [
        f"{table.base}/encounters/{e}"
        for e in sorted({(e["request"] or {}).get("encounter_id") for e in entries} - {None})
    ]
    pages += [f"{table.base}/systems/{s}" for s in systems]
    for who, lang in READERS.items():
        for path in pages:
            r = table.browsers[who].get(path)
            left = english_words(_visible(r.text), lang, typed) if r.status_code == 200 else [str(r.status_code)]
            if left:
                problems.append(f"{path} {who} ({lang}): English {left}")
    report = "\n".join(dict.fromkeys(problems))
    assert not problems, f"{len(problems)} problems:\n{report}"
