"""A conversation played by mail only, through a real SMTP server (aiosmtpd) into real mailboxes
(Dovecot, read over IMAP): the welcome arrives first, the player answers it as an ordinary reply
(greeting, signature, the welcome quoted), loses the password and resets it, and every mail is parsed
back and its headers checked."""

from __future__ import annotations

import re
import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage

from sqlalchemy import Engine

from pbem import outbox
from pbem.core import markers
from pbem.core.registry import register
from pbem.mail import inbound, reading, sources
from pbem.mail.welcome import queue_welcomes
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play.create import create_game
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, Dovecot, Received, Recorder, _start_smtp, on_both_databases

engine = on_both_databases()

ANN = "ann@example.org"


def inbox(dovecot: Dovecot, user: str) -> list[EmailMessage]:
    return [message_from_bytes(raw, policy=policy.default) for raw in dovecot.messages(user)]  # type: ignore[misc]


def text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None and part.get_param("format") == "flowed"
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def test_welcome_reply_reset_and_threads_by_mail_only(engine: Engine, dovecot: Dovecot) -> None:
    for user in (HOST, ANN, "bob@example.org"):
        dovecot.clear(user)

    def deliver(got: Received) -> None:
        for rcpt in got.recipients:
            dovecot.append(rcpt.lower(), got.data)

    controller, smtp = _start_smtp(Recorder(deliver=deliver))
    settings = MailSettings(from_addr=HOST, imap_password=dovecot.passwords[HOST])
    try:
        register(PEARL_DIVE)
        issued = create_game(
            engine, PEARL_DIVE.name, "conv", [("red", ANN), ("blue", "bob@example.org")], seed=9, now=START
        )
        queue_welcomes(engine, "conv", issued, settings=settings, now=START)

        def host_runs() -> None:
            inbound.fetch(
                engine, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings, START
            )
            outbox.enqueue_reports(engine, START, settings=settings)
            result = outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
            assert result.failed == [] and result.delayed == []

        host_runs()
        (welcome,) = inbox(dovecot, ANN)  # the first and only mail: the welcome, holding the report
        root = thread_root(settings, "conv", "red")
        assert welcome["Message-ID"] == root and welcome["Subject"] == "[pbem] conv · welcome, red"
        body = text(welcome)
        assert f"Your password: {issued['red']}" in body and issued["blue"] not in body

        # Ann answers as Gmail does: a greeting, the template from the welcome, a sign-off, the quote
        template = body[body.index(markers.BEGIN) : body.index(markers.END) + len(markers.END)]
        quoted = "\n".join(("> " + line).rstrip() for line in body.split("\n"))
        reply = EmailMessage()
        reply["From"] = f"Ann <{ANN}>"
        reply["To"] = HOST
        reply["Subject"] = f"Re: {welcome['Subject']}"
        reply["Message-ID"] = "<ann-1@example.org>"
        reply["In-Reply-To"] = root
        reply["References"] = root
        reply.set_content(
            f"Hi!\n\n{template}\n\nThanks,\nAnn\n\n"
            f"On Mon, Mar 2, 2026 at 9:00 AM pbem <{HOST}> wrote:\n{quoted}\n"
        )
        with smtplib.SMTP("127.0.0.1", smtp.port) as client:
            client.send_message(reply)
        host_runs()
        answer = inbox(dovecot, ANN)[-1]
        assert answer["Subject"] == "Re: [pbem] conv · welcome, red"
        assert answer["References"].split() == [root, "<ann-1@example.org>"]
        assert "are accepted" in text(answer) and issued["red"] not in answer.as_string()

        # she loses her password: a reset mail, to her registered address, in her thread
        lost = EmailMessage()
        lost["From"] = f"Ann <{ANN}>"
        lost["To"] = HOST
        lost["Subject"] = "password"
        lost["Message-ID"] = "<ann-2@example.org>"
        lost.set_content("game: conv\nplayer: red\n")
        with smtplib.SMTP("127.0.0.1", smtp.port) as client:
            client.send_message(lost)
        host_runs()
        mails = inbox(dovecot, ANN)
        (reset,) = [m for m in mails if "new password" in str(m["Subject"])]
        assert reset["References"].split()[0] == root
        found = re.search(r"Your new password: (\S+)", text(reset))
        assert found is not None and found.group(1) != issued["red"]
        assert all(m["Auto-Submitted"] in ("auto-generated", "auto-replied") for m in mails)
        assert len({m["Message-ID"] for m in mails}) == len(mails)  # nothing delivered twice
        assert inbox(dovecot, "bob@example.org")[0]["Subject"] == "[pbem] conv · welcome, blue"
    finally:
        controller.stop()
