"""Wrong passwords are limited per seat, whatever the sender: a guesser with many addresses gets no more
tries at one seat than a guesser with one, and the player is never locked out (pbem.intake.guessing)."""

from __future__ import annotations

import logging
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.intake import guessing
from pbem.mail import inbound
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import OutboxRow, SubmissionRow
from tests.mail.conftest import START, Game, bot_orders, mail, orders_text


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


def test_many_senders_get_no_more_guesses_at_one_seat(
    engine: Engine, game: Game, settings: MailSettings, caplog: pytest.LogCaptureFixture
) -> None:
    for n in range(guessing.SEAT_GUESSES):
        handled = guess(engine, game, settings, n)
        assert handled.outcome == "rejected" and handled.replied  # each a first guess from its sender
    # the right password now, from yet another address: not even checked, and nothing said
    right = bot_orders(engine, game, "red")
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        handled = inbound.handle(
            engine,
            mail(right, frm="bot99@guessers.example").as_bytes(),
            settings,
            START + timedelta(minutes=1),
        )
    assert handled.outcome == "rejected" and not handled.replied
    assert "held" in handled.reason
    with Session(engine) as session:
        last = session.exec(select(SubmissionRow).order_by(SubmissionRow.id.desc())).first()  # type: ignore[union-attr]
    assert last is not None and last.status == "rejected" and guessing.AUTH_HELD in (last.errors or "")
    assert game.passwords["red"] not in (last.errors or "")
    assert outbox_to(engine, "bot99@guessers.example") == []
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("seat red is held" in w and "bot99@guessers.example" in w for w in warned)


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
    checked = guess(engine, game, settings, 20, at=after)  # checked again: a wrong one is answered
    assert checked.outcome == "rejected" and checked.replied
    with Session(engine) as session:
        longer = guessing.hold(session, game.id, "red", after)
    assert longer is not None and longer.until == after + 2 * guessing.FIRST_HOLD
    right = bot_orders(engine, game, "red")
    refused = inbound.handle(
        engine,
        mail(right, frm="bot98@guessers.example").as_bytes(),
        settings,
        after + guessing.FIRST_HOLD,
    )
    assert refused.outcome == "rejected" and not refused.replied
    # never longer than a day, however many wrong passwords
    later = after + 3 * guessing.FIRST_HOLD
    taken = inbound.handle(engine, mail(right, frm="bot97@guessers.example").as_bytes(), settings, later)
    assert taken.outcome == "accepted"


def test_a_held_seat_refuses_commands_unchecked_and_unanswered(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    for n in range(guessing.SEAT_GUESSES):
        guess(engine, game, settings, n)
    request = f"game: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n"
    stranger = inbound.handle(
        engine,
        mail(request, frm="bot96@guessers.example", subject="report").as_bytes(),
        settings,
        START + timedelta(minutes=1),
    )
    assert stranger.outcome == "command" and not stranger.replied and "held" in stranger.reason
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
    right = bot_orders(engine, game, "blue")
    handled = inbound.handle(engine, mail(right, frm="bot95@guessers.example").as_bytes(), settings, START)
    assert handled.outcome == "rejected" and not handled.replied


def test_a_seat_that_does_not_exist_is_held_the_same_and_nobody_is_told(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    answered = [
        guess(engine, game, settings, n, seat="nobody").replied for n in range(guessing.SEAT_GUESSES + 1)
    ]
    assert answered == [True] * guessing.SEAT_GUESSES + [False]  # as for red: no seat is given away
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow)).all()
    assert not any("wrong passwords" in r.subject for r in rows)
    assert all(r.to_addr.endswith("@guessers.example") for r in rows)
