"""A tick that outlived its lease writes nothing once another tick took the game over: every write under
a claim checks the claim's generation (pbem.storage.fencing), on SQLite and on PostgreSQL."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.cron.notices import send_notice
from pbem.host import claims
from pbem.host.tick import Summary, TickSettings, tick
from pbem.outbox import enqueue_reports
from pbem.outbox.settings import MailSettings
from pbem.play import turns
from pbem.storage import fencing
from pbem.storage.models import GameRow, OutboxRow, TurnRow
from tests.cron.conftest import START, new_game, send_orders

MAIL = MailSettings(from_addr="host@example.org")
LEASE = 600


def run(engine: Engine, at: datetime, host: str) -> Summary:
    return tick(
        engine,
        at,
        settings=TickSettings(host=host, lease_seconds=LEASE, outage_after=30 * 86400),
        mail=MAIL,
        enqueue=lambda game_id: enqueue_reports(engine, at, settings=MAIL, game_id=game_id),
    )


def counts(engine: Engine) -> tuple[int, int]:
    with Session(engine) as session:
        turns_ = session.exec(select(func.count()).select_from(TurnRow)).one()
        mails = session.exec(select(func.count()).select_from(OutboxRow)).one()
    return turns_, mails


def game_with_orders_in(engine: Engine) -> None:
    passwords = new_game(engine, "g1")
    for seat, password in passwords.items():
        send_orders(engine, "g1", seat, password, START)
    # the turn-0 reports go out now: what is counted afterwards is what the ticks write
    assert enqueue_reports(engine, START, settings=MAIL) == 2


def paused_tick(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, at: datetime, host: str
) -> tuple[threading.Thread, threading.Event, threading.Event, list[Any]]:
    """Tick ``host`` in a thread, stopped after it claimed the game and resolved its turn from a
    snapshot, just before it writes (a process frozen, a slow disk); resumed by the second event."""
    prepared, resume = threading.Event(), threading.Event()
    real_write: Callable[..., Any] = turns._write
    outcome: list[Any] = []

    def write(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == host and not resume.is_set():
            prepared.set()
            resume.wait(60)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(turns, "_write", write)

    def work() -> None:
        try:
            outcome.append(run(engine, at, host))
        except BaseException as exc:  # handed to the assertion below
            outcome.append(exc)

    thread = threading.Thread(target=work, name=host)
    thread.start()
    assert prepared.wait(60), "the first tick never came to write"
    return thread, prepared, resume, outcome


def test_a_tick_whose_lease_ran_out_writes_nothing_after_another_took_the_game_and_resolved_it(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    game_with_orders_in(engine)
    before = counts(engine)
    first_at = START + timedelta(minutes=5)
    thread, _, resume, outcome = paused_tick(engine, monkeypatch, first_at, "tick-a")
    # the lease of tick-a runs out; tick-b takes the game over and resolves the turn
    second = run(engine, first_at + timedelta(seconds=LEASE + 1), "tick-b")
    assert second.turns_resolved == 1 and second.mails_queued > 0
    after_second = counts(engine)
    assert after_second[0] == before[0] + 1
    resume.set()
    thread.join(60)
    first = outcome[0]
    assert isinstance(first, Summary), first
    assert first.turns_resolved == 0 and first.mails_queued == 0 and first.errors == 0
    assert counts(engine) == after_second  # no doubled turn, no doubled mail


def test_a_tick_whose_lease_ran_out_writes_no_turn_while_another_holds_the_game(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The turn is still unresolved when the first tick resumes, so the turn's compare-and-set alone
    would let it write: only the claim's generation stops it."""
    game_with_orders_in(engine)
    before = counts(engine)
    first_at = START + timedelta(minutes=5)
    thread, _, resume, outcome = paused_tick(engine, monkeypatch, first_at, "tick-a")
    later = first_at + timedelta(seconds=LEASE + 1)
    assert claims.claim(engine, "tick-b", later) == ["g1"]  # tick-b holds the game, not yet at work on it
    with caplog.at_level(logging.WARNING, logger="pbem.cron"):
        resume.set()
        thread.join(60)
    first = outcome[0]
    assert isinstance(first, Summary), first
    assert first.turns_resolved == 0 and first.errors == 0
    assert counts(engine) == before  # nothing written by the tick that lost the game
    assert any("another tick took it over" in r.getMessage() for r in caplog.records)
    with Session(engine) as session:
        game = session.get(GameRow, "g1")
        assert game is not None and game.turn == 0 and game.claimed_by == "tick-b"
    claims.release(engine, "tick-b", "g1", later)
    assert run(engine, later + timedelta(seconds=1), "tick-b").turns_resolved == 1
    assert counts(engine)[0] == before[0] + 1


def test_mail_queued_under_a_lost_claim_is_not_queued(engine: Engine) -> None:
    new_game(engine, "g1")
    generation = claims.claim_generations(engine, "tick-a", START)["g1"]
    assert claims.claim_generations(engine, "tick-b", START + timedelta(seconds=LEASE + 1)) == {
        "g1": generation + 1
    }
    with fencing.holding("g1", generation), pytest.raises(fencing.ClaimLost):
        send_notice(engine, MAIL, "reminder", "g1", "red", epoch=0, turn=1, now=START)
    with fencing.holding("g1", generation), pytest.raises(fencing.ClaimLost):
        enqueue_reports(engine, START, settings=MAIL, game_id="g1")  # the turn-0 reports
    assert counts(engine)[1] == 0
    with fencing.holding("g1", generation + 1):  # the claim that holds the game writes as usual
        assert send_notice(engine, MAIL, "reminder", "g1", "red", epoch=0, turn=1, now=START)
        assert enqueue_reports(engine, START, settings=MAIL, game_id="g1") == 2
    assert counts(engine)[1] == 3
