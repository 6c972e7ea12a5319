"""Flat cost: a turn deep in a long game against the same game's turn 20, both as cron plays them.

The long history is the game's own: its real first turns, moved up, under copies of them (turn rows,
reports, submissions, the report mail already sent) from turn 1 on, so every table holds the whole
history a game of that length leaves. Each measured turn is a player's order files submitted, then the
real tick (in this process) resolving the turn, rendering the reports, queuing and delivering the mail.
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
from pbem.cron.tick import TickSettings, tick
from pbem.db import connect
from pbem.mail import outbox
from pbem.mail.settings import MailSettings
from pbem.mail.transport import MaildirTransport
from pbem.models import GameRow, OutboxRow, ReportRow, SubmissionRow, TurnRow
from pbem.orders import submit

GAME = "reef-encounter"
GAME_ID = "flat"
MAIL = MailSettings(from_addr="host@example.org")


def flat(folder: Path, short: int, long: int, window: int, repeats: int) -> float:
    """How much turns ``long`` … ``long + window - 1`` of one game cost over its turns ``short`` … ,
    each window run ``repeats`` times from a copy of the database; the fastest run of each turn counts
    (on a shared machine other work only ever adds time)."""
    seed = long_enough_seed(GAME, short + window)
    build = folder / "flat-build.sqlite"
    engine = connect(f"sqlite:///{build}")
    issued = new_game(engine, GAME, GAME_ID, seed)
    play_to_end(engine, GAME_ID, issued, until=short - 1)
    engine.dispose()
    near, deep = folder / "flat-near.sqlite", folder / "flat-deep.sqlite"
    copy(build, near)
    copy(build, deep)
    lengthen(near, GAME_ID, 0)
    lengthen(deep, GAME_ID, long - short)
    timings: dict[Path, list[list[float]]] = {near: [], deep: []}
    for _ in range(repeats):
        for snapshot in (near, deep):  # interleaved: a slow moment of the machine hits both
            work = folder / "flat-run.sqlite"
            copy(snapshot, work)
            timings[snapshot].append(_window(f"sqlite:///{work}", folder / "outbox", issued, window))
    cost = {snap: sum(min(rep[i] for rep in reps) for i in range(window)) for snap, reps in timings.items()}
    return cost[deep] / cost[near]


def _window(url: str, maildir: Path, issued: dict[str, str], window: int) -> list[float]:
    engine = connect(url)
    transport = MaildirTransport(maildir)
    per_turn = []
    for _ in range(window):
        files = order_files(engine, GAME_ID, issued)
        now = datetime.now(UTC)
        start = time.perf_counter()
        for text in files:
            if not submit(engine, text).accepted:
                raise RuntimeError(f"{GAME_ID}: bot orders rejected")
        summary = tick(
            engine,
            now,
            settings=TickSettings(host="bench-flat"),
            mail=MAIL,
            only=[GAME_ID],
            enqueue=lambda now=now: outbox.enqueue_reports(engine, now, settings=MAIL),
            deliver=lambda now=now: len(outbox.send(engine, transport, now, settings=MAIL).sent),
        )
        per_turn.append(time.perf_counter() - start)
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


def lengthen(path: Path, game_id: str, extra: int) -> None:
    """Give ``game_id`` ``extra`` more turns of history before its current one: its turns from 1 on move
    up by ``extra``, and copies of them (turn rows, reports, submissions) fill turns 1 to ``extra``.
    Every report's mail is then marked sent, as the ticks of those turns would have left it."""
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
            rows = [
                {**data, column.key: number}
                for number in range(1, extra + 1)
                for data in by_turn[cycle[(number - 1) % len(cycle)]]
            ]
            _insert(session, model, rows)
        session.execute(update(GameRow).where(GameRow.id == game_id).values(turn=GameRow.turn + extra))
        _mail_sent(session, game_id)
        session.commit()
    engine.dispose()


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
