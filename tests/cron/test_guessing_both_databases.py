"""Password guessing limited per seat, end to end on SQLite and on PostgreSQL: guesses from many
addresses hold the seat, a wrong password from another address is then unanswered, the right one is
taken from any address (the hold never costs the player a mail, issue 33), and the player is told
once (pbem.intake.guessing)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.intake import guessing
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import inbound
from pbem.outbox.settings import MailSettings
from pbem.play.orders import template
from pbem.storage.models import OutboxRow, PasswordFailureRow
from tests.cron.conftest import START, new_game
from tests.mail.conftest import mail

SETTINGS = MailSettings(from_addr="host@pbem.example.org")


def test_guesses_from_many_addresses_hold_the_seat_but_not_its_player(engine: Engine) -> None:
    passwords = new_game(engine, "g")
    right = template(engine, "g", "red", suggest=True).replace(PASSWORD_PLACEHOLDER, passwords["red"])
    wrong = right.replace(passwords["red"], "not-the-password")
    for n in range(guessing.SEAT_GUESSES):
        handled = inbound.handle(engine, mail(wrong, frm=f"g{n}@guess.example").as_bytes(), SETTINGS, START)
        assert handled.outcome == "rejected"
    with Session(engine) as session:
        assert len(session.exec(select(PasswordFailureRow)).all()) == guessing.SEAT_GUESSES
    soon = START + timedelta(minutes=1)
    guesser = inbound.handle(engine, mail(wrong, frm="g99@guess.example").as_bytes(), SETTINGS, soon)
    assert guesser.outcome == "rejected" and not guesser.replied
    second = inbound.handle(engine, mail(right, frm="red@home.example").as_bytes(), SETTINGS, soon)
    assert second.outcome == "accepted" and second.replied  # the player's second address
    player = inbound.handle(
        engine, mail(right + "# again\n", frm="red@example.org").as_bytes(), SETTINGS, soon
    )
    assert player.outcome == "accepted"
    with Session(engine) as session:
        told = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key.startswith("held:"))).all()  # type: ignore[attr-defined]
    assert [r.to_addr for r in told] == ["red@example.org"]
