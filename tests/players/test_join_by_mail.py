"""Open games, joining, leaving, standby and replacements, by mail only, end to end (issue 32): each
player a mailbox on a real IMAP server (Dovecot), all mail through a real SMTP server (aiosmtpd) that
delivers into those mailboxes; on SQLite and on PostgreSQL, with the longest valid game id and seat
names (only PostgreSQL enforces a column's length).

Every code is sent back the way a player does it: a reply to the code's mail, its text left empty,
its Subject kept ("Re: [pbem] confirm K7QD-M2XA-9RTE · ...").
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.mail import inbound, lobby_confirm, reading, sources
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import lobby
from pbem.storage.models import GameRow, LobbyGameRow, LobbySeatRow, SeatRow, StandbyRow, VacancyRow
from tests.mail.conftest import (
    HOST,
    START,
    Dovecot,
    Received,
    Recorder,
    _start_smtp,
    mail,
    on_both_databases,
)

engine = on_both_databases()

PLAYERS = ["ann@example.org", "bob@example.org", "cy@example.org", "dee@example.org"]
#: the longest valid game id (64) and seat names (32)
GAME_ID = "open-" + "x" * 59
SEATS = [(name + "a" * 32)[:32] for name in ("ann-", "bob-", "cy-", "dee-")]


def parse(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


class Host:
    """The host and its players' mailboxes: players send by SMTP, the host runs as cron does."""

    def __init__(self, engine: Engine, dovecot: Dovecot) -> None:
        self.engine, self.dovecot = engine, dovecot
        for user in [HOST, *PLAYERS]:
            dovecot.clear(user)

        def deliver(got: Received) -> None:
            for rcpt in got.recipients:
                dovecot.append(rcpt.lower(), got.data)

        self.controller, self.smtp = _start_smtp(Recorder(deliver=deliver))
        self.settings = MailSettings(from_addr=HOST, from_name="pbem", imap_password=dovecot.passwords[HOST])
        self.now = START

    def send(self, frm: str, body: str, subject: str = "hello") -> None:
        with smtplib.SMTP("127.0.0.1", self.smtp.port) as client:
            client.send_message(mail(body, frm=frm, subject=subject))

    def runs(self, later: timedelta = timedelta(minutes=5)) -> None:
        """What cron does: read mail, start or cancel open games, offer seats, send the outbox."""
        self.now += later
        url = self.dovecot.url(HOST)
        inbound.fetch(
            self.engine, sources.read_imap(url, self.dovecot.passwords[HOST]), self.settings, self.now
        )
        lobby_confirm.due(self.engine, self.settings, self.now)
        result = outbox.send(self.engine, SmtpTransport(self.smtp.url), self.now, settings=self.settings)
        assert result.delayed == [] and result.failed == []

    def inbox(self, user: str) -> list[EmailMessage]:
        return [parse(raw) for raw in self.dovecot.messages(user)]

    def confirm_last_code(self, user: str) -> None:
        """Reply to the newest code's mail in ``user``'s mailbox, its text left empty."""
        coded = [m for m in self.inbox(user) if " confirm " in f" {m['Subject']}"]
        assert coded, f"{user} got no code"
        self.send(user, "", subject="Re: " + str(coded[-1]["Subject"]))

    def welcomes(self, user: str) -> list[EmailMessage]:
        """The welcomes in ``user``'s mailbox: each the root of its seat's thread, or (a seat taken over)
        referring to it first, whatever language its subject is in."""
        roots = {thread_root(self.settings, GAME_ID, seat) for seat in SEATS}
        return [
            m
            for m in self.inbox(user)
            if str(m["Message-ID"]) in roots
            or (
                str(m["References"] or "").split()[:1]
                and str(m["References"]).split()[0] in roots
                and "welcome" in str(m["Subject"])
            )
        ]

    def welcome_password(self, user: str) -> str:
        found = re.search(r"password: (\S+)\n", text_of(self.welcomes(user)[-1]), re.IGNORECASE)
        assert found is not None
        return found.group(1)


@pytest.fixture
def host(engine: Engine, dovecot: Dovecot) -> Iterator[Host]:
    running = Host(engine, dovecot)
    try:
        yield running
    finally:
        running.controller.stop()


def announce(engine: Engine, seats: int, **kwargs: object) -> None:
    lobby.open_game(engine, "coral-divers", GAME_ID, seats, settings={"seed": 32}, now=START, **kwargs)  # type: ignore[arg-type]


def seated(engine: Engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [(s.seat, s.email) for s in lobby.taken(session, GAME_ID)]


def test_an_open_game_filled_by_four_joins_starts_and_welcomes_them(engine: Engine, host: Host) -> None:
    announce(engine, 4)
    host.send("dee@example.org", "games")
    host.runs()
    listed = text_of(host.inbox("dee@example.org")[-1])
    assert f"{GAME_ID}: Coral Divers, 4 of 4 seats free" in listed
    for address, seat in zip(PLAYERS, SEATS, strict=True):
        host.send(address, f"join {GAME_ID} {seat}")
    host.runs()
    assert seated(engine) == []  # nothing happens before the codes come back
    for address in PLAYERS:
        host.confirm_last_code(address)
        host.runs()  # one at a time: the seating order is the order of confirmation
    with Session(engine) as session:
        game = session.get(GameRow, GAME_ID)
        seats = session.exec(
            select(SeatRow).where(SeatRow.game_id == GAME_ID).order_by(SeatRow.position)
        ).all()
        assert game is not None and game.status == "active"
        assert session.get(LobbyGameRow, GAME_ID).status == "started"  # type: ignore[union-attr]
    assert [(s.name, s.email) for s in seats] == list(zip(SEATS, PLAYERS, strict=True))
    for address, seat in zip(PLAYERS, SEATS, strict=True):
        welcomes = host.welcomes(address)
        assert len(welcomes) == 1
        assert f"You play the seat {seat}" in text_of(welcomes[0])
        assert host.welcome_password(address)


def test_a_forged_join_signs_nobody_up_and_its_owner_gets_the_code_only(engine: Engine, host: Host) -> None:
    announce(engine, 2)
    host.send("bob@example.org", "hi")  # nothing to do with it: bob's mailbox has the host's answer
    host.dovecot.clear("ann@example.org")
    # someone else writes From ann's address; ann never answers the code
    host.send("Ann <ann@example.org>", f"join {GAME_ID}")
    host.runs()
    host.runs(timedelta(days=1))
    assert seated(engine) == []
    got = host.inbox("ann@example.org")
    assert len(got) == 1
    assert str(got[0]["Subject"]).startswith("[pbem] confirm ")
    assert "Someone, perhaps you, asked to join game" in text_of(got[0])
    # the code works only from the address it went to: sent from bob's, it signs nobody up
    code = str(got[0]["Subject"]).split()[2]
    host.send("bob@example.org", f"confirm {code}")
    host.runs()
    assert seated(engine) == []


def test_a_seat_left_before_the_start_is_free_again(engine: Engine, host: Host) -> None:
    announce(engine, 2)
    host.send("ann@example.org", f"join {GAME_ID} {SEATS[0]}")
    host.runs()
    host.confirm_last_code("ann@example.org")
    host.runs()
    assert seated(engine) == [(SEATS[0], "ann@example.org")]
    host.send("ann@example.org", f"leave {GAME_ID}")
    host.runs()
    assert seated(engine) == [(SEATS[0], "ann@example.org")]  # not before the code comes back
    host.confirm_last_code("ann@example.org")
    host.runs()
    assert seated(engine) == []
    assert "You left game" in text_of(host.inbox("ann@example.org")[-1])
    host.send("bob@example.org", f"join {GAME_ID} {SEATS[0]}")  # the name is free again too
    host.runs()
    host.confirm_last_code("bob@example.org")
    host.runs()
    assert seated(engine) == [(SEATS[0], "bob@example.org")]


def test_a_resigned_seat_goes_to_the_first_on_the_standby_list(engine: Engine, host: Host) -> None:
    announce(engine, 2)
    host.send("dee@example.org", "standby coral-divers")
    for address, seat in zip(PLAYERS[:2], SEATS[:2], strict=True):
        host.send(address, f"join {GAME_ID} {seat}")
    host.runs()
    for address in ["dee@example.org", *PLAYERS[:2]]:
        host.confirm_last_code(address)
        host.runs()
    with Session(engine) as session:
        assert session.exec(select(StandbyRow.email)).all() == ["dee@example.org"]
        assert session.get(GameRow, GAME_ID).status == "active"  # type: ignore[union-attr]
    password = host.welcome_password("ann@example.org")
    host.send("ann@example.org", f"resign\ngame: {GAME_ID}\nplayer: {SEATS[0]}\npassword: {password}")
    host.runs()
    host.confirm_last_code("ann@example.org")
    host.runs()
    with Session(engine) as session:
        seat = session.exec(select(SeatRow).where(SeatRow.game_id == GAME_ID, SeatRow.name == SEATS[0])).one()
        assert seat.abandoned and seat.email == ""  # the bot plays it meanwhile
    offers = [m for m in host.inbox("dee@example.org") if "a seat is free" in str(m["Subject"])]
    assert len(offers) == 1 and SEATS[0] in text_of(offers[0])
    host.confirm_last_code("dee@example.org")
    host.runs()
    with Session(engine) as session:
        seat = session.exec(select(SeatRow).where(SeatRow.game_id == GAME_ID, SeatRow.name == SEATS[0])).one()
        vacancy = session.exec(select(VacancyRow)).one()
    assert (seat.email, seat.abandoned, vacancy.filled_by) == ("dee@example.org", False, "dee@example.org")
    new_password = host.welcome_password("dee@example.org")
    assert new_password != password
    told = [str(m["Subject"]) for m in host.inbox("bob@example.org")]
    assert any("resigned" in s for s in told) and any("has a new player" in s for s in told)
    # a second confirmation of the same code does nothing again
    host.confirm_last_code("dee@example.org")
    host.runs()
    assert len(host.welcomes("dee@example.org")) == 1


def test_at_its_start_date_bots_take_the_free_seats_or_the_game_is_cancelled(
    engine: Engine, host: Host
) -> None:
    announce(engine, 3, start_by=START + timedelta(days=2), fill_with_bots=True)
    lobby.open_game(
        engine, "coral-divers", "no-bots", 2, settings={}, start_by=START + timedelta(days=2), now=START
    )
    host.send("ann@example.org", f"join {GAME_ID} {SEATS[0]} hu")
    host.send("bob@example.org", "join no-bots")
    host.runs()
    host.confirm_last_code("ann@example.org")
    host.confirm_last_code("bob@example.org")
    host.runs()
    with Session(engine) as session:
        assert session.get(GameRow, GAME_ID) is None  # not before its date
    host.runs(timedelta(days=2))
    with Session(engine) as session:
        seats = session.exec(
            select(SeatRow).where(SeatRow.game_id == GAME_ID).order_by(SeatRow.position)
        ).all()
        assert session.get(LobbyGameRow, "no-bots").status == "cancelled"  # type: ignore[union-attr]
        assert session.get(GameRow, "no-bots") is None
        assert session.exec(select(LobbySeatRow).where(LobbySeatRow.game_id == GAME_ID)).all()
    assert [(s.name, s.email, s.abandoned) for s in seats] == [
        (SEATS[0], "ann@example.org", False),
        ("bot-1", "", True),
        ("bot-2", "", True),
    ]
    (welcome,) = host.welcomes("ann@example.org")
    assert welcome["Content-Language"] == "hu"
    assert "cancelled" in text_of(host.inbox("bob@example.org")[-1])
