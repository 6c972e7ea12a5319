"""One place decides what an address is: seats and observers at the door, inbound From, every recipient."""

from __future__ import annotations

from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.cli.app import main
from pbem.core.errors import UserError
from pbem.cron import admin
from pbem.intake.addresses import AddressError, normalise
from pbem.mail import inbound
from pbem.outbox.message import header_fields, new_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.storage.db import connect
from pbem.storage.models import GameRow, OutboxRow, SeatRow
from tests.mail.conftest import START, Game, SmtpServer, mail

BAD = {
    "<ann@example.org>": "angle brackets",
    "ann@example.org,cy@example.org": "one address only",
    "ann@@example.org": "exactly one @",
    "ann@localhost": "needs a dot",
    "josé@example.org": "plain ASCII",
    "john.@example.org": "no dot at its start or end",
    "a..b@example.org": "no two dots",
    "a\x7fb@example.org": "control characters",
    "ann@exa_mple.org": "not a valid domain",
    "ann@xn--zz.org": "not a valid domain",
    "": "empty",
    # refused since email-validator judges the syntax: names no mail reaches, and labels IDNA 2008 reserves
    "ann@printer.local": "reserved for local or special use",
    "ann@example.invalid": "reserved for local or special use",
    "ann@abc.onion": "reserved for local or special use",
    "ann@ab--cd.org": "not a valid domain",
    "ann@example.o1": "not a valid domain",
    "a" * 65 + "@example.org": "the part before the @",
    "a" * 64 + "@" + "b" * 60 + "." + "c" * 60 + "." + "d" * 60 + "." + "e" * 8 + ".org": "too long",
}


@pytest.mark.parametrize("address", list(BAD))
def test_a_mistyped_address_is_refused_saying_why(address: str) -> None:
    with pytest.raises(AddressError, match=BAD[address]):
        normalise(address)


def test_addresses_are_lower_case_with_the_domain_in_ascii() -> None:
    assert normalise(" Ann@Example.ORG ") == "ann@example.org"
    assert normalise("x@EXÄMPLE.org") == "x@xn--exmple-cua.org"
    assert normalise("x@xn--exmple-cua.org") == "x@xn--exmple-cua.org"
    assert normalise("o'brien+pbem@mail.example.co.uk") == "o'brien+pbem@mail.example.co.uk"
    assert normalise("ann@example.org.") == "ann@example.org"  # the root's dot: the same domain
    assert normalise("host@pbem.test") == "host@pbem.test"  # RFC 6761's names for tests and demos
    assert normalise("x@Faß.de") == "x@xn--fa-hia.de"  # IDNA 2008: ß is kept, not folded to ss
    assert normalise("x@пример.рф") == "x@xn--e1afmkfd.xn--p1ai"


@pytest.mark.parametrize("address", ["<ann@example.org>", "ann@example.org,cy@example.org", "ann@localhost"])
def test_pbem_new_refuses_a_mistyped_seat_address_and_creates_nothing(
    address: str, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["new", "coral-divers", "--id", "g1", "--db", f"sqlite:///{db_path}"]
    with pytest.raises(SystemExit) as exited:
        main([*args, "--player", f"red={address}", "--player", "blue=bob@example.org"])
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("pbem: seat red: ") and "internal error" not in err, err
    if db_path.exists():
        with Session(connect(f"sqlite:///{db_path}")) as session:
            assert session.exec(select(GameRow)).all() == []


def test_replace_and_observe_refuse_and_normalise(engine: Engine, game: Game) -> None:
    with pytest.raises(UserError, match="exactly one @"):
        admin.replace(engine, game.id, "red", "cy@@example.org", START)
    with pytest.raises(UserError, match="angle brackets"):
        admin.observe(engine, game.id, "<cy@example.org>", START)
    admin.replace(engine, game.id, "red", "Cy@Exämple.org", START)
    with Session(engine) as session:
        seat = session.exec(select(SeatRow).where(SeatRow.name == "red")).one()
    assert seat.email == "cy@xn--exmple-cua.org"


def put(engine: Engine, settings: MailSettings, key: str, to: str) -> None:
    msg = new_message(header_fields(settings, to="placeholder@example.org", subject=key, key=key, now=START))
    msg.set_content(f"mail {key}\n")
    with Session(engine) as session:
        outbox.queue(session, key=key, to=to, message=msg, now=START)
        session.commit()


def test_one_undeliverable_address_fails_its_mail_and_the_others_still_go(
    engine: Engine, settings: MailSettings, smtp: SmtpServer
) -> None:
    # an address stored before the door checked it (or written into the table by hand)
    put(engine, settings, "a", "ann@example.org")
    put(engine, settings, "b", "josé@example.org")
    put(engine, settings, "c", "ann@@example.org")
    put(engine, settings, "d", "bob@example.org")
    result = outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    assert [r.recipients for r in smtp.handler.received] == [["ann@example.org"], ["bob@example.org"]]
    assert len(result.sent) == 2 and len(result.delayed) + len(result.failed) == 2
    with Session(engine) as session:
        bad = session.exec(select(OutboxRow).where(OutboxRow.status != "sent")).all()
    assert all("cannot send to this address" in (r.last_error or "") for r in bad)


def test_an_outsider_with_a_non_ascii_domain_is_answered_in_ascii_and_the_reply_goes(
    engine: Engine, game: Game, settings: MailSettings, smtp: SmtpServer
) -> None:
    raw = mail("what is this?", frm="X <x@exämple.org>").as_bytes(policy=policy.SMTP)
    handled = inbound.handle(engine, raw, settings, START)
    assert handled.sender == "x@xn--exmple-cua.org"
    outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    assert [r.recipients for r in smtp.handler.received] == [["x@xn--exmple-cua.org"]]


@pytest.mark.parametrize("frm", ["john.@example.org", "a..b@example.org", "ann@localhost"])
def test_mail_from_an_address_that_cannot_be_answered_is_not_answered(
    engine: Engine, game: Game, settings: MailSettings, frm: str
) -> None:
    handled = inbound.handle(engine, mail("hello", frm=frm).as_bytes(policy=policy.SMTP), settings, START)
    assert handled.outcome == "ignored" and not handled.replied
