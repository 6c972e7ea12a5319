"""policy.standing: the tick's look at a game (its clock synced, who owes orders) in one transaction
when the clock is right, and the same answer as sync_clock and due asked one after the other."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session, select

from pbem.cron import policy
from pbem.host.tick import TickSettings, tick
from pbem.outbox.settings import MailSettings
from pbem.storage.cron_models import ClockRow, NoticeRow
from pbem.storage.models import GameRow, SeatRow
from tests.cron.conftest import START, new_game, owes, send_orders

H = timedelta(hours=1)


def _sent_during(engine: Engine, work: Any) -> tuple[Any, list[str]]:
    sent: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(re.sub(r"\s+", " ", statement).strip())

    event.listen(engine, "before_cursor_execute", note)
    try:
        return work(), [s for s in sent if s != "BEGIN"]
    finally:
        event.remove(engine, "before_cursor_execute", note)


def test_a_game_whose_clock_is_right_is_read_in_three_statements_and_nothing_written(engine: Engine) -> None:
    passwords = new_game(engine, "g", seats=("red", "blue", "green"))
    policy.sync_clock(engine, "g", START)  # the clock as the first tick leaves it
    send_orders(engine, "g", "red", passwords["red"], START + H)
    with Session(engine) as session:  # blue is away for a week, green abandoned
        seats = {s.name: s for s in session.exec(select(SeatRow).where(SeatRow.game_id == "g"))}
        blue, green = seats["blue"], seats["green"]
        blue.away_until = START + timedelta(days=7)
        green.abandoned = True
        session.add_all([blue, green])
        session.commit()
    found, sent = _sent_during(engine, lambda: policy.standing(engine, "g", START + 2 * H))
    assert found is not None
    game, where = found
    assert (game.id, where.turn, where.missing) == ("g", 1, ("blue", "green"))
    assert (where.away, where.abandoned) == (("blue",), ("green",))
    assert len(sent) == 3 and all(s.startswith("SELECT") for s in sent)  # game and clock, orders, seats
    with Session(engine) as session:  # the same answer as the two asked apart
        synced = policy.sync_clock(engine, "g", START + 2 * H)
        assert synced is not None
        assert policy.due(session, synced, START + 2 * H) == where


def test_a_game_whose_clock_is_behind_gets_it_synced_first(engine: Engine) -> None:
    new_game(engine, "g")  # no tick has looked at it: no clock row yet
    found = policy.standing(engine, "g", START + H)
    assert found is not None
    game, where = found
    assert where.missing == ("red", "blue") and game.deadline_at is not None
    with Session(engine) as session:
        clock = session.get(ClockRow, "g")
        assert clock is not None and (clock.epoch, clock.turn) == (0, 0)


def test_no_game_no_standing(engine: Engine) -> None:
    assert policy.standing(engine, "nothing-here", START) is None


def test_after_a_turn_the_tick_goes_on_from_the_turns_own_transaction_and_still_reminds(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look at the game after its turn is read in the turn's transaction: the tick asks
    policy.standing once (before the turn), and what it read then is right: the new turn's deadline
    is within the reminder's reach, so every seat it waits for is reminded at once."""
    passwords = new_game(engine, "g")  # a day a turn
    policy.sync_clock(engine, "g", START)
    for name in ("red", "blue"):
        send_orders(engine, "g", name, passwords[name], START + H)
    asked: list[str] = []
    real = policy.standing
    monkeypatch.setattr(policy, "standing", lambda *a: asked.append(a[1]) or real(*a))
    settings = TickSettings(host="test", remind_before=2 * 86400, outage_after=30 * 86400)
    summary = tick(engine, START + 2 * H, settings=settings, mail=MailSettings(from_addr="host@example.org"))
    waited_for = owes(engine, "g")
    assert waited_for and (summary.turns_resolved, summary.reminders, summary.errors) == (
        1,
        len(waited_for),
        0,
    )
    assert asked == ["g"]
    with Session(engine) as session:
        clock = session.get(ClockRow, "g")
        assert clock is not None and clock.turn == 1
        reminded = session.exec(select(NoticeRow.seat).where(NoticeRow.kind == "reminder")).all()
    assert sorted(reminded) == sorted(waited_for)


def test_after_a_turn_the_games_new_state_is_not_loaded_again_under_the_writers_lock_or_after(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's transaction reads only the rows of the look after it, and the seats the new state waits
    for come from the writer, which has that state in memory: on SQLite the one writer's lock (the
    whole database's) is not held for loading it, and it is not loaded after the commit either."""
    passwords = new_game(engine, "g")
    policy.sync_clock(engine, "g", START)
    for name in ("red", "blue"):
        send_orders(engine, "g", name, passwords[name], START + H)
    in_writer: list[bool] = []
    writing = [False]
    real_clock, real_waiting = policy.clock_turn, policy._waiting

    def clock(session: Session, game: Any, turn: int) -> None:  # the turn's writer, under its lock
        writing[0] = True
        real_clock(session, game, turn)

    def waiting(game_id: str, game_type: str, state_z: bytes) -> Any:
        in_writer.append(writing[0])
        return real_waiting(game_id, game_type, state_z)

    monkeypatch.setattr(policy, "clock_turn", clock)
    monkeypatch.setattr(policy, "_waiting", waiting)
    real_commit = Session.commit

    def commit(session: Session) -> None:
        real_commit(session)
        writing[0] = False

    monkeypatch.setattr(Session, "commit", commit)
    settings = TickSettings(host="test", remind_before=3600, outage_after=30 * 86400)
    summary = tick(engine, START + 2 * H, settings=settings, mail=MailSettings(from_addr="host@example.org"))
    assert (summary.turns_resolved, summary.errors) == (1, 0)
    # loaded before the turn only: after it, the writer hands over the seats its new state (in memory)
    # waits for, so that state is not loaded again, under the lock or after it
    assert in_writer == [False]


def test_games_with_equal_states_do_not_share_the_look_at_who_they_wait_for(engine: Engine) -> None:
    """The seats a state waits for are kept for the same game asked again, not for another game whose
    state is byte for byte the same: a real host's games never are, the bench's cloned fleet is, and a
    tick of clones must cost what a tick of real games does."""
    for game_id in ("g1", "g2"):
        new_game(engine, game_id)
    policy._waiting.cache_clear()
    with Session(engine) as session:
        games = [session.get(GameRow, game_id) for game_id in ("g1", "g2")]
        assert games[0] is not None and games[1] is not None
        assert games[0].state_z == games[1].state_z  # the same state, byte for byte
        for game in games + games:
            policy.due(session, game, START)
    assert (policy._waiting.cache_info().misses, policy._waiting.cache_info().hits) == (2, 2)
