"""Self-hosters' commands (`make admin ARGS=…` or `python -m app.admin …`), with the instance's own settings:

    python -m app.admin reset-password USER   a one-time link to choose a new password (30 minutes)
    python -m app.admin backup DIR            a consistent snapshot while the server runs
    python -m app.admin restore DIR           bring a snapshot back into an empty instance
    python -m app.admin check DIR             verify every campaign's chain in a snapshot against its heads

A backup is the database (SQLite: its online backup API, a consistent copy page by page while writers go on;
PostgreSQL: pg_dump, one transaction snapshot), the instance folder's keys (secret key, VAPID key), the pictures
(`media/`: FATEBOARD_MEDIA_DIR wherever it is), a VAPID key kept outside the instance folder (`keys/`), and
`heads.json`: every campaign's head in the snapshot, so a restore can be checked against it, and what the backup
could not hold (pictures in an S3 bucket, a secret key given in the environment) — also printed, loudly.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.engine import make_url

from app.config import Settings
from app.db import make_engine, make_sessionmaker
from app.errors import BadRequest

DB_FILE = "fateboard.db"
PG_FILE = "database.dump"
HEADS = "heads.json"


def _sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise SystemExit("the SQLite database is in memory: nothing to back up")
    return Path(database)


def _pg_url(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def heads(database_url: str) -> dict[str, Any]:
    """Every campaign's head as the database holds it, and whether its chain verifies."""
    from app.campaigns.models import Campaign
    from app.rolls import chain
    from app.rolls.log import _all_rows
    from app.rolls.present import entry_json
    from app.rolls.visibility import View

    engine = make_engine(database_url)
    out: dict[str, Any] = {}
    try:
        with make_sessionmaker(engine)() as db:
            for campaign in db.scalars(select(Campaign).order_by(Campaign.id)):
                entries = (
                    entry_json(row, View.FULL, with_body=True, narrator=True) for row in _all_rows(db, campaign.id)
                )
                result = chain.verify_entries(entries, head={"seq": campaign.last_seq, "hash": campaign.head_hash})
                out[str(campaign.id)] = {
                    "seq": campaign.last_seq,
                    "hash": campaign.head_hash,
                    "ok": result.ok,
                    "problems": result.problems[:5],
                }
    finally:
        engine.dispose()
    return out


MEDIA = "media"
KEYS = "keys"


def _copy_instance(source: Path, target: Path, *, leave: Path | None = None) -> None:
    """The instance folder, without `leave` (the pictures, copied on their own) when it lies inside."""
    if not source.is_dir():
        return
    skip = leave.resolve() if leave is not None else None

    def ignored(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if skip is not None and (Path(folder) / n).resolve() == skip}

    shutil.copytree(source, target, dirs_exist_ok=True, ignore=ignored)


def _local_media(settings: Settings) -> Path | None:
    return settings.resolved_media_dir() if settings.media_store == "local" else None


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _copy_extras(settings: Settings, target: Path) -> tuple[dict[str, Any], list[str]]:
    """The pictures and a VAPID key outside the instance folder; what could not be copied, in words."""
    instance = settings.secret_key_file.parent
    left_out: list[str] = []
    media = _local_media(settings)
    pictures = 0
    if media is not None:
        if media.is_dir():
            shutil.copytree(media, target / MEDIA)
            pictures = sum(1 for p in (target / MEDIA).rglob("*") if p.is_file())
    else:
        left_out.append(
            f"the pictures: they are in the S3 bucket {settings.s3_bucket!r} — back it up with the store's own "
            "tools (versioning or a bucket copy)"
        )
    vapid = settings.resolved_vapid_file()
    if vapid.exists() and not _inside(vapid, instance):
        (target / KEYS).mkdir()
        shutil.copy2(vapid, target / KEYS / vapid.name)
    if settings.secret_key:
        left_out.append(
            "the secret key: it is given in FATEBOARD_SECRET_KEY, not a file — keep it, or every session and "
            "signed link of the restored instance is void"
        )
    return {"store": settings.media_store, "files": pictures}, left_out


def backup(settings: Settings, target: Path) -> dict[str, Any]:
    target.mkdir(parents=True, exist_ok=True)
    if any(target.iterdir()):
        raise SystemExit(f"{target} is not empty: back up into a new folder")
    url = settings.database_url
    if url.startswith("sqlite"):
        source = sqlite3.connect(str(_sqlite_path(url)), timeout=30)
        copy = sqlite3.connect(str(target / DB_FILE))
        with copy:
            source.backup(copy, pages=256)  # page by page; writers go on between the steps
        copy.close()
        source.close()
        snapshot = f"sqlite:///{target / DB_FILE}"
    else:
        subprocess.run(
            ["pg_dump", "--format=custom", "--no-owner", f"--file={target / PG_FILE}", _pg_url(url)],
            check=True,
            capture_output=True,
            timeout=3600,
        )
        snapshot = ""
    _copy_instance(settings.secret_key_file.parent, target / "instance", leave=_local_media(settings))
    media, left_out = _copy_extras(settings, target)
    noted = heads(snapshot) if snapshot else {}
    manifest = {"database": "sqlite" if snapshot else "postgresql", "heads": noted, "media": media}
    (target / HEADS).write_text(json.dumps({**manifest, "left_out": left_out}, indent=1))
    for what in left_out:
        print(f"NOT IN THE BACKUP: {what}", file=sys.stderr)
    return noted


def restore(settings: Settings, source: Path) -> None:
    url = settings.database_url
    engine = make_engine(url)
    try:
        if inspect(engine).get_table_names():
            raise SystemExit("the target database is not empty: restore into a new, empty instance")
    finally:
        engine.dispose()
    if url.startswith("sqlite"):
        if not (source / DB_FILE).exists():
            raise SystemExit(f"{source} holds no SQLite backup ({DB_FILE})")
        shutil.copyfile(source / DB_FILE, _sqlite_path(url))
    else:
        if not (source / PG_FILE).exists():
            raise SystemExit(f"{source} holds no PostgreSQL backup ({PG_FILE})")
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={_pg_url(url)}", str(source / PG_FILE)],
            check=True,
            capture_output=True,
            timeout=3600,
        )
    _copy_instance(source / "instance", settings.secret_key_file.parent)
    _restore_extras(settings, source)


def _restore_extras(settings: Settings, source: Path) -> None:
    """The pictures into this instance's media folder (wherever FATEBOARD_MEDIA_DIR puts it; a backup made before
    `media/` existed kept them in `instance/media`), and a VAPID key kept outside the instance folder."""
    media = _local_media(settings)
    saved = source / MEDIA if (source / MEDIA).is_dir() else source / "instance" / MEDIA
    if saved.is_dir():
        if media is None:
            print(
                f"NOT RESTORED: the pictures in {saved}: this instance keeps pictures in S3; copy them into the "
                "bucket (same names) with the store's own tools",
                file=sys.stderr,
            )
        elif saved.resolve() != media.resolve():
            shutil.copytree(saved, media, dirs_exist_ok=True)
    vapid = settings.resolved_vapid_file()
    if (source / KEYS).is_dir() and not vapid.exists():
        for key in (source / KEYS).iterdir():
            vapid.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(key, vapid)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.admin", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    reset = commands.add_parser("reset-password", help="print a one-time link to choose a new password")
    reset.add_argument("username")
    for name, text in (
        ("backup", "snapshot the instance into DIR"),
        ("restore", "restore DIR into this instance"),
        ("check", "verify every chain in a backup against its heads"),
    ):
        commands.add_parser(name, help=text).add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    settings = Settings()
    if args.command == "reset-password":
        from app.accounts import recovery

        engine = make_engine(settings.database_url)
        try:
            with make_sessionmaker(engine)() as db:
                link = recovery.admin_reset_link(db, args.username, (settings.base_url or "http://127.0.0.1:8000"))
        except BadRequest as exc:
            print(exc.message, file=sys.stderr)
            return 1
        finally:
            engine.dispose()
        print(link)
        return 0
    if args.command == "backup":
        noted = backup(settings, args.dir)
        print(f"backed up {len(noted)} campaigns into {args.dir}")
        return 0 if all(h["ok"] for h in noted.values()) else 1
    if args.command == "restore":
        restore(settings, args.dir)
        print(f"restored {args.dir} into {settings.database_url}")
        return 0
    noted = json.loads((args.dir / HEADS).read_text())["heads"]
    found = heads(f"sqlite:///{args.dir / DB_FILE}")
    bad = [cid for cid, h in noted.items() if found.get(cid, {}).get("hash") != h["hash"] or not found[cid]["ok"]]
    print("every chain verifies against its head" if not bad else f"campaigns that do not verify: {bad}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
