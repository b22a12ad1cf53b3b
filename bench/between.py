"""Between sessions (issue 36): what catching up costs on a short and a long log. In-process (Starlette's test
client against the app, SQLite in a temporary folder): a campaign of 100 entries against one of 100,000 (written
straight into the database with the chain's own functions, bench/longlog.py), then per campaign the median of
GET /api/campaigns/{id}/unread, POST …/read, GET /api/me/waiting (the member is in both campaigns), the campaign
page for a member coming back to 300 unread lines, and the recap of a game session of 5,000 entries.

Target: unread, read and waiting stay flat (the long log within 2x of the short one): they are index range scans
from the read mark, never a walk of the log. The recap is linear in its session's entries (bounded at 20,000).

    .venv/bin/python bench/between.py
    .venv/bin/python bench/between.py --entries 20000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from longlog import fill_log  # noqa: E402
from sqlalchemy import update  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from app.campaigns.models import GameSession  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.models import Base  # noqa: E402
from app.rolls.models import LogEntry  # noqa: E402
from app.types import utcnow  # noqa: E402


def median_ms(n: int, call: Callable[[], object]) -> float:
    call()  # warm: the first call compiles statements and loads templates
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def token(client: TestClient, name: str) -> dict[str, str]:
    assert client.post("/api/users", json={"username": name, "password": "correct horse"}).status_code == 201
    r = client.post("/api/tokens", json={"username": name, "password": "correct horse"})
    return {"Authorization": f"Bearer {r.json()['token']}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fateboard-between-"))
    url = f"sqlite:///{folder / 'bench.db'}"
    settings = Settings(
        database_url=url,
        secret_key="bench",
        secret_key_file=folder / "key",
        signup_max_per_hour=10_000,
        outbox_sender=False,
    )
    app = create_app(settings)
    Base.metadata.create_all(app.state.engine)
    results: dict[int, dict[str, float]] = {}
    with TestClient(app, base_url="http://bench") as client:
        nora, pia = token(client, "nora"), token(client, "pia")
        campaigns = {}
        for size in (100, args.entries):
            cid = client.post("/api/campaigns", json={"name": f"Log {size}"}, headers=nora).json()["id"]
            code = client.post(f"/api/campaigns/{cid}/invites", json={}, headers=nora).json()["code"]
            client.post(f"/api/invites/{code}/accept", headers=pia)
            client.post(f"/api/campaigns/{cid}/characters", json={"name": "Wren"}, headers=pia)
            fill_log(url, cid, size)
            with app.state.sessionmaker() as db:  # a game session holding the last 5,000 entries, for the recap
                game = GameSession(campaign_id=cid, number=1, title="Long night", started_at=utcnow())
                db.add(game)
                db.flush()
                db.execute(
                    update(LogEntry)
                    .where(LogEntry.campaign_id == cid, LogEntry.seq > max(0, size - 5000))
                    .values(game_session_id=game.id)
                )
                db.commit()
            campaigns[size] = cid
        for size, cid in campaigns.items():
            base = f"/api/campaigns/{cid}"
            client.post(f"{base}/read", json={"seq": max(1, size - 300)}, headers=pia)
            browser = TestClient(app, base_url="http://bench")
            token_page = browser.get("/signin")
            csrf = token_page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
            browser.post("/signin", data={"username": "pia", "password": "correct horse", "csrf_token": csrf})
            page = median_ms(1, lambda cid=cid, browser=browser: browser.get(f"/campaigns/{cid}"))
            results[size] = {
                "unread": median_ms(args.repeat, lambda base=base: client.get(f"{base}/unread", headers=pia)),
                "read": median_ms(
                    args.repeat,
                    lambda base=base, size=size: client.post(f"{base}/read", json={"seq": size}, headers=pia),
                ),
                "waiting": median_ms(args.repeat, lambda: client.get("/api/me/waiting", headers=pia)),
                "page_300_unread": page,
                "recap_5000": median_ms(3, lambda base=base: client.get(f"{base}/sessions/1/recap", headers=pia)),
            }
    for size, numbers in results.items():
        shown = ", ".join(f"{k} {v:.1f} ms" for k, v in numbers.items())
        print(f"{size:>7} entries: {shown}")
    small, big = results[100], results[args.entries]
    flat = all(big[k] <= 2 * small[k] + 2 for k in ("unread", "read", "waiting"))
    print("unread/read/waiting flat:", "yes" if flat else "NO")
    return 0 if flat else 1


if __name__ == "__main__":
    raise SystemExit(main())
