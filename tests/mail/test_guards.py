"""A captured order mail sent again cannot put old orders back; passwords guessed by mail are logged and,
past a limit, answered no more."""

from __future__ import annotations

import logging
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import guards, inbound
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import OutboxRow, SubmissionRow
from tests.mail.conftest import START, Game, bot_orders, mail, orders_text


def statuses(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return [s.status for s in session.exec(select(SubmissionRow).order_by(SubmissionRow.id))]  # type: ignore[arg-type]


def test_a_captured_order_mail_resent_does_not_replace_later_orders(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    first = bot_orders(engine, game, "red")
    later = first.replace("\norders:", "\n# changed my mind\norders:")
    captured = mail(first, message_id="<first@example.org>")
    assert (
        inbound.handle(engine, captured.as_bytes(policy=policy.SMTP), settings, START).outcome == "accepted"
    )
    assert (
        inbound.handle(engine, mail(later).as_bytes(policy=policy.SMTP), settings, START).outcome
        == "accepted"
    )
    del captured["Message-ID"]
    captured["Message-ID"] = "<resent-by-someone@example.org>"
    again = inbound.handle(
        engine, captured.as_bytes(policy=policy.SMTP), settings, START + timedelta(hours=1)
    )
    assert again.outcome == "rejected" and again.reason == "replayed" and again.replied
    assert statuses(engine) == ["superseded", "accepted"]  # the later orders stand; the copy is not stored
    with Session(engine) as session:
        reply = session.exec(select(OutboxRow).order_by(OutboxRow.id.desc())).first()  # type: ignore[union-attr]
    assert reply is not None
    text = message_from_bytes(unpack_message(reply.message_z), policy=policy.default).get_body().get_content()  # type: ignore[union-attr]
    assert "your later orders stand" in text


def test_the_same_orders_as_the_standing_ones_are_taken_as_usual(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    orders = bot_orders(engine, game, "red")
    assert inbound.handle(engine, mail(orders).as_bytes(), settings, START).outcome == "accepted"
    assert inbound.handle(engine, mail(orders).as_bytes(), settings, START).outcome == "accepted"


def test_password_guesses_are_logged_and_answered_no_more_past_the_limit(
    engine: Engine, game: Game, settings: MailSettings, caplog: pytest.LogCaptureFixture
) -> None:
    replied = []
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        for n in range(guards.GUESSES_PER_HOUR + 3):
            guess = orders_text(game, "red", "  - bid: 1\n", password=f"guess-number-{n}")
            handled = inbound.handle(engine, mail(guess, frm="ann@example.org").as_bytes(), settings, START)
            assert handled.outcome == "rejected"
            replied.append(handled.replied)
    assert replied == [True] * guards.GUESSES_PER_HOUR + [False] * 3
    warned = [r.getMessage() for r in caplog.records if "wrong password in mail" in r.getMessage()]
    assert len(warned) == guards.GUESSES_PER_HOUR + 3
    assert "ann@example.org (8 in the last hour; not answered any more)" in warned[-1]
    assert not any("guess-number" in w for w in warned)
    # an hour later the sender is answered again
    later = orders_text(game, "red", "  - bid: 1\n", password="guess-again")
    handled = inbound.handle(
        engine, mail(later, frm="ann@example.org").as_bytes(), settings, START + timedelta(hours=2)
    )
    assert handled.replied


def test_the_same_orders_sent_three_times_are_taken_each_time(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    orders = bot_orders(engine, game, "red")
    outcomes = [inbound.handle(engine, mail(orders).as_bytes(), settings, START).outcome for _ in range(3)]
    assert outcomes == ["accepted"] * 3
