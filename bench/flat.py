"""Flat cost: a turn deep in a long game against the same game's turn 20, both as cron plays them.

One game is played to turn 19 and copied three times:

- *short*: as it is; its next turn is turn 20;
- *twin*: its turns moved up so that its next turn is numbered 2,000, with nothing under them: a
  history of 19 turns, but the very same next turns as *long* (chance and the bots draw from the
  turn's number, so only equal numbers give equal turns);
- *long*: the same, over copies of its real turns (turn rows, reports, submissions, the report mail
  already sent) from turn 1 on, so every table holds the 1,999 turns of history a game that long leaves.

Each measured turn is a player's order files submitted, then the real tick (in this process) resolving
the turn, rendering the reports, queuing and delivering the mail. A turn's cost is the CPU time this
process spent on it (SQLite works inside it): on a shared machine, wall time mostly measures the wait
for a core, which is the same whatever the history. *long* over *twin* is the cost of the
history alone; *long* over *short* also carries the difference between two different turns of play.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session, select

from bench.play import long_enough_seed, new_game, order_files, play_to_end
from pbem import outbox
from pbem.host.tick import TickSettings, tick
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import MaildirTransport
from pbem.play.orders import submit
from pbem.storage.db import connect
from pbem.storage.models import GameRow, OutboxRow, ReportRow, SubmissionRow, TurnRow

GAME = "reef-encounter"
GAME_ID = "flat"
MAIL = MailSettings(from_addr="host@example.org")


def flat(folder: Path, short: int, long: int, window: int, repeats: int) -> tuple[float, float]:
    """(*long* over *twin*, *long* over *short*): the cost of ``window`` turns from each copy (see the
    module's text), each window run ``repeats`` times from a fresh copy of the database, interleaved;
    the fastest run of each turn counts (on a shared machine other work only ever adds time)."""
    seed = long_enough_seed(GAME, short + window)
    build = folder / "flat-build.sqlite"
    engine = connect(f"sqlite:///{build}")
    issued = new_game(engine, GAME, GAME_ID, seed)
    play_to_end(engine, GAME_ID, issued, until=short - 1)
    engine.dispose()
    copies = {name: folder / f"flat-{name}.sqlite" for name in ("short", "twin", "long")}
    for name, path in copies.items():
        copy(build, path)
        lengthen(path, GAME_ID, 0 if name == "short" else long - short, fill=name == "long")
    timings: dict[str, list[list[float]]] = {name: [] for name in copies}
    for _ in range(repeats):
        for name, snapshot in copies.items():  # interleaved: a slow moment of the machine hits all
            work = folder / "flat-run.sqlite"
            copy(snapshot, work)
            timings[name].append(_window(f"sqlite:///{work}", folder / "outbox", issued, window))
    cost = {name: sum(min(rep[i] for rep in reps) for i in range(window)) for name, reps in timings.items()}
    return cost["long"] / cost["twin"], cost["long"] / cost["short"]


def _window(url: str, maildir: Path, issued: dict[str, str], window: int) -> list[float]:
    engine = connect(url)
    transport = MaildirTransport(maildir)
    per_turn = []
    for _ in range(window):
        files = order_files(engine, GAME_ID, issued)
        now = datetime.now(UTC)
        start = time.process_time()
        for text in files:
            if not submit(engine, text).accepted:
                raise RuntimeError(f"{GAME_ID}: bot orders rejected")
        summary = tick(
            engine,
            now,
            settings=TickSettings(host="bench-flat"),
            mail=MAIL,
            only=[GAME_ID],
            enqueue=lambda game_id, now=now: outbox.enqueue_reports(
                engine, now, settings=MAIL, game_id=game_id
            ),
            deliver=lambda now=now: len(outbox.send(engine, transport, now, settings=MAIL).sent),
        )
        per_turn.append(time.process_time() - start)
        if summary.turns_resolved != 1 or summary.errors:
            raise RuntimeError(f"the tick resolved {summary.turns_resolved} turns, {summary.errors} errors")
    engine.dispose()
    return per_turn


def copy(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite database (its WAL included)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def lengthen(path: Path, game_id: str, extra: int, *, fill: bool = True) -> None:
    """Give ``game_id`` ``extra`` more turns of history before its current one: its turns from 1 on move
    up by ``extra``, and (with ``fill``) copies of them (turn rows, reports, submissions) fill turns 1 to
    ``extra``.
    Every report's mail is then marked sent, as the ticks of those turns would have left it, and the
    host's mail pass is run once over it (it finds nothing to send)."""
    engine = connect(f"sqlite:///{path}")
    tables = [(TurnRow, TurnRow.number), (ReportRow, ReportRow.turn), (SubmissionRow, SubmissionRow.turn)]
    with Session(engine) as session:
        for model, column in tables:
            session.execute(
                update(model).where(model.game_id == game_id, column >= 1).values({column: column + extra})
            )
        for model, column in tables:
            real = list(session.exec(select(model).where(model.game_id == game_id, column > extra)))
            by_turn: dict[int, list[dict[str, Any]]] = {}
            for row in real:
                by_turn.setdefault(getattr(row, column.key) - extra, []).append(
                    row.model_dump(exclude={"id"})
                )
            cycle = sorted(by_turn)
            if not fill:
                continue
            rows = [
                {**data, column.key: number}
                for number in range(1, extra + 1)
                for data in by_turn[cycle[(number - 1) % len(cycle)]]
            ]
            _insert(session, model, rows)
        session.execute(update(GameRow).where(GameRow.id == game_id).values(turn=GameRow.turn + extra))
        _mail_sent(session, game_id)
        session.commit()
    # the host's own mail pass settles whatever else it keeps about mailed reports; it finds none to send
    left = outbox.enqueue_reports(engine, datetime.now(UTC), settings=MAIL)
    engine.dispose()
    if left:
        raise RuntimeError(f"{left} report mails were still unqueued in the lengthened game")


def _mail_sent(session: Session, game_id: str) -> None:
    """One sent mail per seat's report of ``game_id``, as earlier ticks would have left the outbox."""
    session.execute(delete(OutboxRow).where(OutboxRow.game_id == game_id))
    reports = session.exec(
        select(ReportRow.epoch, ReportRow.turn, ReportRow.seat).where(
            ReportRow.game_id == game_id, ReportRow.seat != ""
        )
    ).all()
    now = datetime.now(UTC)
    message = outbox.pack_message(b"Subject: an earlier report\r\n\r\nsent\r\n")
    rows = [
        {
            "dedupe_key": outbox.report_key(game_id, epoch, turn, seat),
            "game_id": game_id,
            "to_addr": f"{seat}@example.org",
            "subject": f"[pbem {game_id}] turn {turn}: report for {seat}",
            "message_z": message,
            "created_at": now,
            "status": "sent",
            "attempts": 1,
            "next_attempt_at": now,
            "sent_at": now,
        }
        for epoch, turn, seat in reports
    ]
    _insert(session, OutboxRow, rows)


def _insert(session: Session, model: Any, rows: list[dict[str, Any]]) -> None:
    table = model.__table__
    for start in range(0, len(rows), 5000):
        session.execute(table.insert(), rows[start : start + 5000])
