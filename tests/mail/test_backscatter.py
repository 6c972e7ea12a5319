"""Forged senders (issue 33, findings 3 and 4): the host repeats nothing a stranger wrote, answers
strangers a few times an hour in all, and caps what forged mail can make it send a registered player;
a mail that proved a password is always answered."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.mail import backscatter, inbound
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.storage.models import OutboxRow
from tests.mail.conftest import START, Game, bot_orders, mail, on_both_databases

engine = on_both_databases()

SPAM = "Cheap pills at pills.example, call +1 555 0100"


def answers(engine: Engine) -> list[tuple[str, str]]:
    """(address, whole message as text) of every answer queued."""
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key.startswith("reply:"))).all()  # type: ignore[attr-defined]
    return [
        (row.to_addr, message_from_bytes(unpack_message(row.message_z), policy=policy.default).as_string())
        for row in rows
    ]


def test_strangers_are_answered_in_the_hosts_words_only_and_a_few_an_hour_in_all(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    forged = [
        ("password", f"password\ngame: {SPAM}\nplayer: visit-pills-example\n"),
        ("orders", f"game: {game.id}\nplayer: red\nturn: 1\npassword: wrong-guess\norders:\n  - {SPAM}\n"),
        ("report", f"report\ngame: {game.id}\nplayer: pills-example\npassword: x\n"),
        ("frobnicate", f"frobnicate {SPAM}\n"),
    ]
    for n in range(backscatter.STRANGERS_PER_HOUR + 5):
        word, body = forged[n % len(forged)]
        msg = mail(body, frm=f"victim{n}@elsewhere.example", subject=f"{word} {SPAM}")
        inbound.handle(engine, msg.as_bytes(), settings, START + timedelta(seconds=n))
    sent = answers(engine)
    assert len(sent) == backscatter.STRANGERS_PER_HOUR  # per host, whatever the addresses
    for _to, text in sent:
        assert "pills" not in text and "555 0100" not in text and "Re:" not in text  # (a digest may hold 555)
        assert "In-Reply-To" not in text and "References" not in text
        assert "visit-pills-example" not in text and "wrong-guess" not in text
    # the next hour, strangers are answered again (one a day each)
    later = START + timedelta(hours=1, minutes=1)
    inbound.handle(engine, mail("help", frm="late@elsewhere.example").as_bytes(), settings, later)
    inbound.handle(engine, mail("help", frm="late@elsewhere.example").as_bytes(), settings, later)
    assert [to for to, _text in answers(engine)].count("late@elsewhere.example") == 1


def test_forged_password_requests_give_the_player_a_handful_of_mails_not_thirty(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    request = f"password\ngame: {game.id}\nplayer: red\n"
    for n in range(30):
        msg = mail(request, subject=f"password {n}")  # From the player's own address, forged
        inbound.handle(engine, msg.as_bytes(), settings, START + timedelta(seconds=n))
    with Session(engine) as session:
        to_player = session.exec(
            select(OutboxRow.dedupe_key).where(OutboxRow.to_addr == game.emails["red"])
        ).all()
    assert len([k for k in to_player if k.startswith("reply:")]) == backscatter.ANSWERS_PER_HOUR
    assert len([k for k in to_player if k.startswith("password:")]) == 1  # one new password a day
    # orders with the right password are still answered: a receipt is never held back
    handled = inbound.handle(
        engine, mail(bot_orders(engine, game, "red")).as_bytes(), settings, START + timedelta(minutes=1)
    )
    assert handled.outcome == "accepted" and handled.replied
