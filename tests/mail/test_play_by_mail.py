"""A whole game played by mail only: each player a mailbox on a real IMAP server (Dovecot), all mail
through a real SMTP server (aiosmtpd) that delivers into those mailboxes.

The players' "brains" are the game's bot (``pbem.play.orders.template(..., suggest=True)``); everything they
learn and everything they send goes by mail: the host reads its mailbox over IMAP, answers and sends
reports over SMTP, and never touches a player's file.
"""

from __future__ import annotations

import re
import smtplib
from collections import Counter
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.codec import sha256_hex
from pbem.core.errors import UserError
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import inbound, reading, sources
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import orders, turns
from pbem.play.create import create_game
from pbem.storage.models import GameRow, ObserverRow, OutboxRow, SubmissionRow
from tests.mail.conftest import HOST, Dovecot, Received, Recorder, _start_smtp, mail, stored_bytes

PLAYERS = {"red": "ann@example.org", "blue": "bob@example.org", "green": "dee@example.org"}
OBSERVER = "cy@example.org"


def parse(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


@pytest.mark.parametrize(
    ("game_type", "players"),
    [
        ("coral-divers", 2),
        pytest.param("reef-encounter", 2, marks=pytest.mark.slow),
        pytest.param("mare-balticum", 3, marks=pytest.mark.slow),
    ],
)
def test_a_game_played_start_to_finish_by_mail_only(
    game_type: str, players: int, engine: Engine, dovecot: Dovecot, db_path: Path
) -> None:
    seats = dict(list(PLAYERS.items())[:players])
    for user in [HOST, *seats.values(), OBSERVER]:
        dovecot.clear(user)

    def deliver(got: Received) -> None:  # the mail server's local delivery: into each recipient's mailbox
        for rcpt in got.recipients:
            dovecot.append(rcpt.lower(), got.data)

    controller, smtp = _start_smtp(Recorder(deliver=deliver))
    settings = MailSettings(from_addr=HOST, from_name="pbem", imap_password=dovecot.passwords[HOST])
    try:
        passwords = create_game(engine, game_type, "by-mail", list(seats.items()), seed=2026)
        with Session(engine) as session:
            session.add(ObserverRow(game_id="by-mail", email=OBSERVER))
            session.commit()
        sent: Counter[str] = Counter()

        def host_runs() -> None:
            """What cron does: read mail, resolve what is ready, mail the reports and replies."""
            inbound.fetch(engine, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings)
            turns.process(engine, "by-mail")
            outbox.enqueue_reports(engine, settings=settings)
            result = outbox.send(engine, SmtpTransport(smtp.url), settings=settings)
            assert result.delayed == [] and result.failed == []

        host_runs()  # the setup reports go out
        for _ in range(200):
            with Session(engine) as session:
                status = session.get(GameRow, "by-mail").status  # type: ignore[union-attr]
            if status == "finished":
                break
            for seat, address in seats.items():
                try:
                    order_file = orders.template(engine, "by-mail", seat, suggest=True)
                except UserError:
                    continue  # nothing is asked of this player now
                body = order_file.replace(PASSWORD_PLACEHOLDER, passwords[seat])
                with smtplib.SMTP("127.0.0.1", smtp.port) as client:
                    client.send_message(mail(body, frm=address, subject=f"orders {seat}"))
                sent[seat] += 1
            host_runs()
        else:
            pytest.fail("the game did not finish in 200 rounds of mail")

        with Session(engine) as session:
            final_turn = session.get(GameRow, "by-mail").turn  # type: ignore[union-attr]
            consumed = session.exec(select(SubmissionRow).where(SubmissionRow.status == "consumed")).all()
            pending_mail = session.exec(select(OutboxRow).where(OutboxRow.status != "sent")).all()
        assert pending_mail == []
        assert sum(sent.values()) == len(consumed)  # every order mailed was used, none lost or doubled

        for seat, address in seats.items():
            inbox = [parse(raw) for raw in dovecot.messages(address)]
            assert len({m["Message-ID"] for m in inbox}) == len(inbox)  # nothing delivered twice
            reports = [m for m in inbox if m.get_content_type() == "multipart/alternative"]
            assert all(
                re.fullmatch(r"\[pbem\] by-mail · turn \d+ · (your move|report)", str(m["Subject"]))
                for m in reports
            )
            numbers = [int(re.search(r"turn (\d+) ·", str(m["Subject"])).group(1)) for m in reports]  # type: ignore[union-attr]
            moves = [
                m for m, n in zip(reports, numbers, strict=True) if str(m["Subject"]).endswith("your move")
            ]
            # "your move" names the turn the orders are for: the template's, one after the report's
            assert all(
                f"\nturn: {n}\n" in text_of(m) for m, n in zip(reports, numbers, strict=True) if m in moves
            )
            numbers = [n - 1 if m in moves else n for m, n in zip(reports, numbers, strict=True)]
            root = thread_root(settings, "by-mail", seat)
            assert all(str(m["References"]).split()[0] == root for m in inbox)  # one thread per seat
            assert numbers == list(range(final_turn + 1))  # one report per turn, in order
            assert all(m.get_content_type() == "multipart/alternative" for m in reports)
            assert "THE GAME IS OVER" in text_of(reports[-1])
            accepted = [m for m in inbox if str(m["Subject"]) == f"Re: orders {seat}"]
            assert len(accepted) == sent[seat]
            receipts = {re.search(r"Receipt: ([0-9a-f]{64})", text_of(m)).group(1) for m in accepted}  # type: ignore[union-attr]
            assert receipts == {s.receipt for s in consumed if s.seat == seat}
            for m in accepted:  # the quoted canonical orders hash to the receipt: the player can prove it
                canonical = (
                    text_of(m).split("Canonical form (the receipt is its SHA-256):\n\n")[1].split("\n")[0]
                )
                assert sha256_hex(canonical.strip()) in receipts
            for other in seats:
                assert passwords[other] not in "".join(m.as_string() for m in inbox)
        public = [parse(raw) for raw in dovecot.messages(OBSERVER)]
        assert [str(m["Subject"]) for m in public][
            -1
        ] == f"[pbem] by-mail · turn {final_turn} · public report"
        assert len(public) == final_turn + 1

        # fetching again finds nothing new; the host's mailbox is all read
        assert (
            inbound.fetch(engine, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings)
            == []
        )
        assert dovecot.unseen(HOST) == 0
        engine.dispose()
        for secret in [*passwords.values(), dovecot.passwords[HOST]]:
            assert secret.encode() not in stored_bytes(db_path)
    finally:
        controller.stop()
