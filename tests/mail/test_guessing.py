"""Wrong passwords are limited per seat, whatever the sender: a guesser with many addresses gets no more
answers about one seat than a guesser with one, and the hold never costs the player a mail: the right
password is taken from any address (pbem.intake.guessing, issue 33 finding 2)."""

from __future__ import annotations

import logging
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.codec import unpack
from pbem.intake import guessing
from pbem.mail import inbound
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import OutboxRow, SubmissionRow
from tests.mail.conftest import START, Game, bot_orders, mail, on_both_databases, orders_text

engine = on_both_databases()


def guess(engine: Engine, game: Game, settings: MailSettings, n: int, seat: str = "red", at=START):  # type: ignore[no-untyped-def]
    """One wrong password for ``seat``, from an address of its own (a botnet's)."""
    text = orders_text(game, seat, "  - bid: 1\n", password=f"guess-number-{n}")
    return inbound.handle(engine, mail(text, frm=f"bot{n}@guessers.example").as_bytes(), settings, at)


def outbox_to(engine: Engine, address: str) -> list[str]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).where(OutboxRow.to_addr == address)).all()
    return [
        str(message_from_bytes(unpack_message(r.message_z), policy=policy.default)["Subject"]) for r in rows
    ]


def test_many_senders_get_no_more_answers_about_one_seat(
    engine: Engine, game: Game, settings: MailSettings, caplog: pytest.LogCaptureFixture
) -> None:
    answered = [guess(engine, game, settings, n).replied for n in range(guessing.SEAT_GUESSES)]
    assert answered == [True] * (guessing.SEAT_GUESSES - 1) + [
        False
    ]  # the guess that holds the seat: silence
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        handled = guess(engine, game, settings, 99, at=START + timedelta(minutes=1))
    assert handled.outcome == "rejected" and not handled.replied and "held" in handled.reason
    assert outbox_to(engine, "bot99@guessers.example") == []
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("seat red is held" in w and "bot99@guessers.example" in w for w in warned)


def test_a_held_seat_takes_the_right_password_from_the_players_second_address(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    for n in range(guessing.SEAT_GUESSES + 3):  # held, and the hold grown by three more guesses
        guess(engine, game, settings, n)
    with Session(engine) as session:
        assert guessing.hold(session, game.id, "red", START + timedelta(minutes=1)) is not None
    handled = inbound.handle(
        engine,
        mail(bot_orders(engine, game, "red"), frm="Ann at work <ann@work.example>").as_bytes(),
        settings,
        START + timedelta(minutes=1),
    )
    assert handled.outcome == "accepted" and handled.replied
    assert outbox_to(engine, "ann@work.example") == ["Re: orders"]  # the receipt
    with Session(engine) as session:
        last = session.exec(select(SubmissionRow).order_by(SubmissionRow.id.desc())).first()  # type: ignore[union-attr]
    assert last is not None and last.status == "accepted"
    assert game.passwords["red"] not in unpack(last.raw_z)


def test_the_player_is_told_once_and_their_own_address_still_works(
    engine: Engine, game: Game, settings: MailSettings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        for n in range(guessing.SEAT_GUESSES + 4):
            guess(engine, game, settings, n)
    told = [s for s in outbox_to(engine, "ann@example.org") if "wrong passwords" in s]
    assert told == ["[pbem] pd-1 · wrong passwords for red"]
    assert any("held after 5 wrong passwords" in r.getMessage() for r in caplog.records)
    # the player, from the registered address, with the right password: taken at once
    handled = inbound.handle(
        engine,
        mail(bot_orders(engine, game, "red")).as_bytes(),
        settings,
        START + timedelta(minutes=2),
    )
    assert handled.outcome == "accepted" and handled.replied
    # blue is not held: its own guessers are counted apart
    assert guess(engine, game, settings, 50, seat="blue").replied


def test_the_hold_ends_and_grows_with_every_wrong_password_after_it(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    for n in range(guessing.SEAT_GUESSES):
        guess(engine, game, settings, n)
    with Session(engine) as session:
        held = guessing.hold(session, game.id, "red", START)
    assert held is not None and held.until == START + guessing.FIRST_HOLD
    after = START + guessing.FIRST_HOLD + timedelta(seconds=1)
    # the hold is over, but five wrong passwords are still within the hour: this one holds it again
    checked = guess(engine, game, settings, 20, at=after)
    assert checked.outcome == "rejected" and not checked.replied
    with Session(engine) as session:
        longer = guessing.hold(session, game.id, "red", after)
    assert longer is not None and longer.until == after + 2 * guessing.FIRST_HOLD
    unanswered = guess(engine, game, settings, 21, at=after + guessing.FIRST_HOLD)
    assert unanswered.outcome == "rejected" and not unanswered.replied
    with Session(engine) as session:  # and it grew again: the hold is for wrong passwords, checked
        grown = guessing.hold(session, game.id, "red", after + guessing.FIRST_HOLD)
    assert grown is not None and grown.until == after + guessing.FIRST_HOLD + 4 * guessing.FIRST_HOLD


def test_a_held_seat_answers_commands_with_the_right_password_from_any_address(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    for n in range(guessing.SEAT_GUESSES):
        guess(engine, game, settings, n)
    request = f"game: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n"
    second = inbound.handle(
        engine,
        mail(request, frm="ann@work.example", subject="report").as_bytes(),
        settings,
        START + timedelta(minutes=1),
    )
    assert second.outcome == "command" and second.replied
    wrong = request.replace(game.passwords["red"], "guess-again-1")
    guesser = inbound.handle(
        engine,
        mail(wrong, frm="bot96@guessers.example", subject="report").as_bytes(),
        settings,
        START + timedelta(minutes=1),
    )
    assert guesser.outcome == "command" and not guesser.replied and "held" in guesser.reason
    player = inbound.handle(
        engine, mail(request, subject="report").as_bytes(), settings, START + timedelta(minutes=1)
    )
    assert player.outcome == "command" and player.replied


def test_wrong_passwords_in_commands_count_for_the_seat_too(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    for n in range(guessing.SEAT_GUESSES):
        request = f"game: {game.id}\nplayer: blue\npassword: guess-{n}\n"
        inbound.handle(
            engine,
            mail(request, frm=f"bot{n}@guessers.example", subject="template").as_bytes(),
            settings,
            START,
        )
    assert [s for s in outbox_to(engine, "bob@example.org") if "wrong passwords" in s]
    handled = guess(engine, game, settings, 95, seat="blue")
    assert handled.outcome == "rejected" and not handled.replied


def test_a_seat_that_does_not_exist_is_held_the_same_and_nobody_is_told(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    answered = [
        guess(engine, game, settings, n, seat="nobody").replied for n in range(guessing.SEAT_GUESSES + 1)
    ]
    # as for red: no seat is given away
    assert answered == [True] * (guessing.SEAT_GUESSES - 1) + [False] * 2
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow)).all()
    assert not any("wrong passwords" in r.subject for r in rows)
    assert all(r.to_addr.endswith("@guessers.example") for r in rows)
