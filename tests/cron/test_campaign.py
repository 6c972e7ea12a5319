"""Three weeks of play under a fake clock, a tick every three hours: four games, one per way a player can
behave, on SQLite and on PostgreSQL. Deadlines, reminders, late notices, bot turns and an abandoned
seat all happen in seconds."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from itertools import pairwise

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.storage.cron_models import NoticeRow
from pbem.storage.models import GameRow, SubmissionRow
from tests.cron.conftest import DAY, START, new_game, owes, send_orders
from tests.cron.test_tick import run, seat, turn_rows

STEP = timedelta(hours=3)
WEEKS = 3


def _deadline(engine: Engine, game_id: str) -> datetime | None:
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        return row.deadline_at if row.status == "active" else None


def test_three_weeks_of_deadlines_reminders_and_missed_turns(engine: Engine) -> None:
    games = {
        "prompt": new_game(engine, "prompt", rounds=4),  # both send as soon as asked
        "late": new_game(engine, "late", rounds=4, nmr="wait"),  # blue sends 6h after each deadline
        "absent": new_game(engine, "absent", rounds=4, nmr="bot", grace_seconds=3600),  # blue never sends
        "gone": new_game(engine, "gone", rounds=4, nmr="wait", abandon_after=3),  # blue never sends
    }
    resolved = 0
    now = START
    late_turns: set[int] = set()
    while now < START + timedelta(weeks=WEEKS):
        now += STEP
        for game_id, pw in games.items():
            for name in owes(engine, game_id):
                deadline = _deadline(engine, game_id)
                if name == "red" or game_id == "prompt":
                    send_orders(engine, game_id, name, pw[name], now)
                elif game_id == "late" and deadline is not None and now >= deadline + timedelta(hours=6):
                    late_turns.add(send_orders(engine, game_id, name, pw[name], now))
        summary = run(engine, now)
        assert summary.errors == 0
        resolved += summary.turns_resolved

    with Session(engine) as session:
        statuses = {g.id: g.status for g in session.exec(select(GameRow))}
        notices = list(session.exec(select(NoticeRow)))
        sent = list(session.exec(select(SubmissionRow).where(SubmissionRow.status == "consumed")))
    assert statuses == dict.fromkeys(games, "finished")

    # every turn resolved exactly once, numbered without a gap; the ticks' counts agree
    all_turns = {game_id: [t.number for t in turn_rows(engine, game_id)] for game_id in games}
    assert all(numbers == list(range(len(numbers))) for numbers in all_turns.values())
    assert resolved == sum(len(numbers) - 1 for numbers in all_turns.values())

    # reminders: once per turn and seat, and only to a seat whose orders were not in yet
    reminders = [(n.game_id, n.turn, n.seat) for n in notices if n.kind == "reminder"]
    assert len(reminders) == len(set(reminders))
    arrived = {(s.game_id, s.turn, s.seat): s.received_at for s in sent}
    for n in (n for n in notices if n.kind == "reminder"):
        when = arrived.get((n.game_id, n.turn, n.seat))
        assert when is None or when > n.created_at  # type: ignore[operator]
    assert not [r for r in reminders if r[0] == "prompt"]  # prompt players are never reminded

    # the late player: reminded, noticed and counted once for each turn it was late; the game waited
    late_notices = sorted(
        n.turn for n in notices if n.game_id == "late" and n.kind == "late" and n.seat == "blue"
    )
    assert late_notices == sorted(late_turns) and late_turns
    assert {t for g, t, s in reminders if g == "late" and s == "blue"} >= late_turns
    assert seat(engine, "late", "blue").misses == len(late_turns)
    assert all(json.loads(t.by_bot_json) == [] for t in turn_rows(engine, "late"))

    # the absent player under the bot policy: each of its turns played by the bot after deadline + grace
    absent = turn_rows(engine, "absent")
    for before, turn in pairwise(absent):
        if "blue=easy" in json.loads(turn.by_bot_json):
            waited = turn.resolved_at - before.resolved_at  # type: ignore[operator]
            assert waited >= timedelta(seconds=DAY + 3600)
    assert (
        seat(engine, "absent", "blue").misses
        == sum("blue=easy" in json.loads(t.by_bot_json) for t in absent)
        > 0
    )

    # the player who left: abandoned at the third miss, then never waited for again
    gone = seat(engine, "gone", "blue")
    assert (gone.abandoned, gone.misses) == (True, 3)
    abandoned_at = next(n.created_at for n in notices if n.game_id == "gone" and n.kind == "miss-3")
    after = [t for t in turn_rows(engine, "gone") if t.resolved_at > abandoned_at]  # type: ignore[operator]
    assert after and all(
        (t.resolved_at - p.resolved_at) <= STEP  # type: ignore[operator]
        for p, t in pairwise(after)
    )
