"""Clocks lie: a tick a year ahead must not freeze the host or move every deadline, and hosts whose clocks
disagree by more than a lease must not send a mail or take an order twice."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem import outbox
from pbem.host import claims, outage, timebase
from pbem.host.tick import TickSettings, tick
from pbem.mail import inbound
from pbem.outbox.message import header_fields, new_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.storage.models import GameRow, HostRow, InboundRow, OutboxRow, SubmissionRow
from tests.cron.conftest import START, bare_games, new_game
from tests.mail.conftest import Game as MailGame
from tests.mail.conftest import Recorder, SmtpServer, _start_smtp, bot_orders, mail

H = timedelta(hours=1)
YEAR = timedelta(days=365)


def deadline(engine: Engine, game_id: str) -> datetime | None:
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        assert game is not None
        return game.deadline_at  # aware UTC, as the column gives it


def test_a_tick_a_year_ahead_is_refused_and_changes_nothing(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    new_game(engine, "g")
    settings = TickSettings(host="h1")
    assert tick(engine, START + H, settings=settings).errors == 0
    before = deadline(engine, "g")
    with caplog.at_level(logging.ERROR, logger="pbem.cron"):
        jumped = tick(engine, START + H + YEAR, settings=settings)
    assert jumped.errors == 1 and jumped.games_seen == 0 and jumped.turns_resolved == 0
    assert any("clock error is likelier" in r.getMessage() for r in caplog.records)
    assert deadline(engine, "g") == before  # not taken for an outage
    assert outage.last_tick(engine) == START + H
    right = tick(engine, START + 2 * H, settings=settings)
    assert right.errors == 0 and right.games_seen == 1


def test_an_operator_may_say_the_long_gap_was_real(engine: Engine) -> None:
    (game,) = bare_games(engine, 1, deadline=START + 2 * H)
    outage.guard(engine, START)
    assert outage.guard(engine, START + 40 * 24 * H, trust_clock=True) == 40 * 24 * 3600
    assert deadline(engine, game) == START + 2 * H + 40 * 24 * H


def test_what_a_clock_ahead_left_behind_does_not_freeze_the_host(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """Claims and last_tick_at a year in the future (as a tick with a wrong clock, on older code or on a
    first tick, leaves them): the next ticks with the right clock see the games, and a real outage after
    that is still detected."""
    new_game(engine, "g")
    tick(engine, START, settings=TickSettings(host="h1"))
    with Session(engine) as session:
        session.exec(update(GameRow).values(claimed_by="h0", claimed_until=START + YEAR))  # type: ignore[call-overload]
        session.exec(
            update(HostRow).where(HostRow.key == "last_tick_at").values(value=(START + YEAR).isoformat())
        )  # type: ignore[call-overload]
        session.commit()
    with caplog.at_level(logging.WARNING, logger="pbem.cron"):
        seen = tick(engine, START + H, settings=TickSettings(host="h1"))
    assert seen.games_seen == 1 and seen.errors == 0
    assert any("in the future" in r.getMessage() for r in caplog.records)
    assert outage.last_tick(engine) == START + H
    before = deadline(engine, "g")
    assert before is not None and before > START + 11 * H
    later = tick(engine, START + 11 * H, settings=TickSettings(host="h1"))  # ten hours without a tick
    assert later.outage_seconds == 10 * 3600
    assert deadline(engine, "g") == before + 10 * H


def test_a_lease_further_ahead_than_a_lease_can_be_is_free(engine: Engine) -> None:
    (game,) = bare_games(engine, 1)
    assert claims.claim(engine, "ahead", START + YEAR) == [game]
    assert claims.claim(engine, "right", START) == [game]  # the clock ahead's lease does not hold it
    assert claims.claim(engine, "other", START + timedelta(minutes=1)) == []  # a real lease still does


def test_the_tick_takes_the_database_s_time_where_it_has_one(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    ahead = datetime.now(UTC) + YEAR
    with caplog.at_level(logging.WARNING, logger="pbem.cron"):
        moment = timebase.tick_moment(engine, None, wall=lambda: ahead)
    if engine.dialect.name == "postgresql":
        assert abs(moment - datetime.now(UTC)) < timedelta(minutes=1)
        assert any("off the database's" in r.getMessage() for r in caplog.records)
    else:  # one file on one machine: its clock, bounded by the outage guard
        assert moment == ahead
    assert timebase.tick_moment(engine, START) == START  # --now is taken as given


# ----------------------------------------------------------------------------- fencing, not clocks


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    controller, server = _start_smtp(Recorder())
    yield server
    controller.stop()


def put(engine: Engine, settings: MailSettings, key: str) -> None:
    msg = new_message(header_fields(settings, to="ann@example.org", subject=key, key=key, now=START))
    msg.set_content(f"mail {key}\n")
    with Session(engine) as session:
        outbox.queue(session, key=key, to="ann@example.org", message=msg, now=START)
        session.commit()


class Slow:
    """A transport in front of a real SMTP server; at the start of its first delivery a second sender,
    whose clock is a lease and a minute ahead, runs a whole send pass."""

    def __init__(self, engine: Engine, smtp: SmtpServer, settings: MailSettings) -> None:
        self.inner, self.engine, self.smtp, self.settings, self.calls = (
            SmtpTransport(smtp.url),
            engine,
            smtp,
            settings,
            0,
        )
        self.idempotent = False

    def __enter__(self) -> Slow:
        self.inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.__exit__(None, None, None)

    def deliver(self, sender: str, recipient: str, message: bytes) -> None:
        self.calls += 1
        if self.calls == 1:
            ahead = START + timedelta(seconds=outbox.CLAIM_SECONDS + 60)
            outbox.send(self.engine, SmtpTransport(self.smtp.url), ahead, settings=self.settings)
        self.inner.deliver(sender, recipient, message)


def test_a_sender_whose_claim_was_taken_over_sends_none_of_the_taken_mails(
    engine: Engine, smtp: SmtpServer
) -> None:
    settings = MailSettings(from_addr="host@example.org")
    for n in range(6):
        put(engine, settings, f"m{n}")
    outbox.send(engine, Slow(engine, smtp, settings), START, settings=settings)
    subjects = [r.data.split(b"Subject: ", 1)[1].split(b"\r\n", 1)[0] for r in smtp.handler.received]
    # the one in flight when the other took over is the accepted at-least-once window; no other
    assert sorted(subjects) == sorted([b"m0", *[f"m{n}".encode() for n in range(6)]])
    with Session(engine) as session:
        assert {r.status for r in session.exec(select(OutboxRow))} == {"sent"}


def test_a_fetch_that_outlived_its_claim_submits_and_answers_nothing(engine: Engine) -> None:
    settings = MailSettings(from_addr="host@pbem.example.org")
    from tests.mail.conftest import new_game as new_mail_game

    game: MailGame = new_mail_game(engine)
    raw = mail(bot_orders(engine, game, "red")).as_bytes()
    msg = inbound.reading.parse(raw)
    key = inbound.reading.message_key(raw, msg)
    claim, at, generation = inbound._claim(engine, key, "ann@example.org", START)  # the slow run
    assert claim == "new"
    # another fetcher, its clock past the stale-claim wait, takes the message over and finishes it
    other = inbound.handle(engine, raw, settings, START + inbound.STALE_CLAIM + timedelta(minutes=1))
    assert other.outcome == "accepted" and other.replied
    late = inbound._finish(engine, raw, msg, key, "ann@example.org", settings, START, at, False, generation)
    assert late.outcome == "busy"
    with Session(engine) as session:
        assert len(session.exec(select(SubmissionRow).where(SubmissionRow.source == "mail")).all()) == 1
        assert len(session.exec(select(OutboxRow)).all()) == 1
        assert session.exec(select(InboundRow.outcome)).all() == ["accepted"]
