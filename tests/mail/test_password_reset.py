"""The ``password`` mail command: a new password to the seat's registered address only, at most once a
day, the old one in force until the new one is first used."""

from __future__ import annotations

import re
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.mail import backscatter, inbound, reading
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.storage.models import OutboxRow
from tests.mail.conftest import HOST, START, Game, SmtpServer, bot_orders, mail, on_both_databases

engine = on_both_databases()


def queued(engine: Engine) -> list[tuple[str, EmailMessage]]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
    return [
        (r.dedupe_key, message_from_bytes(outbox.unpack_message(r.message_z), policy=policy.default))  # type: ignore[misc]
        for r in rows
    ]


def text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def ask(
    engine: Engine, settings: MailSettings, seat: str, *, frm: str, at=START, game_id: str = "pd-1"
) -> str:
    msg = mail(
        f"password\ngame: {game_id}\nplayer: {seat}\n", frm=frm, subject="lost it", headers={"Reply-To": frm}
    )
    handled = inbound.handle(engine, msg.as_bytes(), settings, at)
    assert handled.outcome == "command" and handled.replied
    return text(queued(engine)[-1][1])


def new_password(engine: Engine) -> str:
    resets = [m for k, m in queued(engine) if k.startswith("password:")]
    found = re.search(r"Your new password: (\S+)", text(resets[-1]))
    assert found is not None
    return found.group(1)


def test_the_new_password_goes_to_the_registered_address_never_to_the_sender(
    engine: Engine, game: Game, settings: MailSettings, smtp: SmtpServer
) -> None:
    answer = ask(engine, settings, "red", frm="mallory@evil.example")
    mails = queued(engine)
    (reset,) = [m for k, m in mails if k.startswith("password:")]
    assert reset["To"] == "ann@example.org"  # the seat's own address, not the sender's nor Reply-To
    assert reset["References"].split()[0] == thread_root(settings, "pd-1", "red")
    (reply,) = [m for k, m in mails if k.startswith("reply:")]
    # a stranger's answer repeats nothing of the mail: not its Subject, not the game or seat it named
    assert reply["To"] == "mallory@evil.example" and reply["Subject"] == backscatter.stranger_subject()
    assert text(reply) == backscatter.stranger_body() and "In-Reply-To" not in reply
    password = new_password(engine)
    assert password not in reply.as_string() and "registered address" in answer
    # the answer is the same for a seat that does not exist: nobody learns which seats there are
    # (from another outsider: a stranger's address gets one answer a day, pbem.mail.backscatter)
    other = ask(engine, settings, "purple", frm="eve@evil.example")
    assert other == answer.replace("seat red", "seat purple")
    assert len([k for k, _ in queued(engine) if k.startswith("password:")]) == 1
    # delivered over SMTP to the seat's address alone; the outbox then forgets the password
    outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    got = [r for r in smtp.handler.received if password.encode() in r.data]
    assert [r.recipients for r in got] == [["ann@example.org"]]
    assert all(password.encode() not in outbox.unpack_message(row.message_z) for row in _rows(engine))


def _rows(engine: Engine) -> list[OutboxRow]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow)))


def test_the_old_password_works_until_the_new_one_is_first_used(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    ask(engine, settings, "red", frm="ann@example.org")
    fresh = new_password(engine)
    old_orders = bot_orders(engine, game, "red")
    assert (
        inbound.handle(engine, mail(old_orders, subject="o1").as_bytes(), settings, START).outcome
        == "accepted"
    )
    new_orders = old_orders.replace(game.passwords["red"], fresh)
    assert (
        inbound.handle(engine, mail(new_orders, subject="o2").as_bytes(), settings, START).outcome
        == "accepted"
    )
    # from the first use of the new one on, the old one is refused
    again = mail(old_orders, subject="o3")
    assert inbound.handle(engine, again.as_bytes(), settings, START).outcome == "rejected"
    assert (
        inbound.handle(engine, mail(new_orders, subject="o4").as_bytes(), settings, START).outcome
        == "accepted"
    )


def test_at_most_one_reset_a_day_and_asking_locks_nobody_out(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    ask(engine, settings, "red", frm="x@example.org")
    first = new_password(engine)
    ask(engine, settings, "red", frm="y@example.org", at=START + timedelta(hours=23))  # one answer a day each
    assert len([k for k, _ in queued(engine) if k.startswith("password:")]) == 1
    ask(engine, settings, "red", frm="x@example.org", at=START + timedelta(hours=25))
    second = new_password(engine)
    assert second != first
    assert len([k for k, _ in queued(engine) if k.startswith("password:")]) == 2
    # the original password still works: the requests changed nothing for the player
    orders = bot_orders(engine, game, "red")
    assert inbound.handle(engine, mail(orders).as_bytes(), settings, START).outcome == "accepted"


def test_a_password_request_without_the_player_line_is_refused_in_words(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    answer = ask(engine, settings, "red", frm="ann@example.org").strip()
    assert answer
    msg = mail("password\ngame: pd-1\n", subject="x")
    inbound.handle(engine, msg.as_bytes(), settings, START)
    assert "a password request needs the lines game: and player:" in text(queued(engine)[-1][1])
    assert HOST not in text(queued(engine)[-1][1])
