"""A solo game by mail: one player against two stand-ins, the host run by its tick (mail read from a
Maildir, reports sent through a real SMTP server, aiosmtpd). Each tick after the player's orders arrive
resolves the turn, with the stand-ins' seats played then: the player never waits for a deadline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from pbem import outbox
from pbem.host import mailsteps
from pbem.host.tick import TickSettings, tick
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import reading, sources
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.models import GameRow
from tests.mail.conftest import HOST, Recorder, _start_smtp, mail

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TICK = TickSettings(host="test", remind_before=3600, outage_after=30 * 86_400)
ANN = "ann@example.org"


def text_of(raw: bytes) -> str:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


def test_a_solo_game_by_mail_resolves_at_the_tick_after_the_orders_arrive(
    engine: Engine, tmp_path: Path
) -> None:
    maildir = tmp_path / "host-mail"
    for folder in ("new", "cur", "tmp"):
        (maildir / folder).mkdir(parents=True)
    got = Recorder()
    controller, smtp = _start_smtp(got)
    settings = MailSettings(from_addr=HOST, from_name="pbem")
    players = [("ann", ANN), ("bo", ""), ("cy", "")]
    bots = {"bo": "normal", "cy": "strong"}
    issued = create_game(
        engine, "mare-balticum", "solo", players, seed=31, turn_seconds=7 * 86_400, bots=bots
    )

    def cron(at: datetime) -> None:
        summary = tick(
            engine,
            at,
            settings=TICK,
            mail=settings,
            fetch=lambda: mailsteps.fetch(engine, sources.read_maildir(maildir), settings, at),
            enqueue=lambda game_id: outbox.enqueue_reports(engine, at, settings=settings, game_id=game_id),
            deliver=lambda: mailsteps.deliver(engine, SmtpTransport(smtp.url), at, settings),
        )
        assert summary.errors == 0, summary.line()

    def turn() -> int:
        with Session(engine) as session:
            row = session.get(GameRow, "solo")
            assert row is not None
            return row.turn

    try:
        at = START + timedelta(minutes=1)
        cron(at)  # the stand-ins' turns before ann's first, if any, and the reports
        for sent in range(3):
            before = turn()
            cron(at := at + timedelta(minutes=5))
            assert turn() == before  # nothing moves without ann's orders: no deadline has passed
            body = orders.template(engine, "solo", "ann", suggest=True).replace(
                PASSWORD_PLACEHOLDER, issued["ann"]
            )
            message = mail(body, frm=f"Ann <{ANN}>", subject=f"orders {sent}")
            (maildir / "new" / f"{sent}.ann").write_bytes(message.as_bytes())
            cron(at := at + timedelta(minutes=1))
            assert (
                turn() > before
            )  # resolved at this tick, minutes after the orders, days before the deadline
    finally:
        controller.stop()
    to_ann = [text_of(r.data) for r in got.received if ANN in [a.lower() for a in r.recipients]]
    assert any("The stand-in played for cy this turn, at the strong level." in t for t in to_ann)
    assert any("The stand-in played for bo this turn, at the normal level." in t for t in to_ann)
    assert all(r.recipients != [""] for r in got.received)  # nothing is mailed to a stand-in's seat
