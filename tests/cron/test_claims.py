"""Claiming games: a lease no other tick can take while it lasts, taken race-free on both databases."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from pbem.host.claims import claim, release
from pbem.storage.models import GameRow
from tests.cron.conftest import START, bare_games


def test_a_claimed_game_is_skipped_by_another_host_until_released(engine: Engine) -> None:
    ids = bare_games(engine, 5)
    assert claim(engine, "a", START, limit=3) == ids[:3]
    assert claim(engine, "b", START, limit=10) == ids[3:]
    assert claim(engine, "c", START, limit=10) == []
    release(engine, "a", ids[0], START)
    assert claim(engine, "c", START + timedelta(seconds=1), limit=10) == [ids[0]]


def test_a_game_visited_at_this_moment_is_not_visited_again_by_a_tick_of_the_same_moment(
    engine: Engine,
) -> None:
    ids = bare_games(engine, 1)
    claim(engine, "a", START)
    release(engine, "a", ids[0], START)
    assert claim(engine, "b", START) == []
    assert claim(engine, "b", START - timedelta(seconds=1)) == []  # a tick that started earlier
    assert claim(engine, "b", START + timedelta(seconds=1)) == ids


def test_a_lease_that_ran_out_may_be_taken_again(engine: Engine) -> None:
    ids = bare_games(engine, 2)
    claim(engine, "a", START, limit=10, lease_seconds=600)
    assert claim(engine, "b", START + timedelta(seconds=599)) == []
    assert claim(engine, "b", START + timedelta(seconds=601)) == ids


def test_release_leaves_another_hosts_lease_alone(engine: Engine) -> None:
    ids = bare_games(engine, 1)
    claim(engine, "a", START)
    release(engine, "b", ids[0], START)
    with Session(engine) as session:
        game = session.get(GameRow, ids[0])
        assert game is not None and game.claimed_by == "a"


def test_only_active_games_after_the_cursor_are_claimed(engine: Engine) -> None:
    ids = bare_games(engine, 4)
    with Session(engine) as session:
        for game_id, status in ((ids[1], "paused"), (ids[2], "finished")):
            game = session.get(GameRow, game_id)
            assert game is not None
            game.status = status
            session.add(game)
        session.commit()
    assert claim(engine, "a", START, after=ids[0]) == [ids[3]]
    assert claim(engine, "b", START, only=[ids[0], ids[1]]) == [ids[0]]


def test_hosts_claiming_at_once_never_share_a_game(engine: Engine) -> None:
    ids = bare_games(engine, 60)
    taken: dict[str, list[str]] = {f"host{n}": [] for n in range(4)}
    errors: list[BaseException] = []

    def walk(me: str) -> None:
        cursor = ""
        try:
            while got := claim(engine, me, START, after=cursor, limit=3):
                taken[me] += got
                cursor = got[-1]
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=walk, args=(me,)) for me in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    every = [game for got in taken.values() for game in got]
    assert sorted(every) == ids  # each game claimed by exactly one host


def test_on_postgresql_a_row_locked_by_another_claimer_is_skipped_not_waited_for(pg_url: str) -> None:
    from sqlalchemy import text

    from pbem.storage.db import connect
    from pbem.storage.migrations import upgrade

    engine = connect(pg_url)
    upgrade(engine)
    ids = bare_games(engine, 3)
    with engine.connect() as other:  # another host, in the middle of its claim
        other.execute(text("SELECT id FROM game WHERE id = :id FOR UPDATE"), {"id": ids[0]})
        other.execute(text("SET lock_timeout = '2s'"))
        assert claim(engine, "a", START, limit=10) == ids[1:]
        other.rollback()
    assert claim(engine, "b", START, limit=10) == [ids[0]]
    engine.dispose()
