"""The outage guard: a host that was down gives the lost time back to every deadline in the gap."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from pbem.host.outage import guard, last_tick
from pbem.storage.models import GameRow
from tests.cron.conftest import START, bare_games

HOUR = timedelta(hours=1)


def _deadline(engine: Engine, game_id: str) -> object:
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        assert game is not None
        return game.deadline_at


def test_a_short_gap_moves_no_deadline(engine: Engine) -> None:
    (game,) = bare_games(engine, 1, deadline=START + 2 * HOUR)
    assert guard(engine, START, 3 * 3600) == 0
    assert guard(engine, START + 2 * HOUR, 3 * 3600) == 0
    assert _deadline(engine, game) == START + 2 * HOUR
    assert last_tick(engine) == START + 2 * HOUR


def test_a_long_gap_extends_deadlines_that_fell_in_it_by_the_gap(engine: Engine) -> None:
    (in_gap,) = bare_games(engine, 1, deadline=START + 2 * HOUR, prefix="in")
    (before,) = bare_games(engine, 1, deadline=START - HOUR, prefix="before")
    guard(engine, START, 3 * 3600)
    assert guard(engine, START + 10 * HOUR, 3 * 3600) == 10 * 3600
    assert _deadline(engine, in_gap) == START + 12 * HOUR
    assert _deadline(engine, before) == START - HOUR  # passed before the host went away: dealt with then


def test_a_gap_is_given_back_once_however_many_ticks_see_it(engine: Engine) -> None:
    (game,) = bare_games(engine, 1, deadline=START + HOUR)
    guard(engine, START, 3600)
    later = START + 5 * HOUR
    given: list[int] = []
    threads = [threading.Thread(target=lambda: given.append(guard(engine, later, 3600))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(given) == [0, 0, 0, 5 * 3600]
    assert _deadline(engine, game) == START + 6 * HOUR
