"""``python -m bench.digest [--out FILE.json]``: one SHA-256 over every byte the bot games send players.

The check that a refactoring changes no byte a player receives: run it before and after, and the two
digests must be the same. It plays the bench's bot games (:mod:`bench.play`: the bot's order files
with the real passwords, read, checked and stored by the host's services, every turn resolved and its
reports rendered) of all three games to their end, in a temporary SQLite database, and queues every
report's mail into the outbox (:func:`pbem.outbox.enqueue_reports`) after each turn, as a tick
does. Then it hashes every stored report page (each seat's and the public one, text and HTML, unpacked)
and every queued mail (the whole RFC 5322 message, unpacked).

The seats between them speak all five languages (``create_game``'s ``seat_languages``; the game's own
language is the public report's), every game has an observer (so the public report is mailed too), and
two of the games have deadlines in other time zones (so reports show deadlines and mails carry their
calendar parts).

Deterministic by construction, as the host's tests make it: fixed seeds, and the host's clock passed
in as ``now`` to every service that takes one (create, submit, process, the mail pass), a fixed start
moved on a fixed step a turn. A mail's ``Date`` is that ``now``, and its ``Message-ID`` (and so its
MIME boundary) a digest of its dedupe key and that ``now``: nothing needs normalising. Passwords are
random (and hashed at a trivial cost, :func:`bench.play.cheap_passwords`), but no report or mail holds
one: two runs, with other passwords and other hash seeds, give the same digest.

The digest printed is the SHA-256 of the manifest: one line ``KEY<TAB>SHA-256 of the item`` per item,
in order (reports by game, turn, seat, format; then mails by game and dedupe key). ``--out`` writes
the digest and every item's SHA-256 as JSON, so that two runs show *which* items differ::

    python -m bench.digest --out before.json     # on the old code
    python -m bench.digest --out after.json      # on the new
    python -m bench.digest --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from bench.play import MAX_TURNS, cheap_passwords, order_files, seats
from pbem import outbox
from pbem.core.codec import unpack
from pbem.cron.admin import observe
from pbem.outbox.settings import MailSettings
from pbem.play.create import create_game
from pbem.play.orders import submit
from pbem.play.status import status
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.storage.models import OutboxRow, ReportRow

SETTINGS = MailSettings(from_addr="host@example.org", from_name="pbem digest host")
#: the host's clock: the games start here (as the host's tests do) and it moves on by STEP a turn, each
#: seat's order file a minute after the one before
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
STEP = timedelta(hours=7)
OBSERVER = "watcher@example.org"


#: (game type, game id, seed, the game's language, each seat's, create_game's other arguments)
GAMES: list[tuple[str, str, int, str, tuple[str, ...], dict[str, Any]]] = [
    ("reef-encounter", "digest-reef", 1, "ru", ("en", "hu", "cs", "zh"), {}),
    (
        "mare-balticum",
        "digest-mare",
        1,
        "en",
        ("en", "hu", "cs", "zh", "ru"),
        {
            "turn_seconds": 2 * 86400,
            "timezone": "Europe/Budapest",
            "seat_zones": {"dee": "Asia/Shanghai", "eve": "Europe/Moscow"},
        },
    ),
    (
        "coral-divers",
        "digest-coral",
        1,
        "zh",
        ("ru", "cs", "hu", "en"),
        {"turn_seconds": 86400, "grace_seconds": 3600, "timezone": "Europe/Prague"},
    ),
]


def play(
    engine: Engine,
    game_type: str,
    game_id: str,
    seed: int,
    language: str,
    seat_languages: tuple[str, ...],
    options: dict[str, Any],
) -> int:
    """Create ``game_id`` and play it to its end by the bot's order files, every report's mail queued
    after each turn; returns the turns resolved."""
    players = seats(len(seat_languages))
    now = START
    issued = create_game(
        engine,
        game_type,
        game_id,
        players,
        seed=seed,
        now=now,
        language=language,
        seat_languages={name: code for (name, _), code in zip(players, seat_languages, strict=True)},
        **options,
    )
    observe(engine, game_id, OBSERVER, now)
    outbox.enqueue_reports(engine, now, settings=SETTINGS, game_id=game_id)
    for _ in range(MAX_TURNS):
        [entry] = status(engine, game_id)
        if entry["status"] != "active" or entry["finished"]:
            return int(entry["turns_resolved"])
        now += STEP
        files = order_files(engine, game_id, issued)
        for at, text in enumerate(files):
            receipt = submit(engine, text, now=now + timedelta(minutes=at))
            if not receipt.accepted:
                raise RuntimeError(f"bot orders rejected in {game_id}: {receipt.errors}")
        now += timedelta(minutes=len(files))
        if not process(engine, game_id, now=now):
            raise RuntimeError(f"{game_id}: turn {entry['turn']} did not resolve with every order in")
        outbox.enqueue_reports(engine, now, settings=SETTINGS, game_id=game_id)
    raise RuntimeError(f"{game_id} did not end within {MAX_TURNS} turns")


def _natural(text: str) -> tuple[Any, ...]:
    """``report:g:0:10:ann`` after ``report:g:0:9:ann``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def items(engine: Engine) -> dict[str, str]:
    """Every report page and every queued mail, ``KEY: SHA-256 of its bytes``, in the digest's order.

    Reports: ``GAME/TURN/SEAT/FORMAT`` (``SEAT`` ``-`` for the public report, ``FORMAT`` ``text`` or
    ``html``; ``GAME@EPOCH`` if a game was rolled back); mails: ``outbox/DEDUPE-KEY``."""
    found: dict[str, str] = {}
    with Session(engine) as session:
        reports = session.exec(
            select(ReportRow).order_by(ReportRow.game_id, ReportRow.epoch, ReportRow.turn, ReportRow.seat)
        ).all()
        for row in reports:
            game = row.game_id if row.epoch == 0 else f"{row.game_id}@{row.epoch}"
            for form, blob in (("text", row.text_z), ("html", row.html_z)):
                page = unpack(blob).encode("utf-8")
                found[f"{game}/{row.turn}/{row.seat or '-'}/{form}"] = hashlib.sha256(page).hexdigest()
        mails = session.exec(select(OutboxRow.game_id, OutboxRow.dedupe_key, OutboxRow.message_z)).all()
        for _game, key, blob in sorted(mails, key=lambda m: (m[0] or "", _natural(m[1]))):
            found[f"outbox/{key}"] = hashlib.sha256(outbox.unpack_message(blob)).hexdigest()
    return found


def digest_of(found: dict[str, str]) -> str:
    """The one digest: SHA-256 of the manifest, a ``KEY<TAB>SHA-256`` line per item in order."""
    return hashlib.sha256("".join(f"{key}\t{sha}\n" for key, sha in found.items()).encode()).hexdigest()


def run() -> tuple[dict[str, str], dict[str, int]]:
    """Play every game in a new temporary database; (its items, the turns of each game)."""
    turns: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="pbem-digest-") as folder, cheap_passwords():
        engine = connect(f"sqlite:///{Path(folder) / 'digest.sqlite'}")
        try:
            for game_type, game_id, *rest in GAMES:
                turns[game_id] = play(engine, game_type, game_id, *rest)
            return items(engine), turns
        finally:
            engine.dispose()


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two ``--out`` files, a line an item."""
    old, new = before["items"], after["items"]
    lines = [f"differs {key}" for key in old if key in new and old[key] != new[key]]
    lines += [f"only before {key}" for key in old if key not in new]
    lines += [f"only after {key}" for key in new if key not in old]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.digest",
        description="Play the bench's bot games of every game, every report mailed, and print one SHA-256 "
        "over every report page and queued mail: the same before and after a change that must change "
        "no byte players receive.",
    )
    parser.add_argument("--out", type=Path, metavar="FILE.json", help="also write every item's SHA-256")
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BEFORE.json", "AFTER.json"),
        help="play nothing: list the items that differ between two --out files (exit 1 if any)",
    )
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(path.read_text()) for path in args.compare)
        lines = compare(before, after)
        print("\n".join(lines) or f"the same: {before['digest']}")
        return 1 if lines or before["digest"] != after["digest"] else 0
    start = time.perf_counter()
    found, turns = run()
    seconds = time.perf_counter() - start
    digest = digest_of(found)
    counts: dict[str, dict[str, int]] = {}
    for key in found:
        kind, game = (
            ("mails", key.split(":")[1]) if key.startswith("outbox/") else ("pages", key.split("/")[0])
        )
        counts.setdefault(game, {"turns": turns.get(game, 0), "pages": 0, "mails": 0})[kind] += 1
    for game, count in counts.items():
        print(f"# {game}: {count['turns']} turns, {count['pages']} report pages, {count['mails']} mails")
    print(f"# {len(found)} items, played and hashed in {seconds:.1f} s")
    if args.out:
        args.out.write_text(json.dumps({"digest": digest, "counts": counts, "items": found}, indent=1) + "\n")
    print(digest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
