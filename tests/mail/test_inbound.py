"""Handling inbound mail: each message once, each answered (or deliberately not), nothing leaked."""

from __future__ import annotations

import json
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.codec import sha256_hex
from pbem.mail import backscatter, inbound, reading
from pbem.outbox import unpack_message
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.storage.models import InboundRow, OutboxRow, SubmissionRow
from tests.mail.conftest import HOST, START, Game, bot_orders, mail, new_game, orders_text, stored_bytes


def raw(msg: EmailMessage) -> bytes:
    return msg.as_bytes(policy=policy.SMTP)


def replies(engine: Engine) -> list[EmailMessage]:
    with Session(engine) as session:
        found = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
    return [message_from_bytes(unpack_message(r.message_z), policy=policy.default) for r in found]  # type: ignore[misc]


def body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")  # the stored message has SMTP line ends
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


def submissions(engine: Engine) -> list[SubmissionRow]:
    with Session(engine) as session:
        return list(session.exec(select(SubmissionRow).order_by(SubmissionRow.id)))  # type: ignore[arg-type]


def inbound_rows(engine: Engine) -> list[InboundRow]:
    with Session(engine) as session:
        return list(session.exec(select(InboundRow).order_by(InboundRow.id)))  # type: ignore[arg-type]


def test_accepted_orders_are_answered_with_the_receipt_and_the_canonical_orders(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    msg = mail(bot_orders(engine, game, "red"), message_id="<o1@example.org>")
    handled = inbound.handle(engine, raw(msg), settings, START)
    assert (handled.outcome, handled.sender, handled.replied) == ("accepted", "ann@example.org", True)
    (sub,) = submissions(engine)
    assert (sub.status, sub.source, sub.from_address, sub.seat) == (
        "accepted",
        "mail",
        "ann@example.org",
        "red",
    )
    assert sub.orders_json is not None
    signed = orders.receipt_text(game.id, "red", 1, sub.orders_json)  # game, seat, turn and orders
    assert sub.receipt == sha256_hex(signed)
    (reply,) = replies(engine)
    assert reply["To"] == "ann@example.org"
    assert reply["In-Reply-To"] == "<o1@example.org>"
    # under the player's message, in the seat's thread (the root first)
    assert reply["References"] == f"{thread_root(settings, game.id, 'red')} <o1@example.org>"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["X-Loop"] == HOST
    assert reply["Subject"] == "Re: orders"  # the player's own subject
    text = body(reply)
    assert f"Receipt: {sub.receipt}" in text
    assert signed in text  # the exact canonical form, so the player can check the hash
    (row,) = inbound_rows(engine)
    assert (row.outcome, row.submission_id, row.from_address) == ("accepted", sub.id, "ann@example.org")


def test_rejected_orders_are_answered_with_every_error(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = orders_text(game, "red", "  - bid: 99\n  - dive: sideways\n", turn=5)
    handled = inbound.handle(engine, raw(mail(text)), settings, START)
    assert handled.outcome == "rejected"
    (sub,) = submissions(engine)
    errors = json.loads(sub.errors or "[]")
    assert errors
    (reply,) = replies(engine)
    assert str(reply["Subject"]) == "Re: orders"
    assert "NOT accepted" in body(reply)
    for error in errors:
        assert error in body(reply)


def test_a_wrong_password_is_rejected_and_the_attempt_is_not_echoed(
    engine: Engine, game: Game, settings: MailSettings, db_path: Path
) -> None:
    text = bot_orders(engine, game, "red").replace(game.passwords["red"], "guess-word-11")
    assert inbound.handle(engine, raw(mail(text)), settings, START).outcome == "rejected"
    assert "guess-word-11" not in body(replies(engine)[0])
    engine.dispose()
    assert b"guess-word-11" not in stored_bytes(db_path)


def test_a_message_fetched_twice_is_handled_once(engine: Engine, game: Game, settings: MailSettings) -> None:
    data = raw(mail(bot_orders(engine, game, "red")))
    assert inbound.handle(engine, data, settings, START).outcome == "accepted"
    again = inbound.handle(engine, data, settings, START + timedelta(minutes=5))
    assert again.outcome == "duplicate" and not again.replied
    assert len(submissions(engine)) == 1 and len(replies(engine)) == 1


def test_the_same_message_from_two_mailboxes_is_handled_once(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    data = raw(mail(bot_orders(engine, game, "red")))
    via_imap = b"Return-Path: <ann@example.org>\r\nDelivered-To: host@pbem.test\r\n" + data
    via_maildir = b"X-Original-To: orders@pbem.test\nReceived: from mx\n" + data.replace(b"\r\n", b"\n")
    outcomes = [inbound.handle(engine, d, settings, START).outcome for d in (via_imap, via_maildir)]
    assert outcomes == ["accepted", "duplicate"]
    assert len(submissions(engine)) == 1


def test_a_new_message_with_a_reused_message_id_is_still_read(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    first = mail(bot_orders(engine, game, "red"), message_id="<reused@example.org>")
    second = mail(bot_orders(engine, game, "blue"), frm="bob@example.org", message_id="<reused@example.org>")
    assert [inbound.handle(engine, raw(m), settings, START).outcome for m in (first, second)] == [
        "accepted",
        "accepted",
    ]


def test_automated_mail_is_archived_never_answered_never_submitted(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = bot_orders(engine, game, "red")
    automated = [
        mail("I am on holiday", headers={"Auto-Submitted": "auto-replied"}),
        mail(text, headers={"Precedence": "bulk"}),
        mail("Undeliverable", frm="MAILER-DAEMON@example.org"),
        mail(text, headers={"Return-Path": "<>"}),
        mail(text, headers={"X-Loop": HOST}),
        mail(text, frm=HOST),
    ]
    outcomes = [inbound.handle(engine, raw(m), settings, START).outcome for m in automated]
    assert outcomes == ["ignored"] * len(automated)
    assert replies(engine) == [] and submissions(engine) == []
    assert all(r.outcome == "ignored" and r.raw_z for r in inbound_rows(engine))


def test_replies_go_to_the_sender_only_never_to_an_address_in_the_message(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = bot_orders(engine, game, "red") + "\nreply-to: victim@elsewhere.org\n"
    msg = mail(text, headers={"Reply-To": "victim@elsewhere.org", "Cc": "victim@elsewhere.org"})
    inbound.handle(engine, raw(msg), settings, START)
    assert [(str(r["To"]), r["Cc"]) for r in replies(engine)] == [("ann@example.org", None)]


def test_mail_from_several_addresses_is_not_answered(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    msg = mail(bot_orders(engine, game, "red"), frm="ann@example.org, victim@elsewhere.org")
    handled = inbound.handle(engine, raw(msg), settings, START)
    assert handled.outcome == "ignored" and replies(engine) == [] and submissions(engine) == []


def test_from_must_match_the_seat_when_the_game_says_so(engine: Engine, settings: MailSettings) -> None:
    strict = new_game(engine, "pd-strict", require_from_match=True)
    text = bot_orders(engine, strict, "red")
    stranger = inbound.handle(engine, raw(mail(text, frm="cy@example.org")), settings, START)
    assert stranger.outcome == "rejected"
    assert str(replies(engine)[0]["To"]) == "cy@example.org"
    owner = inbound.handle(engine, raw(mail(text, frm="ANN@example.org")), settings, START)
    assert owner.outcome == "accepted"


def test_from_is_recorded_but_not_required_when_the_game_does_not_say_so(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    handled = inbound.handle(
        engine, raw(mail(bot_orders(engine, game, "red"), frm="cy@example.org")), settings, START
    )
    assert handled.outcome == "accepted"
    assert submissions(engine)[0].from_address == "cy@example.org"


def test_html_only_mail_is_read_from_the_text_it_shows(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    msg = mail()
    msg.set_content(f"<html><body><pre>{bot_orders(engine, game, 'red')}</pre></body></html>", subtype="html")
    assert inbound.handle(engine, raw(msg), settings, START).outcome == "accepted"
    assert [s.status for s in submissions(engine)] == ["accepted"]
    (reply,) = replies(engine)
    assert "accepted" in body(reply)


def test_an_empty_mail_is_answered_with_how_to_send_orders(engine: Engine, settings: MailSettings) -> None:
    assert inbound.handle(engine, raw(mail("\n")), settings, START).outcome == "rejected"
    assert "How to send orders" in body(replies(engine)[0])


def test_an_oversized_mail_is_answered_not_read(engine: Engine, game: Game, settings: MailSettings) -> None:
    small = MailSettings(from_addr=HOST, max_message_bytes=2000)
    handled = inbound.handle(engine, raw(mail(bot_orders(engine, game, "red") + "#" * 5000)), small, START)
    assert handled.outcome == "rejected" and submissions(engine) == []
    assert "bytes" in body(replies(engine)[0])


def test_orders_in_an_attachment_are_read(engine: Engine, game: Game, settings: MailSettings) -> None:
    msg = mail("Orders attached.\n-- \nAnn")
    msg.add_attachment(
        bot_orders(engine, game, "red").encode(), "application", "octet-stream", filename="o.yaml"
    )
    assert inbound.handle(engine, raw(msg), settings, START).outcome == "accepted"


def test_orders_above_a_quoted_report_are_read(engine: Engine, game: Game, settings: MailSettings) -> None:
    quoted = "\n".join("> " + line for line in bot_orders(engine, game, "blue").splitlines())
    text = bot_orders(engine, game, "red") + "\nOn Mon, pbem wrote:\n" + quoted + "\n"
    assert inbound.handle(engine, raw(mail(text)), settings, START).outcome == "accepted"
    assert submissions(engine)[0].seat == "red"


def test_the_archived_raw_message_and_the_database_never_hold_the_password(
    engine: Engine, game: Game, settings: MailSettings, db_path: Path
) -> None:
    password = game.passwords["red"]
    msg = mail(bot_orders(engine, game, "red") + "\n" + "ü" * 40, subject=f"my orders ({password})")
    msg.add_attachment(bot_orders(engine, game, "red"), filename="copy.txt", cte="base64")
    inbound.handle(engine, raw(msg), settings, START)
    (row,) = inbound_rows(engine)
    archived = reading.parse(unpack_message(row.raw_z))
    assert "[password redacted]" in reading.decode_part(archived.get_body(preferencelist=("plain",)))  # type: ignore[arg-type]
    assert archived["Message-ID"] == msg["Message-ID"]
    for reply in replies(engine):
        assert password not in reply.as_string()
        assert reply["Subject"] == "Re: my orders ([password redacted])"
    engine.dispose()
    assert password.encode() not in stored_bytes(db_path)


def test_a_run_that_died_after_submitting_is_finished_without_a_second_submission(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    data = raw(mail(bot_orders(engine, game, "red")))
    msg = reading.parse(data)
    key = reading.message_key(data, msg)
    with Session(engine) as session:  # the dead run's claim ...
        session.add(
            InboundRow(
                key=key, received_at=START, from_address="ann@example.org", raw_z=b"", outcome="processing"
            )
        )
        session.commit()
    receipt = orders.submit(  # ... and its submission, of the text it read from the message
        engine, reading.extract(msg).text, source="mail", from_address="ann@example.org", now=START
    )
    busy = inbound.handle(engine, data, settings, START + timedelta(minutes=1))
    assert busy.outcome == "busy" and replies(engine) == []  # ... still fresh: it may yet finish
    finished = inbound.handle(engine, data, settings, START + timedelta(minutes=30))
    assert (finished.outcome, finished.submission_id) == ("accepted", receipt.submission_id)
    assert len(submissions(engine)) == 1
    assert receipt.receipt is not None and receipt.receipt in body(replies(engine)[0])


# ------------------------------------------------------------------------------------------ commands


def envelope(game: Game, seat: str, password: str | None = None) -> str:
    return f"game: {game.id}\nplayer: {seat}\npassword: {password or game.passwords[seat]}\n"


def test_report_command_answers_with_the_latest_report_as_text_and_html(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    handled = inbound.handle(engine, raw(mail("report\n" + envelope(game, "red"))), settings, START)
    assert (handled.outcome, handled.submission_id) == ("command", None)
    (reply,) = replies(engine)
    assert reply["Subject"] == "Re: orders"
    assert body(reply) == orders_report(engine, game, "red", "txt")
    html = reply.get_body(preferencelist=("html",))
    assert html is not None and "<html" in str(html.get_content()).lower()


def orders_report(engine: Engine, game: Game, seat: str, fmt: str) -> str:
    from pbem.render.reports import report

    return report(engine, game.id, seat, fmt=fmt)


def test_report_command_in_the_subject_and_for_an_older_turn(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    inbound.handle(
        engine, raw(mail(envelope(game, "blue") + "turn: 0\n", subject="Re: report")), settings, START
    )
    (reply,) = replies(engine)
    assert reply["Subject"] == "Re: report"
    assert str(reply["To"]) == "ann@example.org"  # the sender, whoever the seat's address is


def test_template_command_answers_with_the_order_file_inline_and_attached(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    inbound.handle(engine, raw(mail("template\n" + envelope(game, "red"))), settings, START)
    (reply,) = replies(engine)
    expected = orders.template(engine, game.id, "red")
    assert expected in body(reply)
    (attached,) = list(reply.iter_attachments())
    assert attached.get_filename() == f"{game.id}-red.yaml"
    assert attached.get_content().replace("\r\n", "\n") == expected
    assert game.passwords["red"] not in reply.as_string()


def test_a_command_with_a_wrong_password_is_refused_without_saying_what_was_wrong(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    inbound.handle(engine, raw(mail("report\n" + envelope(game, "red", "wrong-word-12"))), settings, START)
    inbound.handle(engine, raw(mail("report\n" + envelope(game, "nobody", "wrong-word-12"))), settings, START)
    wrong_password, no_seat = (body(r) for r in replies(engine))
    assert "not carried out" in wrong_password and "do not match" in wrong_password
    assert wrong_password.replace("red", "nobody") == no_seat
    assert "Your pearls" not in wrong_password


def test_a_command_must_come_from_the_seat_s_address_when_the_game_says_so(
    engine: Engine, settings: MailSettings
) -> None:
    strict = new_game(engine, "pd-strict", require_from_match=True)
    inbound.handle(
        engine, raw(mail("report\n" + envelope(strict, "red"), frm="cy@example.org")), settings, START
    )
    # cy's address is no seat's and a refused command proves nothing: the stranger's answer, which
    # says to write from the seat's registered address
    assert body(replies(engine)[0]) == backscatter.stranger_body()
    assert "registered" in backscatter.stranger_body()


def test_help_command_explains_how_to_play_by_mail(engine: Engine, settings: MailSettings) -> None:
    inbound.handle(engine, raw(mail("help")), settings, START)
    assert "How to send orders" in body(replies(engine)[0])


def test_two_messages_of_one_sender_in_one_fetch_are_both_submitted(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    first = bot_orders(engine, game, "red")
    second = first.replace("\norders:", "\n# changed my mind\norders:")
    outcomes = [inbound.handle(engine, raw(mail(t)), settings, START).outcome for t in (first, second)]
    assert outcomes == ["accepted", "accepted"]
    assert [s.status for s in submissions(engine)] == ["superseded", "accepted"]
    assert len(replies(engine)) == 2


def test_mail_read_or_not_is_archived_without_its_password(
    engine: Engine, game: Game, settings: MailSettings, db_path: Path
) -> None:
    password = game.passwords["red"]
    text = bot_orders(engine, game, "red")
    html_only = mail()
    html_only.set_content(f"<html><body><p>{text.replace(chr(10), '<br>')}</p></body></html>", subtype="html")
    bulk = mail(text + "\n" + "ß" * 30, headers={"Precedence": "bulk"})
    outcomes = [inbound.handle(engine, raw(m), settings, START).outcome for m in (html_only, bulk)]
    assert outcomes == ["accepted", "ignored"]
    assert all(row.raw_z for row in inbound_rows(engine))
    engine.dispose()
    assert password.encode() not in stored_bytes(db_path)


def test_a_run_that_died_before_submitting_is_finished_by_submitting(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    data = raw(mail(bot_orders(engine, game, "red")))
    key = reading.message_key(data, reading.parse(data))
    with Session(engine) as session:
        session.add(InboundRow(key=key, received_at=START, raw_z=b"", outcome="processing"))
        session.commit()
    finished = inbound.handle(engine, data, settings, START + timedelta(minutes=30))
    assert finished.outcome == "accepted" and finished.replied
    assert len(submissions(engine)) == 1


def test_orders_with_control_characters_are_rejected_in_words(
    engine: Engine, game: Game, settings: MailSettings
) -> None:
    text = bot_orders(engine, game, "red").replace("orders:", "orders:\x98", 1)
    handled = inbound.handle(engine, raw(mail(text)), settings, START)
    assert handled.outcome == "rejected"
    answer = body(replies(engine)[0])
    assert "NOT accepted" in answer and "character" in answer
    command = inbound.handle(
        engine, raw(mail("report\n" + envelope(game, "red") + "x: \x98\n")), settings, START
    )
    assert command.outcome == "command"
    assert "could not be read" in body(replies(engine)[1])
