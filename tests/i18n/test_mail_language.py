"""A player sets their own language by mail (``language: cs``); from then on every mail to them is in
it and says so in ``Content-Language``: reports, receipts, answers. On SQLite and PostgreSQL."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.mail import inbound, reading
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.play import turns
from pbem.storage.models import OutboxRow, SeatRow
from tests.mail.conftest import HOST, START, bot_orders, mail, new_game

SETTINGS = MailSettings(from_addr=HOST, from_name="pbem test host", retry_seconds=60, max_attempts=3)


def sent(engine: Engine) -> list[EmailMessage]:
    with Session(engine) as session:
        rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
    return [message_from_bytes(unpack_message(r.message_z), policy=policy.default) for r in rows]  # type: ignore[misc]


def text_of(msg: EmailMessage) -> str:
    """The plain text as the player reads it: a format=flowed part unflowed (RFC 3676)."""
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


def seat_language(engine: Engine, seat: str) -> str | None:
    with Session(engine) as session:
        return session.exec(select(SeatRow.language).where(SeatRow.name == seat)).one()


def ask(engine: Engine, body: str, frm: str = "Ann <ann@example.org>") -> inbound.Handled:
    return inbound.handle(
        engine, mail(body, frm=frm, subject="hi").as_bytes(policy=policy.SMTP), SETTINGS, START
    )


def test_the_language_command_sets_the_seats_language(engine: Engine, known_words: dict[str, str]) -> None:
    game = new_game(engine)
    handled = ask(engine, f"language: cs\ngame: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n")
    assert handled.outcome == "command"
    assert seat_language(engine, "red") == "cs"
    [answer] = sent(engine)
    assert answer["Content-Language"] == "cs"
    assert "čeština" in text_of(answer)


def test_the_reports_and_receipts_follow_the_new_language(
    engine: Engine, known_words: dict[str, str]
) -> None:
    game = new_game(engine)
    ask(engine, f"language: ru\ngame: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n")
    handled = ask(engine, bot_orders(engine, game, "red"))
    assert handled.outcome == "accepted"
    receipt = sent(engine)[-1]
    assert receipt["Content-Language"] == "ru"
    turns.process(engine, game.id, now=START, fill_missing=True)  # blue sent nothing: the bot played
    before = len(sent(engine))
    outbox.enqueue_reports(engine, START, settings=SETTINGS)
    reports = {m["To"]: m for m in sent(engine)[before:]}
    red, blue = reports["ann@example.org"], reports["bob@example.org"]
    assert (red["Content-Language"], blue["Content-Language"]) == ("ru", "en")
    assert known_words["ru"].format(seat="blue") in text_of(red)
    assert "The stand-in played for blue this turn" in text_of(blue)


def test_an_unknown_language_is_refused_and_changes_nothing(engine: Engine) -> None:
    game = new_game(engine)
    handled = ask(
        engine, f"language: klingon\ngame: {game.id}\nplayer: red\npassword: {game.passwords['red']}\n"
    )
    assert handled.outcome == "command"
    assert seat_language(engine, "red") is None
    [answer] = sent(engine)
    assert "'klingon' is not a language this host writes; write one of en, hu, cs, zh, ru" in text_of(answer)


def test_a_wrong_password_changes_no_language(engine: Engine) -> None:
    game = new_game(engine)
    ask(engine, f"language: cs\ngame: {game.id}\nplayer: red\npassword: not-the-password\n")
    assert seat_language(engine, "red") is None
    [answer] = sent(engine)
    assert "do not match" in text_of(answer)
    assert answer["Content-Language"] == "en"


def test_a_reminder_is_written_in_the_seats_language(engine: Engine, known_words: dict[str, str]) -> None:
    from pbem.cron.notices import send_notice

    game = new_game(engine)
    ask(engine, f"language: zh\ngame: {game.id}\nplayer: blue\npassword: {game.passwords['blue']}\n")
    before = len(sent(engine))
    for seat in ("red", "blue"):
        assert send_notice(engine, SETTINGS, "reminder", game.id, seat, epoch=0, turn=1, now=START)
    reminders = {m["To"]: m for m in sent(engine)[before:]}
    assert reminders["bob@example.org"]["Content-Language"] == "zh"
    assert reminders["ann@example.org"]["Content-Language"] == "en"


def test_a_new_password_mail_says_its_language_too(engine: Engine) -> None:
    # a mail with a text part only (the new password, a welcome, a held seat's notice) keeps the
    # Content-Language its headers were written with: setting the text must not drop it
    game = new_game(engine)
    ask(engine, f"language: zh\ngame: {game.id}\nplayer: blue\npassword: {game.passwords['blue']}\n")
    before = len(sent(engine))
    ask(engine, f"password\ngame: {game.id}\nplayer: blue\n", frm="Bob <bob@example.org>")
    new = [m for m in sent(engine)[before:] if game.id in str(m["Subject"])]
    assert new, "the new password is mailed"
    assert [m["Content-Language"] for m in new] == ["zh"] * len(new)
